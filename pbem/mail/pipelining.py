"""SMTP PIPELINING (RFC 2920) over smtplib's own connection, for the sender's batches.

`smtplib.SMTP.sendmail` waits for the server's answer after each command: MAIL, each RCPT,
DATA, then the message, four round trips a message with one recipient (and four wake-ups of the
server and of the client). Here (`Session`) two things change, the bytes on the wire staying
smtplib's own (`mail FROM:<…> size=N`, `rcpt TO:<…>`, `data`, the message quoted as it quotes
it):

- the answer to a message's end of data is read when the next message is sent (or at the
  end): the server takes in a message while the sender composes the next, in one thread;
- where the server advertises PIPELINING (Postfix, Exim and the big providers do), MAIL, the
  RCPTs and DATA go in one write, before that answer is read (a group of commands may begin
  with a message's content), and their answers are read together: one wait a message. The
  message itself waits for DATA's 354, as the standard asks. Elsewhere each command waits for
  its answer, as smtplib's do.

What goes wrong is raised or returned as smtplib raises it (SMTPSenderRefused,
SMTPRecipientsRefused, SMTPDataError, SMTPServerDisconnected). Refusals with the commands already
sent: the server answers each of them anyway (a refused MAIL makes it refuse the RCPTs and DATA
after it with 503), and every answer is read before the next message's commands, so answers never
go to the wrong message. A server that answers DATA with 354 though every recipient was refused is
sent the end of the data at once (no content: there is nobody to deliver it to), then RSET, as RFC
2920 section 3.1 asks. A 421 (the server is closing the connection) closes it here, as smtplib
does; a message whose turn came after that is `Unsent`: nothing of it reached the server.
"""

from __future__ import annotations

import re
import smtplib

CRLF = b"\r\n"
_PERIODS = re.compile(rb"(?m)^\.")


def pipelines(client: smtplib.SMTP) -> bool:
    """Whether the server said PIPELINING in its EHLO answer (EHLO sent first if it was not)."""
    client.ehlo_or_helo_if_needed()
    return bool(client.does_esmtp and client.has_extn("pipelining"))


def sendmail(client: smtplib.SMTP, from_addr: str, to_addrs: list[str], msg: bytes) -> dict:
    """What `client.sendmail(from_addr, to_addrs, msg)` does, the envelope and DATA pipelined
    where the server allows it. Returns the refused recipients ({address: (code, answer)}) when
    some went through, as smtplib does; `msg` is the message's bytes with CRLF line ends."""
    session = Session(client)
    outcomes = [*session.send(None, from_addr, to_addrs, msg), *session.finish()]
    (_token, outcome), *_rest = outcomes
    if isinstance(outcome, Exception):
        raise outcome
    return outcome


class Unsent(smtplib.SMTPServerDisconnected):
    """Nothing of the message reached a server that would deliver it: the connection was found
    gone (or closing) with the answer to the message before it. Safe to send again over a new one."""


Outcome = tuple  # (token, the refused recipients {address: (code, answer)} when it went out, else the exception)


class Session:
    """Messages sent one after another over one smtplib connection, the answer to each one's
    end of data read only when the next one is sent (or at `finish`): the server takes in a
    message while the caller composes the next, in one thread. Where the server says
    PIPELINING, the next message's MAIL, RCPT and DATA go out before that answer is read (RFC
    2920 lets a group of commands begin with a message's content) and their answers are read
    with it: one wait a message. Elsewhere that answer is read first, then each command waits for
    its own, as smtplib's. The outcomes come back with the caller's tokens as they are known."""

    def __init__(self, client: smtplib.SMTP) -> None:
        self.client = client
        self.piped = pipelines(client)
        self.owed: tuple | None = None  # (token, refused) of the message whose final answer is unread

    def send(self, token, from_addr: str, to_addrs: list[str], msg: bytes) -> list[Outcome]:
        """Sends a message; returns the outcomes known now: the message before it, once its answer
        is read, and this one when it failed before its content went out (an Unsent one: the
        connection was lost with the answer before it, so it may be sent again on a new one)."""
        try:
            commands = _commands(self.client, from_addr, to_addrs, msg)
        except ValueError as exc:  # an address with a line break: refused before anything is sent
            return [*self.finish(), (token, exc)]
        if self.piped and self.client.sock is not None:
            try:
                self.client.send("".join(f"{command}\r\n" for command in commands))
            except smtplib.SMTPServerDisconnected as exc:
                return [*self.finish(), (token, Unsent(str(exc)))]
        done = self.finish()
        if self.client.sock is None:  # closed with the answer before (a 421, a dropped connection)
            return [*done, (token, Unsent("the connection closed before this message went out"))]
        try:
            refused = _envelope(self.client, commands, from_addr, to_addrs, sent=self.piped)
            self.client.send(_quoted(msg))
        except Exception as exc:  # noqa: BLE001 - the caller's to record (smtplib's exceptions)
            return [*done, (token, exc)]
        self.owed = (token, refused)
        return done

    def finish(self) -> list[Outcome]:
        """Reads the answer to the end of data still owed, if one is: [(token, outcome)] or []."""
        if self.owed is None:
            return []
        (token, refused), self.owed = self.owed, None
        if self.client.sock is None:
            return [(token, smtplib.SMTPServerDisconnected("the connection closed before the answer came"))]
        try:
            code, answer = self.client.getreply()
        except smtplib.SMTPException as exc:
            return [(token, exc)]
        if code != 250:
            if code == 421:
                self.client.close()
            return [(token, smtplib.SMTPDataError(code, answer))]
        return [(token, refused)]


