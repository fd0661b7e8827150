"""The notice picture on a phone, before and after issue 27: python -m bench.phone_notices

For each game (a stand-in game of three, or as many as it needs, in memory: no database), at its
start, middle and end, the picture of seat 0's turn notice: its PNG's bytes as a notice carries
it (the palette PNG made to fit pbem.mail.pictures.MAX_BYTES) and its smallest label as a phone
shows the picture 360 px wide, measured in Chromium (each text's font size through its
transforms to the screen). "before" is the drawing of the games on the `main` branch (or
BENCH_BEFORE_REF), taken with `git archive` into a temporary folder and run in a subprocess;
"after" is this checkout's (the same rasteriser for both: this checkout's). The target: labels of 11 px or more. Needs /usr/bin/chromium and
the playwright package; without them the labels are left out.
"""

from __future__ import annotations

import copy
import importlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GAMES = ["elfenland", "elfenwizards", "elixirus", "elven_castle", "zauberschwert"]
SHOWN = 360  # px: the width a phone shows the picture at
SMALLEST_LABEL = """(shown) => {
  const svg = document.querySelector('svg');
  svg.removeAttribute('height'); svg.setAttribute('width', shown); svg.style.height = 'auto';
  let least = null;
  for (const t of svg.querySelectorAll('text')) {
    if (!t.textContent.trim()) continue;
    const m = t.getScreenCTM();
    const px = parseFloat(getComputedStyle(t).fontSize) * Math.hypot(m.a, m.b);
    if (least === null || px < least) least = px;
  }
  return least;
}"""


def moments(spec) -> list[tuple[str, dict]]:
    from games.testing import Table

    table = Table(spec, min(max(spec.min_players, 3), spec.max_players), seed=b"bench-phone")
    states = [copy.deepcopy(table.state)]
    while spec.waiting_for(table.state):
        seat = spec.waiting_for(table.state)[0]
        table.act(seat, spec.standin(spec.view(table.state, seat), spec.legal(table.state, seat)))
        states.append(copy.deepcopy(table.state))
    return [("start", states[0]), ("middle", states[len(states) // 2]), ("end", states[-1])]


def figures() -> dict:
    """{game: {moment: [png bytes, smallest label px]}} for the games importable as `games`."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ.setdefault("SECRET_KEY", "bench-only")
    import django

    django.setup()
    from pbem.mail import pictures

    svgs = {}
    for kind in GAMES:
        spec = importlib.import_module(f"games.{kind}").GAME
        svgs[kind] = {moment: spec.render_svg(spec.view(state, 0)) for moment, state in moments(spec)}
    labels = measure(svgs)
    return {
        kind: {moment: [len(pictures.rasterise(svg) or b""), labels.get((kind, moment))] for moment, svg in by.items()}
        for kind, by in svgs.items()
    }


def measure(svgs: dict) -> dict:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return {}
    if not os.path.exists("/usr/bin/chromium"):
        return {}
    found = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--headless", "--no-sandbox"])
        page = browser.new_page(viewport={"width": 390, "height": 800})
        for kind, by in svgs.items():
            for moment, svg in by.items():
                page.set_content(svg)
                found[(kind, moment)] = page.evaluate(SMALLEST_LABEL, SHOWN)
        browser.close()
    return found


def before(ref: str) -> dict:
    """figures() of `ref`'s games, in a subprocess whose `games` package is that ref's."""
    with tempfile.TemporaryDirectory() as folder:
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", ref, "games"], capture_output=True, check=True)
        subprocess.run(["tar", "-x", "-C", folder], input=archive.stdout, check=True)
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([folder, str(ROOT)])}
        run = subprocess.run(
            [sys.executable, "-m", "bench.phone_notices", "--json"], cwd=folder, env=env, capture_output=True, text=True
        )
        if run.returncode:
            raise SystemExit(run.stderr)
        return json.loads(run.stdout.strip().splitlines()[-1])


def main() -> None:
    if "--json" in sys.argv:
        print(json.dumps(figures()))
        return
    ref = os.environ.get("BENCH_BEFORE_REF", "main")
    old, new = before(ref), figures()

    def label(px):
        return f"{px:5.1f} px" if px is not None else "   n/a  "

    print(f"picture of seat 0's notice (PNG bytes as carried; smallest label shown {SHOWN} px wide); target >= 11 px")
    print(f"{'game':14} {'moment':7} {'before (' + ref + ')':>24}   {'after':>24}")
    for kind in GAMES:
        for moment in ("start", "middle", "end"):
            (ob, ol), (nb, nl) = old[kind][moment], new[kind][moment]
            print(f"{kind:14} {moment:7} {ob:8} B  {label(ol)}       {nb:8} B  {label(nl)}")


if __name__ == "__main__":
    main()
