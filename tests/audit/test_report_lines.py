"""The verifier's report never says "ok" about what a problem line says failed (issue 27: a
forged payload was reported as a PROBLEM beside "ok: N payloads checked against their
commitments"). The recorded logs of tests/chain_logs, one payload or one random outcome altered."""

from __future__ import annotations

import copy

import pytest

from pbem.audit import verify

from . import forgery


def report_of(doc: dict) -> list[str]:
    return verify.report(verify.verify_document(doc)).splitlines()


@pytest.mark.parametrize("name", ["scheme2_elfenland_complete", "scheme1_elixirus_complete"])
def test_an_altered_payload_gets_a_problem_line_and_no_ok_line_about_payloads(name):
    doc = forgery.load(name)
    assert any(line.startswith("ok: ") and "payloads" in line for line in report_of(doc))  # before: ok
    forged = copy.deepcopy(doc)
    event = next(ev for ev in forged["events"] if ev["payload"] and ev["seq"] > 5)
    event["payload"]["forged"] = True
    lines = report_of(forged)
    assert any(line.startswith(f"PROBLEM: event {event['seq']}: ") for line in lines), lines
    assert not [line for line in lines if line.startswith("ok: ") and "payloads" in line]
    assert not [line for line in lines if line.startswith("ok: ") and "link by link" in line]
    assert lines[-1].startswith("FAILED: ")


def test_an_altered_random_outcome_gets_problem_lines_and_no_ok_line_about_outcomes():
    doc = copy.deepcopy(forgery.load("scheme2_elfenland_complete"))
    event = next(ev for ev in doc["events"] if ev["rng"])
    n, value = event["rng"][0]
    event["rng"][0] = [n, (value + 1) % n]
    lines = report_of(doc)
    assert f"PROBLEM: event {event['seq']}: its random outcomes do not follow from the seed" in lines
    assert not [line for line in lines if line.startswith("ok: ") and "random outcomes" in line]
    assert lines[-1].startswith("FAILED: ")
