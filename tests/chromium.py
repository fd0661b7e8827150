"""What every browser test shares: Debian's Chromium (never `playwright install`), the marks that
skip a test, saying why, where it is missing, and where screenshots go for a person to look at."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"
ARTIFACTS_ROOT = Path(__file__).resolve().parents[1] / "test-artifacts"

NEEDS_CHROMIUM = [
    pytest.mark.browser,
    pytest.mark.skipif(
        not os.path.exists(CHROMIUM),
        reason=f"{CHROMIUM} is missing: install Debian's Chromium with `apt-get install -y chromium`",
    ),
]


def artifacts(name: str) -> Path:
    """The folder of test-artifacts/ that a test's screenshots go to."""
    return ARTIFACTS_ROOT / name
