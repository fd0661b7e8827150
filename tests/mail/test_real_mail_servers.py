"""The mail-operations guide, run: a real Postfix pipes replies through scripts/pbem-pipe into
the service, and `manage.py poll_imap` reads a real Dovecot. Each server is private (its own
config and queue folders, spare ports on 127.0.0.1) and stopped at the end.

Skipped, with the reason, where Postfix or Dovecot is not installed or the tests do not run as
root; the pipe needs PostgreSQL (its process, as another user, writes into the test database).
"""

from __future__ import annotations

import shutil
import smtplib
import subprocess
import tempfile
import time
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.core.management import call_command
from django.db import connection

from pbem.mail import pipelining, sending
from pbem.management.commands.smtpd import make_controller
from pbem.models import Event, InboundMessage, Notice
from pbem.play import services
from tests.conftest import CAST, requires_postgres

from .conftest import free_port, hand
from .realmail import PIPE_USER, ROOT, Dovecot, Postfix, missing, python_for, run_as, write_env_file
from .replies import reply
from .test_round_trip import notice_to

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def live_game(settings, smtp_sink):
    settings.PBEM_NOTICE_DISPATCH = "on_commit"
    game = services.create_game("diceduel", CAST[:2], {})
    smtp_sink.wait_for(2)
    return game


def service_settings(smtp_sink, tmp_path, **overrides) -> dict:
    """The settings file an operator writes, here pointing at the test's database and SMTP sink."""
    db = connection.settings_dict
    data = tmp_path / "pipe-data"
    data.mkdir(mode=0o777, exist_ok=True)
    data.chmod(0o777)
    return {
        "DJANGO_SETTINGS_MODULE": "tests.settings",
        "SECRET_KEY": django_settings.SECRET_KEY,
        "DATABASE_URL": f"postgres://{db['USER']}:{db['PASSWORD'] or ''}@{db['HOST'] or '127.0.0.1'}:"
        f"{db['PORT'] or 5432}/{db['NAME']}",
        "PBEM_MAIL_DOMAIN": django_settings.PBEM_MAIL_DOMAIN,
        "CELERY_BROKER_URL": "",
        "CELERY_TASK_ALWAYS_EAGER": "1",
        "PBEM_NOTICE_DISPATCH": "on_commit",
        "EMAIL_BACKEND": "django.core.mail.backends.smtp.EmailBackend",
        "EMAIL_HOST": "127.0.0.1",
        "EMAIL_PORT": str(smtp_sink.port),
        "PBEM_DATA_DIR": str(data),
        "STATIC_ROOT": str(data / "static"),
        "PBEM_PIPE_TIMEOUT": "90",
        **overrides,
    }


