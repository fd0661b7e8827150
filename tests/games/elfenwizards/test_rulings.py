"""Every ruling in RULINGS.md names a test that exists."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def test_every_test_named_in_the_rulings_exists():
    rulings = (ROOT / "games" / "elfenwizards" / "RULINGS.md").read_text()
    named = {n.split("::")[-1] for n in re.findall(r"`(?:[\w./]+::)?(test_\w+)`", rulings)}
    source = "".join(p.read_text() for p in Path(__file__).parent.glob("test_*.py"))
    assert len(named) > 30
    missing = sorted(n for n in named if f"def {n}(" not in source)
    assert not missing, missing
