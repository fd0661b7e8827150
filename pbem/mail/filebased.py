"""The embedded run's outgoing mail as files: one `.eml` per message under EMAIL_FILE_PATH
(data/mail/), named by when, to whom and about what, e.g.
`20261206-210412-123456-alice@example.org-Your-turn-in-Dice-Duel.eml`. Each opens in a mail
client as it is. (Django's own file backend writes every message of a connection into one
`.log` file, named by time alone.)"""

from __future__ import annotations

import re
import unicodedata
from datetime import UTC, datetime
from pathlib import Path

from django.conf import settings
from django.core.mail.backends.base import BaseEmailBackend

UNSAFE = re.compile(r"[^A-Za-z0-9@._+-]+")


def file_name(message, now: datetime) -> str:
    """`<UTC time>-<first recipient>-<subject>.eml`, each part made safe for any file system."""
    recipient = next(iter(message.to or message.cc or message.bcc or ["nobody"]))
    subject = unicodedata.normalize("NFKD", str(message.subject or "no subject"))
    parts = [
        now.strftime("%Y%m%d-%H%M%S-%f"),
        UNSAFE.sub("-", recipient).strip("-.")[:80] or "nobody",
        UNSAFE.sub("-", subject.encode("ascii", "ignore").decode()).strip("-.")[:80] or "no-subject",
    ]
    return "-".join(parts) + ".eml"


class EmailBackend(BaseEmailBackend):
    def __init__(self, *args, file_path: str | None = None, fail_silently: bool = False, **kwargs):
        super().__init__(fail_silently=fail_silently, **kwargs)
        self.file_path = Path(file_path or settings.EMAIL_FILE_PATH)

    def send_messages(self, email_messages) -> int:
        sent = 0
        try:
            self.file_path.mkdir(parents=True, exist_ok=True)
            for message in email_messages:
                self._write(message)
                sent += 1
        except Exception:
            if not self.fail_silently:
                raise
        return sent

    def _write(self, message) -> None:
        data = message.message().as_bytes()
        name = file_name(message, datetime.now(UTC))
        for attempt in range(100):  # two messages in the same microsecond to the same address
            path = self.file_path / (name if not attempt else name.replace(".eml", f"-{attempt}.eml"))
            try:
                with path.open("xb") as out:
                    out.write(data)
                return
            except FileExistsError:
                continue
        raise FileExistsError(f"no free file name for {name} in {self.file_path}")
