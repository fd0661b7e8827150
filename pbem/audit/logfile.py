"""Reading an exported log strictly, with bounded work, before anything looks inside it.

Pure (the standard library only), for the offline verifier. A file is refused, with the reason,
when it is larger than `MAX_BYTES`, is not UTF-8, is not JSON, spells a number JSON has no room
for (NaN, Infinity, 1e999, an integer of more than 40 digits), repeats a key within an object
(two readers could take different values), holds a lone UTF-16 surrogate (no hash can be taken
over it), or nests deeper than `MAX_DEPTH`. JSON nested 100,000 deep is refused by the parser's
own recursion guard, caught here; the depth of what parsed is then measured without recursion.
"""

from __future__ import annotations

import json
import math
import re

from pbem.audit.language import _

MAX_BYTES = 64 * 1024 * 1024  # the largest real log is well under a megabyte; 64 MB reads in seconds
MAX_DIGITS = 40  # the largest integer of the format is 2**64 (20 digits)
MAX_DEPTH = 64  # real logs nest 9 deep (the file, its events, a payload and what it holds)
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


class Unreadable(ValueError):
    """The file cannot be read as a pbem log at all; the message says why."""


def read_bytes(raw: bytes, max_bytes: int = MAX_BYTES):
    """The JSON document in `raw`, or Unreadable with the reason."""
    if len(raw) > max_bytes:
        raise Unreadable(
            _("it is larger than the {count} bytes a log may have (--max-bytes)").format(count=f"{max_bytes:,}")
        )
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise Unreadable(_("it is not UTF-8 text (byte {byte})").format(byte=exc.start)) from None
    return read_text(text)


def read_text(text: str):
    try:
        doc = json.loads(
            text,
            object_pairs_hook=_no_repeated_keys,
            parse_constant=_no_constant,
            parse_float=_finite,
            parse_int=_bounded_int,
        )
    except RecursionError:
        raise Unreadable(
            _("it is not JSON this verifier reads: nested deeper than {count} levels").format(count=MAX_DEPTH)
        ) from None
    except ValueError as exc:  # JSONDecodeError, the refusals below, an integer of too many digits
        raise Unreadable(_("it is not JSON: {error}").format(error=exc)) from None
    depth = nesting(doc)
    if depth > MAX_DEPTH:
        raise Unreadable(
            _("it nests {depth} levels deep, more than the {count} a log may").format(depth=depth, count=MAX_DEPTH)
        )
    if _SURROGATE_ESCAPE.search(text):  # only an escape can make a lone surrogate; check exactly then
        try:
            json.dumps(doc, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError:
            raise Unreadable(_("it holds a lone UTF-16 surrogate (\\ud800-\\udfff), which is no character")) from None
    return doc


def _no_repeated_keys(pairs: list[tuple[str, object]]) -> dict:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        repeated = next(key for key, _value in pairs if key in seen or seen.add(key))  # type: ignore[func-returns-value]
        raise ValueError(f"the key {repeated[:40]!r} appears twice in one object")
    return obj


def _no_constant(name: str):
    raise ValueError(f"{name} is not a JSON number")


def _bounded_int(text: str) -> int:
    if len(text) > MAX_DIGITS:
        raise ValueError(f"an integer of {len(text.lstrip('-')):,} digits is larger than any a log holds")
    return int(text)


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text[:40]} is too large for a number")
    return value


def nesting(doc) -> int:
    """How deep `doc` nests (a scalar 0, [] 1, [[]] 2), without recursion."""
    deepest, stack = 0, [(doc, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict):
            value = value.values()
        elif not isinstance(value, list):
            continue
        deepest = max(deepest, depth)
        stack.extend((item, depth + 1) for item in value if isinstance(item, dict | list))
    return deepest
