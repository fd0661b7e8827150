"""Each player's language (issue 33): English, German or French, for every text they read.

A seat has a language (`Seat.language`), chosen at invitation (the new-game form, the API,
`create_game --player NAME:EMAIL:de`), changed by mail ('language de') or on the seat page, and
taken from the Accept-Language of the seat page's first visit while it was never chosen. The
player's own default (`PlayerSettings.language`, by address) is what their next games start in.
Blank means "never chosen": English, the service's default.

The language is presentation only: never written in the log (a game played in German has the
same log as the same game played in English). Whoever composes text for a reader does it
inside `reading(language)`: Django's translations (the platform's words) and the games' own
(`games.i18n`: narrations, boards, grammars) both switch to it.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from django.conf import settings
from django.db import transaction
from django.utils import translation

from games import i18n
from pbem.models import Game, GameStatus, PlayerSettings, Seat

LANGUAGES = i18n.LANGUAGES
DEFAULT = i18n.DEFAULT


def supported(code: str | None) -> str:
    """The supported language a code means ('de-AT' -> 'de'); English for anything else."""
    return i18n.supported(code)


def known(code: str | None) -> str | None:
    """The supported language a code means, or None when it names none ('deutsch' is 'de')."""
    word = (code or "").strip().lower()
    for key, name in LANGUAGES.items():
        if word in (key, name.lower()) or word.split("-")[0].split("_")[0] == key:
            return key
    return {"german": "de", "allemand": "de", "french": "fr", "französisch": "fr", "englisch": "en"}.get(word)


def of_seat(seat: Seat | dict | None) -> str:
    """The language a seat's player reads (a Seat, or a row as a dict with 'language')."""
    if seat is None:
        return DEFAULT
    code = seat.get("language") if isinstance(seat, dict) else seat.language
    return supported(code) if code else DEFAULT


def of_table(game_id: int) -> str:
    """The language a table's shared texts are written in (its shared channel): the language
    most of its seats read, a tie going to the language of the earliest of the tied seats (the
    owner's, who made the game, when it is among them). No setting of its own: a table's
    language follows its players, and a German table whose French player leaves reads German."""
    codes = [
        of_seat({"language": code})
        for code in Seat.objects.filter(game_id=game_id).order_by("number").values_list("language", flat=True)
    ]
    if not codes:
        return DEFAULT
    return max(dict.fromkeys(codes), key=codes.count)  # max keeps the first of equals: the earliest seat's


def for_master() -> str:
    """The language of the Master of Seals' mails (missed deadlines, bounces, a failing table
    channel): the operator's setting PBEM_MASTER_LANGUAGE, English by default. One operator, one
    language: a site whose Masters of Seals read German sets it to "de"."""
    return supported(getattr(settings, "PBEM_MASTER_LANGUAGE", DEFAULT))


def default_for(email: str) -> str:
    """A player's own default for new seats: blank when they never chose one."""
    return PlayerSettings.objects.filter(email=email.lower()).values_list("language", flat=True).first() or ""


@contextmanager
def reading(language: str | None) -> Iterator[str]:
    """Text made inside the block is in `language`: the platform's (gettext) and the games'."""
    code = supported(language)
    with translation.override(code), i18n.using(code):
        yield code


def set_for_player(email: str, code: str) -> int:
    """The player's language, in every game of theirs not over and as their default for new ones;
    the number of seats changed."""
    email = email.lower()
    with transaction.atomic():
        PlayerSettings.objects.update_or_create(email=email, defaults={"language": code})
        live = Game.objects.exclude(status__in=(GameStatus.FINISHED, GameStatus.ABANDONED)).values("pk")
        return Seat.objects.filter(email__iexact=email, game__in=live).exclude(language=code).update(language=code)


def first_visit(seat: Seat, accept_language: str | None) -> str:
    """The seat's language, taken from the first visit's Accept-Language when it was never chosen
    (the player's own default first, when they have one)."""
    if seat.language:
        return of_seat(seat)
    code = default_for(seat.email) or _from_header(accept_language)
    Seat.objects.filter(pk=seat.pk, language="").update(language=code)
    seat.language = code
    PlayerSettings.objects.filter(email=seat.email.lower(), language="").update(language=code)
    return code


def _from_header(header: str | None) -> str:
    """The first supported language of an Accept-Language header, by its q-values."""
    return _best(header) if header else DEFAULT


def _best(header: str) -> str:
    from django.utils.translation.trans_real import parse_accept_lang_header

    for code, _q in parse_accept_lang_header(header):
        if code != "*" and known(code):
            return known(code) or DEFAULT
    return DEFAULT
