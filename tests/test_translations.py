"""The catalogues are complete and the compiled ones fresh (issue 33).

`makemessages` is run over a copy of pbem/ (the committed catalogues are never touched): every
string a player reads must then have a German and a French translation that is neither empty nor
fuzzy, and no entry may be left obsolete (a catalogue in step with the code). The committed .mo
files are what msgfmt makes of the committed .po files: a fresh machine runs the service without
GNU gettext, so the compiled catalogues are in the repository, and this test keeps them honest.
"""

from __future__ import annotations

import ast
import gettext
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PBEM = ROOT / "pbem"
LANGUAGES = ("de", "fr")
IGNORED = ("templates/admin/*", "management/*", "migrations/*")

needs_gettext = pytest.mark.skipif(
    not (shutil.which("msgfmt") and shutil.which("xgettext") and shutil.which("msgmerge")),
    reason="GNU gettext (msgfmt, xgettext, msgmerge) is not installed: apt-get install gettext",
)


def entries(po: Path) -> list[dict]:
    """The catalogue's entries: msgid, its translations, flags, and whether it is obsolete."""
    found = []
    for block in po.read_text(encoding="utf-8").split("\n\n"):
        lines = [line for line in block.strip().splitlines() if line]
        if not lines:
            continue
        obsolete = all(line.startswith("#~") for line in lines)
        flags = {f.strip() for line in lines if line.startswith("#,") for f in line[2:].split(",")}
        fields: dict[str, list[str]] = {}
        key = None
        for line in lines:
            line = line[3:] if line.startswith("#~ ") else line
            match = re.match(r"^(msgid_plural|msgid|msgstr(?:\[\d\])?) (\".*\")$", line)
            if match:
                key = match.group(1)
                fields[key] = [match.group(2)]
            elif line.startswith('"') and key:
                fields[key].append(line)
        if "msgid" not in fields:
            continue
        text = {k: "".join(ast.literal_eval(part) for part in v) for k, v in fields.items()}
        if text["msgid"] == "":
            continue  # the header
        strs = [v for k, v in text.items() if k.startswith("msgstr")]
        found.append({"msgid": text["msgid"], "strs": strs, "flags": flags, "obsolete": obsolete})
    return found


@needs_gettext
def test_makemessages_leaves_no_string_untranslated(tmp_path):
    copy = tmp_path / "pbem"
    shutil.copytree(PBEM, copy, ignore=shutil.ignore_patterns("__pycache__", "static"))
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings", "PYTHONPATH": str(ROOT)}
    env.setdefault("SECRET_KEY", "translations-test")
    command = [sys.executable, "-m", "django", "makemessages", "--no-location", "--no-obsolete"]
    command += [f"--locale={code}" for code in LANGUAGES]
    command += [f"--ignore={pattern}" for pattern in IGNORED]
    subprocess.run(command, cwd=copy, env=env, check=True, capture_output=True, timeout=300)
    problems = []
    for code in LANGUAGES:
        made = entries(copy / "locale" / code / "LC_MESSAGES" / "django.po")
        committed = {e["msgid"] for e in entries(PBEM / "locale" / code / "LC_MESSAGES" / "django.po")}
        assert len(made) > 200, f"{code}: only {len(made)} strings found: is makemessages looking at pbem/?"
        for entry in made:
            short = entry["msgid"][:70]
            if any(not s.strip() for s in entry["strs"]):
                problems.append(f"{code}: untranslated: {short!r}")
            if "fuzzy" in entry["flags"]:
                problems.append(f"{code}: fuzzy: {short!r}")
        gone = committed - {e["msgid"] for e in made}
        problems += [f"{code}: in the catalogue but no longer in the code: {m[:70]!r}" for m in sorted(gone)]
    assert not problems, "\n".join(problems[:40]) + (f"\n… {len(problems)} in all" if len(problems) > 40 else "")


@needs_gettext
@pytest.mark.parametrize("code", LANGUAGES)
def test_the_committed_mo_is_what_msgfmt_makes_of_the_po(code, tmp_path):
    po = PBEM / "locale" / code / "LC_MESSAGES" / "django.po"
    made = tmp_path / "django.mo"
    # --check: the placeholders of each translation are those of its msgid (python-format).
    subprocess.run(["msgfmt", "--check", "-o", str(made), str(po)], check=True, capture_output=True, timeout=60)
    with open(made, "rb") as fresh, open(po.with_suffix(".mo"), "rb") as committed:
        assert gettext.GNUTranslations(committed)._catalog == gettext.GNUTranslations(fresh)._catalog, (
            f"pbem/locale/{code}/LC_MESSAGES/django.mo is stale: run "
            f"msgfmt --check -o pbem/locale/{code}/LC_MESSAGES/django.mo {po.relative_to(ROOT)}"
        )


@pytest.mark.parametrize("code", LANGUAGES)
def test_no_translation_is_left_english_or_empty(code):
    """Without gettext too: every entry of the committed catalogue is translated, none fuzzy."""
    found = entries(PBEM / "locale" / code / "LC_MESSAGES" / "django.po")
    assert found
    assert not [e["msgid"] for e in found if e["obsolete"] or "fuzzy" in e["flags"]]
    assert not [e["msgid"] for e in found if any(not s.strip() for s in e["strs"])]
    # Words an English sentence would have and a German or French one would not.
    english = re.compile(r"\b(the|your|you|is|and|with)\b")
    leftovers = [
        e["msgid"]
        for e in found
        for s in e["strs"]
        if english.search(re.sub(r"<[^>]+>|%\(\w+\)s|'[^']*'|\"[^\"]*\"", "", s))
    ]
    assert not leftovers, leftovers[:10]
