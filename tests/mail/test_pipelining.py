"""SMTP PIPELINING (RFC 2920, pbem.mail.pipelining): the envelope and DATA in one write where the
server advertises it, smtplib's own way where it does not; the same commands, the same bytes,
and every refusal raised as smtplib raises it, with the connection fit for the next message."""

from __future__ import annotations

import smtplib

import pytest
from aiosmtpd.controller import Controller

from pbem.mail import pipelining, sending
from pbem.models import Notice

from .conftest import free_port, mail_goes_to, send_all

SENDER = "bounces+n1-abc@pbem.example"
MESSAGE = b"Subject: hello\r\n\r\nline one\r\n.a line starting with a period\r\n..two\r\nno end of line"


class Server:
    """An SMTP server that keeps the envelopes and messages it takes, says PIPELINING (or not),
    and refuses what it is told to."""

    def __init__(self, pipelining: bool = True, mail: str = "", rcpt: str = "", data: str = "", drop: str = ""):
        self.pipelining = pipelining
        self.answers = {"mail": mail, "rcpt": rcpt, "data": data}
        self.drop = drop  # the command at which the server hangs up
        self.mails: list[tuple[str, list[str]]] = []
        self.messages: list[tuple[str, list[str], bytes]] = []
        self.refused_rcpt_taken = False  # take the address into the envelope though refusing it

    async def handle_EHLO(self, server, session, envelope, hostname, responses):
        session.host_name = hostname
        if self.pipelining:
            responses.insert(-1, "250-PIPELINING")
        return responses

    async def handle_MAIL(self, server, session, envelope, address, mail_options):
        if self.drop == "mail":
            server.transport.close()
            return "250 OK"
        if self.answers["mail"]:
            return self.answers["mail"]
        envelope.mail_from, envelope.mail_options = address, mail_options
        self.mails.append((address, list(mail_options)))
        return "250 OK"

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        refuse = self.answers["rcpt"]
        if refuse and address.startswith(refuse.split(" ", 1)[0]):
            if self.refused_rcpt_taken:
                envelope.rcpt_tos.append(address)
            return refuse.split(" ", 1)[1]
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        if self.drop == "data":
            server.transport.close()
            return "250 OK"
        if self.answers["data"]:
            return self.answers["data"]
        self.messages.append((envelope.mail_from, list(envelope.rcpt_tos), envelope.original_content))
        return "250 OK"


class Writes:
    """The client's socket, counting its writes (a round trip each, at most)."""

    def __init__(self, sock):
        self.sock, self.count = sock, 0

    def sendall(self, data):
        self.count += 1
        return self.sock.sendall(data)

    def __getattr__(self, name):
        return getattr(self.sock, name)


@pytest.fixture
def serve():
    controllers = []

    def start(handler: Server) -> smtplib.SMTP:
        controller = Controller(handler, hostname="127.0.0.1", port=free_port())
        controller.start()
        controllers.append(controller)
        client = smtplib.SMTP("127.0.0.1", controller.port)
        client.ehlo()
        client.sock = Writes(client.sock)
        return client

    yield start
    for controller in controllers:
        controller.stop()


def test_with_pipelining_the_envelope_and_data_go_in_one_write_and_the_message_in_another(serve):
    server = Server()
    client = serve(server)
    assert pipelining.pipelines(client)
    assert pipelining.sendmail(client, SENDER, ["alice@example.org", "bob@example.org"], MESSAGE) == {}
    assert client.sock.count == 2
    assert server.messages == [(SENDER, ["alice@example.org", "bob@example.org"], server.messages[0][2])]


def test_pipelined_or_not_the_server_gets_the_same_envelope_and_bytes(serve):
    """The commands are smtplib's (the SIZE option included) and the message quoted as it quotes
    it: a line starting with a period doubled, a last line without its end given one."""
    plain, piped = Server(pipelining=False), Server()
    old, new = serve(plain), serve(piped)
    old.sendmail(SENDER, ["alice@example.org"], MESSAGE)
    pipelining.sendmail(new, SENDER, ["alice@example.org"], MESSAGE)
    assert piped.mails == plain.mails and piped.mails[0][1] == [f"SIZE={len(MESSAGE)}"]
    assert piped.messages == plain.messages
    assert piped.messages[0][2].endswith(b"..two\r\nno end of line\r\n")  # as received, unquoted again


def test_a_server_without_pipelining_gets_one_command_at_a_time(serve):
    server = Server(pipelining=False)
    client = serve(server)
    assert not pipelining.pipelines(client)
    pipelining.sendmail(client, SENDER, ["alice@example.org"], MESSAGE)
    assert client.sock.count == 4  # MAIL, RCPT, DATA, the message
    assert len(server.messages) == 1


def test_a_refused_recipient_among_others_is_returned_and_the_rest_get_the_mail(serve):
    server = Server(rcpt="bob@ 550 5.1.1 User unknown")
    client = serve(server)
    refused = pipelining.sendmail(client, SENDER, ["alice@example.org", "bob@example.org"], MESSAGE)
    assert refused == {"bob@example.org": (550, b"5.1.1 User unknown")}
    assert [to for _f, to, _m in server.messages] == [["alice@example.org"]]


def test_every_recipient_refused_raises_as_smtplib_does_and_the_connection_goes_on(serve):
    server = Server(rcpt="bob@ 550 5.1.1 User unknown")
    client = serve(server)
    with pytest.raises(smtplib.SMTPRecipientsRefused) as refused:
        pipelining.sendmail(client, SENDER, ["bob@example.org"], MESSAGE)
    assert refused.value.recipients == {"bob@example.org": (550, b"5.1.1 User unknown")}
    pipelining.sendmail(client, SENDER, ["alice@example.org"], MESSAGE)  # each answer read: in step
    assert [to for _f, to, _m in server.messages] == [["alice@example.org"]]


