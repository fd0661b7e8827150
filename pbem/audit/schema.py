"""A JSON Schema validator for the subset of draft 2020-12 that the log's format uses, in the
standard library only (the offline verifier may import nothing else).

The format itself is `pbem-log-1.schema.json` beside this module: a player may read it, or check
a file with any JSON Schema tool; this validator and the reference implementation (python's
`jsonschema`) agree on it and on every file the fuzzer makes (tests/audit/test_log_format.py).
The keywords it knows are in `KEYWORDS`; a schema using any other is refused when it is
loaded, so nothing in the format can be silently ignored. One deliberate narrowing: `integer`
is an int as JSON writes one (no `1.0`), since a hash is taken over the spelling.
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path

HERE = Path(__file__).resolve().parent
ANNOTATIONS = {"$schema", "$id", "$comment", "title", "description", "$defs"}
KEYWORDS = {
    "$ref",
    "type",
    "const",
    "enum",
    "required",
    "properties",
    "additionalProperties",
    "items",
    "prefixItems",
    "minItems",
    "maxItems",
    "minimum",
    "maximum",
    "minLength",
    "maxLength",
    "pattern",
    "allOf",
    "anyOf",
    "not",
    "if",
    "then",
    "else",
} | ANNOTATIONS
WANTS = " where the format wants "
MAX_ERRORS = 5  # a broken file usually breaks one rule many times: the first few say it


class SchemaError(ValueError):
    """The schema itself uses something this validator does not know."""


@cache
def load(name: str) -> Validator:
    """A schema file beside this module, checked for keywords this validator knows."""
    return Validator(json.loads((HERE / name).read_text(encoding="utf-8")))


class Validator:
    def __init__(self, schema: dict):
        self.schema = schema
        self._patterns: dict[str, re.Pattern] = {}
        _check_keywords(schema, "#")

    def errors(self, instance) -> list[str]:
        """Where and how `instance` breaks the schema (at most MAX_ERRORS); [] when it holds."""
        found: list[str] = []
        self._check(instance, self.schema, "", found)
        return found[:MAX_ERRORS]

    def _check(self, value, schema: dict, where: str, found: list[str]) -> None:
        if "$ref" in schema:
            self._check(value, self._resolve(schema["$ref"]), where, found)
        if "type" in schema and not _has_type(value, schema["type"]):
            found.append(f"{_at(where)}: {_json_type(value)}{WANTS}{_type_words(schema['type'])}")
            return
        for keyword in ("const", "enum"):
            if keyword in schema:
                allowed = [schema["const"]] if keyword == "const" else schema["enum"]
                if not any(_same(value, one) for one in allowed):
                    found.append(f"{_at(where)}: must be {' or '.join(map(_shown, allowed))}, not {_shown(value)}")
        if isinstance(value, dict):
            self._object(value, schema, where, found)
        elif isinstance(value, list):
            self._array(value, schema, where, found)
        elif isinstance(value, str):
            self._string(value, schema, where, found)
        elif isinstance(value, int | float) and not isinstance(value, bool):
            self._number(value, schema, where, found)
        self._combined(value, schema, where, found)

    def _object(self, value: dict, schema: dict, where: str, found: list[str]) -> None:
        for name in schema.get("required", ()):
            if name not in value:
                found.append(f"{_at(where)}: {name!r} is missing")
        properties = schema.get("properties", {})
        extra = schema.get("additionalProperties", True)
        for name, item in value.items():
            if name in properties:
                self._check(item, properties[name], _key(where, name), found)
            elif extra is False:
                found.append(f"{_at(where)}: {name[:40]!r} is not part of the format")
            elif isinstance(extra, dict):
                self._check(item, extra, _key(where, name), found)

    def _array(self, value: list, schema: dict, where: str, found: list[str]) -> None:
        if len(value) < schema.get("minItems", 0):
            found.append(f"{_at(where)}: must hold at least {schema['minItems']} items, not {len(value)}")
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            found.append(f"{_at(where)}: may hold at most {schema['maxItems']} items, not {len(value)}")
            return  # bounded work: the items of an over-long array are not looked at
        prefix = schema.get("prefixItems", ())
        for index, item in enumerate(value):
            sub = prefix[index] if index < len(prefix) else schema.get("items")
            if sub is not None:
                self._check(item, sub, f"{where}[{index}]", found)
                if len(found) >= MAX_ERRORS:
                    return

    def _string(self, value: str, schema: dict, where: str, found: list[str]) -> None:
        if len(value) < schema.get("minLength", 0):
            found.append(f"{_at(where)}: must be at least {schema['minLength']} characters long")
        if "maxLength" in schema and len(value) > schema["maxLength"]:
            found.append(f"{_at(where)}: may be at most {schema['maxLength']} characters long, not {len(value)}")
        elif "pattern" in schema and not self._pattern(schema["pattern"]).search(value):
            found.append(f"{_at(where)}: {_shown(value)} is not of the form {schema['pattern']}")

    def _number(self, value, schema: dict, where: str, found: list[str]) -> None:
        if "minimum" in schema and value < schema["minimum"]:
            found.append(f"{_at(where)}: must be at least {schema['minimum']}, not {_shown(value)}")
        if "maximum" in schema and value > schema["maximum"]:
            found.append(f"{_at(where)}: must be at most {schema['maximum']}, not {_shown(value)}")

    def _combined(self, value, schema: dict, where: str, found: list[str]) -> None:
        for sub in schema.get("allOf", ()):
            self._check(value, sub, where, found)
        if "anyOf" in schema:
            branches = [self._errors_of(value, sub, where) for sub in schema["anyOf"]]
            if all(branches):
                # The branch of the value's own type says most; else: which types would do.
                own = [
                    branch
                    for branch in branches
                    if not branch[0].startswith(f"{_at(where)}: ") or WANTS not in branch[0]
                ]
                found.extend(own[0] if own else [f"{_at(where)}: is none of the forms allowed here"])
        if "not" in schema and not self._errors_of(value, schema["not"], where):
            found.append(f"{_at(where)}: {_forbidden(schema['not'])}")
        if "if" in schema:
            branch = "then" if not self._errors_of(value, schema["if"], where) else "else"
            if branch in schema:
                self._check(value, schema[branch], where, found)

    def _errors_of(self, value, schema: dict, where: str) -> list[str]:
        found: list[str] = []
        self._check(value, schema, where, found)
        return found

    def _resolve(self, ref: str) -> dict:
        if not ref.startswith("#/"):
            raise SchemaError(f"only references within the schema are known, not {ref}")
        node = self.schema
        for part in ref[2:].split("/"):
            node = node[part]
        return node

    def _pattern(self, pattern: str) -> re.Pattern:
        compiled = self._patterns.get(pattern)
        if compiled is None:
            # ECMA-262's $ (without the m flag) matches only at the very end; Python's also
            # before a final newline: \Z is the ECMA meaning. ASCII: \d and \w as ECMA's.
            python = pattern[:-1] + r"\Z" if pattern.endswith("$") and not pattern.endswith("\\$") else pattern
            compiled = self._patterns[pattern] = re.compile(python, re.ASCII)
        return compiled


def _check_keywords(schema, where: str) -> None:
    if isinstance(schema, bool):
        raise SchemaError(f"{where}: boolean schemas are not used by the format")
    unknown = set(schema) - KEYWORDS
    if unknown:
        raise SchemaError(f"{where}: keywords this validator does not know: {sorted(unknown)}")
    for name, sub in schema.get("$defs", {}).items():
        _check_keywords(sub, f"{where}/$defs/{name}")
    for name, sub in schema.get("properties", {}).items():
        _check_keywords(sub, f"{where}/properties/{name}")
    for keyword in ("items", "not", "if", "then", "else"):
        if keyword in schema:
            _check_keywords(schema[keyword], f"{where}/{keyword}")
    if isinstance(schema.get("additionalProperties"), dict):
        _check_keywords(schema["additionalProperties"], f"{where}/additionalProperties")
    for keyword in ("prefixItems", "allOf", "anyOf"):
        for index, sub in enumerate(schema.get(keyword, ())):
            _check_keywords(sub, f"{where}/{keyword}/{index}")


JSON_TYPES = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}


def _has_type(value, types) -> bool:
    return any(JSON_TYPES[name](value) for name in ([types] if isinstance(types, str) else types))


def _json_type(value) -> str:
    for name in ("null", "boolean", "integer", "number", "string", "array", "object"):
        if JSON_TYPES[name](value):
            return "a number with a fraction" if name == "number" else f"{_article(name)} {name}"
    return type(value).__name__


def _article(name: str) -> str:
    return "an" if name[0] in "aeio" else "a"


def _type_words(types) -> str:
    return " or ".join(f"{_article(name)} {name}" for name in ([types] if isinstance(types, str) else types))


def _same(a, b) -> bool:
    """JSON equality: true is not 1, and 1 is 1.0 (as JSON Schema's const and enum compare)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, int | float) and isinstance(b, int | float):
        return a == b
    return type(a) is type(b) and a == b


def _shown(value) -> str:
    text = json.dumps(value, ensure_ascii=True)
    return text if len(text) <= 40 else text[:37] + "..."


def _at(where: str) -> str:
    return where or "the file"


def _key(where: str, name: str) -> str:
    return f"{where}.{name}" if where else name


def _forbidden(schema: dict) -> str:
    """Words for a `not` that matched: the properties it forbids, when that is what it says."""
    names = [sub["required"][0] for sub in schema.get("anyOf", [schema]) if len(sub.get("required", ())) == 1]
    if names and len(names) == len(schema.get("anyOf", [schema])):
        return f"may not hold {' or '.join(repr(n) for n in names)} here"
    return "has a form the format forbids here"
