"""The notice templates compiled once per language with their translations put in
(outbound.notice_template, issue 34) write what Django's own rendering of the same templates
writes, byte for byte, in every language, for every notice template: the texts stay in one copy
(the templates and their catalogues), only their rendering is cheaper."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
from django.template.loader import render_to_string as django_render

from pbem.mail import outbound
from pbem.play import languages

EMAIL = Path(outbound.__file__).resolve().parent.parent / "templates" / "pbem" / "email"
TEMPLATES = sorted(p.name for p in EMAIL.iterdir() if p.suffix in (".txt", ".html"))
LANGUAGES = ("en", "de", "fr")


def contexts() -> list[dict]:
    """Contexts that take each template down its branches: a turn with options and a news mail
    of table talk, with text that must be escaped in HTML and a percent sign in it."""
    option = SimpleNamespace(code=1, line="place <a> & 50% more", tap_url="https://x.invalid/t/1", mailto="mailto:x")
    common = {
        "game": SimpleNamespace(title="Tally <b>", pk=12),
        "seat_name": "Ann & Bob",
        "round": 3,
        "phase": "move",
        "subject": "Your move",
        "board": "  a | b\n  c | d",
        "seating": ["1 Ann (red)", "2 Bob (blue)"],
        "since": ["Bob placed <x>"],
        "since_html": ["Bob placed <x>"],
        "since_dropped": 2,
        "receipts": ["#4 Ann said hi"],
        "folded": ["mark 1"],
        "waiting": ["Ann", "Bob"],
        "waiting_until": ["Ann until Thu 10 Dec 2026, 19:00 UTC"],
        "reader_zone": "UTC",
        "deadline": "Thu 10 Dec 2026, 19:00 UTC (in 3 hours)",
        "reply_address": "play+1-abc@pbem.localhost",
        "tag": "[12-abcdef]",
        "seat_url": "https://x.invalid/play/1/",
        "calendar_url": "https://x.invalid/cal/1.ics",
        "head_hash": "ab" * 32,
        "version": 41,
        "audit_url": "https://x.invalid/games/12/audit/",
        "preference_text": "once per turn",
        "seat": SimpleNamespace(news_pictures=False),
        "notice": SimpleNamespace(kind="turn"),
        "other_name": "Bob",
        "standings": [{"place": 1, "name": "Ann", "colour": "red", "score": 7}],
        "seed": "5eed",
        "extra": {"code": "applied", "board": True, "mark": "half", "misses": 2, "running": True, "held": True},
        "accept_url": "https://x.invalid/invite/1/",
        "creator_email": "ann@example.org",
        "answer_text": "ok",
        "answer_board": "a b",
        "reason": "a reason 100%",
        "predecessor": "Carl",
        "successor": "Dora",
        "points": 3,
        "base_url": "https://x.invalid",
        "picture_args": True,
    }
    return [
        {**common, "options": [option, option], "other_options": [("Places", 4, "place a1")], "awaited_me": True},
        {
            **common,
            "options": [],
            "other_options": [],
            "talk_only": True,
            "ended": True,
            "notice": SimpleNamespace(kind="news"),
        },
        {
            **common,
            "options": [],
            "since": [],
            "round": "",
            "phase": "",
            "head_hash": "",
            "calendar_url": "",
            "seat": None,
        },
    ]


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("name", TEMPLATES)
def test_a_notice_template_compiled_for_its_language_writes_what_django_writes(name, language):
    for context in contexts():
        with languages.reading(language):
            expected = django_render(f"pbem/email/{name}", dict(context))
            assert outbound.render_to_string(f"pbem/email/{name}", dict(context)) == expected


def test_the_turn_and_news_templates_are_translated_when_compiled_not_when_rendered():
    """What makes them cheaper: no i18n tag left to run at rendering in the turn and news notices."""
    for name in ("turn.txt", "turn.html", "news.txt", "news.html", "_base.html", "_reply_help.txt", "_options.txt"):
        source = (EMAIL / name).read_text()
        with languages.reading("de"):
            compiled = outbound.pretranslated(source)
        assert "translate" in source and "translate" not in compiled.replace("{% load i18n %}", ""), name


def test_a_translation_that_does_not_fit_is_left_to_be_translated_at_rendering():
    source = "{% load i18n %}{% blocktranslate count n=k %}one{% plural %}{{ n }} many{% endblocktranslate %}"
    assert outbound.pretranslated(source) == source
    braces = '{% load i18n %}{% translate "a {% b" %}'
    assert outbound.pretranslated(braces) == braces
