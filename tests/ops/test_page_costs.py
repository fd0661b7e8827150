"""Pages that cost what they show: the recent-events panel and the table talk read only the
events they show; the audit page's walk over the log is kept per version, and a new event is a
new version."""

from __future__ import annotations

from django.db import connection
from django.test.utils import CaptureQueriesContext

from pbem.audit import checks
from pbem.models import Game
from pbem.play import selectors, services

from ..conftest import deliver, hands


def _long_game(make_game, settings):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    game = make_game()
    for i in range(6):
        services.submit(game.pk, i % 2, f"say hello {i}")
    services.submit(game.pk, 0, f"play {hands(game)[0][0]}")
    return Game.objects.get(pk=game.pk)


def _event_reads(queries) -> list[str]:
    """The reads of whole events (the others read the few events of one type: names, undos)."""
    return [q["sql"] for q in queries if 'FROM "pbem_event"' in q["sql"] and '"pbem_event"."prev_hash"' in q["sql"]]


def test_the_recent_panel_is_the_end_of_the_log_as_the_seat_sees_it(make_game, settings):
    game = _long_game(make_game, settings)
    whole = selectors.feed(game, 1)
    assert [i.seq for i in selectors.feed(game, 1, last=4)] == [i.seq for i in whole[-4:]]
    assert [i.text for i in selectors.feed(game, 1, last=4)] == [i.text for i in whole[-4:]]


def test_the_recent_panel_reads_only_what_it_shows(make_game, settings):
    game = _long_game(make_game, settings)
    with CaptureQueriesContext(connection) as queries:
        selectors.feed(game, 0, last=3)
    reads = _event_reads(queries)
    assert len(reads) == 1 and "LIMIT 3" in reads[0]


def test_the_table_talk_is_the_newest_said_events_alone(make_game, settings):
    game = _long_game(make_game, settings)
    said = [i for i in selectors.feed(game, None) if i.type == "pbem.Said"]
    talk = selectors.feed(game, None, last=2, types=("pbem.Said",))
    assert [i.seq for i in talk] == [i.seq for i in said[-2:]]
    assert [i.text for i in talk] == [i.text for i in said[-2:]]


def test_the_audit_walk_is_kept_for_a_version_and_reused(make_game, settings):
    game = _long_game(make_game, settings)
    first = checks.verify(game, cached=True)
    with CaptureQueriesContext(connection) as queries:
        again = checks.verify(game, cached=True)
    assert again.summary() == first.summary() and again.ok
    assert not [
        q
        for q in queries
        if "ORDER BY" in q["sql"] and 'FROM "pbem_event"' in q["sql"] and '"pbem_event"."prev_hash"' in q["sql"]
    ]  # the log was not walked again


def test_a_new_event_makes_the_audit_walk_the_log_again(make_game, settings):
    game = _long_game(make_game, settings)
    before = checks.verify(game, cached=True)
    services.submit(game.pk, 1, "say one more")
    game = Game.objects.get(pk=game.pk)
    after = checks.verify(game, cached=True)
    assert after.events == before.events + 1 == game.version
    assert after.ok


def test_the_cached_walk_still_checks_the_heads_mailed_since(make_game, settings):
    game = _long_game(make_game, settings)
    before = checks.verify(game, cached=True)
    deliver(game)  # notices go out (no new event): each quotes a head
    after = checks.verify(Game.objects.get(pk=game.pk), cached=True)
    assert after.heads_checked > before.heads_checked


def test_a_cached_walk_reports_what_a_fresh_one_does(make_game, settings):
    game = _long_game(make_game, settings)
    deliver(game)
    game = Game.objects.get(pk=game.pk)
    checks.verify(game, cached=True)
    assert checks.verify(game, cached=True).summary() == checks.verify(game).summary()
