"""The MTA pipe's fast way in: hand the message to the SMTP listener, which is already running.

Run as a file by scripts/pbem-pipe when PBEM_PIPE_HANDOFF names the listener (host:port, e.g.
127.0.0.1:2525), with `python -I -S`: the standard library only, no Django, no site-packages,
so it starts about as fast as `python -c pass`. An MTA runs one process per message, and the
listener (`manage.py smtpd`) has Django loaded already: it checks, stores and queues the message
as it does for any mail, and its answer is the exit status.

    0   the listener took it (250)
    65  EX_DATAERR: no message, or one over the hard limit (here or the listener's 552)
    75  EX_TEMPFAIL: the listener answered 4xx (it could not store it now): the MTA retries

Whatever else happens (no listener named or there, no recipient to name, a recipient the
listener will not take from the network: another domain, a token it refuses at RCPT), the
message goes the pipe's own slow way, which stores every message (processing decides) and gives
the exit status: no mail is lost or bounced because the listener is away. That way is
pbem/doors/pipe_store.py in this process (the standard library and libpq: no Django) where the
settings allow it (a Redis broker, the project's settings), else `manage.py receive_email`.
"""

from __future__ import annotations

import _socket  # the C module: `socket` imports enum, selectors and collections (5 ms of a 30 ms run)
import os
import sys
import time

# The whole run ends within PBEM_PIPE_TIMEOUT (scripts/pbem-pipe runs it with no `timeout`):
# every wait on the listener, and the slow way, get what is left of it.
try:
    LIMIT = float(os.environ.get("PBEM_PIPE_TIMEOUT", "60"))
except ValueError:
    LIMIT = 60.0
DEADLINE = time.monotonic() + LIMIT


def left() -> float:
    return max(0.1, DEADLINE - time.monotonic())


EX_DATAERR = 65
EX_TEMPFAIL = 75
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class Fallback(Exception):
    """The listener cannot take this message: the slow way will."""


class Session:
    """The few SMTP commands the handoff says to our own listener, over a plain socket.

    Not smtplib: importing it (with email, ssl, hmac, calendar) took 0.16-0.2 s of a process that
    must be done in 0.3 s on a loaded two-core machine, against 0.03 s for `python -c pass`; and
    the handoff needs none of it (no TLS, no AUTH, no headers to parse). Not `re` either (0.03 s).
    """

    def __init__(self, host: str, port: int, timeout: float):
        self.sock = connect(host, port, timeout)
        self.pending = b""
        self.limit = timeout

    def reply(self) -> tuple[int, str]:
        """One reply, all its lines (`250-...` then `250 ...`): its code and its text."""
        lines = []
        while True:
            while b"\n" not in self.pending:
                self.sock.settimeout(min(self.limit, left()))
                chunk = self.sock.recv(4096)
                if not chunk:
                    raise ConnectionError("the listener closed the connection")
                self.pending += chunk
            line, _, self.pending = self.pending.partition(b"\n")
            lines.append(line.rstrip(b"\r"))
            if line[3:4] != b"-":
                break
        code = lines[-1][:3]
        if not code.isdigit():
            raise ConnectionError(f"not an SMTP reply: {lines[-1][:80]!r}")
        return int(code), "\n".join(line[4:].decode(errors="replace") for line in lines)

    def command(self, line: str) -> tuple[int, str]:
        self.sock.sendall(line.encode() + b"\r\n")
        return self.reply()

    def close(self) -> None:
        try:
            self.sock.sendall(b"QUIT\r\n")
            self.reply()
        except OSError:
            pass
        self.sock.close()


def connect(host: str, port: int, timeout: float) -> _socket.socket:
    """socket.create_connection without the socket module, the host given as bytes (a str host
    goes through the idna codec, which imports stringprep and unicodedata: 2 ms more)."""
    problem: OSError = OSError(f"no address for {host}")
    for family, kind, proto, _name, address in _socket.getaddrinfo(host.encode(), port, 0, _socket.SOCK_STREAM):
        sock = _socket.socket(family, kind, proto)
        try:
            sock.settimeout(timeout)
            sock.connect(address)
            return sock
        except OSError as exc:
            sock.close()
            problem = exc
    raise problem


def main(argv: list[str]) -> int:
    recipients, rest = _recipients(argv)
    limit = int(os.environ.get("PBEM_INBOUND_HARD_LIMIT", str(32 * 1024 * 1024)))
    raw = sys.stdin.buffer.read(limit + 1)
    if not raw.strip():
        print("pbem-pipe: no message on stdin", file=sys.stderr)
        return EX_DATAERR
    if len(raw) > limit:
        print("pbem-pipe: message over PBEM_INBOUND_HARD_LIMIT", file=sys.stderr)
        return EX_DATAERR
    target = os.environ.get("PBEM_PIPE_HANDOFF", "")
    try:
        if not target or not recipients or rest:
            raise Fallback("no listener named, or no recipient to name" if not rest else "arguments for the slow way")
        return handoff(raw, recipients, target)
    except Fallback as why:
        return slow_way(raw, argv, str(why))


def _recipients(argv: list[str]) -> tuple[list[str], list[str]]:
    """The --recipient values (default $ORIGINAL_RECIPIENT, as receive_email takes them), and
    any other argument (which only receive_email understands)."""
    recipients, rest, args = [], [], list(argv)
    while args:
        arg = args.pop(0)
        if arg == "--recipient" and args:
            recipients.append(args.pop(0))
        elif arg.startswith("--recipient="):
            recipients.append(arg.partition("=")[2])
        else:
            rest.append(arg)
    if not recipients and os.environ.get("ORIGINAL_RECIPIENT"):
        recipients.append(os.environ["ORIGINAL_RECIPIENT"])
    return recipients, rest


