"""CI's run of the mail guide (docs/mail-operations.md): scripts/mail-guide.sh sets up a private
Postfix and Dovecot (MAIL_PREFIX: their own configuration, queue, mail folder and ports; the users
of its step 2 are the machine's), then one notice and one reply go through them:

- a game is made; its first turn notice goes out the way the guide sends mail (the service ->
  Postfix -> LMTP into Dovecot, standing in for the player's provider) and is read back by IMAP;
- the player's reply to it (quoting it, as mail clients do) goes to Postfix, which pipes it
  through scripts/pbem-pipe, which hands it to the SMTP listener (manage.py smtpd, started as the
  pbem-smtpd unit starts it): stored by the listener and applied to the game, whose next notice
  reaches the other player's mailbox.

    sudo .venv/bin/python scripts/check_mail_guide.py     # .ci/run runs it

Root (the guide is run as root), PostgreSQL (a database of its own, made and dropped: the name of
DATABASE_URL's with "_guide" added, or pbem_guide_check) and Debian's postfix, dovecot-imapd and
dovecot-lmtpd. Exit status 0 when both went through, 1 with what did not."""

from __future__ import annotations

import email
import email.policy
import imaplib
import os
import shutil
import smtplib
import subprocess
import sys
import tempfile
import time
from email.message import EmailMessage
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.mail.realmail import free_port, python_for, run_as  # noqa: E402

DOMAIN = "pbem.test"
PLAYERS = "players.test"  # the players' provider: a Dovecot mailbox, reached over LMTP
PASSWORD = "player-secret"
PIPE_USER = "pbem"  # the guide's


def database_url() -> str:
    base = os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/pbem")
    return base + "_mailguide"


def recreate(url: str, drop_only: bool = False) -> None:
    import psycopg

    prefix, _, name = url.rpartition("/")
    with psycopg.connect(prefix + "/postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        if not drop_only:
            conn.execute(f'CREATE DATABASE "{name}"')


def read_env(path: Path) -> dict:
    lines = (line.partition("=") for line in path.read_text().splitlines() if "=" in line)
    return {key: value for key, _, value in lines}


def wait(what: str, check, timeout: float = 60):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.2)
    raise RuntimeError(f"gave up waiting for {what}")


def mailbox(port: int, user: str) -> list[email.message.EmailMessage]:
    """Every message in `user`'s INBOX, read over IMAP as a mail client does."""
    client = imaplib.IMAP4("127.0.0.1", port)
    try:
        client.login(user, PASSWORD)
        client.select("INBOX", readonly=True)
        _typ, [numbers] = client.search(None, "ALL")
        messages = []
        for number in numbers.split():
            _typ, data = client.fetch(number, "(RFC822)")
            messages.append(email.message_from_bytes(data[0][1], policy=email.policy.default))
        return messages
    finally:
        client.logout()


def reply_to(notice: email.message.EmailMessage, text: str) -> bytes:
    """The player's reply: the command above the quoted notice, LF line ends (as Postfix pipes it)."""
    quoted = "\n".join("> " + line for line in notice.get_body(("plain",)).get_content().splitlines())
    reply = EmailMessage()
    reply["From"] = notice["To"]
    reply["To"] = notice["Reply-To"]
    reply["Subject"] = "Re: " + notice["Subject"]
    reply["Message-ID"] = f"<guide-check-{os.getpid()}-{time.monotonic_ns()}@{PLAYERS}>"
    reply["In-Reply-To"] = notice["Message-ID"]
    reply.set_content(f"{text}\n\nOn Sunday, the Master of Seals wrote:\n{quoted}\n")
    return reply.as_bytes()


def run_guide(prefix: Path, env_file: Path, ports: dict, door: str = "pipe", steps: tuple = ()) -> None:
    guide_env = {
        **os.environ,
        "MAIL_PREFIX": str(prefix / "mail"),
        "DOMAIN": DOMAIN,
        "MX": "mx.pbem.test",
        "PBEM": str(ROOT),
        "PBEM_ENV": str(env_file),
        "DOOR": door,
        "LISTENER": f"127.0.0.1:{ports['listener']}",
        "SMTP_PORT": str(ports["smtp"]),
        "LMTP_PORT": str(ports["lmtp"]),
        "IMAP_PORT": str(ports["imap"]),
    }
    subprocess.run([str(ROOT / "scripts" / "mail-guide.sh"), *steps], env=guide_env, check=True, timeout=600)
    # The players' provider (not the guide's: on the internet it is Gmail and the like): their
    # domain delivered to the same Dovecot, one login each.
    mail = prefix / "mail"
    with open(mail / "postfix" / "transport", "a") as transport:
        transport.write(f"{PLAYERS} lmtp:inet:127.0.0.1:{ports['lmtp']}\n")
    subprocess.run(["postmap", "-c", mail / "postfix", mail / "postfix" / "transport"], check=True)
    subprocess.run(["postfix", "-c", mail / "postfix", "reload"], check=True, capture_output=True)
    with open(mail / "dovecot" / "pbem.passwd", "a") as passwd:
        passwd.writelines(f"{name}@{PLAYERS}:{{PLAIN}}{PASSWORD}\n" for name in ("alice", "bob"))


