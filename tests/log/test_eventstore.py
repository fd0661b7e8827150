"""The event store: append-only rows, numbering, hash chain, optimistic concurrency, snapshots,
upcasters."""

from __future__ import annotations

import dataclasses
import threading

import pytest
from django.db import IntegrityError, close_old_connections, connection, transaction

from pbem import registry
from pbem.audit import checks
from pbem.log import eventlog
from pbem.models import Event, Game, Snapshot
from pbem.play import services
from tests.conftest import hands, requires_postgres


def test_events_are_numbered_from_one_without_gaps_and_chained(make_game):
    game = make_game()
    rows = list(Event.objects.filter(game=game).order_by("seq").values("seq", "prev_hash", "hash"))
    assert [r["seq"] for r in rows] == list(range(1, game.version + 1))
    assert rows[0]["prev_hash"] == "0" * 64
    for earlier, later in zip(rows, rows[1:]):
        assert later["prev_hash"] == earlier["hash"]
    assert game.head_hash == rows[-1]["hash"]
    assert checks.verify(game).ok


def test_an_event_row_holds_who_what_when_why(make_game):
    game = make_game()
    services.submit(game.pk, 0, "say hello", causation_id="msg-1")
    said = Event.objects.get(game=game, type="pbem.Said")
    assert (said.actor_kind, said.actor_seat, said.causation_id) == ("seat", 0, "msg-1")
    assert said.payload == {"seat": 0, "text": "hello"}
    assert said.visible_to is None and said.schema_version == 1 and said.created_at


def test_the_orm_cannot_update_an_event(make_game):
    game = make_game()
    with pytest.raises(IntegrityError), transaction.atomic():
        Event.objects.filter(game=game, seq=1).update(type="Forged")
    event = Event.objects.get(game=game, seq=1)
    event.payload = {"forged": True}
    with pytest.raises(IntegrityError), transaction.atomic():
        event.save()
    assert Event.objects.get(game=game, seq=1).type == "pbem.GameCreated"


def test_the_orm_cannot_delete_an_event(make_game):
    game = make_game()
    with pytest.raises(IntegrityError), transaction.atomic():
        Event.objects.filter(game=game, seq=1).delete()
    with pytest.raises(IntegrityError), transaction.atomic():
        Event.objects.get(game=game, seq=2).delete()
    assert Event.objects.filter(game=game).count() == game.version


def test_a_game_with_a_log_cannot_be_deleted_by_the_orm_nor_behind_its_back(make_game):
    """Events carry no database FK (the append takes the game's id from the game row it bumps),
    so a trigger keeps a game from being deleted from under its log."""
    from django.db.models import ProtectedError

    game = make_game()
    with pytest.raises(ProtectedError), transaction.atomic():
        game.delete()
    with pytest.raises(IntegrityError), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("DELETE FROM pbem_game WHERE id = %s", [game.pk])
    assert Game.objects.filter(pk=game.pk).exists()
    assert Event.objects.filter(game=game).count() == game.version


def test_the_append_never_writes_events_for_a_game_that_does_not_exist(make_game):
    nowhere = {"id": 10**9, "chain_scheme": 2, "seed": "00" * 32}  # no row to read the game's chain from
    rows, _ = eventlog.build_rows(
        10**9, 0, "0" * 64, [eventlog.NewEvent("pbem.Said", {})], ("system", None, None), "", None, game=nowhere
    )
    with pytest.raises(eventlog.Conflict), transaction.atomic():
        eventlog.append(10**9, 0, "0" * 64, rows, {}, [])
    assert not Event.objects.filter(game_id=10**9).exists()


def test_an_append_expecting_an_old_version_gets_a_conflict_and_changes_nothing(make_game):
    game = make_game()
    services.submit(game.pk, 0, "say zero", causation_id="rb-0")  # the append's statement prepared
    game.refresh_from_db()
    rows, _ = eventlog.build_rows(
        game.pk, game.version - 1, "x" * 64, [eventlog.NewEvent("pbem.Said", {})], ("system", None, None), "", None
    )
    with pytest.raises(eventlog.Conflict), transaction.atomic():
        eventlog.append(game.pk, game.version - 1, "x" * 64, rows, {}, [])
    game.refresh_from_db()
    assert Event.objects.filter(game=game).count() == game.version


