"""A real Celery worker on the real Redis sends the channels' messages: queued when the notice
it echoes is recorded sent, and a failure retried by a task queued with the backoff as its
countdown (no sweep involved). Skipped when no Redis answers (CI sets PBEM_TEST_REDIS_URL)."""

from __future__ import annotations

import pytest

from pbem.models import ChannelMessage, Notice
from pbem.play import channels as settings_of
from pbem.play import services
from tests.conftest import CAST
from tests.mail.conftest import smtp_sink  # noqa: F401 - the worker's mail goes there
from tests.mail.test_celery_redis import _redis_up, worker  # noqa: F401 - the worker fixture
from tests.waiting import wait_until

from .fake import FakeService

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(not _redis_up(), reason="no Redis for a real worker"),
]


@pytest.fixture
def fake():
    service = FakeService()
    yield service
    service.stop()


@pytest.fixture
def quick_retries(monkeypatch):
    monkeypatch.setenv("PBEM_CHANNEL_RETRY_SECONDS", "1")  # read by the worker started after this


def test_the_worker_tells_the_channel_and_retries_a_failure_by_a_later_task(quick_retries, fake, worker, smtp_sink):  # noqa: F811
    settings_of.add("alice@example.org", f"json://127.0.0.1:{fake.port}/alice", None)
    fake.failing = 1  # the service answers the first request 500
    game = services.create_game("diceduel", CAST[:2], {})
    wait_until(lambda: len(smtp_sink.messages) == 2, what="the two turn notices by mail")
    wait_until(lambda: len(fake.requests) == 2, what="the channel's message, failed once and retried")
    message = ChannelMessage.objects.get()
    wait_until(lambda: ChannelMessage.objects.get().status == "sent", what="the retry recorded")
    message.refresh_from_db()
    assert message.attempts == 2 and message.notice.game_id == game.pk
    assert "Your move" in fake.requests[-1].json()["title"]
    assert set(Notice.objects.values_list("status", flat=True)) == {"sent"}
