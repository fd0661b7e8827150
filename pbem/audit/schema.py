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
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

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


class _Invalid(Exception):
    """A failure in a yes-or-no check (if, not, anyOf): no message is needed."""


class _Verdict(list):
    """Where a yes-or-no check collects: the first failure ends it."""

    def append(self, _error) -> None:
        raise _Invalid

    def extend(self, _errors) -> None:
        raise _Invalid


_VERDICT = _Verdict()  # holds nothing: one serves every check


class _Lazy:
    """A message made only when it is read (the failures of yes-or-no checks are never read)."""

    __slots__ = ("make",)

    def __init__(self, make):
        self.make = make

    def __str__(self) -> str:
        return self.make()


@cache
def load(name: str) -> Validator:
    """A schema file beside this module, checked for keywords this validator knows."""
    return Validator(json.loads((HERE / name).read_text(encoding="utf-8")))


Run = Callable[[Any, str, list], None]  # checks a value at a place, adding what fails to a list
Step = Callable[[Any, str, list], bool | None]  # one keyword's check; False: skip the rest


class Validator:
    """The schema compiled once into one function per subschema (one step per keyword)."""

    def __init__(self, schema: dict):
        _check_keywords(schema, "#")
        self.schema = schema
        self._compiled: dict[int, Run] = {}
        self._root = self._compile(schema)

    def errors(self, instance) -> list[str]:
        """Where and how `instance` breaks the schema (at most MAX_ERRORS); [] when it holds."""
        return _errors_of(self._root, instance, "")[:MAX_ERRORS]

    def holds(self, instance) -> bool:
        return _holds(self._root, instance)

    def _compile(self, schema: dict) -> Run:
        known = self._compiled.get(id(schema))
        if known is not None:
            return known
        steps: list[Step] = []

        def run(value, where: str, found: list) -> None:
            for step in steps:
                if step(value, where, found) is False:
                    return

        self._compiled[id(schema)] = run  # before its steps: a reference may lead back here
        steps.extend(self._steps(schema))
        return run

    def _steps(self, schema: dict) -> list[Step]:
        steps: list[Step] = []
        if "$ref" in schema:
            steps.append(_each(self._compile(self._resolve(schema["$ref"]))))
        if "type" in schema:
            steps.append(_type_step(schema["type"]))
        if "const" in schema or "enum" in schema:
            steps.append(_enum_step([schema["const"]] if "const" in schema else schema["enum"]))
        steps += self._object_steps(schema) + self._array_steps(schema) + _string_steps(schema) + _number_steps(schema)
        steps += self._combined_steps(schema)
        return steps

    def _object_steps(self, schema: dict) -> list[Step]:
        required = schema.get("required", ())
        properties = {name: self._compile(sub) for name, sub in schema.get("properties", {}).items()}
        extra = schema.get("additionalProperties", True)
        extra_run = self._compile(extra) if isinstance(extra, dict) else None
        if not required and not properties and extra is True:
            return []

        def step(value, where, found):
            if not isinstance(value, dict):
                return
            for name in required:
                if name not in value:
                    found.append(f"{_at(where)}: {name!r} is missing")
            if extra is True:  # only the properties named: look them up, not every key
                for name, run in properties.items():
                    if name in value:
                        run(value[name], _key(where, name), found)
                return
            for name, item in value.items():
                run = properties.get(name, extra_run)
                if run is not None:
                    run(item, _key(where, name), found)
                elif extra is False:
                    found.append(_Lazy(lambda name=name: f"{_at(where)}: {name[:40]!r} is not part of the format"))

        return [step]

    def _array_steps(self, schema: dict) -> list[Step]:
        least, most = schema.get("minItems", 0), schema.get("maxItems")
        prefix = [self._compile(sub) for sub in schema.get("prefixItems", ())]
        items = self._compile(schema["items"]) if "items" in schema else None
        if not least and most is None and not prefix and items is None:
            return []

        def step(value, where, found):
            if not isinstance(value, list):
                return
            if len(value) < least:
                found.append(f"{_at(where)}: must hold at least {least} items, not {len(value)}")
            if most is not None and len(value) > most:
                found.append(f"{_at(where)}: may hold at most {most} items, not {len(value)}")
                return  # bounded work: the items of an over-long array are not looked at
            for index, item in enumerate(value):
                run = prefix[index] if index < len(prefix) else items
                if run is not None:
                    run(item, f"{where}[{index}]", found)
                    if len(found) >= MAX_ERRORS:
                        return

        return [step]

    def _combined_steps(self, schema: dict) -> list[Step]:
        steps: list[Step] = [_each(self._compile(sub)) for sub in schema.get("allOf", ())]
        if "anyOf" in schema:
            steps.append(_any_step([self._compile(sub) for sub in schema["anyOf"]]))
        if "not" in schema:
            banned, words = self._compile(schema["not"]), _forbidden(schema["not"])

            def step(value, where, found):
                if _holds(banned, value):
                    found.append(f"{_at(where)}: {words}")

            steps.append(step)
        if "if" in schema:
            then, otherwise = (self._compile(schema[k]) if k in schema else None for k in ("then", "else"))
            steps.append(_if_step(self._compile(schema["if"]), then, otherwise))
        return steps

    def _resolve(self, ref: str) -> dict:
        if not ref.startswith("#/"):
            raise SchemaError(f"only references within the schema are known, not {ref}")
        node = self.schema
        for part in ref[2:].split("/"):
            node = node[part]
        return node