@requires_postgres
@pytest.mark.django_db(transaction=True)
def test_racing_writers_on_one_game_lose_nothing_double_nothing_leave_no_gap(settings):
    """Four threads, each with its own connection, append 'say' lines to one game at once."""
    settings.PBEM_NOTICE_DISPATCH = "none"
    game = services.create_game(
        "diceduel", [services.PlayerSpec("Alice", "a@x.org"), services.PlayerSpec("Bob", "b@x.org")], {}
    )
    start = game.version
    per_writer, writers = 25, 4
    errors = []
    barrier = threading.Barrier(writers)

    def writer(n):
        try:
            barrier.wait()
            for i in range(per_writer):
                eventlog.cache_clear() if i % 7 == 0 else None
                services.submit(game.pk, n % 2, f"say w{n}-{i}", causation_id=f"w{n}-{i}")
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)
        finally:
            close_old_connections()
            connection.close()

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(writers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    texts = list(Event.objects.filter(game=game, type="pbem.Said").values_list("payload__text", flat=True))
    assert sorted(texts) == sorted(f"w{n}-{i}" for n in range(writers) for i in range(per_writer))
    seqs = list(Event.objects.filter(game=game).order_by("seq").values_list("seq", flat=True))
    assert seqs == list(range(1, start + writers * per_writer + 1))
    game.refresh_from_db()
    assert checks.verify(game).ok


@requires_postgres
@pytest.mark.django_db(transaction=True)
def test_two_appends_expecting_the_same_version_exactly_one_wins(settings):
    game = services.create_game(
        "diceduel", [services.PlayerSpec("Alice", "a@x.org"), services.PlayerSpec("Bob", "b@x.org")], {}
    )
    version, head = game.version, game.head_hash
    results = []
    barrier = threading.Barrier(2)

    def racer(n):
        try:
            rows, _ = eventlog.build_rows(
                game.pk, version, head, [eventlog.NewEvent("pbem.Said", {"n": n})], ("system", None, None), "", None
            )
            barrier.wait()
            with transaction.atomic():
                eventlog.append(game.pk, version, head, rows, {}, [])
            results.append("won")
        except eventlog.Conflict:
            results.append("conflict")
        finally:
            connection.close()

    threads = [threading.Thread(target=racer, args=(n,)) for n in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results) == ["conflict", "won"]
    assert Event.objects.filter(game=game).count() == version + 1


def test_snapshots_are_written_every_n_events_and_are_only_a_cache(make_game, settings):
    settings.PBEM_SNAPSHOT_EVERY = 4
    game = make_game(3)
    for i in range(12):
        services.submit(game.pk, i % 3, f"say {i}")
    game.refresh_from_db()
    assert Snapshot.objects.filter(game=game).count() >= 3
    with_snapshots = eventlog.load(game).state
    Snapshot.objects.filter(game=game).delete()
    eventlog.cache_clear()
    assert eventlog.canonical(eventlog.load(game).state) == eventlog.canonical(with_snapshots)


def test_loading_reads_the_newest_snapshot_and_the_events_after_it(make_game, settings, django_assert_max_num_queries):
    settings.PBEM_SNAPSHOT_EVERY = 5
    game = make_game(2)
    for i in range(20):
        services.submit(game.pk, i % 2, f"say {i}")
    game.refresh_from_db()
    newest = Snapshot.objects.filter(game=game).order_by("-seq").first()
    assert newest.seq > game.version - 5
    # A snapshot is believed: a doctored one shows through, which proves it was used.
    doctored = dict(newest.state, meta=dict(newest.state["meta"], names=["Doctored", "Bob"]))
    Snapshot.objects.filter(pk=newest.pk).update(state=doctored)
    assert eventlog.load(game).state["meta"]["names"][0] == "Doctored"


def test_a_snapshot_made_by_an_older_reducer_version_is_ignored(make_game, settings):
    settings.PBEM_SNAPSHOT_EVERY = 1000
    game = make_game(2)
    real = eventlog.load(game).state
    bogus = dict(real, meta=dict(real["meta"], names=["Old", "Code"]))
    Snapshot.objects.create(game=game, seq=game.version, reducer_version=0, state=bogus)
    assert eventlog.load(game).state["meta"]["names"] == ["Alice", "Bob"]


def test_old_payloads_are_upcast_before_replay(make_game, monkeypatch):
    """Version 2 of CardPlayed calls the card 'value'; a version-1 event in the log still replays."""
    game = make_game(2)
    card = hands(game)[0][0]
    services.submit(game.pk, 0, f"play {card}")
    spec = registry.get_game("diceduel")

    def evolve_v2(state, event):
        if event.type == "CardPlayed":
            event = dataclasses.replace(event, data={"seat": event.data["seat"], "card": event.data["value"]})
        return spec.evolve(state, event)

    v2 = dataclasses.replace(
        spec,
        evolve=evolve_v2,
        schema_versions={"CardPlayed": 2},
        upcasters={("CardPlayed", 1): lambda d: {"seat": d["seat"], "value": d["card"]}},
    )
    monkeypatch.setitem(registry.all_games(), "diceduel", v2)
    monkeypatch.setattr(eventlog, "get_game", lambda kind: v2)
    eventlog.cache_clear()
    state = eventlog.load(game, use_snapshots=False).state
    assert state["game"]["played"][0] == card


def test_the_read_model_is_updated_with_the_append_and_rebuildable(make_game):
    from pbem.log import readmodels

    game = make_game(2)
    assert (game.status, game.phase, game.awaited) == ("running", "bid", [0, 1])
    Game.objects.filter(pk=game.pk).update(phase="garbage", awaited=[], scores=[99, 99])
    values = readmodels.rebuild(game)
    game.refresh_from_db()
    assert (
        (game.phase, game.awaited, game.scores)
        == ("bid", [0, 1], [0, 0])
        == (values["phase"], values["awaited"], values["scores"])
    )


@requires_postgres
@pytest.mark.django_db(transaction=True)
def test_the_append_prepares_its_statement_again_when_the_session_lost_it(settings):
    """In autocommit the append is one prepared statement sent through libpq; a pooler's
    DISCARD ALL (or DEALLOCATE) drops it from the session, and the next append prepares it anew."""
    settings.PBEM_NOTICE_DISPATCH = "none"
    game = services.create_game(
        "diceduel", [services.PlayerSpec("Alice", "a@x.org"), services.PlayerSpec("Bob", "b@x.org")], {}
    )
    services.submit(game.pk, 0, "say one", causation_id="prep-1")
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_prepared_statements WHERE name LIKE 'pbem_append_%%'")
        assert cursor.fetchone()[0] >= 1
        cursor.execute("DEALLOCATE ALL")
    outcome = services.submit(game.pk, 0, "say two", causation_id="prep-2")
    assert not outcome.duplicate
    assert services.submit(game.pk, 0, "say two", causation_id="prep-2").duplicate
    said = list(Event.objects.filter(game=game, type="pbem.Said").values_list("payload__text", flat=True))
    assert said == ["one", "two"]
    assert checks.verify(Game.objects.get(pk=game.pk)).ok


@pytest.mark.parametrize(
    "value",
    [
        {},
        [],
        "plain",
        7,
        None,
        True,
        [3, 1, 2],
        {"b": 1, "a": [1, {"d": None, "c": False}]},
        {"text": 'Grüße «Meister» 東京 \u2028 \x7f \\ " \n\t\x01'},
        {"x": 1.5, "y": -0.0, "z": 1e16, "w": 2**70},
        {"nan": float("nan"), "inf": float("inf")},
        {1: "one", 2: "two", 10: "ten"},
        ("a", ("b",)),
    ],
)
def test_canonical_json_is_exactly_json_dumps_with_sorted_keys(value):
    """Hashes are taken over this spelling: a faster encoder must not change one byte of it."""
    import json

    assert eventlog.canonical(value) == json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def test_canonical_json_refuses_what_json_refuses():
    with pytest.raises(TypeError):
        eventlog.canonical({"when": object()})


@requires_postgres
@pytest.mark.django_db(transaction=True)
def test_a_database_error_in_the_append_is_djangos_error_and_changes_nothing(settings):
    """The append's libpq path raises what Django's cursor would (here: a NUL that jsonb refuses)
    and leaves the connection usable."""
    from django.db import DataError

    settings.PBEM_NOTICE_DISPATCH = "none"
    game = services.create_game(
        "diceduel", [services.PlayerSpec("Alice", "a@x.org"), services.PlayerSpec("Bob", "b@x.org")], {}
    )
    rows, _ = eventlog.build_rows(
        game.pk,
        game.version,
        game.head_hash,
        [eventlog.NewEvent("pbem.Said", {"text": "nul \x00 here"})],
        ("system", None, None),
        "",
        None,
    )
    with pytest.raises(DataError):
        eventlog.append(game.pk, game.version, game.head_hash, rows, {}, [])
    assert Game.objects.get(pk=game.pk).version == game.version
    assert services.submit(game.pk, 0, "say still here").version == game.version + 1


def test_each_shape_of_append_statement_has_a_name_of_its_own():
    """Prepared statements are looked up by name on a connection: a name given to two texts would
    run the wrong statement, so the name comes from the text."""
    shapes = [((), 1, 0, False, False), (("round",), 1, 1, True, False), (("round", "scores"), 2, 1, True, True)]
    statements = [eventlog._append_sql(*shape) for shape in shapes]
    assert len({s.name for s in statements}) == len({s.numbered for s in statements}) == len(shapes)
    assert eventlog._append_sql(*shapes[1]) is statements[1]
    for statement in statements:
        assert statement.sql.count("%s") == statement.numbered.count(b"$") and b"%s" not in statement.numbered


@requires_postgres
@pytest.mark.django_db(transaction=True)
def test_a_rollback_does_not_lose_the_append_statement_of_a_transaction_opened_later(settings):
    """psycopg deallocates every statement of the session at a rollback once it has prepared one
    of its own; the append's statement is ours, so psycopg must never prepare one: an append in
    a transaction that a rollback preceded still runs (it failed there: 'prepared statement does
    not exist', and the whole transaction with it)."""
    settings.PBEM_NOTICE_DISPATCH = "none"
    game = services.create_game(
        "diceduel", [services.PlayerSpec("Alice", "a@x.org"), services.PlayerSpec("Bob", "b@x.org")], {}
    )
    services.submit(game.pk, 0, "say zero", causation_id="rb-0")  # the append's statement prepared
    game.refresh_from_db()
    rows, _ = eventlog.build_rows(
        game.pk,
        game.version,
        game.head_hash,
        [eventlog.NewEvent("pbem.Said", {"text": "one"})],
        ("system", None, None),
        "",
        None,
    )
    with transaction.atomic():  # the append first in its transaction, which psycopg opens
        eventlog.append(game.pk, game.version, game.head_hash, rows, {}, [])
    with pytest.raises(RuntimeError), transaction.atomic():
        Game.objects.filter(pk=game.pk).exists()
        raise RuntimeError("a refused command rolls its transaction back")
    with transaction.atomic():  # a transaction already open when the append comes
        Game.objects.filter(pk=game.pk).exists()
        services.submit(game.pk, 0, "say two", causation_id="rb-2")
    said = list(Event.objects.filter(game=game, type="pbem.Said").values_list("payload__text", flat=True))
    assert said[-3:] == ["zero", "one", "two"]
