"""The public heads feed (/heads.json, GET /api/heads): every game's chain heads, appended by the
timers and chained entry to entry, so that anyone can mirror them and a rewrite shows; it
reveals nothing a game's own feed does not (issue 26: an owner who rewrote the chain and the
outbox's kept heads passed verify_games)."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import call_command
from django.db import IntegrityError, connection, transaction

from pbem import tasks
from pbem.audit import heads_feed, publish, verify
from pbem.log import chain, eventlog
from pbem.models import Event, Game, HeadEntry
from pbem.play import services
from tests.audit.test_checks import finish
from tests.conftest import hands, requires_postgres

from . import forgery


def page(client, after: int = 0, **params) -> dict:
    answer = client.get("/heads.json", {"after": after, **params})
    assert answer.status_code == 200, answer.content
    return answer.json()


def move(game: Game) -> None:
    """One card played by the first seat awaited (Dice Duel's bids are simultaneous)."""
    game.refresh_from_db()
    seat = game.awaited[0]
    services.submit(game.pk, seat, f"play {hands(game)[seat][0]}")


def exported(game: Game) -> dict:
    out = io.StringIO()
    call_command("export_game", str(game.pk), stdout=out)
    return json.loads(out.getvalue())


def toy(doc: dict):
    return forgery.spec_for(doc)


def test_each_run_appends_the_heads_that_moved_and_only_those(make_game, client):
    first, second = make_game(2), make_game(3)
    assert tasks.publish_heads() == 2
    assert tasks.publish_heads() == 0  # nothing moved
    move(first)
    first.refresh_from_db()
    assert tasks.publish_heads() == 1
    entries = page(client)["entries"]
    assert [(e["n"], e["game"]) for e in entries] == [(1, first.pk), (2, second.pk), (3, first.pk)]
    assert (entries[-1]["version"], entries[-1]["hash"]) == (first.version, first.head_hash)
    for entry in entries:
        event = Event.objects.get(game_id=entry["game"], seq=entry["version"])
        assert event.hash == entry["hash"]


def test_every_entry_is_chained_to_the_one_before(make_game, client):
    for _ in range(3):
        make_game(2)
        tasks.publish_heads()
    feed = page(client)
    assert heads_feed.check(feed) == []
    entries = feed["entries"]
    assert entries[0]["prev"] == heads_feed.GENESIS
    assert all(later["prev"] == earlier["entry"] for earlier, later in zip(entries, entries[1:]))
    altered = json.loads(json.dumps(feed))
    altered["entries"][1]["version"] += 1
    assert heads_feed.check(altered) == ["entry 2: its hash does not follow from what it says: the entry was altered"]


def test_a_scheme_1_game_appears_only_once_it_is_over(make_game, client, monkeypatch):
    """Its hashes would confirm guesses at hidden payloads before the end (pbem/CHAIN.md)."""
    monkeypatch.setattr(chain, "LATEST", 1)
    old = make_game(2)
    monkeypatch.undo()
    tasks.publish_heads()
    assert all(e["game"] != old.pk for e in page(client)["entries"])
    finish(old)
    old.refresh_from_db()
    tasks.publish_heads()
    mine = [e for e in page(client)["entries"] if e["game"] == old.pk]
    assert [(e["version"], e["hash"]) for e in mine] == [(old.version, old.head_hash)]


def test_the_feed_shows_heads_and_nothing_else(make_game, client):
    game = make_game(2)
    tasks.publish_heads()
    entry = page(client)["entries"][0]
    assert set(entry) == {"n", "game", "version", "hash", "at", "prev", "entry"}
    assert game.seed not in json.dumps(page(client))


@requires_postgres
def test_the_database_refuses_to_change_or_delete_an_entry(make_game):
    make_game(2)
    tasks.publish_heads()
    with pytest.raises(IntegrityError, match="append-only"), transaction.atomic():
        HeadEntry.objects.filter(n=1).update(version=99)
    with pytest.raises(IntegrityError, match="append-only"), transaction.atomic():
        HeadEntry.objects.filter(n=1).delete()


def test_pages_of_the_feed_on_the_site_and_the_api(make_game, client):
    for _ in range(3):
        make_game(2)
    tasks.publish_heads()
    first = page(client, limit=2)
    assert [e["n"] for e in first["entries"]] == [1, 2] and first["next_after"] == 2
    rest = page(client, after=2)
    assert [e["n"] for e in rest["entries"]] == [3] and rest["next_after"] is None
    api = client.get("/api/heads", {"after": 2}).json()
    assert api == rest
    assert client.get("/heads.json", {"after": "x"}).status_code == 400
    assert client.get("/api/heads", {"after": -1}).status_code == 422
    assert client.get("/heads.json")["Access-Control-Allow-Origin"] == "*"


def test_a_mirror_keeps_up_page_by_page(make_game, client, tmp_path, monkeypatch):
    monkeypatch.setattr(publish, "PAGE", 2)
    fetch = lambda url: client.get(url).content  # noqa: E731 - the mirror's HTTP, through the test client
    copy = tmp_path / "heads.json"
    for _ in range(3):
        make_game(2)
    tasks.publish_heads()
    assert heads_feed.mirror("/heads.json", str(copy), fetch) == []
    make_game(2)
    tasks.publish_heads()
    assert heads_feed.mirror("/heads.json", str(copy), fetch) == []
    kept = json.loads(copy.read_text())
    assert [e["n"] for e in kept["entries"]] == [1, 2, 3, 4] and heads_feed.check(kept) == []


def test_verify_holds_a_log_to_every_head_the_feed_published_for_its_game(make_game, client):
    game = make_game(2)
    for _ in range(2):
        move(game)
        tasks.publish_heads()
    finish(game)
    tasks.publish_heads()
    doc, feed = exported(game), page(client)
    found = verify.verify_document(doc, spec=toy(doc), feed=feed)
    assert found.ok, found.problems
    assert any(f.startswith("the heads feed (") and "all in the log" in f for f in found.facts)
    forged = forgery.reseal(json.loads(json.dumps(doc)))
    started = next(ev for ev in forged["events"] if ev["type"] == "pbem.GameStarted")
    started["created_at"] = started["created_at"].replace("+00:00", "+00:01")
    forgery.reseal(forged)
    assert verify.verify_document(forged, spec=toy(doc)).ok  # consistent in itself: only heads catch it
    problems = verify.verify_document(forged, spec=toy(doc), feed=feed).problems
    assert problems and all("is not in the log" in p for p in problems)


def test_verify_refuses_a_copy_of_the_feed_that_was_altered(make_game, client):
    game = make_game(2)
    tasks.publish_heads()
    doc, feed = exported(game), page(client)
    feed["entries"][0]["hash"] = "ab" * 32
    found = verify.verify_document(doc, spec=toy(doc), feed=feed)
    assert found.problems == [
        "the heads feed: entry 1: its hash does not follow from what it says: the entry was altered"
    ]


@requires_postgres
def test_an_owner_who_rewrites_the_log_and_the_feed_is_caught_by_a_mirror(make_game, client, tmp_path):
    """The insider of issue 26: as the database's owner, rewrite an event, recompute the whole
    chain from the seed the server holds, and rewrite the feed to match. verify_games, reading
    only the database, passes; a mirror's earlier copy does not."""
    fetch = lambda url: client.get(url).content  # noqa: E731
    game = make_game(2)
    move(game)
    tasks.publish_heads()
    copy = tmp_path / "heads.json"
    assert heads_feed.mirror("/heads.json", str(copy), fetch) == []
    rewrite_log_and_feed(game)
    out = io.StringIO()
    call_command("verify_games", str(game.pk), stdout=out)
    assert "All games verified" in out.getvalue()  # the database agrees with itself
    move(game)  # play goes on; the next entry links to the rewritten feed
    tasks.publish_heads()
    assert heads_feed.mirror("/heads.json", str(copy), fetch) == [
        "entry 1 is not what this mirror copied: the feed was rewritten since"
    ]
    doc = exported(Game.objects.get(pk=game.pk))
    problems = verify.verify_document(doc, spec=toy(doc), feed=json.loads(copy.read_text())).problems
    assert problems and "so the log changed after that head was given out" in problems[0]


def rewrite_log_and_feed(game: Game) -> None:
    sealer = eventlog.sealer_for(game)
    rows = list(Event.objects.filter(game=game).order_by("seq").values(*eventlog.EVENT_ROW_FIELDS))
    rows[1]["payload"] = {"rewritten": True}
    prev = chain.GENESIS
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("ALTER TABLE pbem_event DISABLE TRIGGER pbem_event_no_update")
        cursor.execute("ALTER TABLE pbem_headentry DISABLE TRIGGER pbem_headentry_no_update")
        for row in rows:
            digest = sealer.hash(row["seq"], row, prev)
            cursor.execute(
                "UPDATE pbem_event SET payload = %s, prev_hash = %s, hash = %s WHERE game_id = %s AND seq = %s",
                [json.dumps(row["payload"]), prev, digest, game.pk, row["seq"]],
            )
            prev = digest
        Game.objects.filter(pk=game.pk).update(head_hash=prev)
        entry = HeadEntry.objects.get(n=1)
        at = publish._entry(entry)["at"]
        new = heads_feed.entry_hash(1, game.pk, entry.version, prev, at, heads_feed.GENESIS)
        HeadEntry.objects.filter(n=1).update(head_hash=prev, entry=new)
        cursor.execute("ALTER TABLE pbem_event ENABLE TRIGGER pbem_event_no_update")
        cursor.execute("ALTER TABLE pbem_headentry ENABLE TRIGGER pbem_headentry_no_update")
    eventlog.cache_clear()


@requires_postgres
def test_an_entry_rewritten_without_its_hash_is_seen_by_a_full_check_of_a_mirror(make_game, client, tmp_path):
    fetch = lambda url: client.get(url).content  # noqa: E731
    for _ in range(3):
        make_game(2)
    tasks.publish_heads()
    copy = tmp_path / "heads.json"
    assert heads_feed.mirror("/heads.json", str(copy), fetch) == []
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("ALTER TABLE pbem_headentry DISABLE TRIGGER pbem_headentry_no_update")
        HeadEntry.objects.filter(n=1).update(head_hash="ab" * 32)
        cursor.execute("ALTER TABLE pbem_headentry ENABLE TRIGGER pbem_headentry_no_update")
    assert heads_feed.mirror("/heads.json", str(copy), fetch) == []  # the last entry it holds is unchanged
    assert heads_feed.mirror("/heads.json", str(copy), fetch, full=True) == [
        "entry 1: its hash does not follow from what it says: the entry was altered"
    ]
    assert heads_feed.check(json.loads(copy.read_text())) == []  # the copy kept what was published