def test_a_server_that_takes_data_though_every_recipient_was_refused_gets_no_message(serve):
    """RFC 2920 3.1: its 354 is answered with the end of the data at once, then RSET."""
    server = Server(rcpt="bob@ 450 4.2.0 Mailbox busy")
    server.refused_rcpt_taken = True
    client = serve(server)
    with pytest.raises(smtplib.SMTPRecipientsRefused):
        pipelining.sendmail(client, SENDER, ["bob@example.org"], MESSAGE)
    assert [message for _f, _t, message in server.messages] == [b""]
    pipelining.sendmail(client, SENDER, ["alice@example.org"], MESSAGE)
    assert server.messages[-1][1] == ["alice@example.org"] and server.messages[-1][2].startswith(b"Subject")


def test_a_refused_sender_raises_and_the_answers_to_the_commands_after_it_are_read(serve):
    server = Server(mail="553 5.7.1 Sender not allowed")
    client = serve(server)
    with pytest.raises(smtplib.SMTPSenderRefused) as refused:
        pipelining.sendmail(client, SENDER, ["alice@example.org"], MESSAGE)
    assert (refused.value.smtp_code, refused.value.sender) == (553, SENDER)
    server.answers["mail"] = ""
    pipelining.sendmail(client, SENDER, ["alice@example.org"], MESSAGE)
    assert len(server.messages) == 1


@pytest.mark.parametrize("answer", ["451 4.3.0 Try again later", "554 5.6.0 Message refused"])
def test_a_4xx_or_5xx_after_the_message_raises_its_code_and_the_connection_goes_on(serve, answer):
    server = Server(data=answer)
    client = serve(server)
    with pytest.raises(smtplib.SMTPDataError) as refused:
        pipelining.sendmail(client, SENDER, ["alice@example.org"], MESSAGE)
    assert refused.value.smtp_code == int(answer[:3])
    server.answers["data"] = ""
    pipelining.sendmail(client, SENDER, ["alice@example.org"], MESSAGE)
    assert len(server.messages) == 1


def test_a_421_closes_the_connection_as_smtplib_does(serve):
    server = Server(mail="421 4.3.2 Shutting down")
    client = serve(server)
    with pytest.raises(smtplib.SMTPSenderRefused):
        pipelining.sendmail(client, SENDER, ["alice@example.org"], MESSAGE)
    assert client.sock is None


@pytest.mark.parametrize("where", ["mail", "data"])
def test_a_dropped_connection_raises_server_disconnected(serve, where):
    client = serve(Server(drop=where))
    with pytest.raises(smtplib.SMTPServerDisconnected):
        pipelining.sendmail(client, SENDER, ["alice@example.org"], MESSAGE)


def test_the_sender_pipelines_its_batch_and_records_each_outcome(make_game, settings):
    """Nine welcome notices to a server that says PIPELINING, Bob's address refused: one
    connection, six delivered as the sender writes them, three undeliverable."""
    for _ in range(3):
        make_game(3)
    server = Server(rcpt="bob@ 550 5.1.1 User unknown")
    controller = mail_goes_to(server, settings)
    clients: list[Writes] = []
    real = pipelining.Session.__init__

    def counting(session, client):
        client.sock = Writes(client.sock)
        clients.append(client.sock)
        real(session, client)

    pipelining.Session.__init__ = counting
    try:
        assert send_all() == {"sent": 6, "undeliverable": 3}
    finally:
        pipelining.Session.__init__ = real
        controller.stop()
    # EHLO, then for each message the envelope and DATA in one write and the message in another
    # (a refused one: RSET instead), then QUIT: one command at a time would be 4 writes a message.
    assert [sock.count for sock in clients] == [1 + 9 * 2 + 1]
    assert len(server.messages) == 6
    assert all(frm.startswith("bounces+n") for frm, _to, _m in server.messages)
    assert Notice.objects.filter(status="bounced").count() == 3
    assert sending.BATCH >= 9


@pytest.mark.parametrize(
    "address", ["alice@example.org", "bounces+n12-abc=x@pbem.example", "Alice <alice@example.org>", "odd address"]
)
def test_an_address_is_quoted_as_smtplib_quotes_it(address):
    assert pipelining._quoteaddr(address) == smtplib.quoteaddr(address)


@pytest.mark.parametrize(
    "message", [b"a\r\nb\r\n", b".a\r\n", b"a\r\n.b\r\n..c", b"a.\r\nb", b"", b"no periods at all", b"x\n.y"]
)
def test_a_message_is_quoted_as_smtplib_quotes_it(message):
    expected = smtplib._quote_periods(message)
    expected += b"" if expected[-2:] == b"\r\n" else b"\r\n"
    assert pipelining._quoted(message) == expected + b".\r\n"


@pytest.mark.parametrize("piped", [True, False])
def test_each_answer_is_read_with_the_next_message_and_a_bad_address_fails_alone(serve, piped):
    """A session reads the answer to a message's end of data when the next one goes (or at
    finish); an address that keeps a line break through smtplib's quoting is refused before
    anything of its message is sent."""
    server = Server(pipelining=piped)
    client = serve(server)
    session = pipelining.Session(client)
    assert session.send("first", SENDER, ["alice@example.org"], MESSAGE) == []
    done = session.send("second", SENDER, [",\r\nRSET"], MESSAGE)
    assert done[0] == ("first", {}) and done[1][0] == "second" and isinstance(done[1][1], ValueError)
    assert session.send("third", SENDER, ["carol@example.org"], MESSAGE) == []
    assert session.finish() == [("third", {})]
    assert [to for _f, to, _m in server.messages] == [["alice@example.org"], ["carol@example.org"]]
