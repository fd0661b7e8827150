"""The new-game form in Debian's Chromium as a person uses it: what they type is sent when they
press the button, at a phone's width and a desktop's, with JavaScript on and off."""

from __future__ import annotations

import pytest

from tests.chromium import NEEDS_CHROMIUM

from .test_play_in_browser import ARTIFACTS, browser, site  # noqa: F401 - fixtures

pytestmark = NEEDS_CHROMIUM

SCREENS = {"phone": {"width": 390, "height": 844}, "desktop": {"width": 1280, "height": 800}}


@pytest.mark.parametrize("javascript", [False, True], ids=["no-js", "js"])
@pytest.mark.parametrize("screen", sorted(SCREENS))
def test_the_create_button_sends_the_form_while_the_last_field_still_has_focus(
    browser,  # noqa: F811
    site,  # noqa: F811
    screen,
    javascript,
):
    """The click that moves the focus off the last field is the click that creates the game
    (the lobby-to-replay test once lost it to a screenshot, never to the form)."""
    from pbem.models import Game

    context = browser.new_context(java_script_enabled=javascript, viewport=SCREENS[screen])
    page = context.new_page()
    posts = []
    page.on("request", lambda request: posts.append(request.url) if request.method == "POST" else None)
    page.goto(site + "/games/new/?kind=diceduel")
    title = f"Focus kept ({screen}, {javascript})"
    page.fill("input[name=title]", title)
    page.fill("textarea[name=invitees]", "Alice <alice@example.org>\nBob <bob@example.org>")
    page.fill("input[name=opt_rounds]", "1")
    assert page.evaluate("document.activeElement.name") == "opt_rounds"
    # The answer page loaded, not only started: its elements read before that may be null.
    with page.expect_navigation(wait_until="load"):
        page.click("text=Create, and send me my invitation")
    assert "Your invitation is on its way to alice@example.org" in page.content()
    assert len(posts) == 1 and Game.objects.filter(title=title).exists()
    context.close()


def form_page(browser, site, screen, path="/games/new/?kind=elfenland"):  # noqa: F811
    context = browser.new_context(viewport=SCREENS[screen], is_mobile=screen == "phone")
    page = context.new_page()
    page.goto(site + path)
    return context, page


@pytest.mark.parametrize("screen", sorted(SCREENS))
def test_the_tables_further_rules_are_folded_away_and_the_button_is_near(browser, site, screen):  # noqa: F811
    """Notices, absent players, the clock and vacations (13 fields, each with a default that
    serves) made the form five phone screens long: they are folded under one summary."""
    context, page = form_page(browser, site, screen, "/games/new/?kind=diceduel")
    assert page.evaluate("document.querySelector('details#more-rules').open") is False
    assert page.locator("input[name=bank_days]").is_hidden()
    button = page.locator("text=Create, and send me my invitation").bounding_box()
    assert button["y"] + button["height"] <= 1.1 * SCREENS[screen]["height"], button
    page.click("details#more-rules summary")
    assert page.locator("input[name=bank_days]").is_visible()
    legends = page.locator("details#more-rules fieldset.group > legend").all_inner_texts()
    assert legends == ["Notices", "Absent players", "Time for moves", "Vacations"]
    page.screenshot(path=str(ARTIFACTS / f"new-game-more-{screen}.png"), full_page=True)
    context.close()


def test_a_refused_value_in_a_folded_field_is_named_at_the_top_and_its_fold_opens(browser, site):  # noqa: F811
    from pbem.models import Game

    context, page = form_page(browser, site, "phone", "/games/new/?kind=diceduel")
    page.fill("textarea[name=invitees]", "Alice <alice@example.org>\nBob <bob@example.org>")
    # A value the browser's own check would stop (min=1) reaches the server, as from an old page.
    page.evaluate("document.querySelector('form.stack').noValidate = true")
    page.evaluate("document.querySelector('input[name=bank_days]').value = '0'")
    # The answer page loaded, not only started: its elements read before that may be null.
    with page.expect_navigation(wait_until="load"):
        page.click("text=Create, and send me my invitation")
    assert page.evaluate("document.querySelector('details#more-rules').open") is True
    # The page comes back at its top, the field two screens down: the top says which, and leads there.
    refused = page.locator("#refused")
    assert refused.is_visible() and refused.bounding_box()["y"] < SCREENS["phone"]["height"]
    assert refused.locator("a").all_inner_texts() == ["Bank at the start (days)"]
    refused.locator("a").click()
    assert page.locator("input[name=bank_days]").evaluate("i => i.getBoundingClientRect().top") >= 0
    error = page.locator("input[name=bank_days] ~ .error")
    assert error.is_visible() and "greater than or equal to 1" in error.inner_text()
    assert error.evaluate("e => getComputedStyle(e).display") == "block"  # one box, not a ragged inline
    assert error.evaluate("e => e.getBoundingClientRect().bottom") <= SCREENS["phone"]["height"]
    assert not Game.objects.exists()
    context.close()


