"""Randomness anyone can audit, hidden information, fair undo, and the management commands."""

from __future__ import annotations

import hashlib
import io

import pytest
from django.core.management import call_command

from games.base import Rng, rederive
from pbem.audit import checks
from pbem.log import eventlog
from pbem.models import Event, Game
from pbem.play import selectors, services
from tests.conftest import alter_behind_the_databases_back, hands, requires_postgres


def finish(game):
    """Plays Dice Duel to the end: everyone plays their lowest card, winners roll."""
    while True:
        game.refresh_from_db()
        if game.status != "running":
            return game
        for seat in game.awaited:
            state = eventlog.load(game).state["game"]
            line = f"play {min(state['hands'][seat])}" if state["phase"] == "bid" else "roll"
            services.submit(game.pk, seat, line)


def test_the_seed_commitment_is_public_from_the_first_event(make_game):
    game = make_game(2)
    first = Event.objects.get(game=game, seq=1)
    assert first.type == "pbem.GameCreated"
    assert first.payload["seed_commitment"] == hashlib.sha256(bytes.fromhex(game.seed)).hexdigest()
    assert game.seed not in str(first.payload)


def test_random_outcomes_are_recorded_in_the_event_and_derived_from_seed_and_number(make_game):
    game = make_game(2)
    shuffled = Event.objects.filter(game=game, rng__isnull=False).order_by("seq").first()
    assert shuffled.rng and rederive(bytes.fromhex(game.seed), shuffled.seq, shuffled.rng)
    assert not rederive(bytes.fromhex(game.seed), shuffled.seq + 1, shuffled.rng)


def test_the_rng_is_deterministic_and_unbiased_by_construction():
    a, b = Rng(b"seed", 7), Rng(b"seed", 7)
    assert [a.roll() for _ in range(50)] == [b.roll() for _ in range(50)]
    assert Rng(b"seed", 8).shuffle(range(10)) != Rng(b"seed", 7).shuffle(range(10))
    counts = [0] * 6
    rng = Rng(b"x", 1)
    for _ in range(6000):
        counts[rng.roll() - 1] += 1
    assert all(850 < c < 1150 for c in counts)


def test_after_the_end_every_random_outcome_is_rederived_from_the_revealed_seed(make_game):
    game = finish(make_game(3))
    report = checks.verify(game)
    assert report.ok and report.seed_revealed and report.draws_checked >= 12
    assert all(row["rederived"] for row in checks.draws_table(game))


def test_no_seat_sees_another_seats_hand_or_the_seed_before_the_end(make_game):
    game = make_game(3)
    all_hands = hands(game)
    for seat in range(3):
        shown = str([(i.data, i.text, i.rng) for i in selectors.feed(game, seat)])
        view = selectors.view(game, seat)
        assert view["hand"] == all_hands[seat]
        for other in range(3):
            if other != seat:
                assert f"'cards': {all_hands[other]}" not in shown
        assert game.seed not in shown and game.seed not in str(view)
    spectator = str([(i.data, i.text, i.rng) for i in selectors.feed(game, None)])
    assert "'cards'" not in spectator and game.seed not in spectator


def test_a_secret_choice_stays_secret_until_all_are_in(make_game):
    game = make_game(3)
    card = hands(game)[0][0]
    services.submit(game.pk, 0, f"play {card}")
    bob_sees = [i for i in selectors.feed(game, 1) if i.type == "CardPlayed"]
    assert bob_sees[-1].data == {"seat": 0} and "face down" in bob_sees[-1].text
    assert selectors.view(game, 1)["my_card"] is None


def test_a_seat_may_undo_its_last_move_while_no_one_else_has_acted(make_game):
    game = make_game(3)
    first = hands(game)[0][0]
    services.submit(game.pk, 0, f"play {first}")
    services.submit(game.pk, 0, "undo")
    game.refresh_from_db()
    assert 0 in game.awaited and first in hands(game)[0]
    undone = Event.objects.get(game=game, type="pbem.Undone")
    assert Event.objects.filter(game=game, seq__in=undone.payload["events"], type="CardPlayed").exists()
    services.submit(game.pk, 0, f"play {hands(game)[0][-1]}")  # and play on


def test_undo_is_refused_once_another_seat_has_acted(make_game):
    game = make_game(3)
    services.submit(game.pk, 0, f"play {hands(game)[0][0]}")
    services.submit(game.pk, 1, f"play {hands(game)[1][0]}")
    before = game.version
    with pytest.raises(services.ServiceError, match="someone else has acted"):
        services.submit(game.pk, 0, "undo")
    game.refresh_from_db()
    assert Event.objects.filter(game=game, type="pbem.Undone").count() == 0 and game.version > before


