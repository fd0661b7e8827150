"""Sending in batches: one SMTP connection per batch, each batch claimed at once, the state at a
version loaded once for every notice that speaks of it, and each mail as it would be alone."""

from __future__ import annotations

import pytest
from django.core import mail
from django.db import connection
from django.test.utils import CaptureQueriesContext

from pbem.mail import outbound, sending
from pbem.models import Notice
from pbem.play import services
from tests.conftest import CAST

from .conftest import Sink, at_once, free_port, mail_goes_to, send_all


class CountingSink(Sink):
    """Keeps, with each message, the client's address and port: one per TCP connection."""

    def __init__(self, refuse: str = ""):
        super().__init__()
        self.peers: list[tuple] = []
        self.refuse = refuse

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if self.refuse and address.startswith(self.refuse):
            return "550 5.1.1 Recipient address rejected: User unknown"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        self.peers.append(session.peer)
        return await super().handle_DATA(server, session, envelope)

    def connections(self) -> int:
        return len(set(self.peers))


def counting_sink(settings, refuse: str = ""):
    sink = CountingSink(refuse)
    return sink, mail_goes_to(sink, settings)


@pytest.fixture
def sink(settings):
    sink, controller = counting_sink(settings)
    yield sink
    controller.stop()


@pytest.fixture
def three_tables(make_game):
    return [make_game(3) for _ in range(3)]  # nine welcome notices in the outbox


def test_a_batch_of_notices_goes_out_over_one_smtp_connection(three_tables, sink):
    assert send_all() == {"sent": 9}
    assert len(sink.messages) == 9
    assert sink.connections() == 1


def test_each_batch_has_a_connection_of_its_own(three_tables, sink, monkeypatch):
    monkeypatch.setattr(sending, "BATCH", 4)
    assert send_all() == {"sent": 9}
    assert sink.connections() == 3  # 4 + 4 + 1


def test_a_refused_recipient_does_not_cost_the_batch_its_connection(three_tables, settings):
    sink, controller = counting_sink(settings, refuse="bob@")
    try:
        assert send_all() == {"sent": 6, "undeliverable": 3}
        assert sink.connections() == 1  # the refusals included: the rest of the batch went on
    finally:
        controller.stop()


def test_a_mail_server_that_is_down_costs_one_try_for_the_batch(three_tables, settings):
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", free_port()  # nothing listens
    assert send_all() == {"retry": 9}
    assert {n.status for n in Notice.objects.all()} == {"pending"}
    assert all("ConnectionRefusedError" in n.last_error for n in Notice.objects.all())


def test_a_notice_in_a_batch_is_the_mail_it_would_be_alone(three_tables, settings):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    alone = {}
    for notice in Notice.objects.select_related("game", "seat"):
        rendered = outbound.render(notice)
        alone[notice.pk] = (rendered.to, rendered.subject, rendered.text, rendered.html)
    mail.outbox = []
    assert send_all() == {"sent": 9}
    batched = {
        int(m.extra_headers["X-Pbem-Notice"]): (m.to, m.subject, m.body, m.alternatives[0][0]) for m in mail.outbox
    }
    assert batched == alone


def test_a_version_is_loaded_once_for_all_the_notices_that_speak_of_it(make_game, settings):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    make_game(3)  # three notices of one game at one version
    with CaptureQueriesContext(connection) as queries:
        assert send_all() == {"sent": 3}
    reads = [q for q in queries if "pbem_event" in q["sql"] and q["sql"].lstrip().upper().startswith("SELECT")]
    if connection.vendor == "postgresql":  # the batch's reads of the log: outbound.prefetch
        assert len(reads) == 2
    else:
        loads = [q for q in reads if "FROM pbem_event WHERE game_id" in q["sql"] and "seq > " in q["sql"]]
        assert len(loads) == 1


# What a batch of notices costs in statements, whatever the number of notices and games in it:
# claiming (BEGIN, the due rows, the claim, COMMIT), reading the notices (1), what rendering reads
# of the log (3: snapshots, events, who sat where and what was undone), the confirmations that
# wait to be folded into the batch's notices (1; and, when the batch holds news, the later notices
# that tell it: 1 more), each player's calendar feed link (1), the board pictures kept for the
# versions the notices show (1) and recording the sends (BEGIN, the notices, the seats, the
# games' deadlines, COMMIT), and the players' and tables' other channels the sends are told on
# (1, in the recording's transaction; their messages written in 1 more only when there are any).
BATCH_STATEMENTS = 17


