"""The exported log's written format (pbem/audit/pbem-log-1.schema.json) and the standard-library
validator that holds files to it: the schema is a valid JSON Schema, our validator and the
reference implementation (python-jsonschema) agree on every recorded log and on every mutation
the fuzzer makes, and reading a file is strict and bounded."""

from __future__ import annotations

import json
import re

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.base import MAX_OUTCOMES, Rng, rederive
from pbem.audit import heads_feed, logfile, schema, verify

from . import forgery
from .test_fuzz_verify import VALUES, mutate

SCHEMAS = (verify.SCHEMA_FILE, heads_feed.SCHEMA_FILE)


def reference(name: str):
    """python-jsonschema's Draft 2020-12 validator, with `integer` as JSON writes one (no 1.0),
    the one narrowing the format makes (a hash is taken over the spelling)."""
    document = json.loads((schema.HERE / name).read_text())
    checker = jsonschema.Draft202012Validator.TYPE_CHECKER.redefine(
        "integer", lambda _checker, value: type(value) is int
    )
    validator = jsonschema.validators.extend(jsonschema.Draft202012Validator, type_checker=checker)
    return validator(document)


@pytest.mark.parametrize("name", SCHEMAS)
def test_the_format_is_a_valid_json_schema_of_draft_2020_12(name):
    document = json.loads((schema.HERE / name).read_text())
    jsonschema.Draft202012Validator.check_schema(document)
    assert document["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert document["$id"].startswith("urn:pbem:schema:") and document["$id"][-1].isdigit()


@pytest.mark.parametrize("name", SCHEMAS)
def test_every_pattern_is_anchored_at_both_ends(name):
    patterns = re.findall(r'"pattern": "([^"]*)"', (schema.HERE / name).read_text())
    assert patterns and all(p.startswith("^") for p in patterns)
    assert all(p.endswith("$") for p in patterns if "pbem" not in p)


def test_a_keyword_the_validator_does_not_know_is_refused_when_the_schema_is_loaded():
    with pytest.raises(schema.SchemaError, match="uniqueItems"):
        schema.Validator({"type": "array", "uniqueItems": True})
    with pytest.raises(schema.SchemaError, match="format"):
        schema.Validator({"properties": {"at": {"type": "string", "format": "date-time"}}})


def test_ours_and_the_reference_agree_on_every_recorded_log():
    ours, theirs = schema.load(verify.SCHEMA_FILE), reference(verify.SCHEMA_FILE)
    for name in forgery.names():
        doc = forgery.load(name)
        assert ours.errors(doc) == [] and theirs.is_valid(doc), name


# The reference implementation takes a second or more on the largest logs: the smaller ones
# have every part of the format and keep the run short.
SMALL = [name for name in forgery.names() if (forgery.LOGS / f"{name}.json").stat().st_size < 100_000]


@settings(
    max_examples=200,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    st.sampled_from(SMALL),
    st.lists(
        st.tuples(
            st.sampled_from(("replace", "drop", "add", "swap", "nudge", "repeat")),
            st.lists(st.integers(0, 2**16), min_size=1, max_size=6),
            VALUES,
            st.integers(0, 2**16),
        ),
        min_size=1,
        max_size=3,
    ),
)
def test_ours_and_the_reference_agree_on_every_mutation(name, mutations):
    doc = forgery.load(name)
    for operation, steps, value, other in mutations:
        mutate(doc, operation, steps, value, other)
    ours, theirs = schema.load(verify.SCHEMA_FILE), reference(verify.SCHEMA_FILE)
    assert ours.holds(doc) == theirs.is_valid(doc), (ours.errors(doc), [e.message for e in theirs.iter_errors(doc)][:3])
    assert ours.holds(doc) == (ours.errors(doc) == [])


def test_an_integer_is_written_without_a_fraction_and_a_boolean_is_no_integer():
    ours = schema.Validator({"type": "integer"})
    assert ours.holds(3) and not ours.holds(3.0) and not ours.holds(True)
    assert schema.Validator({"const": 1}).holds(1.0) and not schema.Validator({"const": 1}).holds(True)


def test_a_pattern_anchored_with_dollar_refuses_a_trailing_newline_as_json_schema_does():
    hex64 = schema.Validator({"type": "string", "pattern": "^[0-9a-f]{4}$"})
    assert hex64.holds("abcd") and not hex64.holds("abcd\n")
    assert not reference(verify.SCHEMA_FILE).is_valid({**forgery.load("scheme2_diceduel"), "exported_at": "x\n"})


# --- reading a file ---------------------------------------------------------------------------


def test_json_nested_100000_deep_is_a_problem_line_not_a_traceback(tmp_path, capsys):
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    assert verify.main([str(deep)]) == 1
    out = capsys.readouterr().out
    assert out.startswith("PROBLEM: ") and "nested deeper than 64 levels" in out and "Traceback" not in out


def test_a_file_deeper_than_the_format_allows_is_refused_with_its_depth():
    with pytest.raises(logfile.Unreadable, match="nests 65 levels deep, more than the 64"):
        logfile.read_text("[" * 65 + "]" * 65)
    assert logfile.nesting(logfile.read_text("[" * 64 + "]" * 64)) == 64


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ('{"a": 1, "a": 2}', "the key 'a' appears twice in one object"),
        ('{"a": NaN}', "NaN is not a JSON number"),
        ('{"a": -Infinity}', "-Infinity is not a JSON number"),
        ('{"a": 1e400}', "1e400 is too large for a number"),
        ('{"a": ' + "7" * 41 + "}", "an integer of 41 digits is larger than any a log holds"),
        ('{"a": "\\udc00"}', "lone UTF-16 surrogate"),
        ('{"a": ', "it is not JSON"),
    ],
)
def test_reading_is_strict(text, reason):
    with pytest.raises(logfile.Unreadable, match=re.escape(reason)):
        logfile.read_text(text)


