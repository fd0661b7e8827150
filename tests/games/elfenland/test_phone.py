"""The web board in Debian's Chromium (Playwright, headless): at a phone's 390 x 844 viewport the
board area is 358 CSS px wide and the portrait drawing shows; at 1280 x 800 (a 1200 px board)
the landscape one. At both, at least 90 % of the board's text (here: all of it) renders at 9 CSS
px or more, no text leaves its drawing, the page does not scroll sideways, and every link's hit
area is at least 44 CSS px across. Screenshots go to test-artifacts/elfenland/.

Needs /usr/bin/chromium (apt-get install -y chromium); never `playwright install`.
"""

from __future__ import annotations

import pytest

from games.elfenland import GAME
from games.testing import play_random
from tests.chromium import CHROMIUM, NEEDS_CHROMIUM, artifacts

from .common import given

ARTIFACTS = artifacts("elfenland")

pytestmark = NEEDS_CHROMIUM

sync_api = pytest.importorskip("playwright.sync_api", reason="the playwright package is not installed")

SCREENS = {"phone": ((390, 844), 358), "desktop": ((1280, 800), 1200)}

MEASURE = """() => {
  const texts = [], outside = [], links = [];
  for (const svg of document.querySelectorAll('.board svg')) {
    const box = svg.getBoundingClientRect();
    if (!box.width) continue;                       // the drawing the media query hides
    const scale = box.width / svg.viewBox.baseVal.width;
    for (const t of svg.querySelectorAll('text')) {
      texts.push(parseFloat(getComputedStyle(t).fontSize) * scale);
      const r = t.getBoundingClientRect();
      if (r.width && (r.left < box.left - 1 || r.right > box.right + 1)) outside.push(t.textContent);
    }
    for (const a of svg.querySelectorAll('a')) {
      const hit = a.querySelector('.elf-hit').getBoundingClientRect();
      links.push({name: a.getAttribute('aria-label'), w: hit.width, h: hit.height, tab: a.tabIndex});
    }
  }
  return {texts, outside, links, scroll: document.documentElement.scrollWidth, width: window.innerWidth};
}"""


def page_with(fragment, board_width):
    return (
        '<!doctype html><html><head><meta name="viewport" content="width=device-width, initial-scale=1">'
        '</head><body style="margin:16px;font-family:sans-serif">'
        f'<div class="board" style="width:{board_width}px;max-width:100%;overflow-x:auto">{fragment}</div>'
        "</body></html>"
    )


def positions():
    """A placement with its routes linked, a move with its towns linked, and a finished game."""
    place = given(
        6,
        phase="place",
        turn=0,
        up={0: ["giant_pig", "dragon"]},
        down={0: ["unicorn"]},
        hands={0: ["giant_pig"] * 3 + ["dragon"] * 3 + ["unicorn"] * 2},
        home_cities=True,
    )
    move = given(
        4,
        phase="move",
        turn=0,
        hands={0: ["giant_pig", "raft", "dragon", "dragon"]},
        board={"elvenhold-lapphalya:road": "giant_pig", "jxara-lapphalya:forest": "dragon"},
    )
    over = play_random(GAME, 5, {"home_cities": True}, seed=9)
    out = []
    for name, t, seat in (("placing", place, 0), ("moving", move, 0), ("over", over, None)):
        links = {}
        if seat is not None:
            links = {c.target: f"/pick/{i}" for i, c in enumerate(GAME.choices(t.state, seat)) if c.target}
        out.append((name, GAME.render_html(GAME.view(t.state, seat), links), links))
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


@pytest.mark.parametrize("screen", list(SCREENS))
def test_board_text_is_readable_and_links_are_touch_sized(browser, screen):
    (width, height), board = SCREENS[screen]
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page = browser.new_page(viewport={"width": width, "height": height})
    for name, fragment, links in positions():
        page.set_content(page_with(fragment, board))
        found = page.evaluate(MEASURE)
        page.screenshot(path=str(ARTIFACTS / f"{screen}-{name}.png"), full_page=True)
        sizes = found["texts"]
        assert sizes, "no board text visible"
        readable = sum(size >= 9 for size in sizes) / len(sizes)
        assert readable >= 0.9 and min(sizes) >= 9, (screen, name, min(sizes), readable)
        assert found["outside"] == [], f"text leaves the drawing: {found['outside']}"
        assert found["scroll"] <= found["width"], "the page scrolls sideways"
        assert len(found["links"]) == len(links)
        for link in found["links"]:
            assert link["w"] >= 44 and link["h"] >= 44, link
            assert link["name"] and link["tab"] >= 0  # named and reachable with the keyboard
    page.close()


def test_a_link_on_the_board_is_followed_by_keyboard_without_javascript(browser):
    context = browser.new_context(java_script_enabled=False, viewport={"width": 390, "height": 844})
    page = context.new_page()
    name, fragment, links = positions()[1]
    page.set_content(page_with(fragment, 358))
    page.keyboard.press("Tab")
    focused = page.evaluate("() => document.activeElement.getAttribute('href')")
    assert focused in links.values()
    context.close()
