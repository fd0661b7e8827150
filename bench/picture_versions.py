"""A game's next pictures, made by this tree's pbem/mail/pictures.py and by another revision's
(`BENCH_PICTURES_BEFORE`, a git revision, default main), in one process, alternating picture by
picture (each module keeps its own layers, bands, palettes and pieces), CPU time of this process.

    .venv/bin/python -m bench.picture_versions [game ...]

Two ways a sender meets a game's pictures, for each game:
- "in a row": ten versions in a row from the middle of a game of three played by the stand-ins,
  every seat's view of each (bench/scale.py's line), nothing learnt at the start;
- "interleaved": 20 games of the kind played a move each in turn, 12 rounds, the picture of the
  seat whose turn is next after each move (as the replies benchmark's worker meets them); the
  first third not counted (the map and palettes learnt).
No database: the pictures are made (pictures.rasterise), not looked up.
"""

from __future__ import annotations

import copy
import importlib.util
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GAMES = ("elfenland", "elfenwizards", "elixirus", "elven_castle", "zauberschwert")
BEFORE = os.environ.get("BENCH_PICTURES_BEFORE", "main")


def _modules():
    from pbem.mail import pictures

    source = subprocess.run(
        ["git", "-C", str(ROOT), "show", f"{BEFORE}:pbem/mail/pictures.py"], check=True, capture_output=True
    ).stdout
    path = Path(tempfile.mkdtemp()) / "pictures_before.py"
    path.write_bytes(source)
    spec = importlib.util.spec_from_file_location("pictures_before", path)
    before = sys.modules["pictures_before"] = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(before)  # type: ignore[union-attr]
    return before, pictures


def _forget(module) -> None:
    module._FITTED.clear()
    module._text_mask.cache_clear()
    module._layers.clear()
    module._bands.clear()
    module._compiled.clear()
    if hasattr(module, "_pieces"):
        module._pieces.clear()


def _in_a_row(spec) -> list[str]:
    from bench.scale import _next_versions

    return _next_versions(spec)


def _interleaved(spec, games: int = 20, rounds: int = 12) -> list[str]:
    from games.testing import Table

    tables = [Table(spec, 3, seed=f"interleaved {g}".encode()) for g in range(games)]
    svgs = []
    for _round in range(rounds):
        for table in tables:
            waiting = spec.waiting_for(table.state)
            if not waiting:
                continue
            state = copy.deepcopy(table.state)
            table.act(waiting[0], spec.standin(spec.view(state, waiting[0]), spec.legal(state, waiting[0])))
            if waiting := spec.waiting_for(table.state):
                svgs.append(spec.render_svg(spec.view(table.state, waiting[0])))
    return svgs


def _interval(values: list[float]) -> str:
    mean = statistics.mean(values)
    half = 1.96 * statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else 0.0
    return f"{mean * 1000:.2f} ms ± {half * 1000:.2f} (median {statistics.median(values) * 1000:.2f})"


def _line(kind: str, how: str, svgs: list[str], skip: int, modules) -> str:
    from pbem.mail import pictures

    budget = pictures.picture_budget(16_000)  # what a mid-game notice's text and HTML leave
    for module in modules:
        _forget(module)
    spent: dict[str, list[float]] = {"before": [], "now": []}
    sizes: dict[str, list[int]] = {"before": [], "now": []}
    for i, svg in enumerate(svgs):
        for name, module in zip(("before", "now"), modules):
            started = time.process_time()
            png = module.rasterise(svg, budget, kind)
            if i >= skip:
                spent[name].append(time.process_time() - started)
                sizes[name].append(len(png or b""))
    before, now = statistics.mean(spent["before"]), statistics.mean(spent["now"])
    return (
        f"{kind}, {how} ({len(svgs) - skip} pictures): now {_interval(spent['now'])} CPU a picture "
        f"(95 % interval of the mean), {statistics.mean(sizes['now']) / 1000:.1f} kB; before ({BEFORE}) "
        f"{_interval(spent['before'])}, {statistics.mean(sizes['before']) / 1000:.1f} kB: {before / now:.2f}x "
        f"(load average {os.getloadavg()[0]:.1f})"
    )


def main() -> int:
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from pbem.registry import get_game

    modules = _modules()
    print(f"pictures now against {BEFORE}, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}", flush=True)
    for kind in sys.argv[1:] or GAMES:
        spec = get_game(kind)
        print(_line(kind, "ten versions in a row, every seat", _in_a_row(spec), 0, modules), flush=True)
        svgs = _interleaved(spec)
        print(_line(kind, "20 games interleaved", svgs, len(svgs) // 3, modules), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
