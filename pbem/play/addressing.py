"""Signed per-seat tokens: in reply addresses (play+TOKEN@domain) and seat links.

A token is "<seat id>-<generation>-<mac>", the mac an HMAC of the seat id and its token
generation under the site's SECRET_KEY (or one of SECRET_KEY_FALLBACKS, see `signing`), in
lower-case base32 so that mail systems that fold the case of local parts do not break it.
Replacing a player bumps the generation: every older token is then recognised as revoked (not
merely unknown), and stops working at once.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from django.conf import settings
from django.utils.translation import gettext_noop

from pbem.log import rows
from pbem.models import Seat
from pbem.play import signing

TOKEN_RE = re.compile(r"^(\d+)-(\d+)-([a-z2-7]{16})$")
MAC_LENGTH = 16  # base32 characters: 80 bits


def _signed(seat_id: int, generation: int) -> str:
    return f"pbem-seat:{seat_id}:{generation}"


def token_for(seat: Seat) -> str:
    return f"{seat.pk}-{seat.token_generation}-{signing.mac(_signed(seat.pk, seat.token_generation), MAC_LENGTH)}"


def reply_address(seat: Seat) -> str:
    return f"play+{token_for(seat)}@{settings.PBEM_MAIL_DOMAIN}"


def seat_url(seat: Seat) -> str:
    return f"{settings.PBEM_BASE_URL}/play/{token_for(seat)}/"


class TokenProblem(Exception):
    """Why a token was not accepted; `code` is one of malformed, forged, unknown, revoked, other_game."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code


@dataclass
class Resolved:
    seat: Seat


def resolve(token: str, game_id: int | None = None, load=rows.seat_with_game) -> Seat:
    """The seat a token stands for, or TokenProblem saying exactly why not.

    The mac is compared in constant time; a token of another game is refused even if valid.
    `load(seat_id)`: the seat with its game, or None (a reader may read more in the same query).
    """
    seat_id, generation = signed_parts(token)
    seat = load(seat_id)
    if seat is None:
        raise TokenProblem("unknown", gettext_noop("This seat token belongs to no seat here."))
    if generation != seat.token_generation:
        raise TokenProblem(
            "revoked", gettext_noop("This seat token was revoked: the seat has a new player or a new address.")
        )
    if game_id is not None and seat.game_id != game_id:
        raise TokenProblem("other_game", gettext_noop("This seat token belongs to another game."))
    return seat


def signed_parts(token: str) -> tuple[int, int]:
    """(seat id, generation) of a token whose MAC is ours; TokenProblem (malformed, forged) if
    not. Needs no database: the SMTP listener asks it at RCPT time."""
    match = TOKEN_RE.match((token or "").strip().lower())
    if not match:
        raise TokenProblem("malformed", gettext_noop("This address or link does not carry a valid seat token."))
    seat_id, generation, mac = int(match.group(1)), int(match.group(2)), match.group(3)
    if not signing.verify(_signed(seat_id, generation), mac, MAC_LENGTH):
        raise TokenProblem("forged", gettext_noop("This seat token is not one we issued."))
    return seat_id, generation


def token_from_address(address: str) -> str | None:
    """The token in play+TOKEN@domain (any case), or None."""
    local = (address or "").split("@", 1)[0].strip().strip("<>").lower()
    if "+" not in local:
        return None
    return local.split("+", 1)[1] or None
