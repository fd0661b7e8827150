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

    .venv/bin/python -m bench.picture_versions --sender [rounds]

The pictures of notices as the sender meets them (issue 34): 20 Elven Castle games of three
played by the stand-in to mid-game, then three moves each, every seat's notice of each game's
last version, through `board_png` (the view, its key, the SVG, the drawing; what is kept held in
memory in place of the database), each round with nothing of the process's learnt (its first
pictures), rounds alternating this tree's pictures.py and games/elven_castle/view.py against
BENCH_PICTURES_BEFORE's: the CPU a notice.
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


def _view_before():
    """BEFORE's games/elven_castle/view.py, loaded beside this tree's (its render_svg)."""
    source = subprocess.run(
        ["git", "-C", str(ROOT), "show", f"{BEFORE}:games/elven_castle/view.py"], check=True, capture_output=True
    ).stdout
    path = Path(tempfile.mkdtemp()) / "view_before.py"
    path.write_bytes(source)
    name = "games.elven_castle._view_before"
    spec = importlib.util.spec_from_file_location(name, path)
    module = sys.modules[name] = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def _forget(module) -> None:
    module._FITTED.clear()
    module._text_mask.cache_clear()
    module._layers.clear()
    module._bands.clear()
    module._compiled.clear()
    if hasattr(module, "_plans"):
        module._plans.clear()
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


def _sender_notices(spec, games: int = 20, moves: int = 3) -> list[tuple[int, int, int, dict]]:
    """(game, version, seat, state) of each seat's notice of each game's last version: `games`
    games of three played by the stand-in to the middle of a game, then `moves` more (a game's
    middle a move later than the game's before it, in ten steps: the stand-in plays alike)."""
    from games.testing import Table

    notices = []
    for g in range(games):
        table, version = Table(spec, 3, seed=f"sender {g}".encode()), 0
        while (waiting := spec.waiting_for(table.state)) and version < 18 + g % 10 + moves:
            table.act(waiting[0], spec.standin(spec.view(table.state, waiting[0]), spec.legal(table.state, waiting[0])))
            version += 1
        notices += [(g, version, seat, copy.deepcopy(table.state)) for seat in range(3)]
    return notices


def _sender_round(module, spec, notices) -> float:
    """The CPU a notice of making its picture with `module` (its board_png), nothing learnt before."""
    from pbem.log import eventlog

    _forget(module)
    kept: dict = {}
    module._kept_of = lambda pairs: {pair: kept.setdefault(pair, {}) for pair in pairs}
    module._keep = lambda game_id, version, rows: None  # the rows are in `kept` already (board_png's boxes)
    budget = module.picture_budget(16_000)
    started = time.process_time()
    with eventlog.shared_loads():
        for game_id, version, seat, state in notices:
            module.board_png(spec, state, seat, budget, game_id, version)
    return (time.process_time() - started) / len(notices)


def sender_main(rounds: int) -> int:
    import dataclasses
    import gc

    from pbem.registry import get_game

    before, now = _modules()
    spec = get_game("elven_castle")
    old_spec = dataclasses.replace(spec, render_svg=_view_before().render_svg)
    notices = _sender_notices(spec)
    spent: dict[str, list[float]] = {"before": [], "now": []}
    gc.disable()  # as the sender's batch (sending._collector_paused)
    for _round in range(rounds):
        for name, module, game in (("before", before, old_spec), ("now", now, spec)):
            spent[name].append(_sender_round(module, game, notices))
    gc.enable()
    pictures = len({now.drawing_digest(spec.render_svg(spec.view(state, seat))) for _g, _v, seat, state in notices})
    print(
        f"Elven Castle notices' pictures as the sender meets them ({len(notices)} notices, {pictures} distinct "
        f"drawings; {rounds} rounds alternating, each with nothing learnt): now {_interval(spent['now'])} CPU a "
        f"notice; before ({BEFORE}) {_interval(spent['before'])}: "
        f"{statistics.mean(spent['before']) / statistics.mean(spent['now']):.2f}x "
        f"(load average {os.getloadavg()[0]:.1f})",
        flush=True,
    )
    return 0


def main() -> int:
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from pbem.registry import get_game

    if sys.argv[1:2] == ["--sender"]:
        return sender_main(int(sys.argv[2]) if len(sys.argv) > 2 else 5)
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
