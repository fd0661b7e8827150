"""A whole game in Debian's Chromium (Playwright, headless, JavaScript switched off):
create it in the lobby, accept the invitations from the links in the sent mails, open the seat
page from a mail, make an illegal and legal moves, step through the replay. Screenshots go to
test-artifacts/browser/.

Needs /usr/bin/chromium (apt-get install -y chromium); never `playwright install`.
"""

from __future__ import annotations

import re

import pytest

from tests.chromium import CHROMIUM, NEEDS_CHROMIUM, artifacts

ARTIFACTS = artifacts("browser")

pytestmark = NEEDS_CHROMIUM

sync_api = pytest.importorskip("playwright.sync_api", reason="the playwright package is not installed")


@pytest.fixture
def browser():
    with sync_api.sync_playwright() as p:
        chromium = p.chromium.launch(
            executable_path=CHROMIUM,
            args=["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
        )
        yield chromium
        # While Playwright's loop runs in this thread, Django keeps the test's own connection
        # per async context: close it here, or it outlives the test database's teardown.
        from django.db import connections

        connections.close_all()
        chromium.close()


@pytest.fixture
def site(live_server, settings, monkeypatch, transactional_db):
    # Playwright's sync API runs an event loop in this thread; the test's own ORM reads are safe.
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    settings.PBEM_BASE_URL = live_server.url
    settings.PBEM_RATE_SUBMIT = (1000, 60)
    settings.PBEM_RATE_TOKEN_FAILURES = (1000, 600)
    # The Celery task that processes a web submission runs in the server's process, at once,
    # as a worker would: the page the browser is sent to then shows the outcome.
    from config.celery import app

    eager = app.conf.task_always_eager
    app.conf.task_always_eager = True
    from django.core.cache import cache

    cache.clear()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    yield live_server.url
    app.conf.task_always_eager = eager


def shot(page, name):
    """A full-page screenshot that leaves the page where it was. Chromium takes it by laying the
    page out at its whole height for a moment (Page.captureScreenshot, captureBeyondViewport); with
    a field still focused it leaves the page scrolled to the bottom (681 px on the new-game form,
    586 before), and the next focus change puts it back: the mouse press on the button moves the
    focus, the page jumps 95 px, the release lands on a paragraph, no click, no POST. A person never
    takes such a screenshot; the scroll is put back here so the test clicks as a person does."""
    where = page.evaluate("[scrollX, scrollY]")
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)
    page.evaluate("([x, y]) => window.scrollTo(x, y)", where)


def link_in(mail, prefix):
    found = re.search(re.escape(prefix) + r"[^\s\"<>]+", mail.body)
    assert found, f"no {prefix} link in the mail to {mail.to}"
    return found.group(0)


