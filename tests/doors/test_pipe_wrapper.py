"""scripts/pbem-pipe itself: it finds the code from wherever it is run (an absolute path as
Postfix runs it, a relative one, a link to it), and a settings file it cannot read or source
defers the mail (75), never bounces it. It starts no process of its own on the way to the
handoff (no readlink, no `sh -n`): each is part of every delivery's time."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PIPE = ROOT / "scripts" / "pbem-pipe"


def run(command: str, env_file: Path, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    """The wrapper with no message on stdin: the handoff answers 65 ("no message") once it runs."""
    return subprocess.run(
        [command, "--env-file", str(env_file), "--recipient", "play@pbem.localhost"],
        input=b"",
        capture_output=True,
        env={"PATH": "/usr/bin:/bin"},  # as Postfix's pipe runs it: no environment of ours
        cwd=cwd,
        timeout=60,
    )


@pytest.fixture
def env_file(tmp_path):
    path = tmp_path / "env"
    path.write_text(f"PBEM_PYTHON={sys.executable}\nPBEM_PIPE_HANDOFF=127.0.0.1:9\n")
    return path


@pytest.mark.parametrize("how", ["absolute", "relative", "link"])
def test_the_wrapper_finds_the_handoff_however_it_is_run(how, env_file, tmp_path):
    if how == "absolute":
        command, cwd = str(PIPE), tmp_path
    elif how == "relative":
        command, cwd = "scripts/pbem-pipe", ROOT
    else:
        (tmp_path / "bin").mkdir()
        os.symlink(PIPE, tmp_path / "bin" / "pbem-pipe")
        command, cwd = str(tmp_path / "bin" / "pbem-pipe"), tmp_path
    done = run(command, env_file, cwd)
    assert done.returncode == 65 and b"no message on stdin" in done.stderr, done.stderr


def test_a_settings_file_the_shell_cannot_read_defers_the_mail(env_file):
    env_file.write_text(env_file.read_text() + "BROKEN=$(\n")
    done = run(str(PIPE), env_file)
    assert done.returncode == 75, done.stderr
    assert b"is not a file of KEY=value lines" in done.stderr


def test_a_missing_settings_file_defers_the_mail(tmp_path):
    done = run(str(PIPE), tmp_path / "absent")
    assert done.returncode == 75 and b"cannot read the settings file" in done.stderr


def test_the_wrapper_starts_no_process_before_the_handoff():
    lines = [line.split("#")[0] for line in PIPE.read_text().split('exec "$python"')[0].splitlines()]
    code = "\n".join(lines)
    assert "sh -n" not in code and "dirname" not in code
    # readlink only for a link to the script (Postfix runs it by its own path)
    assert all("readlink" not in line or '[ -L "$script" ]' in line for line in lines)
