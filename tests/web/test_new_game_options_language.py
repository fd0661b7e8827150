"""Every option is named in the reader's language: the new-game form shows each game's options
(their labels, help and choice names) from the game's own catalogue, in the request's language,
and a help never repeats its option's label. Dice Duel (the toy game) numbers its seats from 1 on
its board, as every page and mail does."""

from __future__ import annotations

import html
import re

import pytest

from games import i18n
from games.messages import GAMES
from pbem.registry import get_game

pytestmark = pytest.mark.django_db

GAMES_WITH_OPTIONS = [name for name in GAMES if get_game(name).options]
LABEL = re.compile(r'<label for="id_opt_(\w+)">(.*?)</label>', re.S)


def option_labels(page: str) -> dict[str, str]:
    """Each option field's label as the page shows it (without Django's label suffix)."""
    return {name: html.unescape(text).rstrip(" :\u00a0") for name, text in LABEL.findall(page)}


@pytest.mark.parametrize("language", ["de", "fr"])
@pytest.mark.parametrize("kind", GAMES_WITH_OPTIONS)
def test_every_option_is_named_in_the_readers_language(client, kind, language):
    spec = get_game(kind)
    page = html.unescape(client.get("/games/new/", {"kind": kind}, HTTP_ACCEPT_LANGUAGE=language).content.decode())
    shown = option_labels(page)
    assert set(shown) == {o.name for o in spec.options}
    with i18n.using(language):
        for option in spec.options:
            said = i18n.game_text(kind, option.title)
            assert said != option.title, f"{kind}: {option.title!r} has no {language} translation"
            assert shown[option.name] == said
            assert option.title not in shown.values()
            if option.help:
                assert i18n.game_text(kind, option.help) in page
                assert option.help not in page, f"{kind}: the help of {option.name} is in English"
            for name in option.choice_labels:
                assert f">{i18n.game_text(kind, name)}</option>" in page
    if spec.rulebook:
        assert spec.rulebook not in page


@pytest.mark.parametrize("kind", GAMES_WITH_OPTIONS)
def test_an_options_help_does_not_repeat_its_label(kind):
    for option in get_game(kind).options:
        assert option.label, f"{kind}: {option.name} has no label of its own"
        assert not option.help.lower().startswith(option.title.lower()), (kind, option.name)
        assert not option.choice_labels or len(option.choice_labels) == len(option.choices or ())


def test_an_option_is_said_in_english_to_an_english_reader(client):
    page = html.unescape(client.get("/games/new/", {"kind": "elfenland"}, HTTP_ACCEPT_LANGUAGE="en").content.decode())
    assert option_labels(page)["home_cities"] == "Home Cities"
    assert "a secret City Card each" in page


def test_dice_duel_numbers_its_seats_from_1_on_its_board():
    from tests.toygame import render_html, render_text

    view = {"round": 1, "rounds": 3, "phase": "roll", "scores": [4, 7], "hand_sizes": [2, 3], "hand": None}
    text = render_text(view)
    assert "seat 1: 4 points, 2 cards" in text and "seat 2: 7 points, 3 cards" in text
    assert "seat 0" not in text
    board = render_html(view)
    assert "<li>seat 1: 4</li>" in board and "<li>seat 2: 7</li>" in board and "seat 0" not in board


@pytest.mark.parametrize("language", ["de", "fr"])
def test_the_forms_own_fields_and_the_games_list_are_in_the_readers_language(client, language):
    page = html.unescape(
        client.get("/games/new/", {"kind": "elfenland"}, HTTP_ACCEPT_LANGUAGE=language).content.decode()
    )
    for english in ("Clock", "Bank at the start", "Vacation earned per month", "Longest absence", "a time bank"):
        assert english not in page, english
    kinds = html.unescape(client.get("/games/new/", HTTP_ACCEPT_LANGUAGE=language).content.decode())
    assert "players)" not in kinds and ("Spieler)" if language == "de" else "joueurs)") in kinds
