"""The web board in Debian's Chromium (Playwright, headless): on a phone (390 px viewport, a
358 px board area) and a desktop (1280 px, a 1200 px area), for positions of a 4-player game.

Measured, not assumed: the rendered size of every visible text (its font size times the
drawing's scale), that the page does not scroll sideways, that every linked target is at least
44 px in both directions, and that the links are reached with the Tab key. Screenshots go to
test-artifacts/zauberschwert/. Needs /usr/bin/chromium; never `playwright install`.
"""

from __future__ import annotations

import json

import pytest

from games.testing import canonical, play_random
from games.zauberschwert import GAME
from tests.chromium import CHROMIUM, NEEDS_CHROMIUM, artifacts

ARTIFACTS = artifacts("zauberschwert")

pytestmark = NEEDS_CHROMIUM
sync_api = pytest.importorskip("playwright.sync_api", reason="the playwright package is not installed")

# The platform's board box: a border, a little padding, the drawing at most its width.
PAGE = """<!doctype html><html><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{{margin:16px;font-family:sans-serif}}
.board{{box-sizing:border-box;width:{width}px;max-width:100%;overflow-x:auto;border:1px solid #ddd;padding:4px}}
.board svg{{max-width:100%;height:auto}}</style></head>
<body><h1>Seat page</h1><section class="board" aria-label="The board">{board}</section></body></html>"""

MEASURE = """() => {
  const svg = [...document.querySelectorAll('.board svg')].find(s => s.getBoundingClientRect().width > 0);
  const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
  const sizes = [...svg.querySelectorAll('text')].map(t => parseFloat(getComputedStyle(t).fontSize) * scale);
  const links = [...svg.querySelectorAll('a')].map(a => {
    const r = a.getBoundingClientRect();
    return {w: r.width, h: r.height, name: a.getAttribute('aria-label')};
  });
  return {drawing: svg.getAttribute('class'), width: svg.getBoundingClientRect().width, sizes, links,
          scrolls: document.documentElement.scrollWidth > document.documentElement.clientWidth};
}"""


def positions():
    """(name, view, links) at a placement, a fight, trading and the end of a 4-player game."""
    found = {}

    def keep(table):
        step = table.state["step"]
        if step in ("place", "auction", "trade", "spells") and step not in found and table.state["round"] >= 6:
            seat = GAME.waiting_for(table.state)[0]
            found[step] = (json.loads(canonical(table.state)), seat)

    table = play_random(GAME, 4, seed=21, check=keep)
    found["over"] = (table.state, 0)
    out = []
    for name, (state, seat) in found.items():
        targets = {c.target for c in GAME.choices_for(state, seat) if c.target}
        if name == "over":
            targets = {"zs-player-red", "zs-hand-" + state["hand"][0][0]} if state["hand"][0] else {"zs-player-red"}
        out.append((name, GAME.view(state, seat), {t: f"/move/{t}" for t in sorted(targets)}))
    return out


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as p:
        chromium = p.chromium.launch(
            executable_path=CHROMIUM,
            args=["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
        )
        yield chromium
        chromium.close()


@pytest.mark.parametrize(("device", "viewport", "area"), [("phone", (390, 844), 358), ("desktop", (1280, 800), 1200)])
def test_board_text_reads_at_9_px_or_more_without_sideways_scrolling_and_targets_are_touch_sized(
    browser, device, viewport, area
):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page = browser.new_page(viewport={"width": viewport[0], "height": viewport[1]})
    linked = 0
    try:
        for name, view, links in positions():
            page.set_content(PAGE.format(width=area, board=GAME.render_html(view, links)))
            seen = page.evaluate(MEASURE)
            page.screenshot(path=str(ARTIFACTS / f"{device}_{name}.png"), full_page=True)
            assert seen["drawing"] == ("zs-phone" if device == "phone" else "zs-web"), name
            readable = sum(size >= 9 for size in seen["sizes"]) / len(seen["sizes"])
            assert readable >= 0.9, f"{device} {name}: only {readable:.0%} of the text at 9 px or more"
            assert min(seen["sizes"]) >= 9, f"{device} {name}: the smallest text is {min(seen['sizes']):.1f} px"
            assert not seen["scrolls"], f"{device} {name}: the page scrolls sideways"
            assert len(seen["links"]) == len(links), name
            for link in seen["links"]:
                assert link["w"] >= 44 and link["h"] >= 44, f"{device} {name}: {link} is smaller than 44 px"
                assert link["name"], f"{device} {name}: a link without an accessible name"
            if not links:
                continue
            linked += 1
            # keyboard: Tab reaches the board's links, in the drawing that is shown
            page.keyboard.press("Tab")
            focused = page.evaluate(
                "() => { const a = document.activeElement; return a.tagName.toLowerCase() + ' '"
                " + (a.closest('svg') ? a.closest('svg').getAttribute('class') : '') }"
            )
            assert focused == "a " + seen["drawing"], f"{device} {name}: Tab focused {focused}"
        assert linked >= 3, "too few positions with links to touch"
    finally:
        page.close()