def _statements_for(make_game, games: int, seats: int) -> int:
    Notice.objects.update(status="sent")
    for _ in range(games):
        make_game(seats)
    with CaptureQueriesContext(connection) as queries:
        assert send_all() == {"sent": games * seats}
    return len(queries)


@pytest.mark.skipif(connection.vendor != "postgresql", reason="the batched reads use PostgreSQL's LATERAL")
def test_the_statements_of_a_batch_do_not_grow_with_its_notices(make_game, settings):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    one = _statements_for(make_game, 1, 2)
    many = _statements_for(make_game, 6, 3)  # eighteen notices of six games
    assert many == one <= BATCH_STATEMENTS, (one, many)


def test_a_batch_is_claimed_in_one_statement(three_tables, settings):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    with CaptureQueriesContext(connection) as queries:
        ids = sending.claim_batch()
    assert len(ids) == 9
    assert len([q for q in queries if q["sql"].startswith("UPDATE")]) == 1
    assert set(Notice.objects.values_list("status", flat=True)) == {"sending"}
    assert sending.claim_batch() == []  # claimed: nobody takes them again


@pytest.mark.django_db(transaction=True)
def test_four_batch_senders_at_once_send_each_notice_once(settings):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    settings.PBEM_NOTICE_DISPATCH = "none"
    mail.outbox = []
    for _ in range(3):
        services.create_game("diceduel", CAST[:3], {})
    results: list[dict] = []
    at_once(4, lambda: results.append(sending.send_pending(None)))
    assert sum(r.get("sent", 0) for r in results) == 9
    assert len({m.extra_headers["Message-ID"] for m in mail.outbox}) == len(mail.outbox) == 9


def test_a_batch_whose_record_fails_is_recorded_notice_by_notice(three_tables, settings, monkeypatch):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"

    def conflict(sent):
        raise RuntimeError("a conflict in the batch's transaction")

    monkeypatch.setattr(sending, "_record_sent_at_once", conflict)
    assert send_all() == {"sent": 9}
    notices = list(Notice.objects.select_related("seat"))
    assert {n.status for n in notices} == {"sent"}
    assert all(n.message_id == outbound.notice_message_id(n) for n in notices)
    assert all(
        n.seat.last_notice_version == n.version for n in notices if n.kind in outbound.SEAT_KINDS_MOVING_LAST_NOTICE
    )


def test_what_went_out_before_a_batch_broke_off_is_recorded(three_tables, settings, monkeypatch):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    real, calls = sending._transmit, []

    def breaks_at_the_fourth(notice, *args):
        calls.append(notice.pk)
        if len(calls) == 4:
            raise KeyboardInterrupt  # the worker stopped mid-batch
        return real(notice, *args)

    monkeypatch.setattr(sending, "_transmit", breaks_at_the_fourth)
    with pytest.raises(KeyboardInterrupt):
        send_all()
    statuses = dict(Notice.objects.values_list("id", "status"))
    assert [statuses[i] for i in calls[:3]] == ["sent"] * 3
    assert {statuses[i] for i in statuses if i not in calls[:3]} == {"sending"}  # claimed: the lease sweep


def test_a_notice_of_a_long_game_in_a_batch_is_the_mail_it_would_be_alone(make_game, settings):
    """Past several snapshots (every 10 events here), with news since different last notices."""
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    game = make_game(3)
    assert send_all() == {"sent": 3}
    for round_ in range(12):
        services.submit(game.pk, round_ % 3, f"say round {round_}")
        if round_ in (4, 9):
            for notice in Notice.objects.filter(status="pending", seat__number=0):
                sending.send_notice(notice.pk)  # seat 0 heard of some of it on its own
    pending = list(Notice.objects.filter(status="pending").select_related("game", "seat"))
    assert len(pending) > 3
    alone = {}
    for notice in pending:
        rendered = outbound.render(notice)
        alone[notice.pk] = (rendered.to, rendered.subject, rendered.text, rendered.html)
    mail.outbox = []
    send_all()
    batched = {
        int(m.extra_headers["X-Pbem-Notice"]): (m.to, m.subject, m.body, m.alternatives[0][0]) for m in mail.outbox
    }
    assert batched and batched == {notice_id: alone[notice_id] for notice_id in batched}
    # What did not go out is news that a later notice to the same seat tells as well.
    left = Notice.objects.filter(pk__in=set(alone) - set(batched))
    assert all(n.kind == "news" and n.last_error.startswith("superseded by notice") for n in left)


