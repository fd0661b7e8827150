"""The pages issue 27 found wanting on a phone, in Debian's Chromium at 390 px: the live "your
turn" notice seen while typing table talk at the foot of a long page, help in two columns that
stack, the new-game and practice forms (the missed-deadlines select) within the screen, and a
move made in one tap from a notice's link. Screenshots go to test-artifacts/browser/.
"""

from __future__ import annotations

import re

import pytest

from tests.chromium import NEEDS_CHROMIUM

from .test_play_in_browser import ARTIFACTS, browser, shot, site  # noqa: F401 - fixtures

pytestmark = NEEDS_CHROMIUM

PHONE = {"width": 390, "height": 844}
FIVE_GAMES = ["elfenland", "elfenwizards", "elixirus", "elven_castle", "zauberschwert"]
WIDTHS = """() => ({scrollWidth: document.documentElement.scrollWidth,
  overflowing: [...document.querySelectorAll('select, input, textarea, button, dl, p')]
    .filter(e => e.getBoundingClientRect().right > document.documentElement.clientWidth + 0.5)
    .map(e => e.outerHTML.slice(0, 80))})"""


def people(count: int):
    from pbem.play import services

    return [services.PlayerSpec(n, f"{n.lower()}@example.org") for n in ["Alice", "Bob", "Carol"][:count]]


def test_the_your_turn_notice_is_seen_while_typing_table_talk_at_the_foot_of_the_page(browser, site, settings):  # noqa: F811
    from pbem.models import Game, Seat
    from pbem.play import addressing, services, standins
    from pbem.registry import get_game

    settings.PBEM_LIVE_POLL_SECONDS = 0.5
    game = services.create_game("elfenland", people(3), {})
    game.refresh_from_db()
    mover = game.awaited[0]
    waiting = (mover + 1) % 3 if (mover + 1) % 3 not in game.awaited else (mover + 2) % 3
    context = browser.new_context(viewport=PHONE, is_mobile=True)
    page = context.new_page()
    page.goto(f"{site}/play/{addressing.token_for(Seat.objects.get(game=game, number=waiting))}/")
    height = page.evaluate("document.documentElement.scrollHeight")
    page.fill("input[name=message]", "a word while I wait")  # at the foot of the page
    spec = get_game("elfenland")
    from pbem.log import eventlog

    while waiting not in Game.objects.get(pk=game.pk).awaited:
        row = Game.objects.get(pk=game.pk)
        seat = row.awaited[0]
        services.submit(game.pk, seat, spec.describe(standins.choose(spec, eventlog.load(row).state["game"], seat)))
    page.wait_for_selector("#live-notice:not([hidden])", timeout=15000)
    box = page.evaluate(
        "(() => { const r = document.querySelector('#live-notice').getBoundingClientRect(); "
        "return {top: r.top, bottom: r.bottom, inner: window.innerHeight}; })()"
    )
    shot(page, "live-notice-at-the-foot-390")
    assert height > 2 * PHONE["height"], "a long page"
    assert 0 <= box["top"] and box["bottom"] <= box["inner"], box
    assert "It is your turn now." in page.inner_text("#live-notice")
    assert page.input_value("input[name=message]") == "a word while I wait"
    context.close()


def test_help_on_the_phone_keeps_each_command_with_what_it_does(browser, site):  # noqa: F811
    from pbem.models import Seat
    from pbem.play import addressing, services

    game = services.create_game("zauberschwert", people(3), {})
    context = browser.new_context(viewport=PHONE, is_mobile=True)
    page = context.new_page()
    page.goto(f"{site}/play/{addressing.token_for(Seat.objects.get(game=game, number=0))}/")
    page.click("#help summary")
    measured = page.evaluate(WIDTHS)
    pairs = page.evaluate(
        "[...document.querySelectorAll('#help .help-pair')].map(d => "
        "[d.querySelector('dt').getBoundingClientRect().top, d.querySelector('dd').getBoundingClientRect().top])"
    )
    page.locator("#help").screenshot(path=str(ARTIFACTS / "help-390.png"))
    assert measured["scrollWidth"] <= PHONE["width"], measured
    assert pairs and all(dd > dt for dt, dd in pairs)  # on a phone the text goes under its command
    context.close()


@pytest.mark.parametrize("kind", FIVE_GAMES)
def test_the_new_game_and_practice_forms_fit_a_phone(browser, site, kind):  # noqa: F811
    context = browser.new_context(viewport=PHONE, is_mobile=True, java_script_enabled=False)
    page = context.new_page()
    for path in (f"/games/new/?kind={kind}", f"/games/practice/?kind={kind}"):
        page.goto(site + path)
        measured = page.evaluate(WIDTHS)
        assert measured["scrollWidth"] <= PHONE["width"] and not measured["overflowing"], (path, measured)
    shot(page, f"practice-form-{kind}-390")
    context.close()


def test_a_move_in_one_tap_from_the_notice_to_done(browser, site, settings, mailoutbox):  # noqa: F811
    from pbem.mail import sending
    from pbem.models import Event
    from pbem.play import services

    settings.PBEM_NOTICE_DISPATCH = "none"
    game = services.create_game("diceduel", people(2), {})
    sending.send_pending(None)
    notice = next(m for m in mailoutbox if m.to == ["alice@example.org"])
    html = notice.alternatives[0][0]
    link = re.search(r'<a href="(http[^"]+/tap/[^"]+/)"[^>]*>1</a>', html).group(1)
    context = browser.new_context(viewport=PHONE, is_mobile=True)
    page = context.new_page()
    page.goto(link)
    shot(page, "one-tap-confirm-390")
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    move = page.inner_text("#tapped-move")
    assert not Event.objects.filter(game=game, type="CardPlayed").exists()  # opening it played nothing
    page.click("button.confirm")
    page.wait_for_selector("#outcome .ok", timeout=15000)
    shot(page, "one-tap-done-390")
    assert move in page.inner_text("#outcome")
    assert Event.objects.filter(game=game, type="CardPlayed").count() == 1
    context.close()
