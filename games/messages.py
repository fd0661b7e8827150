"""The games' catalogues kept in step with their code (a developer's tool and CI's check).

  python -m games.messages check            every catalogue holds exactly the strings the code
                                            marks, each translated (exit 1 and a list if not)
  python -m games.messages update [DOMAIN…] extract the marked strings (Babel's extractor) and
                                            merge them into each language's .po: new strings come
                                            in untranslated, vanished ones go; then compile
  python -m games.messages compile [DOMAIN…] write each .po's .mo beside it (what the service
                                            reads; committed, and checked to match its .po)

A domain is a game (its package's modules) or "games" (games/base.py). The tests
(tests/games/test_i18n_catalogues.py) run the same checks.
"""

from __future__ import annotations

import io
import re
import sys
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract
from babel.messages.pofile import read_po, write_po

from games.i18n import DEFAULT, KEYWORDS, LANGUAGES, compile_po

ROOT = Path(__file__).parent
GAMES = ("elfenland", "elfenwizards", "zauberschwert", "elixirus", "elven_castle")
FIELD = re.compile(r"\{([a-z_0-9]*)(?:[:!][^}]*)?\}")  # a field's name (its width may differ)


def sources(domain: str) -> list[Path]:
    """The modules whose marked strings make up `domain`."""
    if domain == "games":
        return [ROOT / "base.py"]
    return sorted((ROOT / domain).glob("*.py"))


def locale_dir(domain: str) -> Path:
    return ROOT / "locale" if domain == "games" else ROOT / domain / "locale"


def po_path(domain: str, language: str) -> Path:
    return locale_dir(domain) / language / "LC_MESSAGES" / f"{domain}.po"


def domains() -> list[str]:
    """Every domain that has a catalogue (or should: a game that marks any string)."""
    return ["games", *(g for g in GAMES if (ROOT / g / "locale").is_dir())]


def template(domain: str) -> Catalog:
    """The strings the code of `domain` marks, as Babel's extractor finds them."""
    catalog = Catalog(domain=domain, project="pbem", charset="utf-8")
    for path in sources(domain):
        with path.open("rb") as f:
            for lineno, message, comments, context in extract("python", f, keywords=KEYWORDS):
                if message and (message[0] if isinstance(message, tuple) else message):
                    rel = str(path.relative_to(ROOT.parent))
                    catalog.add(message, locations=[(rel, lineno)], auto_comments=comments, context=context)
    return catalog


def read(domain: str, language: str) -> Catalog | None:
    path = po_path(domain, language)
    if not path.is_file():
        return None
    with path.open("rb") as f:
        return read_po(f, locale=language, domain=domain)


def update(domain: str) -> None:
    """Merges the code's strings into each language's .po (translations kept by msgid)."""
    tpl = template(domain)
    for language in LANGUAGES:
        if language == DEFAULT:
            continue
        catalog = read(domain, language) or Catalog(locale=language, domain=domain, project="pbem")
        catalog.update(tpl, no_fuzzy_matching=True, update_header_comment=False)
        path = po_path(domain, language)
        path.parent.mkdir(parents=True, exist_ok=True)
        out = io.BytesIO()
        write_po(out, catalog, ignore_obsolete=True, include_lineno=False, width=100, sort_output=True)
        path.write_bytes(out.getvalue())
    compile_domain(domain)


def compile_domain(domain: str) -> None:
    """Writes each language's .mo beside its .po."""
    for language in LANGUAGES:
        path = po_path(domain, language)
        if language != DEFAULT and path.is_file():
            path.with_suffix(".mo").write_bytes(compile_po(path, language))


def stale_compiled(domain: str) -> list[str]:
    """The .mo files that are not their .po compiled (or are missing)."""
    out = []
    for language in LANGUAGES:
        path = po_path(domain, language)
        if language == DEFAULT or not path.is_file():
            continue
        mo = path.with_suffix(".mo")
        if not mo.is_file() or mo.read_bytes() != compile_po(path, language):
            out.append(f"{domain}/{language}: {mo} is not {path.name} compiled: run python -m games.messages compile")
    return out


def _strings(message) -> list[str]:
    return list(message) if isinstance(message, tuple | list) else [message]


def _fields(text: str) -> set[str]:
    return set(FIELD.findall(text))


def problems(domain: str) -> list[str]:
    """What is wrong with `domain`'s catalogues: strings the code marks that a catalogue lacks or
    leaves untranslated or fuzzy, entries the code no longer has, translations whose {fields}
    differ from the English."""
    tpl = template(domain)
    wanted = {(m.id, m.context) for m in tpl if m.id}
    out = []
    for language in LANGUAGES:
        if language == DEFAULT:
            continue
        catalog = read(domain, language)
        if catalog is None:
            out.append(f"{domain}/{language}: no catalogue at {po_path(domain, language)}")
            continue
        have = {(m.id, m.context): m for m in catalog if m.id}
        for k in sorted(wanted - set(have), key=str):
            out.append(f"{domain}/{language}: not in the catalogue: {k[0]!r}")
        for k in sorted(set(have) - wanted, key=str):
            out.append(f"{domain}/{language}: in the catalogue, no longer in the code: {k[0]!r}")
        for k, m in have.items():
            if k not in wanted:
                continue
            strs = _strings(m.string)
            if m.fuzzy or not all(strs):
                out.append(f"{domain}/{language}: untranslated{' (fuzzy)' if m.fuzzy else ''}: {k[0]!r}")
                continue
            ids = _strings(m.id)
            if any(_fields(s) != _fields(ids[-1]) and _fields(s) != _fields(ids[0]) for s in strs):
                out.append(f"{domain}/{language}: fields differ from the English: {k[0]!r} -> {strs!r}")
    return out


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in ("check", "update", "compile"):
        print(__doc__)
        return 2
    chosen = argv[1:] or domains()
    if argv[0] in ("update", "compile"):
        for domain in chosen:
            update(domain) if argv[0] == "update" else compile_domain(domain)
        return 0
    found = [p for domain in chosen for p in problems(domain) + stale_compiled(domain)]
    print("\n".join(found) or f"catalogues complete: {', '.join(chosen)}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
