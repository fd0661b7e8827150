"""Each translated game speaks German and French everywhere (issue 33), from one stand-in game per
game: every event narrated (the seat's form and the public one), every seat's and a spectator's
board as text, HTML and picture, the help, the chooser's labels, the score sheet and every legal
move described, all in de and fr, checked for English left untranslated; and every move described
in a language parses back, in that language, to the very command (so a German or French reply
makes the log an English one would).

Untranslated English is found by words: the English words of the game's own catalogue (its
msgids) and a few common ones, less every word its translations use too (proper names, "Troll",
"Elfenland"), must not appear in a German or French text; and a text the same in both languages
must hold none of them either.
"""

from __future__ import annotations

import copy
import html
import re
from functools import cache

import pytest

from games import i18n
from games import messages as M
from games.testing import play_with_standins

# The games whose every text is translated, with the options that show the most of them.
TRANSLATED = {
    "elfenland": [(3, {"home_cities": True}), (4, {"lakes": True, "boatmen": True})],
    "elven_castle": [(3, {"staircase": True, "penalties": True}), (4, {"scenario": "altar", "penalties": True})],
    "elfenwizards": [(3, {}), (5, {})],
    "elixirus": [(3, {}), (5, {})],
    "zauberschwert": [(3, {}), (4, {"offers_per_round": 2})],
}
LANGUAGES = ("de", "fr")
NAMES = ["Anna", "Bruno", "Chloé", "Dara", "Emil", "Fenna"]
COMMON = {"the", "and", "your", "you", "with", "from", "has", "was", "are", "not", "this", "that", "for", "none"}
WORD = re.compile(r"[^\W\d_]{3,}")
SAMPLE_EVERY = 7  # moves between the states whose views, help and moves are checked


IDENTIFIER = re.compile(r"\b[^\W\d_]+\d+\b")  # a name such as red3 (an Elfenwizards wizard) is a name


def _words(text: str) -> set[str]:
    return {w.lower() for w in WORD.findall(IDENTIFIER.sub(" ", text))}


def _strings(message) -> list[str]:
    return list(message) if isinstance(message, tuple | list) else [message]


@cache
def english_words(game: str, language: str) -> frozenset[str]:
    """The words that betray English in `language`: those of the game's and games/base.py's
    msgids and COMMON, less every word a translation into `language` uses too."""
    english, translated = set(COMMON), set()
    for domain in ("games", game):
        for m in M.read(domain, language):
            if m.id:
                english |= {w for s in _strings(m.id) for w in _words(s)}
                translated |= {w for s in _strings(m.string) for w in _words(s)}
    return frozenset(english - translated - {w.lower() for w in NAMES})


