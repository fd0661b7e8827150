"""What every reader shares: a stored message applied as a seat's submission through
`services.submit`, and its result written back onto the row (status, outcome, version) where the
web page and the mail answer read it."""

from __future__ import annotations

import json

from django.utils.translation import gettext as _

from pbem.models import Game, InboundMessage, InboundStatus, Notice, Seat
from pbem.play import languages, outbox, services


class TryLater(Exception):
    """Processing should be retried later (the game was busy): the row stays "received"."""


def read_web(message: InboundMessage) -> Notice | None:
    """The web form's and the API's reader: the stored JSON names the seat and holds the lines.
    Returns the notice to write with the row's end state, if any: a move made from a notice's
    one-tap link ("by_link") that leaves the turn with its player brings the next turn notice,
    with the next links (the page the player lands on shows the moves too, but a player who
    plays by mail has only the mail)."""
    body = json.loads(bytes(message.raw).decode())
    seat = Seat.objects.filter(pk=body["seat_id"]).first()
    if seat is None or seat.token_generation != body.get("generation", seat.token_generation):
        finish(
            message,
            InboundStatus.REFUSED,
            "revoked",
            _("This seat has a new player since the page was opened: nothing was applied."),
        )
        return None
    with languages.reading(languages.of_seat(seat)):  # the outcome the page shows, in the seat's language
        outcome = apply(message, seat, body.get("text", ""), body.get("expected_version"))
    if body.get("by_link") and isinstance(outcome, services.Outcome) and outcome.events:
        return _next_turn_notice(seat, outcome.version)
    return None


def _next_turn_notice(seat: Seat, version: int) -> Notice | None:
    awaited = Game.objects.filter(pk=seat.game_id).values_list("awaited", flat=True).first() or []
    if seat.number not in awaited or not seat.email:
        return None
    if Notice.objects.filter(seat=seat, version=version).exclude(kind="answer").exists():
        return None  # the move itself wrote the seat a notice (a new phase that awaits it)
    outbox.dispatch_on_commit(seat.game_id)
    return Notice(game_id=seat.game_id, seat=seat, kind="turn", version=version, to_email=seat.email)


def apply(message: InboundMessage, seat: Seat, text: str, expected_version: int | None):
    """Runs the lines through `services.submit`; records the result on `message`.

    Returns the Outcome, or the ServiceError that refused it."""
    message.game_id, message.seat = seat.game_id, seat
    try:
        outcome = services.submit(
            seat.game_id, seat.number, text, expected_version=expected_version, causation_id=message.message_id[:200]
        )
    except services.ServiceError as exc:
        if exc.code == "busy":
            raise TryLater(str(exc)) from exc
        finish(message, InboundStatus.REFUSED, exc.code, describe_refusal(exc))
        return exc
    if outcome.duplicate:
        finish(
            message,
            InboundStatus.APPLIED,
            "duplicate",
            f"This submission had already been applied, at version {outcome.version}.",
            outcome.version,
        )
    elif outcome.events:
        finish(message, InboundStatus.APPLIED, "applied", describe_outcome(outcome), outcome.version)
    else:
        finish(message, InboundStatus.ANSWERED, "answered", describe_outcome(outcome), outcome.version)
    return outcome


def finish(message: InboundMessage, status: str, code: str, text: str, version: int | None = None) -> None:
    message.status = status
    message.error_code = code[:20]
    message.outcome = text
    message.result_version = version


def describe_outcome(outcome: services.Outcome) -> str:
    parts = []
    if outcome.applied:
        parts.append(_("Applied:") + "\n" + "\n".join(f"  {line}" for line in outcome.applied))
    parts.extend(outcome.answers)
    return "\n\n".join(parts) or _("Nothing to apply.")


def describe_refusal(exc: services.ServiceError, with_legal: bool = True) -> str:
    if isinstance(exc, services.CommandRejected):
        text = ""
        if exc.line:
            text = (
                (_("Line %(number)s:") % {"number": exc.line_number} + f" {exc.line}\n")
                if exc.line_number
                else f"{exc.line}\n"
            )
        text += _("Refused:") + f" {exc}\n" + _("Nothing in your message was applied.")
        if exc.legal and with_legal:
            text += legal_list() + "\n" + "\n".join(f"  {c}" for c in exc.legal)
        return text
    return f"{exc}\n" + _("Nothing was applied.")


def legal_list() -> str:
    """Where a refusal starts listing the legal moves (the seat page shows the text before it)."""
    return "\n\n" + _("What you may do now:")
