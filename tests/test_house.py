"""Functions a screen long: no function in games/ or pbem/ (migrations aside) is longer than 80
lines, and the median function is at most 8 lines (issue 30).

A function's length is `end_lineno - lineno + 1` of its `def` (FunctionDef and
AsyncFunctionDef, methods and nested functions each counted on their own; a nested function
also counts in the function around it). Decorators are not counted: `lineno` is the line of
`def` itself. Docstrings and comments inside the body are counted."""

from __future__ import annotations

import ast
import multiprocessing
import statistics
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parent.parent
ROOTS = ("games", "pbem")
LONGEST = 80
MEDIAN = 8


class Function(NamedTuple):
    lines: int
    path: str
    line: int
    name: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line} {self.name} ({self.lines} lines)"


def functions(base: Path, roots=ROOTS) -> list[Function]:
    """Every function under base/<root> for each root, migrations aside.

    Parsed in a fresh interpreter: after the doors' tests (mail nested a thousand deep) CPython
    3.11.7's `ast.parse` in the same process failed with "SystemError: AST constructor recursion
    depth mismatch" (a CPython bug, not our files: alone, the same parse passes), also in a new
    thread. A spawned process has none of what earlier tests left."""
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
        return pool.submit(_functions, base, roots).result()


def _functions(base: Path, roots) -> list[Function]:
    out = []
    for root in roots:
        for path in sorted((base / root).rglob("*.py")):
            if "migrations" in path.relative_to(base).parts:
                continue
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    length = node.end_lineno - node.lineno + 1  # type: ignore[operator]
                    out.append(Function(length, str(path.relative_to(base)), node.lineno, node.name))
    return out


def too_long(found: list[Function]) -> list[Function]:
    return sorted((f for f in found if f.lines > LONGEST), reverse=True)


def test_no_function_in_games_or_pbem_is_longer_than_80_lines():
    found = functions(ROOT)
    assert len(found) > 1000, "the walker found too few functions: is it reading the right folders?"
    offenders = too_long(found)
    assert not offenders, "longer than 80 lines:\n" + "\n".join(map(str, offenders))


def test_the_median_function_in_games_and_pbem_is_at_most_8_lines():
    found = functions(ROOT)
    median = statistics.median(f.lines for f in found)
    longest = sorted(found, reverse=True)[:20]
    assert median <= MEDIAN, f"median {median} lines over {len(found)} functions; the longest:\n" + "\n".join(
        map(str, longest)
    )


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def test_the_walker_catches_an_81_line_function_but_not_its_decorators_nor_migrations(tmp_path):
    body = "".join(f"    x{i} = {i}\n" for i in range(79))
    _write(tmp_path / "games" / "toy" / "rules.py", f"@staticmethod\n@staticmethod\ndef long():\n{body}    return 0\n")
    _write(
        tmp_path / "games" / "toy" / "short.py", f"@staticmethod\nasync def short():\n{body[: -len('x78 = 78') - 5]}"
    )
    _write(tmp_path / "pbem" / "migrations" / "0001_initial.py", f"def migrate():\n{body}{body}")
    found = functions(tmp_path)
    assert [(f.name, f.lines) for f in sorted(found)] == [("short", 79), ("long", 81)]
    assert [str(f) for f in too_long(found)] == ["games/toy/rules.py:3 long (81 lines)"]
