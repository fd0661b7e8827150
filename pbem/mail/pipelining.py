"""SMTP PIPELINING (RFC 2920) over smtplib's own connection, for the sender's batches.

`smtplib.SMTP.sendmail` waits for the server's answer after each command: MAIL, each RCPT,
DATA, then the message, four round trips a message with one recipient (and four wake-ups of the
server and of the sending thread). A server that advertises PIPELINING (Postfix, Exim and the
big providers do) may be sent MAIL, the RCPTs and DATA in one write: `sendmail` here does that,
reads their answers in order, and sends the message once DATA has its 354 (the standard says the
client waits for it), two round trips a message. The commands are smtplib's own, byte for byte
(`mail FROM:<…> size=N`, `rcpt TO:<…>`, `data`), the message is quoted as smtplib quotes it,
and what goes wrong is raised as smtplib raises it (SMTPSenderRefused, SMTPRecipientsRefused,
SMTPDataError, SMTPServerDisconnected), so a caller cannot tell the two apart but by the
round trips. A server that does not advertise PIPELINING gets `client.sendmail` itself.

Refusals with the commands already sent: the server answers each of them anyway (a refused MAIL
makes it refuse the RCPTs and DATA after it with 503), and every answer is read before the next
message's commands, so answers never go to the wrong message. A server that answers DATA with 354
though MAIL or every recipient was refused is sent the end of the data at once (no content:
there is nobody to deliver it to) and its answer read, then RSET, as RFC 2920 section 3.1 asks.
A 421 (the server is closing the connection) closes it here, as smtplib does.
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
    if not pipelines(client):
        return client.sendmail(from_addr, to_addrs, msg)
    options = f" size={len(msg)}" if client.has_extn("size") else ""
    commands = [
        f"mail FROM:{smtplib.quoteaddr(from_addr)}{options}",
        *(f"rcpt TO:{smtplib.quoteaddr(address)}" for address in to_addrs),
        "data",
    ]
    if any("\r" in command or "\n" in command for command in commands):
        raise ValueError("command and arguments contain prohibited newline characters")
    client.send("".join(f"{command}\r\n" for command in commands))
    code, answer = client.getreply()
    if code != 250:
        if code == 421:
            client.close()
        else:
            _drain(client, len(to_addrs) + 1)
        raise smtplib.SMTPSenderRefused(code, answer, from_addr)
    refused = _recipients(client, to_addrs)
    code, answer = client.getreply()  # DATA's
    if len(refused) == len(to_addrs):
        if code == 354:
            _end_empty_data(client)
        if code == 421:
            client.close()
        else:
            client._rset()
        raise smtplib.SMTPRecipientsRefused(refused)
    if code != 354:
        if code == 421:
            client.close()
        else:
            client._rset()  # the envelope the server took is dropped, as a new MAIL would need
        raise smtplib.SMTPDataError(code, answer)
    code, answer = _data(client, msg)
    if code != 250:
        if code == 421:
            client.close()
        else:
            client._rset()
        raise smtplib.SMTPDataError(code, answer)
    return refused


def _recipients(client: smtplib.SMTP, to_addrs: list[str]) -> dict:
    refused: dict = {}
    for address in to_addrs:
        code, answer = client.getreply()
        if code not in (250, 251):
            refused[address] = (code, answer)
        if code == 421:
            client.close()
            raise smtplib.SMTPRecipientsRefused(refused)
    return refused


def _data(client: smtplib.SMTP, msg: bytes) -> tuple[int, bytes]:
    """The message after DATA's 354, as smtplib.SMTP.data sends it, and the server's answer."""
    quoted = _PERIODS.sub(b"..", msg)
    if quoted[-2:] != CRLF:
        quoted += CRLF
    client.send(quoted + b"." + CRLF)
    return client.getreply()


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
        client._rset()
    except smtplib.SMTPServerDisconnected:
        pass


def _end_empty_data(client: smtplib.SMTP) -> None:
    """A DATA the server should have refused (nobody to deliver to) ended with nothing in it."""
    client.send(b"." + CRLF)
    client.getreply()