def check(prefix: Path, ports: dict, url: str) -> list[str]:
    env_file = prefix / "env"
    service = {
        "SECRET_KEY": "guide-check-" + "k" * 40,
        "DATABASE_URL": url,
        "PBEM_DATA_DIR": str(prefix / "data"),
        "PBEM_EXTRA_GAMES": "bench.tally",
        "CELERY_BROKER_URL": "",  # tasks run in the process that stored the message
    }
    (prefix / "data").mkdir(mode=0o777)
    (prefix / "data").chmod(0o777)
    env_file.write_text("".join(f"{key}={value}\n" for key, value in service.items()))
    run_guide(prefix, env_file, ports)
    # The interpreter the pipe's user can run (a venv made from a python under /root is not).
    with open(env_file, "a") as settings_file:
        settings_file.writelines(f"{key}={value}\n" for key, value in python_for(PIPE_USER).items())
    settings = read_env(env_file)
    os.environ.update({k: v for k, v in settings.items() if k not in ("PBEM_PYTHON", "PYTHONPATH")})
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings"
    subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], cwd=ROOT, check=True)
    listener = subprocess.Popen(
        [sys.executable, "manage.py", "smtpd", "--host", "127.0.0.1", "--port", str(ports["listener"])],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        listener.stdout.readline()  # it says where it listens once it does
        return through_the_guide(ports)
    finally:
        listener.terminate()
        listener.wait(30)


def through_the_guide(ports: dict) -> list[str]:
    import django

    django.setup()
    from pbem.models import Event, InboundMessage
    from pbem.play import services

    game = services.create_game(
        "tally",
        [services.PlayerSpec("Alice", f"alice@{PLAYERS}"), services.PlayerSpec("Bob", f"bob@{PLAYERS}")],
        {},
    )
    notices = wait("Alice's turn notice in her mailbox (IMAP)", lambda: mailbox(ports["imap"], f"alice@{PLAYERS}"))
    turn = [n for n in notices if str(n["Reply-To"] or "").startswith("play+")][-1]
    bob_before = len(mailbox(ports["imap"], f"bob@{PLAYERS}"))
    print(f"notice out: {turn['Subject']!r} to {turn['To']}, read back by IMAP from Dovecot")
    raw = reply_to(turn, "mark 5")
    with smtplib.SMTP("127.0.0.1", ports["smtp"]) as client:
        client.sendmail(f"alice@{PLAYERS}", [str(turn["Reply-To"])], raw.replace(b"\n", b"\r\n"))
    stored = wait(
        "the reply stored and processed",
        lambda: InboundMessage.objects.filter(status__in=("applied", "refused", "failed")).first(),
    )
    problems = []
    if stored.channel != "smtp":
        problems.append(f"the reply was stored by the {stored.channel} door, not the listener")
    if stored.status != "applied":
        problems.append(f"the reply was {stored.status}: {stored.outcome}")
    if not Event.objects.filter(game=game, type="Marked").exists():
        problems.append("the game has no Marked event")
    print(f"reply in: {len(raw)} bytes (LF), piped by Postfix, stored by the {stored.channel} door, {stored.status}")
    bob = wait("Bob's notice after Alice's move", lambda: mailbox(ports["imap"], f"bob@{PLAYERS}")[bob_before:])
    print("the next notice reached Bob's mailbox")

    # Postfix logs the pipe's delivery once the pipe command has exited, which may be after the
    # listener stored the reply and Bob's notice went out: waited for, not read once.
    def piped() -> bool:
        return any("relay=pbem," in line and "status=sent" in line for line in postfix_log(ports).splitlines())

    try:
        wait("Postfix's log of the delivery through the pipe", piped, timeout=30)
    except RuntimeError:
        problems.append("Postfix's log has no delivery through the pipe (relay=pbem, status=sent)")
    return problems + imap_door(ports, game, [n for n in bob if str(n["Reply-To"] or "").startswith("play+")][-1])


def postfix_log(ports: dict) -> str:
    return (Path(ports["prefix"]) / "mail" / "log" / "postfix.log").read_text()


def delivered(ports: dict, address: str, relay: str) -> bool:
    lines = postfix_log(ports).lower().splitlines()
    return any(f"to=<{address}>" in line and relay in line and "status=sent" in line for line in lines)


def imap_door(ports: dict, game, notice) -> list[str]:
    """The guide again with DOOR=imap (steps 3 to 6): the domain's mail goes over LMTP into
    Dovecot, and `manage.py poll_imap` (as beat runs it) stores Bob's reply from there."""
    from pbem.models import Event, InboundMessage

    prefix = Path(ports["prefix"])
    run_guide(prefix, prefix / "env", ports, door="imap", steps=("3", "4", "5", "6"))
    raw = reply_to(notice, "mark 3")
    with smtplib.SMTP("127.0.0.1", ports["smtp"]) as client:
        client.sendmail(f"bob@{PLAYERS}", [str(notice["Reply-To"])], raw.replace(b"\n", b"\r\n"))
    address, relay = str(notice["Reply-To"]).lower(), f"relay=127.0.0.1[127.0.0.1]:{ports['lmtp']},"
    wait("the reply delivered into Dovecot over LMTP", lambda: delivered(ports, address, relay))
    settings = read_env(prefix / "env")
    polled = subprocess.run(
        [sys.executable, "manage.py", "poll_imap"],
        cwd=ROOT,
        env={**os.environ, **{k: v for k, v in settings.items() if k not in ("PBEM_PYTHON", "PYTHONPATH")}},
        capture_output=True,
        text=True,
        timeout=120,
    )
    print(f"poll_imap: {polled.stdout.strip()} {polled.stderr.strip()}")
    stored = InboundMessage.objects.filter(channel="imap").first()
    if stored is None:
        return ["the IMAP door stored nothing from Dovecot"]
    problems = [] if stored.status == "applied" else [f"the IMAP door's reply was {stored.status}: {stored.outcome}"]
    if Event.objects.filter(game=game, type="Marked").count() != 2:
        problems.append("Bob's move by the IMAP door is not in the game")
    print(f"reply in by the IMAP door: Postfix -> LMTP -> Dovecot -> poll_imap, stored and {stored.status}")
    return problems


def machine_mail_files() -> dict[str, bytes]:
    """The machine's own mail configuration and mail (a private pair must change none of it)."""
    files = {}
    for top in ("/etc/postfix", "/etc/dovecot", "/var/mail"):
        for path in sorted(Path(top).rglob("*")) if Path(top).exists() else []:
            if path.is_file() and not path.is_symlink():
                files[str(path)] = path.read_bytes()
    return files


def main() -> int:
    if os.geteuid() != 0:
        print("check_mail_guide: run it as root (the guide is run as root)", file=sys.stderr)
        return 1
    if run_as("nobody", "test", "-r", str(ROOT / "manage.py")).returncode:
        print(f"check_mail_guide: other users cannot read the code at {ROOT}", file=sys.stderr)
        return 1
    prefix = Path(tempfile.mkdtemp(prefix="pbem-guide-"))
    prefix.chmod(0o755)
    ports = {name: free_port() for name in ("smtp", "lmtp", "imap", "listener")}
    ports["prefix"] = str(prefix)
    url = database_url()
    recreate(url)
    problems = ["did not finish"]
    before = machine_mail_files()
    try:
        problems = check(prefix, ports, url)
        if machine_mail_files() != before:
            problems.append("the machine's own /etc/postfix, /etc/dovecot or /var/mail changed")
    finally:
        if problems:
            for log in sorted((prefix / "mail" / "log").glob("*.log")):
                print(f"--- {log.name}\n{log.read_text()[-4000:]}", file=sys.stderr)
        subprocess.run(
            [str(ROOT / "scripts" / "mail-guide.sh"), "stop"],
            env={**os.environ, "MAIL_PREFIX": str(prefix / "mail")},
            capture_output=True,
        )
        shutil.rmtree(prefix, ignore_errors=True)
        recreate(url, drop_only=True)
    for problem in problems:
        print(f"check_mail_guide: {problem}", file=sys.stderr)
    print("the mail guide: " + ("NOT working" if problems else "a notice out and a reply in went through"))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