def start_postfix(smtp_sink, overrides: dict):
    """A private Postfix whose pipe runs scripts/pbem-pipe with the settings file an operator
    writes (and `overrides`); returns the server and the folder of that file."""
    reason = missing("postfix", "postmap", "postconf", "runuser")
    if reason:
        pytest.skip(reason)
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL (the pipe's process writes into the test database)")
    if run_as(PIPE_USER, "test", "-r", str(ROOT / "manage.py")).returncode:
        pytest.skip(f"the pipe's user {PIPE_USER} cannot read the code at {ROOT} (a checkout under a private folder)")
    try:
        interpreter = python_for(PIPE_USER)
    except RuntimeError as exc:
        pytest.skip(str(exc))
    # Not under pytest's own folder (mode 700): the pipe's user must read the settings file.
    folder = Path(tempfile.mkdtemp(prefix="pbem-pipe-"))
    folder.chmod(0o755)
    env_file = write_env_file(folder / "env", service_settings(smtp_sink, folder, **{**interpreter, **overrides}))
    return Postfix(django_settings.PBEM_MAIL_DOMAIN, env_file).start(), folder


@pytest.fixture
def postfix(smtp_sink, request):
    server, folder = start_postfix(smtp_sink, getattr(request, "param", {}))
    yield server
    server.stop()
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def listener():
    """The SMTP listener (manage.py smtpd) on a spare port, in this process."""
    controller = make_controller("127.0.0.1", free_port())
    controller.start()
    yield controller.port
    controller.stop()


@pytest.fixture
def postfix_with_handoff(smtp_sink, listener):
    """Postfix piping through the fast door: PBEM_PIPE_HANDOFF names the listener."""
    server, folder = start_postfix(smtp_sink, {"PBEM_PIPE_HANDOFF": f"127.0.0.1:{listener}"})
    yield server
    server.stop()
    shutil.rmtree(folder, ignore_errors=True)


def wait_for_inbound(count: int, timeout: float = 90) -> list[InboundMessage]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        rows = list(InboundMessage.objects.order_by("id"))
        if len(rows) >= count and all(row.status != "received" for row in rows):
            return rows
        time.sleep(0.2)
    raise AssertionError(f"{count} processed inbound message(s) expected: {InboundMessage.objects.count()}")


@requires_postgres
def test_a_reply_through_postfix_and_the_pipe_wrapper_is_applied_and_answered(live_game, smtp_sink, postfix):
    turn = notice_to(smtp_sink, "alice@example.org")
    card = hand(live_game, 0)[0]
    with smtplib.SMTP("127.0.0.1", postfix.port) as client:
        client.sendmail("alice@example.org", [str(turn["Reply-To"])], reply("gmail", turn, f"play {card}"))
    postfix.wait_for_log("status=sent")
    [message] = wait_for_inbound(1)
    assert message.channel == "pipe" and message.status == "applied", message.outcome
    assert message.envelope_to == [str(turn["Reply-To"]).lower()]
    assert Event.objects.get(game=live_game, type="CardPlayed").payload == {"seat": 0, "card": card}
    smtp_sink.wait_for(3)
    assert notice_to(smtp_sink, "alice@example.org", "answer")["In-Reply-To"] == message.message_id


@requires_postgres
def test_a_long_reply_piped_by_postfix_with_lf_line_ends_is_taken_by_the_listener(
    live_game, smtp_sink, postfix_with_handoff
):
    turn = notice_to(smtp_sink, "alice@example.org")
    card = hand(live_game, 0)[0]
    # Quoting its notice, with a line that begins with a dot: Postfix hands it to the pipe with
    # LF line ends, and the handoff must make it an SMTP message again (CRLF, dots doubled).
    raw = reply("gmail", turn, f"play {card}\r\n\r\n-- \r\n.\r\n.. and a dot line")
    assert len(raw) > 1500
    with smtplib.SMTP("127.0.0.1", postfix_with_handoff.port) as client:
        client.sendmail("alice@example.org", [str(turn["Reply-To"])], raw)
    log = postfix_with_handoff.wait_for_log("status=sent")
    [message] = wait_for_inbound(1)
    assert message.channel == "smtp", log  # the listener stored it, not the slow way ("pipe")
    assert message.status == "applied", message.outcome
    assert b"\r\n.\r\n.. and a dot line\r\n" in bytes(message.raw)
    assert Event.objects.get(game=live_game, type="CardPlayed").payload == {"seat": 0, "card": card}


@requires_postgres
def test_a_mail_to_two_addresses_at_the_domain_is_piped_once_for_each_not_bounced(live_game, smtp_sink, postfix):
    turn = notice_to(smtp_sink, "alice@example.org")
    other = f"play+nobody-here@{django_settings.PBEM_MAIL_DOMAIN}"
    with smtplib.SMTP("127.0.0.1", postfix.port) as client:
        client.sendmail("alice@example.org", [str(turn["Reply-To"]), other], reply("gmail", turn, "help"))
    log = postfix.wait_for_log("status=sent", count=2)
    assert "status=bounced" not in log and "status=deferred" not in log
    assert len(wait_for_inbound(1)) == 1  # one message, stored once: the second delivery is a repeat


@requires_postgres
@pytest.mark.parametrize(
    "postfix",
    [{"DATABASE_URL": "postgres://nobody@127.0.0.1:9/none"}, {"PBEM_PYTHON": "/nonexistent/python"}],
    ids=["database away", "interpreter missing"],
    indirect=True,
)
def test_a_delivery_that_cannot_be_stored_is_deferred_not_bounced(live_game, smtp_sink, postfix):
    turn = notice_to(smtp_sink, "alice@example.org")
    with smtplib.SMTP("127.0.0.1", postfix.port) as client:
        client.sendmail("alice@example.org", [str(turn["Reply-To"])], reply("gmail", turn, "help"))
    log = postfix.wait_for_log("status=deferred")
    assert "status=bounced" not in log and InboundMessage.objects.count() == 0


@pytest.fixture
def dovecot(settings):
    reason = missing("dovecot", "doveadm")
    if reason:
        pytest.skip(reason)
    server = Dovecot().start()
    settings.PBEM_IMAP_HOST, settings.PBEM_IMAP_PORT = "127.0.0.1", server.port
    settings.PBEM_IMAP_SECURITY, settings.PBEM_IMAP_FOLDER = "none", "INBOX"
    settings.PBEM_IMAP_USER, settings.PBEM_IMAP_PASSWORD = server.user, server.password
    yield server
    server.stop()


def test_poll_imap_stores_every_new_reply_from_dovecot_even_one_already_read(live_game, smtp_sink, dovecot, capsys):
    turn = notice_to(smtp_sink, "alice@example.org")
    card = hand(live_game, 0)[0]
    dovecot.append(reply("outlook", turn, f"play {card}"), flags="\\Seen")  # someone opened it first
    dovecot.append(reply("gmail", notice_to(smtp_sink, "bob@example.org"), "help", sender="bob@example.org"))

    call_command("poll_imap")
    assert "2 stored, 0 already stored (marked with keyword)" in capsys.readouterr().out
    applied = InboundMessage.objects.get(sender="alice@example.org")
    assert applied.channel == "imap" and applied.status == "applied", applied.outcome
    assert Event.objects.get(game=live_game, type="CardPlayed").payload == {"seat": 0, "card": card}
    assert all("PbemStored" in flags for flags in dovecot.flags())

    call_command("poll_imap")
    assert "0 stored, 0 already stored" in capsys.readouterr().out
    assert InboundMessage.objects.count() == 2


def host_mail_files() -> dict[str, bytes]:
    return {str(path): path.read_bytes() for path in sorted(Path("/etc/postfix").glob("*")) if path.is_file()}


def listening_ports(pid: int) -> set[int]:
    """The TCP ports that process `pid` and its children listen on."""
    done = subprocess.run(["ss", "-ltnpH"], capture_output=True, text=True, timeout=30, check=True)
    family = {str(pid), *subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout.split()}
    ports = set()
    for line in done.stdout.splitlines():
        if any(f"pid={p}," in line for p in family):
            ports.add(int(line.split()[3].rpartition(":")[2]))
    return ports


@requires_postgres
def test_the_tests_postfix_brings_its_own_config_and_takes_no_port_but_its_own(smtp_sink):
    if shutil.which("ss") is None:
        pytest.skip("ss (iproute2) not installed")
    before = host_mail_files()
    server, folder = start_postfix(smtp_sink, {})
    try:
        master = (server.dir / "master.cf").read_text()
        assert "/etc/postfix" not in master and not any(line.startswith("smtp ") for line in master.splitlines())
        assert not (server.queue.is_relative_to(Path("/var/spool/postfix")))
        pid = int((server.queue / "pid" / "master.pid").read_text().split()[0])
        assert listening_ports(pid) == {server.port}
        assert server.warnings() == []
    finally:
        server.stop()
        shutil.rmtree(folder, ignore_errors=True)
    assert host_mail_files() == before
    assert not server.base.exists()


@requires_postgres
def test_a_batch_of_notices_goes_out_through_a_real_postfix_pipelined_and_every_one_arrives(
    smtp_sink, postfix, settings, monkeypatch
):
    """The sender's batch through a real Postfix, which says PIPELINING (RFC 2920): each notice's
    envelope and DATA go in one write and its end of data is answered while the next is composed.
    Postfix relays every one to the players' mail server (the sink)."""
    # This instance relays the players' mail to their server (the sink) with Postfix's SMTP client.
    postfix.postconf("-M", "smtp/unix=smtp unix - - n - - smtp")
    postfix.postconf("-e", f"default_transport = smtp:[127.0.0.1]:{smtp_sink.port}", "smtp_tls_security_level = none")
    subprocess.run(["postfix", "-c", str(postfix.dir), "reload"], check=True, timeout=60, capture_output=True)
    with smtplib.SMTP("127.0.0.1", postfix.port) as client:
        client.ehlo()
        assert client.has_extn("pipelining")
    settings.PBEM_NOTICE_DISPATCH = "none"
    for _ in range(6):
        services.create_game("diceduel", CAST[:2], {})
    settings.EMAIL_PORT = postfix.port  # the service sends through Postfix
    assert Notice.objects.count() == 12
    said, real = [], pipelining.pipelines
    monkeypatch.setattr(pipelining, "pipelines", lambda client: said.append(real(client)) or said[-1])
    sending.send_pending(None)
    assert said == [True]  # one connection, pipelined
    notices = list(Notice.objects.order_by("id"))
    assert {n.status for n in notices} == {"sent"}
    log = postfix.wait_for_log("status=sent", count=12)
    assert "mail=12 rcpt=12 data=12" in log and "improper command pipelining" not in log
    assert postfix.warnings() == []
    received = smtp_sink.wait_for(12, timeout=60)
    assert sorted(str(m["Message-ID"]) for m in received) == sorted(n.message_id for n in notices)
    by_id = {str(m["Message-ID"]): m for m in received}
    for notice in notices:
        arrived = by_id[notice.message_id]
        assert str(arrived["Subject"]) == notice.subject and arrived["To"].addresses[0].addr_spec == notice.to_email
        assert arrived["Received"]  # through Postfix, not straight to the sink
