"""The games' catalogues (issue 33): every string the code marks is in each language's .po,
translated (not empty, not fuzzy), with the same {fields} as the English; the check itself finds
each of these faults; a catalogue translates under `using(language)` and English is the text."""

from __future__ import annotations

import re

import pytest

from games import i18n
from games import messages as M


@pytest.mark.parametrize("domain", M.domains())
def test_every_marked_string_is_translated_in_every_language(domain):
    assert M.problems(domain) == []


@pytest.mark.parametrize("domain", M.domains())
def test_every_compiled_catalogue_is_its_po_compiled(domain):
    assert M.stale_compiled(domain) == []


def _toy(tmp_path, monkeypatch, code: str, po_de: str, po_fr: str):
    (tmp_path / "toy" / "locale" / "de" / "LC_MESSAGES").mkdir(parents=True, exist_ok=True)
    (tmp_path / "toy" / "locale" / "fr" / "LC_MESSAGES").mkdir(parents=True, exist_ok=True)
    (tmp_path / "toy" / "rules.py").write_text(code)
    (tmp_path / "toy" / "locale" / "de" / "LC_MESSAGES" / "toy.po").write_text(po_de)
    (tmp_path / "toy" / "locale" / "fr" / "LC_MESSAGES" / "toy.po").write_text(po_fr)
    monkeypatch.setattr(M, "ROOT", tmp_path)


FR_OK = 'msgid "Hello {who}"\nmsgstr "Bonjour {who}"\n'


def test_the_check_finds_an_empty_a_fuzzy_a_missing_and_a_broken_translation(tmp_path, monkeypatch):
    code = '_("Hello {who}")\nN_("Pig")\n'
    po_de = '#, fuzzy\nmsgid "Hello {who}"\nmsgstr "Hallo {who}"\n\nmsgid "Gone"\nmsgstr "Weg"\n'
    po_fr = FR_OK + '\nmsgid "Pig"\nmsgstr "Cochon {x}"\n'
    _toy(tmp_path, monkeypatch, code, po_de, po_fr)
    found = "\n".join(M.problems("toy"))
    assert "toy/de: untranslated (fuzzy): 'Hello {who}'" in found
    assert "toy/de: not in the catalogue: 'Pig'" in found
    assert "toy/de: in the catalogue, no longer in the code: 'Gone'" in found
    assert "toy/fr: fields differ from the English: 'Pig'" in found
    _toy(tmp_path, monkeypatch, '_("Hello {who}")\n', FR_OK.replace("Bonjour {who}", ""), FR_OK)
    assert M.problems("toy") == ["toy/de: untranslated: 'Hello {who}'"]


def test_update_brings_a_new_string_in_untranslated_and_keeps_the_old_translations(tmp_path, monkeypatch):
    _toy(tmp_path, monkeypatch, '_("Hello {who}")\n_("New")\n', FR_OK.replace("Bonjour", "Hallo"), FR_OK)
    M.update("toy")
    assert M.problems("toy") == ["toy/de: untranslated: 'New'", "toy/fr: untranslated: 'New'"]
    assert M.read("toy", "fr").get("Hello {who}").string == "Bonjour {who}"
    assert M.stale_compiled("toy") == []  # update compiles too


def test_a_po_edited_after_its_compilation_is_found(tmp_path, monkeypatch):
    _toy(tmp_path, monkeypatch, '_("Hello {who}")\n', FR_OK.replace("Bonjour", "Hallo"), FR_OK)
    assert len(M.stale_compiled("toy")) == 2  # never compiled
    M.compile_domain("toy")
    assert M.stale_compiled("toy") == []
    po = M.po_path("toy", "fr")
    po.write_text(po.read_text().replace("Bonjour", "Salut"))
    assert [p.split(":")[0] for p in M.stale_compiled("toy")] == ["toy/fr"]
    catalogue = i18n.Catalogue("toy", tmp_path / "toy" / "locale")
    with i18n.using("fr"):
        assert catalogue.gettext("Hello {who}") == "Bonjour {who}"  # the .mo is what is read


def test_a_catalogue_speaks_the_language_in_use_and_english_is_the_text_itself():
    base = i18n.GAMES
    msg = "Did you mean: {names}?"
    assert base.gettext(msg) == msg
    with i18n.using("de-AT"):
        assert base.gettext(msg) == "Meinten Sie: {names}?"
        with i18n.using("fr"):
            assert base.gettext(msg) == "Vouliez-vous dire : {names} ?"
        assert i18n.current() == "de"
    with i18n.using("xx"):
        assert base.gettext(msg) == msg
    assert base.every_language(msg) == [msg, "Meinten Sie: {names}?", "Vouliez-vous dire : {names} ?"]


def test_a_parse_error_says_did_you_mean_in_the_readers_language():
    from games.base import ParseError, match_name

    with i18n.using("fr"), pytest.raises(ParseError) as caught:
        match_name("virts", ["Virst", "Jxara"], "ville")
    assert str(caught.value) == "Inconnu (ville) : « virts ». Vouliez-vous dire : Virst ?"


def _f_strings_calling_gettext(path) -> list[str]:
    import io
    import tokenize

    found = []
    for tok in tokenize.generate_tokens(io.StringIO(path.read_text()).readline):
        if tok.type == tokenize.STRING and tok.string.lower().startswith(("f", "rf", "fr")):
            if re.search(r"\{[^{}]*\b(N_|_|ngettext|pgettext)\(", tok.string):
                found.append(f"{path}:{tok.start[0]}")
    return found


def test_no_text_is_marked_inside_an_f_string():
    """Babel's extractor (on Python 3.11) reads an f-string as one token: a `_("…")` inside one
    would be translated at run time yet never reach the catalogue."""
    found = [hit for domain in M.domains() for path in M.sources(domain) for hit in _f_strings_calling_gettext(path)]
    assert found == []