def test_a_batch_is_composed_whole_before_its_first_message_goes_out(three_tables, settings, monkeypatch):
    """With a backend other than SMTP the messages then go out back to back: a mail server kept
    waiting between messages while the next is composed answers each one slower. (Over SMTP
    each goes out as soon as it is composed: the test below.)"""
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    steps: list[str] = []
    compose, send = sending.outbound.make_message, sending._send

    def composing(notice, *args, **kwargs):
        steps.append("compose")
        return compose(notice, *args, **kwargs)

    def sending_(message, *args):
        steps.append("send")
        return send(message, *args)

    monkeypatch.setattr(sending.outbound, "make_message", composing)
    monkeypatch.setattr(sending, "_send", sending_)
    counts = send_all()
    assert counts["sent"] >= 3 and steps.count("send") == counts["sent"]
    assert steps == ["compose"] * steps.count("compose") + ["send"] * steps.count("send")


def test_over_smtp_each_answer_is_read_after_the_next_message_is_composed_and_every_outcome_is_recorded(
    three_tables, settings, monkeypatch
):
    """Each message goes out as soon as it is composed and the answer to its end of data is read
    once the next one is composed (issue 34: the server takes in a message while the next is
    composed, in one thread). The server hangs up on the second message at its end of data: that
    one is tried again later, the third (found unsent with the connection gone) goes out at once
    over a new connection, and the rest with it."""
    from pbem.mail import pipelining

    class HangsUp(CountingSink):
        async def handle_DATA(self, server, session, envelope):
            self.data = getattr(self, "data", 0) + 1
            if self.data == 2:
                server.transport.close()
                return "250 OK"
            return await super().handle_DATA(server, session, envelope)

    sink = HangsUp()
    controller = mail_goes_to(sink, settings)
    steps: list[str] = []
    compose, send, finish = sending.outbound.make_message, pipelining.Session.send, pipelining.Session.finish

    def composing(notice, *args, **kwargs):
        steps.append("compose")
        return compose(notice, *args, **kwargs)

    def sending_(session, *args):
        steps.append("send")
        return send(session, *args)

    def answered(session):
        if session.owed is not None:
            steps.append("answer")
        return finish(session)

    monkeypatch.setattr(sending.outbound, "make_message", composing)
    monkeypatch.setattr(pipelining.Session, "send", sending_)
    monkeypatch.setattr(pipelining.Session, "finish", answered)
    try:
        assert send_all() == {"sent": 8, "retry": 1}
    finally:
        controller.stop()
    assert steps[:5] == ["compose", "send", "compose", "send", "answer"]  # the first's answer after the second
    assert steps.count("answer") == 9  # the third's first try found the connection gone: never answered
    assert len(sink.messages) == 8
    assert sink.connections() == 2  # opened again for the messages after the broken one
    retried = Notice.objects.get(status="pending")
    assert "SMTPServerDisconnected" in retried.last_error
    assert Notice.objects.filter(status="sent").count() == 8


def test_each_version_of_a_game_in_a_batch_has_the_state_the_log_gives_it(make_game, monkeypatch):
    """A batch holding several versions of a game folds the later ones on from the earlier ones
    (outbound._went_on), except across an undo: each state is the one a load from the log gives."""
    from pbem.log import eventlog
    from pbem.models import Game, Seat
    from pbem.registry import get_game

    game = make_game(2)
    spec = get_game(game.kind)
    first = Game.objects.get(pk=game.pk).version

    def standin_move() -> int:
        state = eventlog.load(Game.objects.get(pk=game.pk)).state["game"]
        seat = spec.waiting_for(state)[0]
        services.submit(game.pk, seat, command=spec.standin(spec.view(state, seat), spec.legal(state, seat)))
        return seat

    for _ in range(3):
        standin_move()
    services.submit(game.pk, standin_move(), "undo")
    standin_move()
    game = Game.objects.get(pk=game.pk)
    seat = Seat.objects.get(game=game, number=0)
    versions = list(range(first, game.version + 1))
    batch = [Notice(game=game, seat=seat, kind="news", version=v, to_email=seat.email) for v in versions]
    went_on, real = [], outbound._went_on

    def counting(*args):
        loaded = real(*args)
        went_on.append(loaded is not None)
        return loaded

    monkeypatch.setattr(outbound, "_went_on", counting)
    with eventlog.shared_loads():
        outbound.prefetch(batch)
        primed = {v: eventlog.load(game, at=v).state for v in versions}
    eventlog.cache_clear()
    assert primed == {v: eventlog.load(Game.objects.get(pk=game.pk), at=v).state for v in versions}
    assert True in went_on and False in went_on  # gone on from the version before, but not over the undo
