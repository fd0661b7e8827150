"""Anchors outside the database: the heads every notice quotes, checked by the audit page, the
API and verify_games, and the heads the outbox mailed out (issue 14)."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import CommandError, call_command
from django.db import connection, transaction

from pbem.audit import checks
from pbem.log import anchors, chain, eventlog
from pbem.mail import sending
from pbem.models import Event, Game, Notice
from pbem.play import services
from tests.conftest import hands, requires_postgres

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _quiet(quiet_limits):
    pass


def head_of(game: Game, version: int) -> str:
    return f"{version}:{Event.objects.get(game=game, seq=version).hash}"


def sent_game(make_game, mailoutbox):
    """Dice Duel for three, one card played, and every notice sent."""
    game = make_game(3)
    services.submit(game.pk, 0, f"play {hands(game)[0][0]}")
    sending.send_pending(game.pk)
    game.refresh_from_db()
    assert mailoutbox
    return game


def test_every_sent_notice_quotes_its_head_and_the_outbox_keeps_it(make_game, mailoutbox):
    game = sent_game(make_game, mailoutbox)
    for notice in Notice.objects.filter(game=game, status="sent"):
        assert notice.chain_head == head_of(game, notice.version)
    message = mailoutbox[-1]
    notice = Notice.objects.get(message_id=message.extra_headers["Message-ID"])
    assert message.extra_headers["X-Pbem-Head"] == notice.chain_head
    assert notice.chain_head in message.body and notice.chain_head in message.alternatives[0][0]
    assert chain.heads_in_text(message.body) == [chain.parse_head(notice.chain_head)]


def test_the_api_says_whether_the_log_still_contains_a_head(client, make_game):
    game = make_game(2)
    good = head_of(game, 3)
    answer = client.get(f"/api/games/{game.pk}/head", {"head": good}).json()
    assert answer["all_contained"] and answer["heads"][0]["contained"] and answer["version"] == game.version
    wrong = client.get(f"/api/games/{game.pk}/head", {"head": f"3:{'ab' * 32}"}).json()
    assert not wrong["all_contained"] and wrong["heads"][0]["found"] == good.split(":")[1]
    assert "so the log was changed after that head was given out" in wrong["heads"][0]["message"]
    beyond = client.get(f"/api/games/{game.pk}/head", {"head": f"99:{'ab' * 32}"}).json()
    assert (
        beyond["heads"][0]["found"] is None
        and f"has {game.version} events, none numbered 99" in beyond["heads"][0]["message"]
    )
    bad = client.get(f"/api/games/{game.pk}/head", {"head": "3:abc"})
    assert bad.status_code == 422 and bad.json()["code"] == "bad_head"
    assert client.get("/api/games/99999/head", {"head": good}).status_code == 404


def test_the_api_reads_the_heads_in_a_whole_pasted_notice(client, make_game, mailoutbox):
    game = sent_game(make_game, mailoutbox)
    message = mailoutbox[-1]
    pasted = "".join(f"{k}: {v}\n" for k, v in message.extra_headers.items()) + "\n" + message.body
    answer = client.post(f"/api/games/{game.pk}/head", {"text": pasted}, content_type="application/json").json()
    assert answer["all_contained"] and [h["version"] for h in answer["heads"]] == [
        chain.parse_head(message.extra_headers["X-Pbem-Head"])[0]
    ]
    other = make_game(2)
    refused = client.post(f"/api/games/{other.pk}/head", {"text": message.body}, content_type="application/json")
    assert refused.status_code == 422 and f"about game #{game.pk}, not game #{other.pk}" in refused.json()["message"]
    nothing = client.post(f"/api/games/{game.pk}/head", {"text": "hello"}, content_type="application/json")
    assert nothing.status_code == 422 and "No head found" in nothing.json()["message"]


def test_the_audit_page_explains_the_scheme_lists_the_heads_and_checks_a_pasted_one(client, make_game, mailoutbox):
    game = sent_game(make_game, mailoutbox)
    page = client.get(f"/games/{game.pk}/audit/").content.decode()
    assert "Scheme 2: scheme 2 (public parts hashed" in page
    assert all(f"<code>{head_of(game, v)}</code>" in page for v in range(1, game.version + 1))
    assert f'href="/games/{game.pk}/log.json"' in page and "python -m pbem.verify" in page
    checked = client.post(f"/games/{game.pk}/audit/", {"head": mailoutbox[-1].body}).content.decode()
    assert 'id="head-results"' in checked and "✓ head" in checked and "is in the log" in checked
    wrong = client.post(f"/games/{game.pk}/audit/", {"head": f"2:{'ab' * 32}"}).content.decode()
    assert "✗ head 2:" in wrong and "the log was changed after that head was given out" in wrong
    empty = client.post(f"/games/{game.pk}/audit/", {"head": "no head here"})
    assert empty.status_code == 400 and "No head found" in empty.content.decode()


def test_verify_games_checks_a_head_kept_from_a_notice(make_game):
    game = make_game(2)
    out = io.StringIO()
    call_command("verify_games", str(game.pk), "--head", head_of(game, 2), stdout=out)
    assert "is in the log" in out.getvalue() and "All games verified" in out.getvalue()
    err = io.StringIO()
    with pytest.raises(SystemExit) as exit_:
        call_command("verify_games", str(game.pk), "--head", f"2:{'ab' * 32}", stdout=io.StringIO(), stderr=err)
    assert exit_.value.code == 1 and "is not in the log: event 2 now has hash" in err.getvalue()
    with pytest.raises(CommandError, match="name exactly that game"):
        call_command("verify_games", "--head", head_of(game, 2))
    with pytest.raises(CommandError, match="is not a head"):
        call_command("verify_games", str(game.pk), "--head", "2-abc")


def test_verify_games_and_the_audit_explain_each_games_scheme(client, make_game, monkeypatch):
    monkeypatch.setattr(chain, "LATEST", 1)
    old = make_game(2)
    monkeypatch.undo()
    new = make_game(2)
    assert (old.chain_scheme, new.chain_scheme) == (1, 2)
    out = io.StringIO()
    call_command("verify_games", str(old.pk), str(new.pk), verbosity=2, stdout=out)
    text = out.getvalue()
    assert f"game #{old.pk}: ok" in text and "chain intact under scheme 1" in text and "scheme 1 (SHA-256 over" in text
    assert "chain intact under scheme 2" in text and "scheme 2 (public parts hashed" in text
    answer = client.get(f"/api/games/{old.pk}/audit").json()
    assert answer["chain_scheme"] == 1 and answer["chain_scheme_text"].startswith("scheme 1")
    feed = client.get(f"/api/games/{old.pk}/events").json()
    assert feed["chain_scheme"] == 1 and all(item["parts"] is None for item in feed["items"])


@requires_postgres
def test_an_insider_who_rewrites_the_log_and_recomputes_the_chain_is_caught_by_a_mailed_head(make_game, mailoutbox):
    """With the owner's powers (triggers off), an event is forged and every hash after it recomputed,
    the game row too: the chain alone verifies, but a head that went out by mail is no longer in it."""
    game = sent_game(make_game, mailoutbox)
    mailed = Notice.objects.filter(game=game, status="sent").exclude(chain_head="").order_by("-version").first()
    forged_seq = 2
    rows = list(Event.objects.filter(game=game).order_by("seq").values(*checks.ROW_FIELDS))
    rows[forged_seq - 1]["payload"] = {**rows[forged_seq - 1]["payload"], "reason": "forged"}
    sealer, prev = eventlog.sealer_for(game), chain.GENESIS
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("ALTER TABLE pbem_event DISABLE TRIGGER pbem_event_no_update")
        for row in rows:
            digest = sealer.hash(row["seq"], row, prev)
            cursor.execute(
                "UPDATE pbem_event SET payload = %s, prev_hash = %s, hash = %s WHERE game_id = %s AND seq = %s",
                [json.dumps(row["payload"]), prev, digest, game.pk, row["seq"]],
            )
            prev = digest
        cursor.execute("UPDATE pbem_game SET head_hash = %s WHERE id = %s", [prev, game.pk])
        cursor.execute("ALTER TABLE pbem_event ENABLE TRIGGER pbem_event_no_update")
    eventlog.cache_clear()
    game.refresh_from_db()
    report = checks.verify(game)
    assert not [p for p in report.problems if "notice" not in p], "the recomputed chain alone holds"
    notice_problem = next(p for p in report.problems if f"notice #{mailed.pk}" in p)
    assert f"the {mailed.kind} notice #{mailed.pk} to " in notice_problem and "@" not in notice_problem
    assert f"event {mailed.version} now has hash" in notice_problem
    with pytest.raises(SystemExit):
        call_command("verify_games", str(game.pk), stdout=io.StringIO(), stderr=io.StringIO())
    assert not anchors.check_head(game, *chain.parse_head(mailed.chain_head)).contained


def test_the_audit_page_keeps_its_heads_check_for_the_version_until_a_head_is_mailed_or_published(
    client, make_game, mailoutbox
):
    """The page keeps the check of the mailed and published heads, and the tables it lists, per
    version: kept, they must still show a head mailed or published since, at the same version."""
    from django.utils import timezone

    from pbem.models import HeadEntry

    game = sent_game(make_game, mailoutbox)
    url = f"/games/{game.pk}/audit/"
    mailed = Notice.objects.filter(game=game, status="sent").exclude(chain_head="").count()
    first = client.get(url).content.decode()
    assert f"{mailed} head(s) quoted" in first and "✗ NO" not in first and 'id="problems"' not in first
    # A notice sent at this same version quoting a head this log does not hold.
    wrong = f"2:{'ab' * 32}"
    Notice.objects.create(
        game=game, kind="news", version=game.version, status="sent", sent_at=timezone.now(), chain_head=wrong
    )
    second = client.get(url).content.decode()
    assert f"{mailed + 1} head(s) quoted" in second and f"<code>{wrong}</code>" in second and "✗ NO" in second
    assert "is not in the log: event 2 now has hash" in second
    # A head the feed published that the log does not hold.
    n = (HeadEntry.objects.order_by("-n").values_list("n", flat=True).first() or 0) + 1
    HeadEntry.objects.create(
        n=n, game=game, version=3, head_hash="cd" * 32, published_at=timezone.now(), prev="0" * 64, entry="ef" * 32
    )
    third = client.get(url).content.decode()
    assert f"{mailed + 2} head(s) quoted" in third and "the public heads feed&#x27;s head: head 3:cdcd" in third
    fresh, kept = checks.verify(Game.objects.get(pk=game.pk)), checks.verify(Game.objects.get(pk=game.pk), cached=True)
    assert (kept.heads_checked, kept.problems) == (fresh.heads_checked, fresh.problems)