def test_undo_is_refused_after_a_random_draw_or_a_reveal(make_game):
    game = make_game(2, options={"rounds": 2})
    services.submit(game.pk, 0, f"play {max(hands(game)[0])}")
    services.submit(game.pk, 1, f"play {min(hands(game)[1])}")  # the reveal
    with pytest.raises(services.ServiceError, match="revealed hidden information"):
        services.submit(game.pk, 1, "undo")
    game.refresh_from_db()
    winner = game.awaited[0]
    services.submit(game.pk, winner, "roll")
    with pytest.raises(services.ServiceError, match="at random"):
        services.submit(game.pk, winner, "undo")


def test_replay_skips_what_was_undone_even_past_snapshots(make_game, settings):
    settings.PBEM_SNAPSHOT_EVERY = 1
    game = make_game(3)
    services.submit(game.pk, 0, f"play {hands(game)[0][0]}")
    services.submit(game.pk, 0, "undo")
    eventlog.cache_clear()
    game.refresh_from_db()
    assert eventlog.load(game).state["game"]["played"][0] is None
    assert checks.verify(game).ok


def test_create_game_command_prints_the_new_games_id(db, settings):
    settings.PBEM_NOTICE_DISPATCH = "none"
    out = io.StringIO()
    call_command(
        "create_game",
        "diceduel",
        "--player",
        "Ann:ann@example.org",
        "--player",
        "Ben:ben@example.org",
        "--option",
        "rounds=2",
        stdout=out,
    )
    game = Game.objects.get(pk=int(out.getvalue().strip()))
    assert (game.kind, game.options, game.status) == ("diceduel", {"rounds": 2}, "running")
    assert list(game.seats.values_list("name", flat=True)) == ["Ann", "Ben"]


@pytest.mark.parametrize(
    "args, message",
    [
        (["nosuchgame", "--player", "A:a@x.org"], "No game called"),
        (["diceduel", "--player", "A:a@x.org"], "2 to 4 players"),
        (["diceduel", "--player", "A:a@x.org", "--player", "B:b@x.org", "--option", "rounds=9"], "at most 3"),
        (["diceduel", "--player", "nobody", "--player", "B:b@x.org"], "NAME:EMAIL"),
    ],
)
def test_create_game_refuses_bad_input_with_the_reason(db, args, message):
    from django.core.management.base import CommandError

    with pytest.raises(CommandError, match=message):
        call_command("create_game", *args)
    assert Game.objects.count() == 0


def test_replay_prints_the_state_after_event_n(make_game):
    game = make_game(2)
    services.submit(game.pk, 0, f"play {hands(game)[0][0]}")
    out = io.StringIO()
    call_command("replay", str(game.pk), "--at", "2", stdout=out)
    assert "after event 2" in out.getvalue() and "not started" in out.getvalue()
    out = io.StringIO()
    call_command("replay", str(game.pk), stdout=out)
    assert "round 1 of 3, phase bid" in out.getvalue()


def test_rebuild_read_models_command(make_game):
    game = make_game(2)
    Game.objects.filter(pk=game.pk).update(phase="", awaited=[])
    out = io.StringIO()
    call_command("rebuild_read_models", stdout=out)
    game.refresh_from_db()
    assert "1 game" in out.getvalue() and game.awaited == [0, 1]


def test_verify_games_passes_on_honest_games(make_game):
    finish(make_game(2))
    make_game(3)
    out = io.StringIO()
    call_command("verify_games", stdout=out)
    assert "All games verified" in out.getvalue()


@requires_postgres
def test_verify_games_catches_an_event_altered_behind_the_databases_back(make_game):
    game = make_game(2)
    services.submit(game.pk, 0, f"play {hands(game)[0][0]}")
    alter_behind_the_databases_back(game, 4, '{"players": 2, "rounds": 9}')
    with pytest.raises(SystemExit) as exit_:
        call_command("verify_games", str(game.pk), stderr=io.StringIO())
    assert exit_.value.code == 1
    report = checks.verify(game)
    assert any("event 4: content does not match its hash" in p for p in report.problems)


def test_verify_games_catches_a_snapshot_that_differs_from_replay(make_game, settings):
    settings.PBEM_SNAPSHOT_EVERY = 2
    game = make_game(2)
    services.submit(game.pk, 0, "say one\nsay two")
    game.refresh_from_db()
    from pbem.models import Snapshot

    snap = Snapshot.objects.filter(game=game).order_by("-seq").first()
    Snapshot.objects.filter(pk=snap.pk).update(state={**snap.state, "game": {**snap.state["game"], "scores": [9, 9]}})
    report = checks.verify(game)
    assert any(f"snapshot at event {snap.seq} differs" in p for p in report.problems)


def test_rebuild_read_models_names_an_id_that_is_no_game_and_fails(make_game):
    from django.core.management.base import CommandError

    game = make_game(2)
    out, err = io.StringIO(), io.StringIO()
    with pytest.raises(CommandError, match="1 game id"):
        call_command("rebuild_read_models", str(game.pk), "99999", stdout=out, stderr=err)
    assert "game #99999: no such game" in err.getvalue() and "1 game(s)" in out.getvalue()
