"""One-tap moves: a signed link in a turn notice that makes one of its offered moves.

A link names the seat (with its token generation, so a replaced player's links die with the
seat's token), the game's version the notice spoke of, the code of the move in that notice's
menu and the hour it was issued; an HMAC under SECRET_KEY (pbem.play.signing, lower-case
base32 like every token here) covers all of it. Opening it changes nothing (a GET: mail scanners
and link previews follow links): the page shows the move and asks to confirm, and only the
confirming POST submits it, as the seat's move against that version, so a link the game has
moved past is refused as stale like a late reply. A link expires `tap_hours()` after it was
issued.

    /tap/<seat>-<generation>-<version>-<code>-<issued hour, hex>-<mac>/
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass

from django.conf import settings
from django.utils.translation import gettext as _

from pbem.models import Seat
from pbem.play import signing

TAP_RE = re.compile(r"^(\d+)-(\d+)-(\d+)-(\d{1,3})-([0-9a-f]{1,8})-([a-z2-7]{16})$")
MAC_LENGTH = 16
DEFAULT_HOURS = 14 * 24


class TapProblem(Exception):
    """Why a link does not work; `code`: malformed, forged, expired."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class Tap:
    seat_id: int
    generation: int
    version: int
    code: int
    issued_hour: int

    @property
    def key(self) -> str:
        """The submission key of this link's move: a double tap on Confirm applies it once."""
        return f"tap-{self.seat_id}-{self.generation}-{self.version}-{self.code}-{self.issued_hour:x}"


def tap_hours() -> int:
    return int(getattr(settings, "PBEM_TAP_LINK_HOURS", DEFAULT_HOURS))


def _now_hour() -> int:
    return int(time.time() // 3600)


def _signed(seat_id: int, generation: int, version: int, code: int, hour: int) -> str:
    return f"pbem-tap:{seat_id}:{generation}:{version}:{code}:{hour}"


def tap_token(seat: Seat, version: int, code: int, hour: int | None = None) -> str:
    hour = _now_hour() if hour is None else hour
    mac = signing.mac(_signed(seat.pk, seat.token_generation, version, code, hour), MAC_LENGTH)
    return f"{seat.pk}-{seat.token_generation}-{version}-{code}-{hour:x}-{mac}"


def tap_url(seat: Seat, version: int, code: int) -> str:
    return f"{settings.PBEM_BASE_URL}/tap/{tap_token(seat, version, code)}/"


def read(token: str) -> Tap:
    """The link's parts when its MAC is ours and it has not expired; TapProblem if not."""
    match = TAP_RE.match((token or "").strip().lower())
    if not match:
        raise TapProblem(
            "malformed", _("This link is not a move link of ours (it may have been cut by your mail program).")
        )
    seat_id, generation, version, code = (int(match.group(i)) for i in range(1, 5))
    hour = int(match.group(5), 16)
    if not signing.verify(_signed(seat_id, generation, version, code, hour), match.group(6), MAC_LENGTH):
        raise TapProblem("forged", _("This move link is not one we issued."))
    if _now_hour() - hour > tap_hours():
        raise TapProblem(
            "expired",
            _(
                "This move link has expired: links in a notice work for %(days)s days. Your seat page, linked from "
                "every notice, always shows your moves now."
            )
            % {"days": tap_hours() // 24},
        )
    return Tap(seat_id, generation, version, code, hour)
