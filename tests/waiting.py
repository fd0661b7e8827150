"""Waiting for a condition, never for a fixed time: a loaded machine (a whole suite on two
shared cores) makes everything slower, and a test that slept "long enough" flakes there."""

from __future__ import annotations

import time


def wait_until(check, timeout: float = 40.0, what: str = "", every: float = 0.05):
    """Returns check()'s first true answer, polling until `timeout` seconds have passed; then
    fails, with the last answer."""
    deadline = time.monotonic() + timeout
    while True:
        answer = check()
        if answer:
            return answer
        if time.monotonic() >= deadline:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what or check}: last answer {answer!r}")
        time.sleep(every)
