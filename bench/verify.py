"""The offline verifier's time on the largest recorded logs, before and after issue 26 (not a test):

    .venv/bin/python -m bench.verify [REVISION]     # REVISION: the "before" (default 1b375ea)

"Before" is pbem/audit/verify.py as it was at REVISION (read with `git show`, run on this
checkout's chain, fold and games, which it shares): json.loads, then its checks. "After" is
today's: the strict bounded reading, the written format, every check (scheme, header, visibility,
end, deal, …), and the replay. Both on the same bytes in the same process, each the best of
several runs, in CPU time and wall time. Needs no database.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import time
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LOGS = ROOT / "tests" / "chain_logs"
BEFORE = "1b375ea"
RUNS = 7


def old_verifier(revision: str) -> types.ModuleType:
    source = subprocess.run(
        ["git", "show", f"{revision}:pbem/audit/verify.py"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    module = types.ModuleType("verify_before")
    module.__file__ = f"{revision}:pbem/audit/verify.py"
    sys.modules[module.__name__] = module  # dataclasses look their module up by name
    exec(compile(source, module.__file__, "exec"), module.__dict__)  # noqa: S102 - our own file at a revision
    return module


def timed(run, runs: int = RUNS) -> tuple[float, float]:
    """(best CPU ms, median wall ms) over `runs` runs."""
    cpu, wall = [], []
    for _ in range(runs):
        c0, w0 = time.process_time(), time.perf_counter()
        run()
        cpu.append(time.process_time() - c0)
        wall.append(time.perf_counter() - w0)
    return min(cpu) * 1000, statistics.median(wall) * 1000


def largest() -> list[Path]:
    """The largest complete log of each scheme."""
    return [max(LOGS.glob(f"scheme{s}_*_complete.json"), key=lambda p: p.stat().st_size) for s in (1, 2)]


def main(argv: list[str]) -> None:
    from pbem.audit import verify

    revision = argv[0] if argv else BEFORE
    before = old_verifier(revision)
    print(f"python -m pbem.verify on the largest recorded logs; before = {revision}, after = this checkout")
    print(f"{'log':40} {'events':>6} {'KB':>5}  {'before cpu/wall ms':>20}  {'after cpu/wall ms':>20}  after/before")
    for path in largest():
        raw = path.read_bytes()
        events = len(json.loads(raw)["events"])
        old = before.verify_document(json.loads(raw))
        new = verify.verify_bytes(raw)
        assert old.ok and new.ok, (old.problems, new.problems)
        then = timed(lambda raw=raw: before.verify_document(json.loads(raw)))
        now = timed(lambda raw=raw: verify.verify_bytes(raw))
        print(
            f"{path.name:40} {events:6} {len(raw) // 1024:5}  {then[0]:9.1f} / {then[1]:8.1f}  "
            f"{now[0]:9.1f} / {now[1]:8.1f}  {now[0] / then[0]:10.2f}x"
        )


if __name__ == "__main__":
    main(sys.argv[1:])