@pytest.mark.parametrize("screen", sorted(SCREENS))
def test_every_choice_on_the_form_is_read_whole(browser, site, screen):  # noqa: F811
    """The missed-deadlines rule and the clock are choices among sentences: radio buttons whose
    text wraps (at 390 px their select showed 'the stand-in plays it until its player come')."""
    context, page = form_page(browser, site, screen)
    page.click("details#more-rules summary")
    for name in ("absence", "clock"):
        labels = page.locator(f"input[name={name}]").evaluate_all(
            "inputs => inputs.map(i => { const r = i.labels[0].getBoundingClientRect();"
            " return [i.labels[0].innerText.trim(), r.left, r.right, i.labels[0].scrollWidth - i.labels[0].clientWidth] })"
        )
        assert len(labels) == 3
        for text, left, right, hidden in labels:
            assert text and left >= 0 and right <= SCREENS[screen]["width"] and hidden <= 0, (name, text, right)
    selects = page.locator("form.stack select").evaluate_all(
        "all => all.map(s => { const c = document.createElement('canvas').getContext('2d');"
        " c.font = getComputedStyle(s).font;"
        " return [s.name, c.measureText(s.options[s.selectedIndex].text).width, s.clientWidth] })"
    )
    for name, text_width, box_width in selects:
        assert text_width < box_width, f"{name}: its chosen text is {text_width:.0f} px in a {box_width} px box"
    assert page.evaluate("document.documentElement.scrollWidth") <= SCREENS[screen]["width"]
    context.close()


@pytest.mark.parametrize("kind", ["diceduel", "elfenland", "zauberschwert"])
def test_every_field_of_the_form_is_labelled_and_a_box_is_ticked_by_its_words(browser, site, kind):  # noqa: F811
    context, page = form_page(browser, site, "phone", f"/games/new/?kind={kind}")
    page.click("details#more-rules summary")
    unlabelled = page.evaluate(
        "[...document.querySelectorAll('form.stack input:not([type=hidden]), form.stack select,"
        " form.stack textarea')].filter(e => !e.labels.length || !e.labels[0].innerText.trim()).map(e => e.name)"
    )
    assert unlabelled == []
    radios = page.evaluate(
        "[...document.querySelectorAll('form.stack input[type=radio]')].map(e => e.closest('fieldset')"
        " && e.closest('fieldset').querySelector('legend') && e.closest('fieldset').querySelector('legend').innerText)"
    )
    assert all(radios), radios
    for box in page.locator("form.stack input[type=checkbox]").all():
        label = box.evaluate("b => b.labels[0].innerText")
        assert not label.rstrip().endswith(":"), label  # "Lakes", not "Lakes:" after the box
        before = box.is_checked()
        page.click(f"label[for={box.get_attribute('id')}]")
        assert box.is_checked() is not before
        assert box.evaluate("b => b.getBoundingClientRect().height") >= 18  # not the 13 px default
    context.close()


def test_the_typed_commands_fold_shows_that_it_opens(browser, site):  # noqa: F811
    """On the seat page the 'Or type commands' summary was a flex box: no disclosure triangle,
    so it read as a caption of the board beneath it, and nothing said a tap opens it."""
    from pbem.models import Seat
    from pbem.play import addressing, services

    players = [services.PlayerSpec("Alice", "alice@example.org"), services.PlayerSpec("Bob", "bob@example.org")]
    game = services.create_game("diceduel", players, {})
    token = addressing.token_for(Seat.objects.get(game=game, number=0))
    context, page = form_page(browser, site, "phone", f"/play/{token}/")
    summary = page.locator("details#type-commands summary")
    assert summary.evaluate("s => getComputedStyle(s).display") == "list-item"
    assert summary.evaluate("s => getComputedStyle(s, '::marker').content") != "none"
    assert summary.bounding_box()["height"] >= 44
    summary.click()
    assert page.locator("details#type-commands textarea[name=text]").is_visible()
    context.close()


@pytest.mark.parametrize("language", ["de", "fr"])
def test_the_form_reads_in_the_players_language_to_its_last_choice(browser, site, language):  # noqa: F811
    """The clock's and vacations' fields, the missed-deadlines rule and the notices' choices were
    English on the German and French form."""
    context = browser.new_context(
        viewport=SCREENS["phone"], locale=language, extra_http_headers={"Accept-Language": language}
    )
    page = context.new_page()
    page.goto(site + "/games/new/?kind=diceduel")
    page.click("details#more-rules summary")
    text = page.inner_text("form.stack")
    english = [
        "once per turn of another player",
        "the stand-in plays it",
        "a time bank",
        "Bank at the start",
        "Vacation earned",
        "Longest absence",
        "Time for moves",
        "after this many missed",
    ]
    assert [words for words in english if words in text] == []
    context.close()
