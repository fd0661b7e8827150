"""A clock the tests can move: `timezone.now()` plus an offset kept in a file
(PBEM_TEST_CLOCK_FILE), so every process given the same file sees the same moved time (a sweep
in another process, say). Off unless that setting names a file; never for a real service.

`advance(seconds)` moves it on; `reset()` back to real time. The offset is read again whenever
the file changes (its size and modification time), so a move is seen at once by every process.
"""

from __future__ import annotations

import os
from datetime import datetime, timedelta

from django.conf import settings
from django.utils import timezone

_real_now = timezone.now
_seen: tuple = ()
_offset = 0.0


def path() -> str:
    return getattr(settings, "PBEM_TEST_CLOCK_FILE", "") or ""


def offset() -> float:
    """The seconds the test clock is ahead of real time (0 when off)."""
    global _seen, _offset
    where = path()
    if not where:
        return 0.0
    try:
        info = os.stat(where)
    except FileNotFoundError:
        return 0.0
    key = (where, info.st_mtime_ns, info.st_size, info.st_ino)
    if key != _seen:
        with open(where) as fh:
            text = fh.read().strip()
        _offset, _seen = float(text or 0), key
    return _offset


def now() -> datetime:
    return _real_now() + timedelta(seconds=offset())


def set_offset(seconds: float) -> None:
    where = path()
    if not where:
        raise RuntimeError("the test clock is off: PBEM_TEST_CLOCK_FILE names no file")
    temporary = f"{where}.{os.getpid()}"
    with open(temporary, "w") as fh:
        fh.write(repr(float(seconds)))
    os.replace(temporary, where)  # a new inode: seen at once, never half written


def advance(seconds: float) -> datetime:
    set_offset(offset() + seconds)
    return now()


def reset() -> None:
    if path():
        set_offset(0)


def install() -> None:
    """Makes `django.utils.timezone.now` the test clock, if the setting names a file."""
    if path():
        timezone.now = now
