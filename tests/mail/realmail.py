"""A private Postfix and a private Dovecot on spare ports of 127.0.0.1, each with its own config
and queue folders (so two test runs, or other people's, never meet), configured as
docs/mail-operations.md tells an operator. Both need root and Debian's packages (`.ci/run`
installs postfix and dovecot-imapd); the tests skip with the reason where they are missing.
Standard library only (bench/postfix_pipe.py runs the same Postfix)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


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


# The services a Postfix needs to take mail over SMTP on one port and pipe it into the service:
# this instance's whole master.cf, written here, never the host's (whose services would listen on
# the host's ports, as a copy with only port 25 turned off did, taking another Postfix's port).
# No service runs chrooted (chroot `n`): nothing is copied into the queue folder.
MASTER_CF = """\
{port}    inet  n - n - - smtpd
pickup    unix  n - n 60 1 pickup
cleanup   unix  n - n - 0 cleanup
qmgr      unix  n - n 300 1 qmgr
rewrite   unix  - - n - - trivial-rewrite
bounce    unix  - - n - 0 bounce
defer     unix  - - n - 0 bounce
trace     unix  - - n - 0 bounce
verify    unix  - - n - 1 verify
flush     unix  n - n 1000? 0 flush
proxymap  unix  - - n - - proxymap
showq     unix  n - n - - showq
error     unix  - - n - - error
retry     unix  - - n - - error
discard   unix  - - n - - discard
anvil     unix  - - n - 1 anvil
scache    unix  - - n - 1 scache
postlog   unix-dgram n - n - 1 postlogd
"""
GUIDE_SCRIPT = ROOT / "scripts" / "mail-guide.sh"  # docs/mail-operations.md prints its steps


def wait_until_listening(port: int, what: str, log: Path, timeout: float = 30) -> None:
    """Returns once something answers on 127.0.0.1:`port`, or fails with `log`."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), 1).close()
            return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"{what} did not listen on port {port}:\n{log.read_text() if log.exists() else ''}")


class Postfix:
    """Postfix with the pipe transport of docs/mail-operations.md: mail to `domain` goes through
    scripts/pbem-pipe into the service; nothing leaves (default_transport is an error).

    Everything is its own: a config folder with a main.cf and a master.cf written here, a queue
    folder and a data folder beside it (not inside: Postfix wants its config tree owned by root
    and its queue by its mail owner), one spare port on 127.0.0.1, and a log file. Nothing under
    /etc/postfix or /var/spool/postfix is read or written, and no port but its own is taken."""

    def __init__(self, domain: str, env_file: Path):
        self.base = Path(tempfile.mkdtemp(prefix="pbem-postfix-"))
        self.base.chmod(0o755)
        self.dir = self.base / "postfix"  # where the guide's script puts a private Postfix's
        self.queue = self.base / "queue"
        self.port = free_port()
        self.log = self.base / "log" / "postfix.log"  # where the guide's maillog_file goes, here
        for folder in (self.dir, self.queue, self.base / "data", self.base / "log"):
            folder.mkdir(mode=0o755)
        shutil.chown(self.base / "data", "postfix")
        # What only a private test instance needs (its folders, 127.0.0.1 alone, no local
        # delivery, nothing sent out); the rest is the guide's own step, run below.
        (self.dir / "main.cf").write_text(
            "\n".join(
                [
                    "compatibility_level = 3.6",
                    f"queue_directory = {self.queue}",
                    f"data_directory = {self.base / 'data'}",
                    "mail_owner = postfix",
                    "inet_interfaces = 127.0.0.1",
                    "inet_protocols = ipv4",
                    "mydestination =",
                    "mynetworks = 127.0.0.0/8",
                    "local_recipient_maps =",
                    "alias_maps =",
                    "alias_database =",
                    "default_transport = error:this test instance sends no mail out",
                    "",
                ]
            )
        )
        (self.dir / "master.cf").write_text(MASTER_CF.format(port=self.port))
        # The guide's Postfix step (scripts/mail-guide.sh 4), with this instance's folders,
        # domain, settings file and pipe user.
        guide = {
            "MAIL_PREFIX": str(self.base),
            "DOMAIN": domain,
            "MX": "mx.pbem-test.localdomain",
            "PBEM": str(ROOT),
            "PBEM_ENV": str(env_file),
            "PIPE_USER": PIPE_USER,
            "DOOR": "pipe",
        }
        done = subprocess.run(
            [str(GUIDE_SCRIPT), "4"], env={**os.environ, **guide}, capture_output=True, text=True, timeout=120
        )
        if done.returncode:
            raise RuntimeError(f"the guide's Postfix step failed: {done.stdout}{done.stderr}")

    def postconf(self, *args: str) -> None:
        subprocess.run(["postconf", "-c", str(self.dir), *args], check=True, timeout=60, capture_output=True)

    def start(self) -> Postfix:
        done = subprocess.run(["postfix", "-c", str(self.dir), "start"], timeout=60, capture_output=True, text=True)
        if done.returncode:
            raise RuntimeError(f"postfix start: {done.stderr}\n{self.log.read_text() if self.log.exists() else ''}")
        wait_until_listening(self.port, "Postfix", self.log)
        return self

    def stop(self) -> None:
        subprocess.run(["postfix", "-c", str(self.dir), "stop"], timeout=60, capture_output=True)
        shutil.rmtree(self.base, ignore_errors=True)

    def warnings(self) -> list[str]:
        """The log's warning and fatal lines (a config Postfix finds wrong, a folder it distrusts)."""
        text = self.log.read_text() if self.log.exists() else ""
        return [line for line in text.splitlines() if " warning: " in line or " fatal: " in line]

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
        wait_until_listening(self.port, "Dovecot", self.dir / "dovecot.log")
        return self

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
