"""The chain's pure code and the offline verifier: recorded logs of both schemes, heads, and an
audit that needs nothing but the standard library and games/."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from pbem.audit import verify
from pbem.log import chain

ROOT = Path(__file__).resolve().parents[2]
LOGS = ROOT / "tests" / "chain_logs"
PURE = (
    "pbem.log.chain",
    "pbem.log.clocks",
    "pbem.log.fold",
    "pbem.audit.verify",
    "pbem.audit.schema",
    "pbem.audit.logfile",
    "pbem.audit.heads_feed",
    "pbem.audit.language",  # the verifier's words: the standard library's gettext over pbem/locale
)


def recorded(scheme: int) -> dict:
    return json.loads((LOGS / f"scheme{scheme}_diceduel.json").read_text())


def toy_rules():
    from tests import toygame

    return toygame.GAME


def test_a_log_written_before_scheme_2_still_verifies_under_scheme_1():
    """tests/chain_logs/scheme1_diceduel.json was hashed by the code of before scheme 2 (d5bc6ea)."""
    doc = recorded(1)
    assert doc["game"]["chain_scheme"] == 1
    for event in doc["events"]:
        assert chain.hash_v1(doc["game"]["id"], event["seq"], event, event["prev_hash"]) == event["hash"]
    found = verify.verify_document(doc, spec=toy_rules())
    assert found.ok, found.problems
    assert f"{len(doc['events'])} events checked link by link from the first" in found.facts


def test_a_recorded_scheme_2_log_pins_the_scheme():
    """Any change to how scheme 2 hashes would break every log written with it: this one must verify."""
    doc = recorded(2)
    found = verify.verify_document(doc, spec=toy_rules())
    assert found.ok, found.problems
    assert "replayed through the rules of Dice Duel" in " ".join(found.facts)
    sealer = chain.Sealer(2, doc["game"]["id"], bytes.fromhex(doc["seed"]))
    for event in doc["events"]:
        row = dict(event, causation_id=None)  # the origin is not exported: take the recorded part
        parts = sealer.parts(event["seq"], row)
        assert {k: parts[k] for k in ("what", "when", "payload", "draws")} == {
            k: event["parts"][k] for k in ("what", "when", "payload", "draws")
        }


def test_the_offline_verifier_imports_only_the_standard_library_and_games():
    """Imported with -S (no site-packages at all) from the repository, it loads nothing else.
    (tests/audit/test_offline_audit.py runs it that way on a real game's log.)"""
    probe = (
        "import sys, pbem.audit.verify; allowed = set(sys.stdlib_module_names) | {'games', 'pbem', '__main__'}; "
        "print(sorted({m.split('.')[0] for m in sys.modules} - allowed)); "
        "print(','.join(sorted(m for m in sys.modules if m.startswith('pbem'))))"
    )
    out = subprocess.run([sys.executable, "-S", "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True)
    outside, platform = out.stdout.splitlines()
    assert outside == "[]", f"pbem.audit.verify pulls in {outside}"
    assert set(platform.split(",")) <= {"pbem", "pbem.log", "pbem.audit", *PURE}, platform


@pytest.mark.parametrize("module", PURE)
def test_the_pure_modules_import_nothing_from_django_or_the_platform(module):
    import ast

    tree = ast.parse((ROOT / (module.replace(".", "/") + ".py")).read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("pbem"):
            pure = node.module in PURE or all(f"{node.module}.{a.name}" in PURE for a in node.names)
            assert pure, f"{module} imports {node.module}"
        elif isinstance(node, ast.ImportFrom | ast.Import):
            names = [node.module] if isinstance(node, ast.ImportFrom) else [a.name for a in node.names]
            for name in names:
                top = name.split(".")[0]
                assert top in sys.stdlib_module_names or top == "games", f"{module} imports {name}"


def test_the_verifier_exits_1_with_the_reason_when_it_cannot_read_a_log(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert verify.main([str(bad)]) == 1
    assert "is not JSON" in capsys.readouterr().out
    assert verify.main([str(tmp_path / "missing.json")]) == 1
    assert "cannot read" in capsys.readouterr().out
    good = tmp_path / "good.json"
    good.write_text(json.dumps(recorded(2)))
    assert verify.main([str(good), "--head", "twelve"]) == 1
    assert "is not a head" in capsys.readouterr().out
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"format": "something else"}))
    assert verify.main([str(other)]) == 1
    assert "not a pbem log" in capsys.readouterr().out
    cut = recorded(2)
    del cut["events"][3]["parts"]
    good.write_text(json.dumps(cut))
    assert verify.main([str(good)]) == 1
    assert "breaks the format of a pbem-log 1 file (pbem-log-1.schema.json): events[3]: 'parts' is missing" in (
        capsys.readouterr().out
    )


def test_a_head_is_read_from_a_pasted_notice_or_on_its_own():
    digest = "ab" * 32
    notice = (
        f"X-Pbem-Head: 12:{digest}\nSubject: Dice Duel #7: round 1\n\n...Game #7 at version 12; the head "
        f"of its hash chain:\n  12:{digest}\nKeep it"
    )
    assert chain.heads_in_text(notice) == [(12, digest)]
    older = f"Game #7 at version 9; the head of its hash chain:\n  {'cd' * 32}"
    assert chain.heads_in_text(older) == [(9, "cd" * 32)]
    assert chain.parse_head(f" 12:{digest.upper()} ") == (12, digest)
    assert chain.games_in_text(notice) == {7}
    for bad in ("", "12", f"x:{digest}", f"12:{digest[:-1]}", f"12:{digest}0"):
        with pytest.raises(chain.BadHead):
            chain.parse_head(bad)
