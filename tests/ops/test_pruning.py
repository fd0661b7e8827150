"""Pruning: done notices and processed inbound mail past their keeping time are deleted on a
schedule; pending work, recent rows, each game's newest mailed chain head and the log stay."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.utils import timezone

from pbem import tasks
from pbem.log import anchors
from pbem.models import BoardPicture, Event, Game, Heartbeat, InboundMessage, Notice
from pbem.ops import pruning
from pbem.ops.health import timer_name
from pbem.play import services

from ..conftest import deliver, hands


def _age(model, days: int, **filters) -> None:
    field = "received_at" if model is InboundMessage else "created_at"
    model.objects.filter(**filters).update(**{field: timezone.now() - timedelta(days=days)})


def _played(make_game, settings_):
    settings_.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    game = make_game()
    deliver(game)
    services.submit(game.pk, 0, f"play {hands(game)[0][0]}")
    services.submit(game.pk, 1, f"play {hands(game)[1][0]}")
    deliver(game)
    return game


def test_done_notices_past_their_keeping_time_are_deleted_but_each_games_newest_head(make_game, settings):
    game = _played(make_game, settings)
    sent = list(Notice.objects.filter(game=game, status="sent").exclude(chain_head="").order_by("id"))
    assert len(sent) >= 3
    # Every notice done: sent, or news skipped because a later notice to its seat told it.
    assert set(Notice.objects.filter(game=game).values_list("status", flat=True)) <= {"sent", "skipped"}
    before = Notice.objects.filter(game=game).count()
    _age(Notice, settings.PBEM_NOTICE_KEEP_DAYS + 1, game=game)
    assert pruning.prune()["notices"] == before - 1
    kept = list(Notice.objects.filter(game=game))
    assert [n.pk for n in kept] == [sent[-1].pk]  # the newest head that went out
    assert all(head.check.contained for head in anchors.mailed_heads(Game.objects.get(pk=game.pk)))


def test_recent_and_pending_notices_are_kept(make_game, settings):
    game = _played(make_game, settings)
    services.submit(game.pk, 0, "say anyone?")  # news, still pending
    pending = Notice.objects.filter(game=game, status="pending").count()
    assert pending
    _age(Notice, settings.PBEM_NOTICE_KEEP_DAYS + 1, game=game, status="pending")
    before = Notice.objects.filter(game=game).count()
    assert pruning.prune()["notices"] == 0
    assert Notice.objects.filter(game=game).count() == before


def test_processed_inbound_mail_past_its_keeping_time_is_deleted_and_waiting_mail_is_kept(db):
    old = settings.PBEM_INBOUND_KEEP_DAYS + 1
    for i, status in enumerate(["applied", "refused", "ignored", "answered", "received"]):
        InboundMessage.objects.create(message_id=f"<old{i}@example.org>", channel="pipe", raw=b"x" * 100, status=status)
    _age(InboundMessage, old)
    InboundMessage.objects.create(message_id="<new@example.org>", channel="pipe", raw=b"x", status="applied")
    assert pruning.prune()["inbound"] == 4
    assert sorted(InboundMessage.objects.values_list("message_id", flat=True)) == [
        "<new@example.org>",
        "<old4@example.org>",
    ]


def test_pruning_never_touches_the_log(make_game, settings):
    game = _played(make_game, settings)
    events = list(Event.objects.filter(game=game).order_by("seq").values_list("seq", "hash"))
    _age(Notice, 10_000)
    pruning.prune(timezone.now() + timedelta(days=10_000))
    assert list(Event.objects.filter(game=game).order_by("seq").values_list("seq", "hash")) == events


def test_a_run_deletes_at_most_its_share_and_the_next_run_goes_on(db):
    for i in range(5):
        InboundMessage.objects.create(message_id=f"<m{i}@example.org>", channel="pipe", raw=b"x", status="applied")
    _age(InboundMessage, settings.PBEM_INBOUND_KEEP_DAYS + 1)
    assert pruning.prune_inbound(timezone.now(), limit=3) == 3
    assert pruning.prune_inbound(timezone.now(), limit=3) == 2


def test_the_prune_timer_is_on_the_beat_schedule_and_records_its_run(db):
    entry = settings.CELERY_BEAT_SCHEDULE["pbem-prune"]
    assert entry["task"] == "pbem.tasks.prune"
    assert tasks.prune() == {"notices": 0, "inbound": 0, "pictures": 0, "channel_messages": 0}
    assert Heartbeat.objects.filter(name=timer_name("pbem.tasks.prune"), ok=True).exists()


def test_kept_board_pictures_past_the_notices_keeping_time_are_deleted_and_newer_kept(make_game):
    game = make_game()
    for version in (1, 2):
        BoardPicture.objects.create(game=game, version=version, drawing="d" * 64, png=b"png", made_under=1000)
    _age(BoardPicture, settings.PBEM_NOTICE_KEEP_DAYS + 1, version=1)
    assert pruning.prune()["pictures"] == 1
    assert list(BoardPicture.objects.values_list("version", flat=True)) == [2]


def test_done_channel_messages_go_with_old_notices(db, settings):
    from pbem.models import Channel, ChannelMessage

    channel = Channel.objects.create(email="alice@example.org", url="json://example.org/x", kind="json")
    done = ChannelMessage.objects.create(channel=channel, kind="turn", title="t", body="b", status="sent")
    waiting = ChannelMessage.objects.create(channel=channel, kind="turn", title="t", body="b")
    later = timezone.now() + timedelta(days=settings.PBEM_NOTICE_KEEP_DAYS + 1)
    assert pruning.prune(later)["channel_messages"] == 1
    assert list(ChannelMessage.objects.values_list("id", flat=True)) == [waiting.pk] and done.pk != waiting.pk