def _commands(client: smtplib.SMTP, from_addr: str, to_addrs: list[str], msg: bytes) -> list[str]:
    """MAIL, each RCPT and DATA as smtplib writes them (the SIZE option where the server has it)."""
    options = f" size={len(msg)}" if client.does_esmtp and client.has_extn("size") else ""
    commands = [
        f"mail FROM:{_quoteaddr(from_addr)}{options}",
        *(f"rcpt TO:{_quoteaddr(address)}" for address in to_addrs),
        "data",
    ]
    if any("\r" in command or "\n" in command for command in commands):
        raise ValueError("command and arguments contain prohibited newline characters")
    return commands


def _envelope(client: smtplib.SMTP, commands: list[str], from_addr: str, to_addrs: list[str], sent: bool) -> dict:
    """The answers to MAIL, the RCPTs and DATA (`sent`: all three sent already, pipelined; else
    each sent here after the answer to the one before), up to DATA's 354; refusals raised as
    smtplib.SMTP.sendmail raises them. Returns the refused recipients."""

    def answer(command: str) -> tuple[int, bytes]:
        if not sent:
            client.send(f"{command}\r\n")
        return client.getreply()

    code, text = answer(commands[0])
    if code != 250:
        if code == 421:
            client.close()
        elif sent:
            _drain(client, len(to_addrs) + 1)
        else:
            _reset(client)
        raise smtplib.SMTPSenderRefused(code, text, from_addr)
    refused: dict = {}
    for address, command in zip(to_addrs, commands[1:-1], strict=True):
        code, text = answer(command)
        if code not in (250, 251):
            refused[address] = (code, text)
        if code == 421:
            client.close()
            raise smtplib.SMTPRecipientsRefused(refused)
    if len(refused) == len(to_addrs):
        if sent:
            code, _text = client.getreply()  # DATA's, sent with them
            if code == 354:
                _end_empty_data(client)
        if code == 421:
            client.close()
        else:
            _reset(client)
        raise smtplib.SMTPRecipientsRefused(refused)
    code, text = answer(commands[-1])
    if code != 354:
        if code == 421:
            client.close()
        else:
            _reset(client)  # the envelope the server took is dropped, as a new MAIL would need
        raise smtplib.SMTPDataError(code, text)
    return refused


# An address that email.utils.parseaddr gives back as it is (smtplib.quoteaddr puts it in <>).
_SIMPLE = re.compile(r"[A-Za-z0-9._+=-]+@[A-Za-z0-9.-]+\Z")


def _quoteaddr(address: str) -> str:
    """smtplib.quoteaddr(address), without parsing an address that needs none (a notice's)."""
    return f"<{address}>" if _SIMPLE.match(address) else smtplib.quoteaddr(address)


def _quoted(msg: bytes) -> bytes:
    """The message after DATA's 354 as smtplib.SMTP.data sends it: a line's leading period
    doubled (looked for by one search first: most messages have none), a CRLF at the end if it
    has none, then the period that ends it."""
    quoted = _PERIODS.sub(b"..", msg) if msg.startswith(b".") or b"\n." in msg else msg
    if quoted[-2:] != CRLF:
        quoted += CRLF
    return quoted + b"." + CRLF


def _drain(client: smtplib.SMTP, count: int) -> None:
    """Reads the answers still owed for commands sent together with a refused MAIL (each RCPT's
    and DATA's, the last of them DATA's), ends a DATA the server took anyway, and resets. A
    server that is gone by then leaves the refusal to be told: the next use finds it closed."""
    try:
        code = 0
        for _ in range(count):
            code, _answer = client.getreply()
        if code == 354:
            _end_empty_data(client)
        _reset(client)
    except smtplib.SMTPServerDisconnected:
        pass


def _reset(client: smtplib.SMTP) -> None:
    """RSET, a server gone by then left for the next use to find (smtplib's own _rset)."""
    try:
        client.rset()
    except smtplib.SMTPServerDisconnected:
        pass


def _end_empty_data(client: smtplib.SMTP) -> None:
    """A DATA the server should have refused (nobody to deliver to) ended with nothing in it."""
    client.send(b"." + CRLF)
    client.getreply()
