"""Mass timeouts: the due seats of a claimed chunk are timed out a group of games at a time (the
games loaded together, the checks read once for the group, the appends in one transaction, done
again with a savepoint per game when one of them fails), with the same outcome as one by one."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from pbem.log import eventlog
from pbem.models import DeadlineTimer, Event, Game, Notice
from pbem.play import deadlines, runner
from pbem.play.runner import ServiceError
from tests.conftest import deliver, requires_postgres

pytestmark = requires_postgres


def deadline_of(game, seat: int) -> datetime:
    return datetime.fromisoformat(Game.objects.get(pk=game.pk).deadlines[str(seat)])


def due_games(make_game, count: int) -> tuple[list, datetime]:
    """`count` two-seat games whose seat 0 is due (seat 1's row pushed out of the sweep), with
    their turn notices sent; and a time past seat 0's deadline of each."""
    games = [make_game() for _ in range(count)]
    deliver()
    for game in games:
        DeadlineTimer.objects.filter(game=game, seat=1).update(due_at=None)
    eventlog.cache_clear()  # loaded cold, as a sweep of its own process finds them
    return games, max(deadline_of(game, 0) for game in games) + timedelta(seconds=1)


def timeouts_of(game) -> list[int]:
    return list(Event.objects.filter(game=game, type="pbem.TimedOut").values_list("payload__seat", flat=True))


def test_a_chunk_of_several_games_is_timed_out_together(make_game):
    games, when = due_games(make_game, 4)
    assert deadlines.run_deadlines(when)["timed_out"] == 4
    for game in games:
        assert timeouts_of(game) == [0]
        told = Notice.objects.get(game=game, kind="timedout")
        assert told.context["seat"] == 0 and told.context["misses"] == 1
        assert not DeadlineTimer.objects.filter(game=game).exclude(lease="").exists()  # no claim left
        assert Game.objects.get(pk=game.pk).version == Event.objects.filter(game=game).count()


@pytest.mark.django_db(transaction=True)  # the group's own transaction, not a savepoint of the test's
def test_the_queries_of_a_group_do_not_grow_with_its_games(make_game):
    """The bound: a fixed number of statements per group (the claims, the load: 4, the checks:
    3, the timer rows' move: 1, one transaction), whatever the number of its games; per game
    only its append (sent past Django's cursor, so not counted here)."""
    counts = []
    for size in (2, 6):
        _games, when = due_games(make_game, size)
        with CaptureQueriesContext(connection) as queries:
            assert deadlines.run_deadlines(when)["timed_out"] == size
        counts.append([q["sql"][:30] for q in queries])
        assert not any(q["sql"].startswith("SAVEPOINT") for q in queries)
        DeadlineTimer.objects.update(due_at=None)
    assert counts[0] == counts[1]
    assert counts[0].count("COMMIT") == 3  # two claims (the second finds nothing) and the group


def test_one_failing_game_does_not_stop_the_others(make_game, monkeypatch):
    games, when = due_games(make_game, 3)
    bad = games[1].pk
    timeout = deadlines._timeout

    def failing(work, seat, now, verdict, checks=None):
        if work.loaded.game_id == bad:
            raise ServiceError("this game fails")
        return timeout(work, seat, now, verdict, checks)

    monkeypatch.setattr(deadlines, "_timeout", failing)
    assert deadlines.run_deadlines(when)["timed_out"] == 2
    assert [timeouts_of(g) for g in games] == [[0], [], [0]]
    # The failed seat's row is due again as before (the next run takes it).
    row = DeadlineTimer.objects.get(game_id=bad, seat=0)
    assert row.lease == "" and row.due_at is not None and row.due_at <= when
    monkeypatch.setattr(deadlines, "_timeout", timeout)
    assert deadlines.run_deadlines(when)["timed_out"] == 1
    assert timeouts_of(games[1]) == [0]


@pytest.mark.django_db(transaction=True)  # the group's own transaction, not a savepoint of the test's
def test_a_game_whose_statement_fails_in_the_group_rolls_back_alone_and_is_done_on_its_own(make_game, monkeypatch):
    games, when = due_games(make_game, 3)
    bad = games[0].pk
    timeout = deadlines._timeout

    def failing_in_group(work, seat, now, verdict, checks=None):
        if work.loaded.game_id == bad and checks is not None:
            timeout(work, seat, now, verdict, checks)
            with connection.cursor() as cursor:
                cursor.execute("SELECT 1 / 0")  # aborts what it runs in: here, its savepoint
        return timeout(work, seat, now, verdict, checks)

    monkeypatch.setattr(deadlines, "_timeout", failing_in_group)
    with CaptureQueriesContext(connection) as queries:
        assert deadlines.run_deadlines(when)["timed_out"] == 3
    sql = [q["sql"] for q in queries]
    # The group undone, then done again with a savepoint per game: the failing one rolled back.
    assert sum(s.startswith("SAVEPOINT") for s in sql) == 3
    assert sum(s.startswith("ROLLBACK TO SAVEPOINT") for s in sql) == 1
    assert [timeouts_of(g) for g in games] == [[0], [0], [0]]


def test_a_group_whose_transaction_fails_is_done_one_by_one(make_game, monkeypatch):
    games, when = due_games(make_game, 3)

    def broken(*args, **kwargs):
        raise RuntimeError("the group's transaction failed")

    monkeypatch.setattr(deadlines, "run_group", broken)
    assert deadlines.run_deadlines(when)["timed_out"] == 3
    assert [timeouts_of(g) for g in games] == [[0], [0], [0]]


def test_a_seat_timed_out_by_another_sweep_meanwhile_is_not_timed_out_again(make_game, monkeypatch):
    """The group's append is conditional on the version it loaded: a seat another sweep timed
    out between the group's load and its append loses the race and is judged again on its own
    (its new deadline is not due)."""
    games, when = due_games(make_game, 2)
    read = deadlines._Checks.read

    def another_sweep_first(self, works, rows):
        read(self, works, rows)
        assert deadlines.timeout_seat(games[0].pk, 0, when) == "passed"

    monkeypatch.setattr(deadlines._Checks, "read", another_sweep_first)
    assert deadlines.run_deadlines(when)["timed_out"] == 1
    assert [timeouts_of(g) for g in games] == [[0], [0]]


def test_misses_in_a_row_read_for_the_group_agree_with_counting_alone(make_game, monkeypatch):
    monkeypatch.setattr(deadlines, "MISSES_PAGE", 2)  # from the second miss on, past the group's page
    games = [make_game() for _ in range(2)]
    Game.objects.filter(pk__in=[g.pk for g in games]).update(absence_policy="minimal")  # a pass each time
    eventlog.cache_clear()
    for _round in range(6):  # 3 rounds of two steps: seat 0 misses 3 deadlines, seat 1 five
        deliver()
        awaited = [(g, seat) for g in games for seat in Game.objects.get(pk=g.pk).awaited]
        if not awaited:
            break
        when = max(deadline_of(g, seat) for g, seat in awaited) + timedelta(seconds=1)
        assert deadlines.run_deadlines(when)["timed_out"] == len(awaited)
    for game in games:
        for seat in (0, 1):
            told = Notice.objects.filter(game=game, kind="timedout", context__seat=seat).order_by("id")
            assert [n.context["misses"] for n in told] == list(range(1, len(told) + 1))
            assert len(told) >= 3
            assert told.last().context["misses"] == deadlines._misses_in_a_row(game.pk, seat)


def test_load_many_gives_what_load_gives(make_game, settings):
    from pbem.play import services

    settings.PBEM_SNAPSHOT_EVERY = 3
    games = [make_game() for _ in range(3)]
    for text in ("one", "two", "three", "four"):
        services.submit(games[0].pk, 0, f"say {text}")  # past a snapshot, and events after it
    rows = list(Game.objects.filter(pk__in=[g.pk for g in games]))
    many = eventlog.load_many(rows)
    for game in rows:
        one = eventlog.load(game)
        assert (many[game.pk].state, many[game.pk].version, many[game.pk].head_hash, many[game.pk].undone) == (
            one.state,
            one.version,
            one.head_hash,
            one.undone,
        )


@pytest.mark.parametrize("cached", [False, True])
def test_run_group_appends_each_game_and_leaves_the_rest_to_run(make_game, cached):
    games = [make_game() for _ in range(3)]
    if not cached:
        eventlog.cache_clear()
    said = []

    def say(work):
        work.platform("Said", {"seat": None, "text": "hello"})
        said.append(work.loaded.game_id)

    def nothing(work):
        pass

    done = runner.run_group({games[0].pk: say, games[1].pk: nothing, games[2].pk: say}, runner.SYSTEM)
    assert sorted(said) == sorted([games[0].pk, games[2].pk])
    assert done[games[0].pk] is not None and done[games[2].pk] is not None
    # Nothing emitted: done on a fresh load, left to run() on a cached one (it may be behind).
    assert (done[games[1].pk] is None) is cached
    for game in (games[0], games[2]):
        assert Event.objects.filter(game=game, type="pbem.Said").count() == 1
        assert Game.objects.get(pk=game.pk).version == Event.objects.filter(game=game).count()


def test_a_group_queues_one_sending_task_not_one_a_game(
    make_game, settings, monkeypatch, django_capture_on_commit_callbacks
):
    """Ten thousand timed-out seats queued ten thousand tasks (and started as many publishing
    threads); a group's notices now go out by one task once its transaction commits."""
    from pbem.play import outbox

    games, when = due_games(make_game, 5)
    settings.PBEM_NOTICE_DISPATCH = "on_commit"
    queued = []
    monkeypatch.setattr(outbox, "queue_task", lambda name, *args: queued.append((name, args)))
    with django_capture_on_commit_callbacks(execute=True):
        assert deadlines.run_deadlines(when, helpers=0)["timed_out"] == 5
    assert queued == [("pbem.tasks.send_pending_notices", (None,))]
    assert Notice.objects.filter(game__in=games, kind="timedout", status="pending").count() == 5


@pytest.mark.django_db(transaction=True)  # the group's own transaction, not a savepoint of the test's
def test_queries_a_body_runs_while_the_groups_appends_are_in_flight_read_their_answers_first(make_game):
    """The group's appends are sent without waiting (prepared.Pipeline); a body that then runs a
    query of its own, through Django or a ready statement, gets its answer, and every append
    before it is in."""
    from pbem.log import rows

    games = [make_game() for _ in range(3)]
    eventlog.cache_clear()
    seen = []

    def say_and_ask(work):
        work.platform("Said", {"seat": None, "text": "hello"})
        seen.append(Event.objects.filter(game_id__in=[g.pk for g in games], type="pbem.Said").count())
        seen.append(rows.fetch_one("SELECT %s::int", [7])[0])

    done = runner.run_group({game.pk: say_and_ask for game in games}, runner.SYSTEM)
    assert all(done[game.pk] is not None for game in games)
    assert seen == [0, 7, 1, 7, 2, 7]  # the appends sent before each query were in when it ran
    for game in games:
        assert Event.objects.filter(game=game, type="pbem.Said").count() == 1
        assert Game.objects.get(pk=game.pk).version == Event.objects.filter(game=game).count()


@pytest.mark.django_db(transaction=True)  # the stand-ins' moves follow the group's commit, as in production
def test_stand_ins_seated_by_a_group_play_the_moves_they_play_when_seated_alone(settings, monkeypatch):
    """Three Elfenland games with one seed, seat 1 a stand-in's from the start: seat 0 of the
    first timed out alone (then the stand-ins play the whole game by play(), one commit a move),
    of the two others by the timer in one group (their stand-ins' moves by one task for the group,
    standins.play_many, a round in one transaction, on by play() past MAX_MOVES): the same moves
    by the same actors, in the same order."""
    from pbem.play import services, standins
    from tests.conftest import CAST

    settings.PBEM_NOTICE_DISPATCH = "none"
    monkeypatch.setattr(standins, "MAX_MOVES", 30)  # a task plays 30 moves, then queues the next
    # One seed for the three (the field's default is read through a cached property).
    monkeypatch.setitem(Game._meta.get_field("seed").__dict__, "_get_default", lambda: "5e" * 32)
    many = []
    monkeypatch.setattr(standins, "play_many", lambda ids, real=standins.play_many: many.append(ids) or real(ids))
    games = [services.create_game("elfenland", CAST[:2], {}, standin_after=1, standin_seats=(1,)) for _ in range(3)]
    deliver()
    seat = 0
    assert [Game.objects.get(pk=game.pk).awaited for game in games] == [[0]] * 3
    DeadlineTimer.objects.filter(game=games[0]).update(due_at=None)
    DeadlineTimer.objects.exclude(seat=seat).update(due_at=None)
    eventlog.cache_clear()
    when = max(deadline_of(game, seat) for game in games) + timedelta(seconds=1)
    assert deadlines.run_deadlines(when)["timed_out"] == 2
    assert many == [sorted([games[1].pk, games[2].pk])]
    assert deadlines.timeout_seat(games[0].pk, seat, when) == "standin"

    def log(game):
        return [
            (e.type, e.actor_kind, e.actor_seat, e.visible_to, e.public, e.payload if "." not in e.type else None)
            for e in Event.objects.filter(game=game).order_by("seq")
        ]

    alone = log(games[0])
    assert sum(kind == "standin" for _t, kind, *_ in alone) > standins.MAX_MOVES
    assert alone[-1][0] == "pbem.SeedRevealed"  # played to its end
    assert log(games[1]) == alone and log(games[2]) == alone


@pytest.mark.django_db(transaction=True)  # the group's own transaction, not a savepoint of the test's
def test_an_append_that_fails_in_flight_undoes_the_group_which_is_done_again_game_by_game(make_game):
    """An error of a statement sent in the pipeline (here a second event at the number the
    append takes) is read at the sync: nothing of the group is in, and the group is done again
    with a savepoint per game, the failing game alone rolled back and left to run()."""
    games = [make_game() for _ in range(3)]
    eventlog.cache_clear()
    bad = games[1].pk

    def say(work):
        if work.loaded.game_id == bad:
            last = Event.objects.filter(game_id=bad).order_by("-seq").first()
            last.pk, last.seq = None, work.loaded.version + 1
            last.save()  # the number its append will want: its insert fails on the unique (game, seq)
        work.platform("Said", {"seat": None, "text": "hello"})

    with CaptureQueriesContext(connection) as queries:
        done = runner.run_group({game.pk: say for game in games}, runner.SYSTEM)
    assert done[bad] is None and all(done[g.pk] is not None for g in games if g.pk != bad)
    sql = [q["sql"] for q in queries]
    assert sum(s.startswith("ROLLBACK TO SAVEPOINT") for s in sql) == 1  # the second attempt's, for it
    for game in games:
        said = Event.objects.filter(game=game, type="pbem.Said").count()
        assert said == (0 if game.pk == bad else 1)
        if game.pk != bad:
            assert Game.objects.get(pk=game.pk).version == Event.objects.filter(game=game).count()


def test_a_groups_notices_that_wait_are_sent_by_one_delayed_task(
    make_game, settings, monkeypatch, django_capture_on_commit_callbacks
):
    """News waits a few seconds before it goes out (a notice following soon tells it too); a
    group's news queued one delayed task a game, now one for the group."""
    from pbem.play import outbox

    games = [make_game() for _ in range(3)]
    settings.PBEM_NOTICE_DISPATCH = "on_commit"
    settings.PBEM_NOTICE_FOLD_SECONDS = 10
    queued, delayed = [], []
    monkeypatch.setattr(outbox, "queue_task", lambda name, *args: queued.append((name, args)))
    monkeypatch.setattr(outbox, "_dispatch_later", lambda game_id, seconds: delayed.append((game_id, seconds)))

    def say(work):
        work.platform("Said", {"seat": 0, "text": "hello"})

    with django_capture_on_commit_callbacks(execute=True):
        runner.run_group({game.pk: say for game in games}, runner.SYSTEM)
    news = Notice.objects.filter(game__in=games, kind="news", status="pending")
    assert news.count() == 6  # both seats of each game hear of it
    assert delayed == [(None, 10)]
    assert queued == [("pbem.tasks.send_pending_notices", (None,))]
