"""Zauberschwert & Drachenei by mail at a mixed table (issue 33): an English, a German and a
French player each reply with command words typed in their own language ('setze 1', 'tausche
Zaubertrank mit Blau gegen Zauberstab 2', 'propose potion à bleu contre baguette magique 2'),
every reply applies, each reads the game's narration in their language, and the log is the very
log of the same game typed in English."""

from __future__ import annotations

import pytest

from games.i18n import using
from pbem.models import Game
from pbem.play import services
from pbem.registry import get_game

from .conftest import deliver, send_all
from .replies import reply
from .test_languages_by_mail import ENGLISH, MIXED, address, log_of, newest_with_moves, quick  # noqa: F401
from .whole_games import seeded, standin_choice

SEED = "5a" * 32
KIND = "zauberschwert"
MAX_MOVES = 800
# The game's own words that its board in a notice shows, in each language.
GAME_WORDS = {"en": "power stones", "de": "Machtsteine", "fr": "pierres de pouvoir"}


def play_in_words(table, mailoutbox):
    """A game of Zauberschwert by mail to its end: each awaited player replies to their newest
    mail offering moves with the stand-in's choice typed in their own language's words."""
    spec = get_game(KIND)
    players = [services.PlayerSpec(name, address(name), language) for name, language in table]
    with seeded(SEED):
        game = services.create_game(KIND, players, {})
    send_all()
    typed = []
    for _move in range(MAX_MOVES):
        game.refresh_from_db()
        if game.status != "running":
            break
        seat = game.awaited[0]
        name, language = table[seat]
        mail = newest_with_moves(mailoutbox, address(name), language)
        with using(language):
            line = spec.describe(standin_choice(game, seat))
        typed.append((language, line))
        message = deliver(reply("gmail", mail, line, sender=address(name)))
        if message.status != "applied":
            # trading: the offers made since that mail make it stale; the answer shows the board
            # as it stands and asks again, and the reply to it applies
            send_all()
            message = deliver(reply("gmail", newest_to(mailoutbox, address(name)), line, sender=address(name)))
        assert message.status == "applied", (name, line, message.outcome)
        send_all()
    assert Game.objects.get(pk=game.pk).status == "finished", f"{KIND} did not end within {MAX_MOVES} moves"
    return game, typed


def newest_to(mailoutbox, to: str):
    from .test_languages_by_mail import parsed

    return parsed(next(sent for sent in reversed(mailoutbox) if sent.to == [to]))


@pytest.mark.slow  # two whole games by mail
def test_a_mixed_table_types_its_own_words_and_writes_the_english_log(quick, db, mailoutbox):  # noqa: F811
    english, english_typed = play_in_words(ENGLISH, mailoutbox)
    english_log = log_of(english)
    mailoutbox.clear()

    mixed, typed = play_in_words(MIXED, mailoutbox)
    assert log_of(mixed) == english_log  # the same game: the words typed are not in the log

    # German and French words were typed (not the English ones), and each read the game in theirs
    verbs = {language: {line.split()[0] for lang, line in typed if lang == language} for language in ("de", "fr")}
    assert {"setze", "fertig"} <= verbs["de"] and not verbs["de"] & {"place", "done", "pass"}, verbs["de"]
    assert {"fini", "passe"} <= verbs["fr"] and not verbs["fr"] & {"done", "pass", "cast"}, verbs["fr"]
    assert sum(a != b for (_l, a), (_e, b) in zip(typed, english_typed, strict=True)) > len(typed) / 2
    for name, language in MIXED:
        mine = [m.body for m in mailoutbox if m.to == [address(name)]]
        assert sum(GAME_WORDS[language] in body for body in mine) > 20, name
        others = [word for code, word in GAME_WORDS.items() if code != language]
        assert not any(word in body for body in mine for word in others), name
