"""A private Postfix and a private Dovecot on spare ports of 127.0.0.1, each with its own config
and queue folders (so two test runs, or other people's, never meet), configured as
docs/mail-operations.md tells an operator. Both need root and Debian's packages (`.ci/run`
installs postfix and dovecot-imapd); the tests skip with the reason where they are missing."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

from .conftest import free_port

ROOT = Path(__file__).resolve().parents[2]
PIPE_USER = "nobody"  # Postfix's pipe refuses root; any unprivileged user that can read the code


def missing(*programs: str) -> str:
    """Why these servers cannot run here ("" when they can)."""
    if os.geteuid() != 0:
        return "needs root (Postfix and Dovecot drop privileges to their own users)"
    absent = [p for p in programs if shutil.which(p) is None]
    return f"{', '.join(absent)} not installed (apt-get install postfix dovecot-imapd)" if absent else ""


def run_as(user: str, *command: str) -> subprocess.CompletedProcess:
    return subprocess.run(["runuser", "-u", user, "--", *command], capture_output=True, text=True, timeout=60)


def python_for(user: str) -> dict:
    """The interpreter settings that let `user` run the service: the venv's own python when it
    can (a venv made from Debian's python3.11), else Debian's python3.11 with the venv's
    packages (a venv made from a python under /root, as on a developer's machine)."""
    venv_python = ROOT / ".venv" / "bin" / "python"
    if run_as(user, str(venv_python), "-c", "import django").returncode == 0:
        return {"PBEM_PYTHON": str(venv_python)}
    site = next((ROOT / ".venv" / "lib").glob("python3.*/site-packages"))
    system = Path("/usr/bin/python3.11")
    if (
        system.exists()
        and run_as(user, str(system), "-c", f"import sys; sys.path.insert(0, {str(site)!r}); import django").returncode
        == 0
    ):
        return {"PBEM_PYTHON": str(system), "PYTHONPATH": str(site)}
    raise RuntimeError(f"{user} can run neither {venv_python} nor {system} with the venv's packages")


class Postfix:
    """Postfix with the pipe transport of docs/mail-operations.md: mail to `domain` goes through
    scripts/pbem-pipe into the service; nothing leaves (default_transport is an error)."""

    def __init__(self, domain: str, env_file: Path, recipient_limit: bool = True):
        self.dir = Path(tempfile.mkdtemp(prefix="pbem-postfix-"))
        self.dir.chmod(0o755)
        self.port = free_port()
        self.log = self.dir / "maillog"
        (self.dir / "queue").mkdir()
        (self.dir / "data").mkdir()
        shutil.chown(self.dir / "data", "postfix")
        (self.dir / "transport").write_text(f"{domain} pbem:\n")
        (self.dir / "main.cf").write_text(
            "\n".join(
                [
                    "compatibility_level = 3.6",
                    f"queue_directory = {self.dir / 'queue'}",
                    f"data_directory = {self.dir / 'data'}",
                    "mail_owner = postfix",
                    "myhostname = mx.pbem-test.localdomain",
                    "inet_interfaces = 127.0.0.1",
                    "inet_protocols = ipv4",
                    "mydestination =",
                    "mynetworks = 127.0.0.0/8",
                    "local_recipient_maps =",
                    "alias_maps =",
                    "alias_database =",
                    f"relay_domains = {domain}",
                    f"transport_maps = hash:{self.dir / 'transport'}",
                    "recipient_delimiter = +",
                    "smtpd_relay_restrictions = permit_mynetworks, reject_unauth_destination",
                    "default_transport = error:this test instance sends no mail out",
                    f"maillog_file_prefixes = {self.dir}",
                    f"maillog_file = {self.log}",
                    # What the guide's main.cf says: one recipient per delivery, a bounded run.
                    *(["pbem_destination_recipient_limit = 1"] if recipient_limit else []),
                    "pbem_time_limit = 120s",
                    "",
                ]
            )
        )
        shutil.copy("/etc/postfix/master.cf", self.dir / "master.cf")
        self.postconf("-M#", "smtp/inet")
        self.postconf("-Me", f"{self.port}/inet = {self.port} inet n - n - - smtpd")
        self.postconf("-Me", "postlog/unix-dgram = postlog unix-dgram n - n - 1 postlogd")
        self.postconf(
            "-Me",
            f"pbem/unix = pbem unix - n n - - pipe flags=R user={PIPE_USER} "
            f"argv={ROOT / 'scripts' / 'pbem-pipe'} --env-file {env_file} "
            "--recipient ${original_recipient}",
        )
        self.postconf("-F", "*/*/chroot = n")
        subprocess.run(["postmap", "-c", str(self.dir), str(self.dir / "transport")], check=True, timeout=60)

    def postconf(self, *args: str) -> None:
        subprocess.run(["postconf", "-c", str(self.dir), *args], check=True, timeout=60, capture_output=True)

    def start(self) -> Postfix:
        subprocess.run(["postfix", "-c", str(self.dir), "start"], check=True, timeout=60, capture_output=True)
        return self

    def stop(self) -> None:
        subprocess.run(["postfix", "-c", str(self.dir), "stop"], timeout=60, capture_output=True)
        shutil.rmtree(self.dir, ignore_errors=True)

    def wait_for_log(self, text: str, count: int = 1, timeout: float = 60) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            log = self.log.read_text() if self.log.exists() else ""
            if log.count(text) >= count:
                return log
            time.sleep(0.2)
        raise AssertionError(
            f"{text!r} x{count} not in the mail log:\n{self.log.read_text() if self.log.exists() else ''}"
        )


class Dovecot:
    """Dovecot with one shared mailbox (`user`, plain text on 127.0.0.1 only), as the guide's IMAP
    section sets it up."""

    def __init__(self, user: str = "pbem", password: str = "imap-secret"):
        self.dir = Path(tempfile.mkdtemp(prefix="pbem-dovecot-"))
        self.dir.chmod(0o755)
        self.user, self.password, self.port = user, password, free_port()
        for sub in ("run", "state", "mail"):
            (self.dir / sub).mkdir()
        shutil.chown(self.dir / "mail", "nobody", "nogroup")
        (self.dir / "users").write_text(f"{user}:{{PLAIN}}{password}::::::\n")
        self.conf = self.dir / "dovecot.conf"
        self.conf.write_text(f"""
instance_name = pbem-test-{self.port}
base_dir = {self.dir / "run"}
state_dir = {self.dir / "state"}
protocols = imap
listen = 127.0.0.1
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain
log_path = {self.dir / "dovecot.log"}
mail_location = maildir:{self.dir / "mail"}/%u
first_valid_uid = 1
passdb {{
  driver = passwd-file
  args = scheme=PLAIN username_format=%u {self.dir / "users"}
}}
userdb {{
  driver = static
  args = uid=nobody gid=nogroup home={self.dir / "mail"}/%u
}}
service imap-login {{
  chroot =
  inet_listener imap {{
    address = 127.0.0.1
    port = {self.port}
  }}
  inet_listener imaps {{
    port = 0
  }}
}}
service anvil {{
  chroot =
}}
""")

    def start(self) -> Dovecot:
        # No pipes: the daemon keeps its output open, and run() would wait for it.
        subprocess.run(
            ["dovecot", "-c", str(self.conf)],
            check=True,
            timeout=60,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), 1).close()
                return self
            except OSError:
                time.sleep(0.1)
        raise RuntimeError((self.dir / "dovecot.log").read_text())

    def stop(self) -> None:
        subprocess.run(["doveadm", "-c", str(self.conf), "stop"], timeout=60, capture_output=True)
        shutil.rmtree(self.dir, ignore_errors=True)

    def append(self, raw: bytes, flags: str = "") -> None:
        import imaplib

        client = imaplib.IMAP4("127.0.0.1", self.port)
        client.login(self.user, self.password)
        client.append("INBOX", f"({flags})" if flags else None, None, raw)
        client.logout()

    def flags(self) -> list[str]:
        import imaplib

        client = imaplib.IMAP4("127.0.0.1", self.port)
        client.login(self.user, self.password)
        client.select("INBOX")
        _typ, data = client.fetch("1:*", "(FLAGS)")
        client.logout()
        return [item.decode() for item in data if item]


def write_env_file(path: Path, values: dict) -> Path:
    path.write_text("".join(f"{key}={value}\n" for key, value in values.items()))
    path.chmod(0o644)
    return path
