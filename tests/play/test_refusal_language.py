"""A move the game refuses is refused in the words of the player who sent it (issue 33): the game
decides in the log's language, so the reason is asked again in the writer's."""

from __future__ import annotations

import pytest

from games import i18n
from games.elfenland import board
from pbem.models import Event
from pbem.play import selectors, services
from pbem.play.runner import CommandRejected

pytestmark = pytest.mark.django_db

WORDS = {"de": ("nimm", "Es liegt kein offenes Plättchen"), "fr": ("prends", "Il n’y a pas de jeton")}


def elfenland():
    players = [services.PlayerSpec(name, f"{name.lower()}@example.org") for name in ("Alice", "Bruno", "Chloé")]
    game = services.create_game("elfenland", players, {})
    return game, Event.objects.filter(game=game).count()


def a_counter_not_face_up(game) -> str:
    """The word of a counter kind none of the face-up counters is (in the reader's language)."""
    shown = set(selectors.state_at(game)["game"]["pool"])
    return board.word(next(kind for kind in board.WORD if kind not in shown))


@pytest.mark.parametrize("language", ["de", "fr"])
def test_an_illegal_move_is_refused_in_the_writers_language(language):
    game, events = elfenland()
    verb, reason = WORDS[language]
    with i18n.using(language):
        said = a_counter_not_face_up(game)
        with pytest.raises(CommandRejected) as refused:
            services.submit(game.pk, 0, f"{verb} {said}")
    assert reason in str(refused.value), str(refused.value)
    assert Event.objects.filter(game=game).count() == events  # nothing changed


def test_the_same_move_is_refused_in_english_for_an_english_writer():
    game, _events = elfenland()
    with pytest.raises(CommandRejected) as refused:
        services.submit(game.pk, 0, f"take {a_counter_not_face_up(game)}")
    assert "There is no face-up" in str(refused.value)
