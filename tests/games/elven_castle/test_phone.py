"""The board's fragment in Debian's Chromium (Playwright, headless), in a page that holds it in a
358 px container at a 390 x 844 viewport (a phone) and a 1200 px one at 1280 x 800: the text
sizes as rendered, no sideways scrolling, touch-sized links that a keyboard reaches. Screenshots
go to test-artifacts/elven_castle/.

Needs /usr/bin/chromium (apt-get install -y chromium); never `playwright install`.
"""

from __future__ import annotations

import pytest

from games.elven_castle import GAME
from games.testing import Table
from tests.chromium import CHROMIUM, NEEDS_CHROMIUM, artifacts

ARTIFACTS = artifacts("elven_castle")

pytestmark = NEEDS_CHROMIUM

sync_api = pytest.importorskip("playwright.sync_api", reason="the playwright package is not installed")

PAGE = """<!doctype html><html><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1"></head>
<body style="margin:16px;font-family:sans-serif"><div class="board" style="width:{width}px;overflow-x:auto">{fragment}</div>
</body></html>"""

# Every text of the board's drawings: its font size times the scale its <svg> is drawn at.
MEASURE = """() => {
  const sizes = [];
  for (const el of document.querySelectorAll('.board svg text, .board svg tspan')) {
    const svg = el.ownerSVGElement;
    const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
    if (el.textContent.trim()) sizes.push(parseFloat(getComputedStyle(el).fontSize) * scale);
  }
  const links = [...document.querySelectorAll('.board svg a')].map(a => a.getBoundingClientRect());
  return {sizes, scrollWidth: document.documentElement.scrollWidth,
          links: links.map(r => [r.width, r.height])};
}"""


def late_position():
    """A castle well under way (stand-ins and random players), the stand-in seat to move."""
    import random

    pick = random.Random(5)
    t = Table(GAME, 4, {"scoring": "B", "staircase": True}, seed=b"phone")
    while len(t.state["pieces"]) < 40 or t.state["phase"] != "place":
        seat = GAME.waiting_for(t.state)[0]
        legal = GAME.legal(t.state, seat)
        t.act(seat, GAME.standin(GAME.view(t.state, seat), legal) if seat == 0 else pick.choice(legal))
    assert GAME.waiting_for(t.state)
    return t


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as p:
        chromium = p.chromium.launch(
            executable_path=CHROMIUM,
            args=["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
        )
        yield chromium
        chromium.close()


@pytest.mark.parametrize("viewport, width", [((390, 844), 358), ((1280, 800), 1200)], ids=["phone", "desktop"])
def test_the_board_reads_at_9_px_without_sideways_scrolling_and_its_links_are_touch_sized(browser, viewport, width):
    t = late_position()
    seat = t.state["turn"]
    links = {c.target: f"/move/{i}" for i, c in enumerate(GAME.choices(t.state, seat)) if c.target}
    assert links
    page = browser.new_page(viewport={"width": viewport[0], "height": viewport[1]})
    page.set_content(PAGE.format(width=width, fragment=GAME.render_html(GAME.view(t.state, seat), links)))
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"board-{viewport[0]}.png"), full_page=True)
    found = page.evaluate(MEASURE)
    sizes = found["sizes"]
    assert len(sizes) > 150
    readable = sum(size >= 9 for size in sizes) / len(sizes)
    assert readable >= 0.9, f"only {readable:.0%} of the board's text at 9 px or more (smallest {min(sizes):.1f})"
    assert found["scrollWidth"] <= viewport[0], "the page scrolls sideways"
    assert len(found["links"]) == len(links)
    assert min(w for w, _h in found["links"]) >= 37 and min(h for _w, h in found["links"]) >= 43
    page.close()


def test_the_boards_links_are_reached_by_the_keyboard_and_named(browser):
    t = late_position()
    seat = t.state["turn"]
    links = {c.target: f"/move/{c.target}" for c in GAME.choices(t.state, seat)}
    page = browser.new_page(viewport={"width": 390, "height": 844})
    page.set_content(PAGE.format(width=358, fragment=GAME.render_html(GAME.view(t.state, seat), links)))
    reached = []
    for _ in range(6):
        page.keyboard.press("Tab")
        reached.append(
            page.evaluate(
                "() => [document.activeElement.getAttribute('href'), document.activeElement.getAttribute('aria-label')]"
            )
        )
    hrefs = [href for href, _name in reached if href]
    assert len(hrefs) >= 5 and set(hrefs) <= set(links.values())
    assert all(name and ": " in name for href, name in reached if href)
    page.screenshot(path=str(ARTIFACTS / "board-390-focus.png"))
    page.close()
