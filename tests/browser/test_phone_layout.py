"""Issue 17's "done when", measured in Debian's Chromium: each of the five games' seat pages, on
the seat whose turn it is, at 390 x 844 (a phone) and 1280 x 900 (a desktop), with JavaScript
off. No sideways scrolling; at least 90 % of the board's text rendered at 9 px or more; the
move form within the first two screens; the text board once; no table clipped. Screenshots
of each page at both widths go to test-artifacts/browser/.
"""

from __future__ import annotations

import pytest

from tests.chromium import NEEDS_CHROMIUM

from .test_play_in_browser import ARTIFACTS, browser, site  # noqa: F401 - fixtures

pytestmark = NEEDS_CHROMIUM

FIVE_GAMES = ["elfenland", "elfenwizards", "elixirus", "elven_castle", "zauberschwert"]
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}

# What the page looks like, as numbers: measured in the page itself.
MEASURE = """() => {
  const doc = document.documentElement;
  const texts = [...document.querySelectorAll('.board svg text')].filter(t => t.textContent.trim());
  const sizes = texts.map(t => {
    const m = t.getScreenCTM();
    const scale = m ? Math.sqrt(m.a * m.a + m.b * m.b) : 1;
    return parseFloat(getComputedStyle(t).fontSize) * scale;
  });
  const form = document.querySelector('#move-form');
  const clipped = [...document.querySelectorAll('table')].filter(t => {
    let box = t.parentElement;
    while (box && box !== document.body) {
      const overflow = getComputedStyle(box).overflowX;
      if (overflow === 'auto' || overflow === 'scroll') return false;
      box = box.parentElement;
    }
    return t.getBoundingClientRect().right > doc.clientWidth + 0.5;
  }).length;
  return {
    scrollWidth: doc.scrollWidth, clientWidth: doc.clientWidth,
    texts: sizes.length, legible: sizes.filter(s => s >= 9 - 0.01).length,
    smallest: sizes.length ? Math.min(...sizes) : null,
    formTop: form ? form.getBoundingClientRect().top + window.scrollY : null,
    boardTop: (() => { const b = document.querySelector('.board'); return b ? b.getBoundingClientRect().top + window.scrollY : null; })(),
    textBoards: document.querySelectorAll('.board-text').length,
    // The text board's longest line, counted in the whole page's text: once, not repeated.
    textBoardLineCount: (() => {
      const pre = document.querySelector('.board-text');
      if (!pre) return 0;
      const lines = pre.textContent.split('\\n').map(l => l.trim());
      const own = lines.filter(l => /[a-z]{3}/i.test(l) && lines.indexOf(l) === lines.lastIndexOf(l));
      const line = own.sort((a, b) => b.length - a.length)[0];
      return line ? document.body.innerText.split(line).length - 1 : 0;
    })(),
    brokenWords: [...document.querySelectorAll('body *')].filter(e => getComputedStyle(e).wordBreak === 'break-all').length,
    clipped,
  };
}"""


def running_game(kind):
    from pbem.models import Seat
    from pbem.play import addressing, services
    from pbem.registry import get_game

    spec = get_game(kind)
    names = ["Alice", "Bob", "Carol", "Dave"][: max(spec.min_players, 3 if spec.max_players >= 3 else 2)]
    game = services.create_game(kind, [services.PlayerSpec(n, f"{n.lower()}@example.org") for n in names], {})
    game.refresh_from_db()
    seat = Seat.objects.get(game=game, number=game.awaited[0])
    return game, addressing.token_for(seat)


@pytest.mark.parametrize("kind", FIVE_GAMES)
@pytest.mark.parametrize("screen", ["phone", "desktop"])
def test_the_seat_page_on_your_turn_fits_the_screen(browser, site, kind, screen):  # noqa: F811
    viewport = PHONE if screen == "phone" else DESKTOP
    game, token = running_game(kind)
    context = browser.new_context(
        java_script_enabled=False, viewport=viewport, is_mobile=screen == "phone", has_touch=screen == "phone"
    )
    page = context.new_page()
    response = page.goto(f"{site}/play/{token}/")
    assert response.status == 200
    assert "It is your turn." in page.content()
    page.screenshot(path=str(ARTIFACTS / f"layout-{kind}-{screen}.png"), full_page=True)
    found = page.evaluate(MEASURE)
    context.close()
    print(kind, screen, found)
    assert found["scrollWidth"] <= found["clientWidth"], f"{kind}: the page scrolls sideways ({found})"
    assert found["texts"] > 0, f"{kind}: the board has no text to read ({found})"
    assert found["legible"] >= 0.9 * found["texts"], f"{kind}: board text under 9 px ({found})"
    assert found["formTop"] is not None and found["formTop"] < 2 * viewport["height"], f"{kind}: {found}"
    assert found["boardTop"] is not None and found["formTop"] < found["boardTop"], f"{kind}: form after board"
    assert found["textBoards"] == 1, f"{kind}: the text board is shown {found['textBoards']} times"
    assert found["textBoardLineCount"] == 1, f"{kind}: the text board's lines appear more than once"
    assert found["brokenWords"] == 0, f"{kind}: words may break anywhere"
    assert found["clipped"] == 0, f"{kind}: {found['clipped']} tables clipped"


