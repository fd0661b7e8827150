"""The IMAP door against a hostile server (tests/doors/hostile_imap.py, on a free local port):
an empty message, or one whose body is NIL, is recorded and passed, and the poll goes on to the
mail behind it; a server that trickles its answer a byte at a time cannot hold a poll beyond
PBEM_IMAP_POLL_SECONDS; every Celery task has a soft and a hard time limit."""

from __future__ import annotations

import pytest
from celery import current_app

from pbem.doors import imap
from pbem.models import InboundMessage
from tests.doors.hostile_imap import HostileImap

GOOD = b"From: alice@example.org\r\nTo: play+x@pbem.localhost\r\nSubject: hi\r\nMessage-ID: <%d@example.org>\r\n\r\nhelp\r\n"


@pytest.fixture
def server(settings, request):
    def start(messages, **kw):
        box = HostileImap(messages, **kw)
        request.addfinalizer(box.stop)
        settings.PBEM_IMAP_HOST, settings.PBEM_IMAP_PORT, settings.PBEM_IMAP_SECURITY = "127.0.0.1", box.port, "none"
        settings.PBEM_IMAP_USER, settings.PBEM_IMAP_PASSWORD, settings.PBEM_IMAP_FOLDER = "pbem", "pw", "INBOX"
        return box

    return start


@pytest.mark.django_db
def test_an_empty_imap_message_is_recorded_and_the_mail_behind_it_is_stored(server):
    box = server({1: b"", 2: None, 3: GOOD % 3})
    report = imap.poll()
    assert (report.stored, report.unreadable) == (3, 2)
    assert box.seen == {1, 2, 3}  # all marked: the next poll does not meet them again
    ids = set(InboundMessage.objects.values_list("message_id", flat=True))
    assert "<3@example.org>" in ids and len(ids) == 3
    unreadable = InboundMessage.objects.exclude(message_id="<3@example.org>")
    assert all(b"X-Pbem-Unreadable" in bytes(m.raw) for m in unreadable)
    again = imap.poll()
    assert (again.stored, again.unreadable) == (0, 0)


@pytest.mark.django_db(transaction=True)
def test_a_trickling_imap_server_cannot_hold_a_poll(server, settings):
    """The message before the trickle is stored; the trickle is cut, and the poll says why.
    Without the cut the poll would never end (each byte comes before any socket timeout)."""
    settings.PBEM_IMAP_POLL_SECONDS = 2
    server({1: GOOD % 1, 2: GOOD % 2}, trickle={2}, trickle_every=0.1)
    with pytest.raises(imap.PollTooLong):
        imap.poll()
    assert list(InboundMessage.objects.values_list("message_id", flat=True)) == ["<1@example.org>"]


def test_every_celery_task_has_a_soft_and_a_hard_time_limit():
    import pbem.tasks  # noqa: F401 - registers the tasks

    conf = current_app.conf
    tasks = [task for name, task in current_app.tasks.items() if name.startswith("pbem.")]
    assert len(tasks) >= 10
    for task in tasks:
        soft = task.soft_time_limit or conf.task_soft_time_limit
        hard = task.time_limit or conf.task_time_limit
        assert soft and hard and soft < hard, (task.name, soft, hard)
    assert conf.task_soft_time_limit <= 100 and conf.task_time_limit <= 120
