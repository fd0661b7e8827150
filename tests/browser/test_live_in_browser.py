"""Live turns in Chromium with JavaScript on: a seat page left open learns that the game moved
on, and shows it, without the player reloading."""

from __future__ import annotations

from tests.chromium import NEEDS_CHROMIUM

from .test_play_in_browser import ARTIFACTS, browser, site  # noqa: F401 - fixtures

pytestmark = NEEDS_CHROMIUM


def test_an_open_seat_page_shows_the_move_made_meanwhile(browser, site, settings):  # noqa: F811
    from pbem.log import eventlog
    from pbem.models import Game, Seat
    from pbem.play import addressing, services

    settings.PBEM_LIVE_POLL_SECONDS = 0.5
    game = services.create_game(
        "diceduel",
        [services.PlayerSpec("Alice", "alice@example.org"), services.PlayerSpec("Bob", "bob@example.org")],
        {},
    )
    alice, bob = eventlog.load(game).state["game"]["hands"]
    services.submit(game.pk, 1, f"play {bob[0]}")  # Bob has played; he waits for Alice
    waiting = Game.objects.get(pk=game.pk).version
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
    page = context.new_page()
    page.goto(f"{site}/play/{addressing.token_for(Seat.objects.get(game=game, number=1))}/")
    assert page.get_attribute("#live", "data-version") == str(waiting)
    services.submit(game.pk, 0, f"play {alice[0]}")
    moved = Game.objects.get(pk=game.pk).version
    page.wait_for_function(
        f"document.querySelector('#live') && document.querySelector('#live').dataset.version == '{moved}'",
        timeout=15000,
    )
    page.screenshot(path=str(ARTIFACTS / "live-after-the-move.png"), full_page=True)
    assert f"event {moved}" in page.inner_text(".status")
    context.close()


def test_a_page_being_typed_on_is_not_reloaded_but_told(browser, site, settings):  # noqa: F811
    from pbem.log import eventlog
    from pbem.models import Seat
    from pbem.play import addressing, services

    settings.PBEM_LIVE_POLL_SECONDS = 0.5
    game = services.create_game(
        "diceduel",
        [services.PlayerSpec("Alice", "alice@example.org"), services.PlayerSpec("Bob", "bob@example.org")],
        {},
    )
    alice, bob = eventlog.load(game).state["game"]["hands"]
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
    page = context.new_page()
    page.goto(f"{site}/play/{addressing.token_for(Seat.objects.get(game=game, number=1))}/")
    page.click("#type-commands summary")
    page.fill("textarea[name=text]", "say wait for me")
    services.submit(game.pk, 0, f"play {alice[0]}")
    page.wait_for_selector("#live-notice:not([hidden])", timeout=15000)
    assert page.input_value("textarea[name=text]") == "say wait for me"
    assert "Reload the page" in page.inner_text("#live-notice")
    context.close()