def _visible(markup: str) -> str:
    """The text a reader meets in HTML or SVG: text nodes, titles and aria-labels."""
    labels = " ".join(re.findall(r'aria-label="([^"]*)"', markup))
    body = re.sub(r"<style.*?</style>", " ", markup, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", " ", body) + " " + labels)


@cache
def played(game: str, config: int):
    """A stand-in game (every seat a stand-in), with states sampled along the way."""
    spec = _spec(game)
    players, options = TRANSLATED[game][config]
    samples = []

    steps = iter(range(10**6))

    def keep(table):
        if next(steps) % SAMPLE_EVERY == 0 or not spec.waiting_for(table.state):
            samples.append(copy.deepcopy(table.state))

    table = play_with_standins(spec, players, range(players), options=options, seed=config + 1, check=keep)
    return spec, table, samples


def _spec(game: str):
    from importlib import import_module

    return import_module(f"games.{game}").GAME


def _untranslated(text: str, english_text: str, game: str, language: str) -> set[str]:
    suspects = _words(text) & english_words(game, language)
    if text == english_text and _words(english_text) & english_words(game, language):
        suspects.add(f"(same as the English: {english_text!r})")
    return suspects


CASES = [(g, c, lang) for g, configs in TRANSLATED.items() for c in range(len(configs)) for lang in LANGUAGES]


@pytest.mark.parametrize("game,config,language", CASES)
def test_every_event_is_narrated_in_the_readers_language(game, config, language):
    spec, table, _samples = played(game, config)
    names = NAMES[: table.players]
    seen = set()
    for event in table.events:
        for form in (event, event.as_seen_by(None)):
            english = spec.narrate(form, names)
            with i18n.using(language):
                text = spec.narrate(form, names)
            assert text != form.type, f"{form.type} has no narration"
            bad = _untranslated(text, english, game, language)
            assert not bad, f"{form.type} in {language}: {text!r} has English {sorted(bad)}"
            seen.add(form.type)
    assert len(seen) >= 3, seen  # the game played to its end


def _seats(spec, state):
    return [None, *range(len(spec.summary(state)["scores"]))]


@pytest.mark.parametrize("game,config,language", CASES)
def test_every_board_help_and_choice_is_in_the_readers_language(game, config, language):
    spec, table, samples = played(game, config)
    for state in samples:
        for seat in _seats(spec, state):
            view = spec.view(state, seat)
            view_named = dict(view, names=NAMES[: table.players])
            texts = [
                (spec.render_text, view),
                (spec.render_text, view_named),
                (lambda v: _visible(spec.render_html(v)), view),
            ]
            if spec.render_svg is not None:
                texts.append((lambda v: _visible(spec.render_svg(v)), view))
            if seat is not None:
                texts.append((lambda _v, s=seat, st=state: spec.help(st, s), view))
                texts.append((lambda _v, s=seat, st=state: _choice_texts(spec, st, s), view))
            for render, v in texts:
                english = render(v)
                with i18n.using(language):
                    text = render(v)
                for line, english_line in zip(text.splitlines(), english.splitlines() + [""] * 999, strict=False):
                    bad = _untranslated(line, english_line, game, language)
                    assert not bad, f"{language}, seat {seat}: {line!r} has English {sorted(bad)}"


def _choice_texts(spec, state, seat) -> str:
    lines = []
    for choice in spec.choices_for(state, seat):
        lines += [choice.group, choice.label, choice.note]
    for line in spec.score_sheet(state):
        lines += [line.label, line.detail]
    return "\n".join(lines)


@pytest.mark.parametrize("game,config,language", CASES)
def test_every_legal_move_described_in_a_language_parses_back_in_it(game, config, language):
    spec, _table, samples = played(game, config)
    checked = 0
    for state in samples:
        for seat in spec.waiting_for(state):
            for command in spec.legal(state, seat):
                english = spec.describe(command)
                with i18n.using(language):
                    text = spec.describe(command)
                    assert spec.parse(text, state, seat) == command, f"{text!r} ({language}) is not {command}"
                    assert spec.parse(english, state, seat) == command, f"{english!r} fails in {language}"
                assert spec.parse(text, state, seat) == command, f"{text!r} fails in English"
                bad = _untranslated(text, english, game, language)
                assert not bad, f"{text!r} has English {sorted(bad)}"
                checked += 1
    assert checked > 20


@pytest.mark.parametrize("game,language", [(g, lang) for g in TRANSLATED for lang in LANGUAGES])
def test_a_parse_error_is_in_the_readers_language(game, language):
    spec, _table, samples = played(game, 0)
    state = samples[0]
    seat = spec.waiting_for(state)[0]
    probes = (lambda: "", lambda: "xyzzy plugh", lambda: f"{spec.describe(spec.legal(state, seat)[0])} qqqq zzzz")
    for probe in probes:  # each typed in the reader's language (the message may quote it)
        try:
            english = str(_parse_error(spec, probe(), state, seat))
        except AssertionError:
            continue
        with i18n.using(language):
            message = str(_parse_error(spec, probe(), state, seat))
        bad = _untranslated(message, english, game, language)
        assert not bad, f"{message!r} has English {sorted(bad)}"


def _parse_error(spec, text, state, seat):
    from games.base import ParseError

    try:
        spec.parse(text, state, seat)
    except ParseError as error:
        return error
    raise AssertionError(f"{text!r} parsed")


@pytest.mark.parametrize("game", TRANSLATED)
def test_the_check_finds_english_left_in_a_german_or_french_text(game):
    spec, table, _samples = played(game, 0)
    event = table.events[-1]
    english = spec.narrate(event, NAMES[: table.players])
    for language in LANGUAGES:
        assert _untranslated(english, english, game, language), english
        assert _untranslated("Anna " + english, english, game, language), english


@pytest.mark.parametrize("game", TRANSLATED)
def test_the_options_and_rulebook_line_are_in_the_readers_language(game):
    spec = _spec(game)
    texts = [spec.rulebook] + [text for option in spec.options for text in (option.title, option.help)]
    for language in LANGUAGES:
        with i18n.using(language):
            said = [i18n.game_text(game, text) for text in texts]
        for text, translated in zip(texts, said, strict=True):
            assert translated != text, f"{game} {language}: {text!r} is not translated"
    assert i18n.game_text(game, "no such text") == "no such text"
