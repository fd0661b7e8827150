"""The offline verifier says its problems in the reader's language (issue 33): `--language de|fr`
on the command (default: LANG's language where it is de or fr), `games.i18n.using` around the
checks in code; English by default, word for word as before. It still needs nothing but Python:
the catalogues are the platform's compiled .mo files, read by the standard library's gettext."""

from __future__ import annotations

import copy
import json
import os
import pickle
import re
import subprocess
import sys
from pathlib import Path

import pytest

from games.i18n import using
from pbem.audit import checks, language, verify
from pbem.play import services
from tests.conftest import alter_behind_the_databases_back, hands, requires_postgres

from . import forgery

ROOT = Path(__file__).resolve().parents[2]
NBSP = "\u00a0"


def forged_payload() -> tuple[dict, int]:
    """A finished game's log with one payload altered after the fact: the chain's commitment to
    that payload no longer holds."""
    doc = copy.deepcopy(forgery.load("scheme2_elfenland_complete"))
    event = next(ev for ev in doc["events"] if ev["payload"] and ev["seq"] > 5)
    event["payload"]["forged"] = True
    return doc, event["seq"]


def run_verify(path: Path, *args: str, lang: str | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("LANG", "LANGUAGE", "LC_ALL", "LC_MESSAGES")}
    if lang is not None:
        env["LANG"] = lang
    # -S: no site-packages, as on a player's machine with nothing installed but Python.
    return subprocess.run(
        [sys.executable, "-S", "-m", "pbem.verify", str(path), *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture
def forged_file(tmp_path) -> tuple[Path, int]:
    doc, seq = forged_payload()
    path = tmp_path / "forged.json"
    path.write_text(json.dumps(doc))
    return path, seq


def test_the_command_says_a_problem_in_french_with_language_fr(forged_file):
    path, seq = forged_file
    run = run_verify(path, "--language", "fr")
    assert run.returncode == 1, run.stderr
    lines = run.stdout.splitlines()
    said = f"PROBLEM: événement {seq}{NBSP}: son contenu diffère de ce sur quoi la chaîne s'est engagée"
    assert said in lines, lines
    assert not [line for line in lines if line.startswith("PROBLEM: event ")]
    assert "ok: le fichier a le format écrit d'un fichier pbem-log 1" in lines  # what held, in French too
    assert lines[-1].startswith("FAILED: ")


def test_the_command_takes_its_language_from_LANG_and_the_option_wins(forged_file):
    path, seq = forged_file
    german = f"PROBLEM: Ereignis {seq}: sein Inhalt weicht von dem ab, worauf sich die Kette festgelegt hat"
    english = f"PROBLEM: event {seq}: its payload differs from what the chain committed to"
    assert german in run_verify(path, lang="de_DE.UTF-8").stdout.splitlines()
    assert english in run_verify(path, lang="C.UTF-8").stdout.splitlines()  # a language it does not speak
    assert english in run_verify(path, lang="es_ES.UTF-8").stdout.splitlines()
    assert english in run_verify(path, "--language", "en", lang="de_DE.UTF-8").stdout.splitlines()
    assert german in run_verify(path, "--language", "de", lang="fr_FR.UTF-8").stdout.splitlines()


def test_a_seats_log_before_the_end_is_noted_in_german(tmp_path):
    path = tmp_path / "seat.json"
    path.write_text(json.dumps(forgery.load("scheme2_elfenland_seat1")))
    run = run_verify(path, "--language", "de")
    assert run.returncode == 0, run.stdout
    lines = run.stdout.splitlines()
    assert any(line.startswith("note: dies ist das Protokoll von Platz 1 vor dem Ende: ") for line in lines), lines
    assert lines[-1] == "VERIFIED: everything checked holds"  # the verdict stays the keyword it is


def test_the_default_language_follows_LANG_only_where_the_verifier_speaks_it():
    assert verify.default_language({"LANG": "de_AT.UTF-8"}) == "de"
    assert verify.default_language({"LANG": "fr_CA"}) == "fr"
    assert verify.default_language({"LANG": "C"}) == "en"
    assert verify.default_language({}) == "en"


def test_problems_come_out_in_the_language_used_around_the_checks_and_english_by_default():
    doc, seq = forged_payload()
    english = verify.verify_document(doc).problems
    assert f"event {seq}: its payload differs from what the chain committed to" in english
    with using("de"):
        german = verify.verify_document(doc).problems
    with using("fr"):
        french = verify.verify_document(doc).problems
    assert len(english) == len(german) == len(french)
    assert f"Ereignis {seq}: sein Inhalt weicht von dem ab, worauf sich die Kette festgelegt hat" in german
    assert not set(german) & set(english) and not set(french) & set(english)
    assert verify.verify_document(doc).problems == english  # the block's language ends with it


def test_a_withheld_log_and_a_missing_head_are_said_in_the_readers_language():
    withheld = forgery.load("scheme1_elfenland_seat1")
    with using("de"):
        assert verify.verify_document(withheld).problems == [
            language.CATALOGUE.translations("de").gettext(verify.WITHHELD)
        ]
    doc = forgery.load("scheme2_elfenland_complete")
    with using("fr"):
        problems = verify.verify_document(doc, [(len(doc["events"]) + 5, "ab" * 32)]).problems
    count = len(doc["events"])
    wanted = f"la tête {count + 5}:{'ab' * 8}… n'est pas dans le journal{NBSP}: il a {count} événements"
    assert any(p.startswith(wanted) for p in problems), problems


def text_of(response) -> str:
    """The page's words, spaces run together (a no-break space kept: French puts one before ?)."""
    return re.sub(r"[ \t\r\n]+", " ", re.sub(r"<[^>]+>", " ", response.content.decode()))


@requires_postgres
def test_the_audit_page_says_a_failed_check_in_the_readers_language(client, make_game):
    """An event altered behind the database's back: the audit page's problem in German for a
    German reader, in French for a French one; the API and verify_games keep the English."""
    game = make_game(2)
    services.submit(game.pk, 0, f"play {hands(game)[0][0]}")
    alter_behind_the_databases_back(game, 4, '{"players": 2, "rounds": 9}')
    url = f"/games/{game.pk}/audit/"
    german = text_of(client.get(url, headers={"Accept-Language": "de"}))
    assert "Ereignis 4: der Inhalt passt nicht zu seinem Hash (verändert?)" in german
    assert "does not match" not in german
    assert "Ein Kopf aus einer Mail (VERSION:HASH) oder die ganze Mail" in german  # the head form's label
    french = text_of(client.get(url, headers={"Accept-Language": "fr"}))  # the walk kept: said anew
    assert f"événement 4{NBSP}: le contenu ne correspond pas à son hachage (modifié{NBSP}?)" in french
    english = text_of(client.get(url, headers={"Accept-Language": "en"}))
    assert "event 4: content does not match its hash (altered?)" in english
    assert (
        "event 4: content does not match its hash (altered?)"
        in client.get(f"/api/games/{game.pk}/audit").json()["problems"]
    )


def test_a_pasted_head_is_answered_in_the_readers_language(client, make_game):
    game = make_game(2)
    url, de = f"/games/{game.pk}/audit/", {"Accept-Language": "de"}
    missing = text_of(client.post(url, {"head": f"{game.version + 7}:{'ab' * 32}"}, headers=de))
    assert f"ist nicht im Protokoll: Partie #{game.pk} hat {game.version} Ereignisse" in missing
    nothing = text_of(client.post(url, {"head": "no head here"}, headers={"Accept-Language": "fr"}))
    assert f"Aucune tête trouvée{NBSP}: un message la cite" in nothing
    english = client.get(f"/api/games/{game.pk}/head", {"head": f"{game.version + 7}:{'ab' * 32}"}).json()
    assert "is not in the log" in json.dumps(english)  # the API keeps the English


def test_a_problem_is_its_english_text_and_keeps_its_template_through_the_cache():
    problem = checks.Problem("event %(seq)s: content does not match its hash (altered?)", seq=7)
    assert problem == "event 7: content does not match its hash (altered?)"
    kept = pickle.loads(pickle.dumps(problem))
    assert kept == problem and kept.template == problem.template and kept.values == {"seq": 7}
    report = checks.Report(1, problems=[kept, "a head's own verdict"])
    assert checks.Report.problems_said(copy.deepcopy(report))[1] == "a head's own verdict"


def test_a_file_that_is_no_log_is_refused_in_the_readers_language(tmp_path):
    path = tmp_path / "not.json"
    path.write_bytes(b"\xff{}")
    run = run_verify(path, "--language", "de")
    assert run.returncode == 1
    assert run.stdout.splitlines() == [f"PROBLEM: {path}: sie ist kein UTF-8-Text (Byte 0)"]
    with using("fr"):
        found = verify.verify_bytes(b"[1, 2")
    assert found.problems[0].startswith(f"le fichier n'est pas un journal pbem{NBSP}: ce n'est pas du JSON{NBSP}: ")