def handoff(raw: bytes, recipients: list[str], target: str) -> int:
    host, _, port = target.rpartition(":")
    timeout = LIMIT / 2  # at most half of it for the listener: the slow way may need the rest
    try:
        client = Session(host or "127.0.0.1", int(port), timeout)
    except (OSError, ValueError) as exc:
        raise Fallback(f"the listener at {target} did not answer: {exc}") from exc
    try:
        code, text = client.reply()
        if code != 220:
            raise Fallback(f"the listener at {target} greeted with {code}")
        code, text = client.command("EHLO localhost")
        if code >= 400:
            code, text = client.command("HELO localhost")
        if code >= 400:
            return _answer(code, text, "HELO")
        code, text = client.command("MAIL FROM:<>")
        if code >= 400:
            return _answer(code, text, "MAIL")
        for address in recipients:
            if any(c in address for c in "\r\n<> "):  # not to be written into a command line
                raise Fallback(f"a recipient the handoff will not write into an SMTP command: {address!r}")
            code, text = client.command(f"RCPT TO:<{address}>")
            if code >= 500:
                raise Fallback(f"the listener refused {address} ({code}): the pipe stores every message")
            if code >= 400:
                return _answer(code, text, "RCPT")
        code, text = client.command("DATA")
        if code != 354:
            return _answer(code, text, "DATA")
        client.sock.sendall(smtp_data(raw))
        code, text = client.reply()
        return _answer(code, text, "DATA")
    except OSError as exc:  # a time-out, a dropped connection, a garbled answer
        # The message may or may not be stored: the MTA tries again (a repeat is stored once).
        print(f"pbem-pipe: the listener at {target} broke off: {exc}; the MTA will try again", file=sys.stderr)
        return EX_TEMPFAIL
    finally:
        client.close()


def smtp_data(raw: bytes) -> bytes:
    """The message as the DATA phase carries it: every line end CRLF (whatever it came with: a
    bare LF, as Postfix's pipe hands messages over, or a bare CR), every line that begins with a
    dot doubled (RFC 5321 4.5.2), a last line ended even when the message was not, and the lone
    dot that ends the data. A message of LF lines sent as it is reaches the listener as one line,
    which it refuses over 1,001 bytes ("500 Line too long")."""
    data = raw.replace(b"\r\n", b"\n").replace(b"\r", b"\n").replace(b"\n", b"\r\n")
    if not data.endswith(b"\r\n"):
        data += b"\r\n"
    data = data.replace(b"\r\n.", b"\r\n..")
    if data.startswith(b"."):
        data = b"." + data
    return data + b".\r\n"


def _answer(code: int, reason: str, stage: str) -> int:
    if code < 400:
        return 0
    print(f"pbem-pipe: the listener answered {code} at {stage}: {reason}", file=sys.stderr)
    if code == 552:
        return EX_DATAERR
    if code >= 500:
        raise Fallback(f"the listener refused the message ({code})")
    return EX_TEMPFAIL


def slow_way(raw: bytes, argv: list[str], why: str) -> int:
    """The pipe's own store in this process (pbem/doors/pipe_store.py: the standard library and
    libpq, no Django) where the settings allow it; else `manage.py receive_email` with the same
    arguments and the message on its stdin."""
    stored = own_store(raw, argv)
    if stored is not None:
        return stored
    import subprocess  # only here: the fast way does without it

    limit = left()
    try:
        done = subprocess.run(
            [sys.executable, os.path.join(ROOT, "manage.py"), "receive_email", *argv],
            input=raw,
            cwd=ROOT,
            check=False,
            timeout=limit,
        )
    except subprocess.TimeoutExpired:
        print(f"pbem-pipe: gave up after {LIMIT:g} s (PBEM_PIPE_TIMEOUT); the MTA will try again", file=sys.stderr)
        return EX_TEMPFAIL
    if done.returncode in (0, EX_DATAERR, EX_TEMPFAIL):
        return done.returncode
    print(f"pbem-pipe: receive_email failed (status {done.returncode}) after: {why}", file=sys.stderr)
    return EX_TEMPFAIL


def own_store(raw: bytes, argv: list[str]) -> int | None:
    """The exit status of pipe_store's delivery, or None where it cannot take the message (other
    arguments, settings it does not serve: pipe_store.plan says)."""
    recipients, rest = _recipients(argv)
    if rest:
        return None
    if ROOT not in sys.path:
        sys.path.append(ROOT)  # after the standard library: this file runs with `python -I -S`
    # -I ignores PYTHONDONTWRITEBYTECODE, which scripts/pbem-pipe sets: the pipe's user writes
    # no bytecode into the installation.
    sys.dont_write_bytecode = sys.dont_write_bytecode or bool(os.environ.get("PYTHONDONTWRITEBYTECODE"))
    from pbem.doors import pipe_store

    try:
        plan = pipe_store.plan()
    except pipe_store.NotHere:
        return None
    return pipe_store.deliver(plan, recipients, raw=raw, seconds=left())


def run(argv: list[str]) -> int:
    """main, with anything unexpected answered 75: the MTA keeps the mail and tries again (any
    other status but 0 and 65 would bounce a player's reply)."""
    try:
        return main(argv)
    except Exception as exc:  # noqa: BLE001 - whatever it is, the mail must not bounce for it
        print(f"pbem-pipe: the handoff failed ({type(exc).__name__}: {exc}); the MTA will try again", file=sys.stderr)
        return EX_TEMPFAIL


if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))
