"""docs/mail-operations.md prints scripts/mail-guide.sh's steps word for word, and CI runs the
script (scripts/check_mail_guide.py): every command block of the guide is one of the script's
functions, every step of the script is in the guide once, and the script runs every step."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
GUIDE = ROOT / "docs" / "mail-operations.md"
SCRIPT = ROOT / "scripts" / "mail-guide.sh"
MARKED = re.compile(r"<!-- scripts/mail-guide\.sh: (\w+) -->\n```sh\n(.*?)```\n", re.S)


def functions(script: str) -> dict[str, str]:
    """Each function of the script: its whole definition."""
    return {m.group(1): m.group(0) for m in re.finditer(r"^(\w+)\(\) \{\n.*?^\}\n", script, re.M | re.S)}


def shown(name: str, definition: str) -> str:
    """What the guide prints of a function: `setting`, the helper, whole; the others' bodies."""
    if name == "setting":
        return definition
    lines = definition.splitlines()[1:-1]
    return "".join((line[2:] if line.startswith("  ") else line) + "\n" for line in lines)


def guide_blocks(guide: str) -> list[tuple[str, str]]:
    return MARKED.findall(guide)


def test_every_block_of_the_guide_is_the_scripts_and_every_step_is_in_the_guide():
    script, guide = functions(SCRIPT.read_text()), GUIDE.read_text()
    blocks = guide_blocks(guide)
    names = [name for name, _ in blocks]
    steps = sorted(name for name in script if re.fullmatch(r"step_\d+", name))
    assert steps == [f"step_{n}" for n in range(1, 7)]
    assert sorted(names) == sorted(["settings", "setting", *steps])  # each once
    for name, text in blocks:
        assert text == shown(name, script[name]), f"the guide's {name} differs from scripts/mail-guide.sh"


def test_the_guide_has_no_shell_block_that_is_not_the_scripts():
    """A command typed into the guide alone would be run by nobody: every ```sh block is a step
    (but the two lines that show how to run the script itself)."""
    guide = GUIDE.read_text()
    unmarked = [
        block
        for block in re.findall(r"(?<!-->\n)```sh\n(.*?)```", guide, re.S)
        if not all(line.startswith(("scripts/mail-guide.sh", "DOMAIN=")) for line in block.splitlines())
    ]
    assert unmarked == []


def test_a_changed_command_is_caught(tmp_path):
    """The comparison itself: a guide whose Postfix step lost a line differs from the script."""
    script = functions(SCRIPT.read_text())
    guide = GUIDE.read_text().replace("    'pbem_destination_recipient_limit = 1' \\\n", "", 1)
    assert guide != GUIDE.read_text()
    differ = [name for name, text in guide_blocks(guide) if text != shown(name, script[name])]
    assert differ == ["step_4"]


def test_the_script_runs_every_step_in_order_and_parses_with_dash():
    text = SCRIPT.read_text()
    assert "for n in ${*:-1 2 3 4 5 6}; do" in text
    sh = shutil.which("dash") or shutil.which("sh")
    if sh is None:
        pytest.skip("no POSIX shell")
    assert subprocess.run([sh, "-n", str(SCRIPT)], capture_output=True).returncode == 0


def test_the_script_refuses_an_unknown_step_and_a_missing_settings_file(tmp_path):
    import os

    if os.geteuid() != 0:
        pytest.skip("the script runs as root only")
    env = {"PATH": os.environ["PATH"], "MAIL_PREFIX": str(tmp_path / "mail"), "PBEM_ENV": str(tmp_path / "absent")}
    done = subprocess.run([str(SCRIPT), "4"], env=env, capture_output=True, text=True)
    assert done.returncode == 1 and "write the settings file" in done.stderr
    (tmp_path / "env").write_text("")
    done = subprocess.run(
        [str(SCRIPT), "9"], env={**env, "PBEM_ENV": str(tmp_path / "env")}, capture_output=True, text=True
    )
    assert done.returncode == 1 and "no step 9" in done.stderr
    assert not (tmp_path / "mail").exists()  # refused before anything was made