def test_a_game_from_lobby_to_replay(browser, site, mailoutbox):
    from pbem.log import eventlog
    from pbem.models import Game

    context = browser.new_context(java_script_enabled=False, viewport={"width": 1024, "height": 900})
    page = context.new_page()

    # The lobby: choose the game, then players and options.
    page.goto(site + "/")
    page.click("text=Create a game")
    page.select_option("select[name=kind]", "diceduel")
    page.click("text=Next: players and options")
    page.fill("input[name=title]", "Browser duel")
    page.fill("textarea[name=invitees]", "Alice <alice@example.org>\nBob <bob@example.org>")
    page.fill("input[name=opt_rounds]", "1")
    shot(page, "01-create-game")
    # The number field keeps the focus: the click on the button moves it, as a person's does.
    # The answer page loaded, not only started: its elements read before that may be null.
    with page.expect_navigation(wait_until="load"):
        page.click("text=Create, and send me my invitation")
    assert "Your invitation is on its way to alice@example.org" in page.content()
    game = Game.objects.get(title="Browser duel")
    assert game.status == "open"

    # The creator accepts first (which proves the address is hers); then Bob is invited and accepts.
    invitations = {}
    for address in ("alice@example.org", "bob@example.org"):
        invitations.update({m.to[0]: m for m in mailoutbox if m.subject.startswith("Invitation")})
        page.goto(link_in(invitations[address], f"{site}/invite/"))
        with page.expect_navigation(wait_until="load"):  # the answer page read whole below
            page.click("text=Accept my seat")
    assert "the game has begun" in page.content()
    shot(page, "02-accepted")
    game.refresh_from_db()
    assert game.status == "running"

    # Alice opens her seat page from the link in her mail.
    page.goto(link_in(invitations["alice@example.org"], f"{site}/play/"))
    assert "It is your turn." in page.content()
    hands = eventlog.load(game).state["game"]["hands"]
    alice, bob = hands
    assert f"Your hand: {' '.join(map(str, alice))}" in page.inner_text("#my-view")
    shot(page, "03-seat-page")

    # An illegal move: refused next to the form, nothing changes.
    version = Game.objects.get(pk=game.pk).version
    page.click("#type-commands summary")
    page.fill("textarea[name=text]", f"play {bob[0]}")
    page.click("#type-form button[type=submit]")
    outcome = page.inner_text("#outcome")
    assert "Not applied." in outcome and f"You have no card {bob[0]}" in outcome
    assert Game.objects.get(pk=game.pk).version == version
    shot(page, "04-illegal-move")

    # A legal move, chosen from the list the game offers.
    page.click(f"button[name=choice][value='play {alice[0]}']")
    assert "Done." in page.inner_text("#outcome")
    shot(page, "05-legal-move")

    # Bob plays from his page; the round is decided; the winner takes the points.
    page.goto(link_in(invitations["bob@example.org"], f"{site}/play/"))
    page.click(f"button[name=choice][value='play {bob[0]}']")
    assert "Done." in page.inner_text("#outcome")
    winner = "alice@example.org" if alice[0] > bob[0] else "bob@example.org"
    page.goto(link_in(invitations[winner], f"{site}/play/"))
    page.click("button[name=choice][value='take']")
    assert "Done." in page.inner_text("#outcome")
    game.refresh_from_db()
    assert game.status == "finished"

    # The replay: step back and forth, jump to a round.
    page.click("text=Full history and replay")
    last = game.version
    assert page.inner_text("#at") == f"event {last} of {last}"
    page.click("#prev")
    page.click("#prev")
    assert page.inner_text("#at") == f"event {last - 2} of {last}"
    page.click("#next")
    assert page.inner_text("#at") == f"event {last - 1} of {last}"
    shot(page, "06-replay")
    page.select_option("select[name=round]", "1")
    page.click("text=Jump to round")
    assert "(round 1" in page.inner_text("#event-text")
    page.goto(f"{site}/games/{game.pk}/audit/")
    assert game.seed in page.inner_text("#seed")
    shot(page, "07-audit")
    context.close()


def test_pages_fit_a_phone(browser, site):
    from pbem.models import Seat
    from pbem.play import addressing, services

    game = services.create_game(
        "diceduel",
        [services.PlayerSpec("Alice", "alice@example.org"), services.PlayerSpec("Bob", "bob@example.org")],
        {},
    )
    token = addressing.token_for(Seat.objects.get(game=game, number=0))
    context = browser.new_context(java_script_enabled=False, viewport={"width": 360, "height": 740}, is_mobile=True)
    page = context.new_page()
    for name, path in [
        ("seat", f"/play/{token}/"),
        ("history", f"/play/{token}/history/"),
        ("lobby", "/"),
        ("game", f"/games/{game.pk}/"),
        ("audit", f"/games/{game.pk}/audit/"),
        ("new-game", "/games/new/?kind=diceduel"),
    ]:
        page.goto(site + path)
        width = page.evaluate("document.documentElement.scrollWidth")
        shot(page, f"phone-{name}")
        assert width <= 360, f"{path} is {width}px wide on a 360px phone"
    context.close()


def test_every_games_seat_page_in_the_browser(browser, site):
    """Each registered game's seat page, board included, renders and fits a phone's width."""
    from pbem.models import Seat
    from pbem.play import addressing, services
    from pbem.registry import all_games

    context = browser.new_context(java_script_enabled=False, viewport={"width": 360, "height": 740}, is_mobile=True)
    page = context.new_page()
    names = ["Alice", "Bob", "Carol", "Dave"]
    for kind, spec in all_games().items():
        players = [services.PlayerSpec(n, f"{n.lower()}@example.org") for n in names[: max(spec.min_players, 2)]]
        game = services.create_game(kind, players, {})
        game.refresh_from_db()
        seat = Seat.objects.get(game=game, number=game.awaited[0])
        response = page.goto(f"{site}/play/{addressing.token_for(seat)}/")
        assert response.status == 200
        assert "It is your turn." in page.content()
        shot(page, f"game-{kind}-seat")
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 360, f"{kind}: the seat page is {width}px wide on a 360px phone"
    context.close()
