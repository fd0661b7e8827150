"""Every line of table news the platform writes reads in German and French (issue 33): each of
its event types narrated with a payload as the write path records it, checked against the
English of every catalogue (tests/mail/test_languages_by_mail.py's checker)."""

from __future__ import annotations

import pytest
from django.utils import translation

from games import i18n
from pbem.log import clocks
from pbem.play import selectors
from tests.mail.test_languages_by_mail import english_in, english_pieces

NAMES = ["Alice", "Bruno", "Chloé"]
WHEN = "2026-12-10T18:00:00+00:00"
# A payload of each kind of platform event, as the write path writes it (the reasons the
# platform itself writes, in English: the log's language).
PAYLOADS: dict[str, list[dict]] = {
    "GameCreated": [{"players": [{"name": n} for n in NAMES], "seed_commitment": "ab" * 32}],
    "GameStarted": [{}],
    "GameEnded": [{"scores": [3, 2, 1]}],
    "SeedRevealed": [{"seed": "cd" * 32}],
    "Said": [{"seat": 0, "text": "Hallo"}],
    "Undone": [
        {"seat": 1, "events": [5], "reason": "taken back by the player"},
        {"seat": None, "events": [5, 6], "reason": "Ein Tippfehler"},
    ],
    "Away": [
        {"seat": 1, "until": "2026-12-11", "last_day": "2026-12-10", "days": 2, "zone": "Europe/Berlin"},
        {"seat": 1, "until": "2026-12-11", "last_day": "2026-12-10"},
        {"seat": 1, "until": "2026-12-11"},
    ],
    "RestDays": [{"seat": 1, "days": ["sat", "sun"], "zone": "Europe/Berlin"}, {"seat": 1, "days": [], "zone": "UTC"}],
    "Absent": [
        {"seat": 2, "until": WHEN, "left": 5 * 86400 + 3600, "auto": False},
        {"seat": 2, "until": WHEN, "left": 86400, "auto": True},
    ],
    "TimeZoneChanged": [{"seat": 1, "zone": "Europe/Paris"}, {"seat": 1}],
    "Back": [{"seat": 1}],
    "NoticesChanged": [{"seat": 1, "preference": "digest"}, {"seat": 1}],
    "CalendarRenewed": [{"seat": 2}],
    "Paused": [{"reason": "Urlaub des Tisches", "remaining": {}}],
    "Resumed": [{"reason": "weiter"}],
    "Abandoned": [{"reason": "aufgegeben"}],
    "DeadlineExtended": [{"seat": 1, "until": WHEN, "reason": "Krankheit"}],
    "DeadlineMissed": [{"seat": 1}],
    "TimedOut": [{"seat": 1, "command": "pass"}, {"seat": 1, "standin": True, "command": ""}],
    "StandInSeated": [
        {"seat": 1, "reason": "missed 3 deadlines in a row"},
        {"seat": 1, "reason": "missed a deadline where the rules allow no pass"},
        {"seat": 1, "reason": "a practice game's opponent"},
    ],
    "StandInLeft": [{"seat": 1}],
    "PlayerReplaced": [
        {"seat": 1, "name": "Dora", "replaced": "Bruno", "reason": "Bruno hat aufgehört"},
        {"seat": 1, "name": "Dora", "reason": "neu"},
    ],
    "ScoreCorrected": [{"seat": 2, "points": -3, "reason": "Regelfehler"}],
    "NoticeBounced": [{"seat": 2}],
    "ReminderSent": [{"seats": [1], "reason": "bitte"}],
    "InvitationsSent": [{"seats": [1, 2]}, {"seats": []}],
    "OrderGiven": [
        {"seat": 1, "order": {"kind": "forced"}},
        {"seat": 1, "order": {"kind": "conditional"}},
        {"seat": 1, "order": {"kind": "standing"}},
        {"seat": 1},
    ],
    "OrderCancelled": [
        {"seat": 1, "id": 7, "reason": "cancelled by the player"},
        {"seat": 1, "id": 7, "reason": "forced moves off"},
        {"seat": 1, "id": 7, "reason": "its condition was not met, and it had no 'else'"},
        {"seat": 1, "id": 7, "reason": "the move it waited for was partly hidden, so it could not be read"},
        {"seat": 1, "id": 7, "reason": "its move (7) was not legal when it came to be played"},
        {"seat": 1},
    ],
    "OrderPlayed": [{"seat": 1, "id": 7, "kind": "forced", "move": "7"}, {"seat": 1}],
    "InvitationResent": [{"seat": 2, "reason": "Spamordner"}],
}


def test_every_kind_of_platform_news_has_payloads_here():
    assert set(PAYLOADS) == set(selectors.PLATFORM_TEXT)


@pytest.mark.parametrize("language", ["de", "fr"])
def test_every_line_of_platform_news_reads_in_the_readers_language(language):
    pieces = english_pieces(language)
    found = []
    for kind, payloads in PAYLOADS.items():
        for payload in payloads:
            english = selectors.PLATFORM_TEXT[kind](payload, NAMES)
            with translation.override(language), i18n.using(language):
                said = selectors.PLATFORM_TEXT[kind](payload, NAMES)
            why = english_in(said, pieces, typed=set())
            if why or (said == english and kind not in ("Said",)):
                found.append(f"{kind}: {said!r} ({why or 'the English text'})")
    assert not found, "\n".join(found)


@pytest.mark.parametrize("language", ["de", "fr"])
def test_a_clocks_refusal_reads_in_the_readers_language(language):
    refusals = []
    for attempt in (
        lambda: clocks.rest_days(["someday"]),
        lambda: clocks.rest_days(["mon", "tue", "wed", "thu"]),
        lambda: clocks.parse({"kind": "bank", "initial": 86400, "increment": 0, "cap": 86400}, 86400),
        lambda: clocks.parse({"kind": "sundial"}, 86400),
    ):
        with pytest.raises(clocks.BadClock) as caught:
            attempt()
        refusals.append(caught.value)
    pieces = english_pieces(language)
    with translation.override(language):
        said = [selectors.clocks_text(exc) for exc in refusals]
    assert all(text != str(exc) for text, exc in zip(said, refusals, strict=True)), said
    assert not [text for text in said if english_in(text, pieces, typed=set())], said
