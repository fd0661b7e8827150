"""The new-game form in Debian's Chromium as a person uses it: what they type is sent when they
press the button, at a phone's width and a desktop's, with JavaScript on and off."""

from __future__ import annotations

import pytest

from tests.chromium import NEEDS_CHROMIUM

from .test_play_in_browser import browser, site  # noqa: F401 - fixtures

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
    page.click("text=Create, and send me my invitation")
    assert "Your invitation is on its way to alice@example.org" in page.content()
    assert len(posts) == 1 and Game.objects.filter(title=title).exists()
    context.close()