def test_a_surrogate_pair_escaped_is_a_character_and_reads():
    assert logfile.read_text('{"a": "\\ud83c\\udfb2"}') == {"a": "🎲"}


def test_a_file_beyond_the_size_limit_is_refused_before_it_is_parsed(tmp_path, capsys):
    big = tmp_path / "big.json"
    big.write_text(" " * 2000 + "{}")
    assert verify.main([str(big), "--max-bytes", "1000"]) == 1
    assert "it is larger than the 1,000 bytes a log may have" in capsys.readouterr().out
    with pytest.raises(logfile.Unreadable, match="not UTF-8"):
        logfile.read_bytes(b'{"a": "\xff"}')


# --- the draws: bounded ------------------------------------------------------------------------


def old_randbelow(rng: Rng, n: int) -> int:
    """Rng.randbelow as it was before the bound (issue 26), to hold every draw to it."""
    limit = 2**64 - (2**64 % n)
    while True:
        word = rng._word()
        if word < limit:
            return word % n


@pytest.mark.parametrize(
    "n", [1, 2, 6, 52, 113, 2**31 - 1, 2**32, 2**63, 2**63 + 1, 3 * 2**62, 2**64 - 1, MAX_OUTCOMES]
)
def test_every_draw_up_to_2_to_the_64_is_what_it_was(n):
    for seq in range(1, 30):
        new, old = Rng(b"seed-%d" % seq, seq), Rng(b"seed-%d" % seq, seq)
        assert [new.randbelow(n) for _ in range(20)] == [old_randbelow(old, n) for _ in range(20)]


def test_a_draw_of_more_than_2_to_the_64_outcomes_is_refused_at_once_not_looped_for_ever():
    with pytest.raises(ValueError, match="1 <= n <= 2\\*\\*64"):
        Rng(b"seed", 1).randbelow(2**64 + 1)
    with pytest.raises(ValueError):
        Rng(b"seed", 1).randbelow(0)
    assert rederive(b"seed", 1, [[2**64 + 1, 5]]) is False and rederive(b"seed", 1, [[0, 0]]) is False


def test_a_file_that_trips_the_verifier_itself_is_not_verified(tmp_path, capsys, monkeypatch):
    """Fail closed: were a check ever to raise on some file (none does on any crafted or fuzzed
    one), the command says PROBLEM and exits 1 rather than ending in a traceback."""
    path = tmp_path / "log.json"
    path.write_text(json.dumps(forgery.load("scheme2_elfenland_seat1")))

    def broken(log, found):
        raise KeyError("parts")

    monkeypatch.setattr(verify, "CHECKS", [verify.check_format, broken])
    assert verify.main([str(path)]) == 1
    assert capsys.readouterr().out == (
        "PROBLEM: the verifier could not finish on this file (KeyError: 'parts'); please report it\n"
    )