def _each(run: Run) -> Step:
    def step(value, where, found):
        run(value, where, found)

    return step


def _type_step(types) -> Step:
    names = [types] if isinstance(types, str) else list(types)
    allowed = frozenset(cls for name in names for cls in PYTHON_TYPES[name])

    def step(value, where, found):
        if type(value) not in allowed:  # exact: what json.loads makes (a bool is no integer)
            found.append(_Lazy(lambda: f"{_at(where)}: {_json_type(value)}{WANTS}{_type_words(names)}"))
            return False
        return None

    return step


def _enum_step(allowed: list) -> Step:
    def step(value, where, found):
        if not any(_same(value, one) for one in allowed):
            found.append(
                _Lazy(lambda: f"{_at(where)}: must be {' or '.join(map(_shown, allowed))}, not {_shown(value)}")
            )

    return step


def _string_steps(schema: dict) -> list[Step]:
    least, most = schema.get("minLength", 0), schema.get("maxLength")
    pattern = _pattern(schema["pattern"]) if "pattern" in schema else None
    if not least and most is None and pattern is None:
        return []

    def step(value, where, found):
        if not isinstance(value, str):
            return
        if len(value) < least:
            found.append(f"{_at(where)}: must be at least {least} characters long")
        if most is not None and len(value) > most:
            found.append(f"{_at(where)}: may be at most {most} characters long, not {len(value)}")
        elif pattern is not None and not pattern.search(value):
            found.append(_Lazy(lambda: f"{_at(where)}: {_shown(value)} is not of the form {schema['pattern']}"))

    return [step]


def _number_steps(schema: dict) -> list[Step]:
    least, most = schema.get("minimum"), schema.get("maximum")
    if least is None and most is None:
        return []

    def step(value, where, found):
        if not isinstance(value, int | float) or isinstance(value, bool):
            return
        if least is not None and value < least:
            found.append(_Lazy(lambda: f"{_at(where)}: must be at least {least}, not {_shown(value)}"))
        if most is not None and value > most:
            found.append(_Lazy(lambda: f"{_at(where)}: must be at most {most}, not {_shown(value)}"))

    return [step]


def _any_step(branches: list[Run]) -> Step:
    def step(value, where, found):
        if any(_holds(branch, value) for branch in branches):
            return
        if isinstance(found, _Verdict):
            raise _Invalid
        said = [_errors_of(branch, value, where) for branch in branches]
        # The branch of the value's own type says most; else: which types would do.
        own = [errors for errors in said if WANTS not in errors[0] or not errors[0].startswith(f"{_at(where)}: ")]
        found.extend(own[0] if own else [f"{_at(where)}: is none of the forms allowed here"])

    return step


def _if_step(condition: Run, then: Run | None, otherwise: Run | None) -> Step:
    def step(value, where, found):
        branch = then if _holds(condition, value) else otherwise
        if branch is not None:
            branch(value, where, found)

    return step


def _holds(run: Run, value) -> bool:
    """Whether `value` meets a compiled schema, stopping at the first failure (no messages made)."""
    try:
        run(value, "", _VERDICT)
    except _Invalid:
        return False
    return True


def _errors_of(run: Run, value, where: str) -> list[str]:
    found: list = []
    run(value, where, found)
    return [str(error) for error in found]


def _pattern(pattern: str) -> re.Pattern:
    # ECMA-262's $ (without the m flag) matches only at the very end; Python's also before a
    # final newline: \Z is the ECMA meaning. ASCII: \d and \w as ECMA's.
    python = pattern[:-1] + r"\Z" if pattern.endswith("$") and not pattern.endswith("\\$") else pattern
    return re.compile(python, re.ASCII)


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


# The Python types json.loads makes for each JSON Schema type.
PYTHON_TYPES = {
    "object": (dict,),
    "array": (list,),
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "null": (type(None),),
}
JSON_TYPES = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}


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