TOUCH = 44  # px: the smallest target a finger should have to hit


def tap(page, selector):
    """Taps the first element matching `selector`, having checked it is touch-sized."""
    target = page.locator(selector).first
    box = target.bounding_box()
    assert box and box["width"] >= TOUCH and box["height"] >= TOUCH, f"{selector} is {box} on a phone"
    target.tap()


@pytest.mark.parametrize("kind", FIVE_GAMES)
def test_a_move_is_made_on_a_phone_by_touch_sized_targets_only(browser, site, kind):  # noqa: F811
    from pbem.models import Game

    game, token = running_game(kind)
    context = browser.new_context(java_script_enabled=False, viewport=PHONE, is_mobile=True, has_touch=True)
    page = context.new_page()
    page.goto(f"{site}/play/{token}/")
    steps = 0
    while page.locator("#move-form button.move").count() == 0:
        # What first (a piece, an action), then where: each step a link of its own.
        tap(page, "#move-form a.step")
        steps += 1
        assert steps <= 3, f"{kind}: no move after {steps} steps"
    picked = page.locator("#move-form button.move").first.get_attribute("value")
    tap(page, "#move-form button.move")
    # The tap posts the form: wait for the answer's page (its outcome box filled) before the
    # screenshot, which fails ("Unable to capture screenshot") on a page still navigating.
    page.locator("#outcome > div").wait_for(timeout=30_000)
    page.wait_for_load_state("load")
    page.screenshot(path=str(ARTIFACTS / f"touch-{kind}-phone.png"), full_page=True)
    outcome = page.inner_text("#outcome")
    context.close()
    assert "Done." in outcome, f"{kind}: {picked!r} was not applied: {outcome}"
    assert Game.objects.get(pk=game.pk).version > game.version


def test_the_other_pages_fit_a_phone_without_breaking_words(browser, site):  # noqa: F811
    """Lobby, spectator, replay and audit pages of a finished game (every table filled, the
    seed and draws shown) at 390 px: no sideways scrolling, no clipped table, no word broken
    anywhere but a long hash."""
    from pbem.log import eventlog
    from pbem.models import Game
    from pbem.play import services

    game, token = running_game("elven_castle")
    services.create_game(
        "zauberschwert",
        [services.PlayerSpec("Ann", "ann@example.org"), services.PlayerSpec("Ben", "ben@example.org")],
        {},
    )
    duel = services.create_game(
        "diceduel",
        [services.PlayerSpec("Alice", "alice@example.org"), services.PlayerSpec("Bob", "bob@example.org")],
        {"rounds": 1},
    )
    while True:
        duel = Game.objects.get(pk=duel.pk)
        if not duel.awaited:
            break
        seat, state = duel.awaited[0], eventlog.load(duel).state["game"]
        command = {"type": "take"} if state["phase"] == "claim" else {"type": "play", "card": min(state["hands"][seat])}
        services.submit(duel.pk, seat, command=command)
    context = browser.new_context(java_script_enabled=False, viewport=PHONE, is_mobile=True)
    page = context.new_page()
    for name, path in [
        ("lobby", "/"),
        ("spectator", f"/games/{game.pk}/"),
        ("replay", f"/play/{token}/history/"),
        ("audit", f"/games/{duel.pk}/audit/"),
        ("finished", f"/games/{duel.pk}/"),
    ]:
        page.goto(site + path)
        page.screenshot(path=str(ARTIFACTS / f"phone-page-{name}.png"), full_page=True)
        found = page.evaluate(MEASURE)
        assert found["scrollWidth"] <= found["clientWidth"], f"{name}: the page scrolls sideways ({found})"
        assert found["clipped"] == 0, f"{name}: {found['clipped']} tables clipped"
        assert found["brokenWords"] == 0, f"{name}: words may break anywhere"
    assert "wins with" in page.inner_text("#winner") or "share the win" in page.inner_text("#winner")
    context.close()
