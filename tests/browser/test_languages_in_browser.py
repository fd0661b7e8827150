"""A German and a French seat page on a phone (issue 33), in Debian's Chromium at 390 px: the
page speaks the seat's language (chosen at invitation, or taken from the first visit's
Accept-Language), fits the screen, and its chooser changes the language of every page and mail
of the player. Screenshots go to test-artifacts/browser/seat-de-390.png and seat-fr-390.png.
"""

from __future__ import annotations

import pytest

from tests.chromium import NEEDS_CHROMIUM

from .test_play_in_browser import browser, shot, site  # noqa: F401 - fixtures

pytestmark = NEEDS_CHROMIUM

PHONE = {"width": 390, "height": 844}
# The platform's words on a seat page, by language (the game's own words are the games').
WORDS = {
    "de": ("Du bist", "Letzte Ereignisse", "Tischgespräch", "Deine Fristen in deinem Kalender", "Sprache"),
    "fr": ("Vous êtes", "Événements récents", "Discussion de table", "Vos échéances dans votre agenda", "Langue"),
}
ENGLISH = ("You are", "Recent events", "Table talk", "Your deadlines in your calendar")


def people():
    from pbem.play import services

    return [
        services.PlayerSpec("Alice", "alice@example.org", "en"),
        services.PlayerSpec("Bruno", "bruno@example.org", "de"),
        services.PlayerSpec("Chloé", "chloe@example.org", "fr"),
    ]


@pytest.mark.parametrize(("seat", "language"), [(1, "de"), (2, "fr")])
def test_a_seat_page_on_a_phone_in_german_and_in_french(browser, site, seat, language):  # noqa: F811
    from pbem.models import Seat
    from pbem.play import addressing, services

    game = services.create_game("elfenland", people(), {})
    context = browser.new_context(viewport=PHONE, is_mobile=True, locale="en-US")  # the seat's choice wins
    page = context.new_page()
    page.goto(f"{site}/play/{addressing.token_for(Seat.objects.get(game=game, number=seat))}/")
    text = page.inner_text("main")
    assert page.get_attribute("html", "lang") == language
    for word in WORDS[language]:
        assert word in text, (language, word)
    for word in ENGLISH:
        assert word not in text, (language, word)
    wide = page.evaluate("document.documentElement.scrollWidth")
    shot(page, f"seat-{language}-390")
    assert wide <= PHONE["width"], f"the {language} page is {wide} px wide"
    context.close()


def test_the_first_visit_speaks_the_browsers_language_and_the_chooser_changes_it(browser, site):  # noqa: F811
    from pbem.models import PlayerSettings, Seat
    from pbem.play import addressing, services

    game = services.create_game("elixirus", [services.PlayerSpec(n, f"{n.lower()}@example.org") for n in "ABC"], {})
    seat = Seat.objects.get(game=game, number=2)
    assert seat.language == ""
    context = browser.new_context(viewport=PHONE, is_mobile=True, locale="fr-FR")
    page = context.new_page()
    page.goto(f"{site}/play/{addressing.token_for(seat)}/")
    assert page.get_attribute("html", "lang") == "fr"
    assert Seat.objects.get(pk=seat.pk).language == "fr"  # kept: the seat's mails follow
    page.select_option("#language-choice", "de")
    page.click("#language button[type=submit]")
    page.wait_for_selector("html[lang=de]")
    assert "Deine Sprache ist jetzt Deutsch." in page.inner_text("main")
    assert Seat.objects.get(pk=seat.pk).language == "de"
    assert PlayerSettings.objects.get(email="c@example.org").language == "de"
    context.close()
