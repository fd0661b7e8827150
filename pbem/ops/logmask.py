"""Seat tokens never reach a log: every log record's message (and traceback) is masked as it is
made, whichever logger or handler it goes to.

A seat token is a full credential (whoever has it plays the seat), and it travels in paths
(/play/TOKEN/), reply addresses (play+TOKEN@domain) and the texts that quote them; the subject
code and the bounce (VERP) address are signed too. Masking at the record factory, not with a
handler's filter, covers every handler, Django's own (django.request's "Forbidden: /play/…",
runserver's access lines) and gunicorn's access log included, without listing them.
Installed by `pbem.apps` at start-up; the seat id stays readable for whoever reads the log.
"""

from __future__ import annotations

import logging
import re
import traceback

PATTERNS = [
    # seat tokens: 7-1-abcdefghijklmnop (any case: mail folds it)
    (re.compile(r"\b(\d+-\d+-)[a-z2-7]{16}\b", re.I), r"\1<masked>"),
    # calendar feed tokens: 7-1-<26 letters> (pbem/play/calendar.py)
    (re.compile(r"\b(\d+-\d+-)[a-z2-7]{26}\b", re.I), r"\1<masked>"),
    # bounce addresses: bounces+n12-abcdefgh
    (re.compile(r"\b(bounces\+n\d+-)[a-z2-7]{8}\b", re.I), r"\1<masked>"),
    # subject codes: [12-abcdef]
    (re.compile(r"\[(\d+-)[a-z2-7]{6}\]", re.I), r"[\1<masked>]"),
    # the players' channels (pbem/play/channels.py): an Apprise URL holds the service's secret
    (re.compile(r"\b(discord|tgram|matrixs?|slack|ntfys?|jsons?)://\S+", re.I), r"\1://<masked>"),
    # what Apprise's plugins log of the requests they make: Discord's and Slack's webhook paths,
    # Telegram's bot token
    (re.compile(r"(/api/webhooks/)\S+"), r"\1<masked>"),
    (re.compile(r"(hooks\.slack(?:-gov)?\.com/)\S+"), r"\1<masked>"),
    (re.compile(r"(/bot)\d+:[\w-]+"), r"\1<masked>"),
]


def mask(text: str) -> str:
    for pattern, replacement in PATTERNS:
        text = pattern.sub(replacement, text)
    return text


def _masked_factory(previous):
    def factory(*args, **kwargs) -> logging.LogRecord:
        record = previous(*args, **kwargs)
        try:
            message = record.getMessage()
        except Exception:  # noqa: BLE001 - a broken format string is logging's to report
            return record
        record.msg, record.args = mask(message), None
        if record.exc_info and not record.exc_text:
            record.exc_text = mask("".join(traceback.format_exception(*record.exc_info)).rstrip("\n"))
        if record.stack_info:
            record.stack_info = mask(record.stack_info)
        return record

    factory.pbem_masks_tokens = True
    return factory


def install() -> None:
    """Makes every log record of this process masked (once, however often it is called)."""
    current = logging.getLogRecordFactory()
    if not getattr(current, "pbem_masks_tokens", False):
        logging.setLogRecordFactory(_masked_factory(current))
