"""The Master of Seals' actions on a game: pause, resume, abandon, deadlines, replacing a player,
score corrections, rewinds, reminders. Each is one event with its actor and reason, appended
through `runner.run` like every other write."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.utils import timezone

from . import eventlog
from .commands import rebuild_after_undo
from .models import Event, Seat
from .runner import (
    SYSTEM,
    Actor,
    Outcome,
    ServiceError,
    Work,
    check_seat,
    deadline_for,
    need_reason,
    require_running,
    run,
)


def _admin_action(game_id: int, actor: Actor, kind: str, payload: dict, check=None, updates=None) -> Outcome:
    def body(work: Work):
        if check:
            check(work)
        work.platform(kind, payload)
        if updates:
            work.extra_updates.update(updates(work))

    return run(game_id, actor, body)


def pause_game(game_id: int, actor: Actor, reason: str) -> Outcome:
    """Stops every clock: the pause records each awaited seat's remaining time (extensions
    included), and the resume gives exactly that back."""

    def body(work: Work):
        require_running(work)
        now = timezone.now()
        remaining = {seat: max(0, int((datetime.fromisoformat(iso) - now).total_seconds()))
                     for seat, iso in (work.game.get("deadlines") or {}).items()}
        work.platform("Paused", {"reason": need_reason(reason), "remaining": remaining})

    return run(game_id, actor, body)


def resume_game(game_id: int, actor: Actor, reason: str) -> Outcome:
    def body(work: Work):
        if not work.state["meta"]["paused"]:
            raise ServiceError("The game is not paused.", "not_paused")
        paused = (Event.objects.filter(game_id=work.loaded.game_id, type="pbem.Paused").order_by("-seq")
                  .values_list("payload", flat=True).first()) or {}
        now = timezone.now()
        work.deadline_overrides = {seat: (now + timedelta(seconds=left)).isoformat()
                                   for seat, left in (paused.get("remaining") or {}).items()}
        work.platform("Resumed", {"reason": need_reason(reason)})

    return run(game_id, actor, body)


def abandon_game(game_id: int, actor: Actor, reason: str) -> Outcome:
    def check(work):
        meta = work.state["meta"]
        if meta["ended"] or meta["abandoned"]:
            raise ServiceError("The game is already over.", "not_running")

    def body(work: Work):
        check(work)
        work.platform("Abandoned", {"reason": need_reason(reason)})
        work.platform("SeedRevealed", {"seed": work.game["seed"]}, reveals=True)

    return run(game_id, actor, body)


def extend_deadline(game_id: int, seat: int, until: datetime, actor: Actor, reason: str) -> Outcome:
    def body(work: Work):
        check_seat(work, seat)
        if seat not in (work.game.get("awaited") or []):
            raise ServiceError("That seat is not awaited, so it has no deadline.", "not_awaited")
        deadlines = dict(work.game.get("deadlines") or {})
        deadlines[str(seat)] = until.isoformat()
        work.game["deadlines"] = deadlines
        work.platform("DeadlineExtended", {"seat": seat, "until": until.isoformat(), "reason": need_reason(reason)})

    return run(game_id, actor, body)


def suspend_deadline(game_id: int, seat: int, reason: str) -> Outcome:
    """A notice to this seat bounced: its deadline does not run down until one gets through."""

    def body(work: Work):
        deadlines = dict(work.game.get("deadlines") or {})
        deadlines.pop(str(seat), None)
        work.game["deadlines"] = deadlines
        work.platform("NoticeBounced", {"seat": seat, "reason": reason[:300]})
        work.notices.append({"seat_id": None, "kind": "bounced", "version": work.loaded.version + 1,
                             "to_email": "", "context": {"seat": seat, "reason": reason[:300]}})

    return run(game_id, SYSTEM, body)


def rearm_deadline(game_id: int, seat: int) -> None:
    """A notice reached this seat again: its deadline runs from now (if it is awaited)."""

    def body(work: Work):
        deadlines = dict(work.game.get("deadlines") or {})
        if seat in (work.game.get("awaited") or []) and str(seat) not in deadlines:
            work.platform("DeadlineExtended", {"seat": seat, "until": deadline_for(work, seat, timezone.now()),
                                               "reason": "a notice reached the player again"})
            deadlines[str(seat)] = deadline_for(work, seat, timezone.now())
            work.game["deadlines"] = deadlines

    run(game_id, SYSTEM, body)


def resend_invitation(game_id: int, seat: int, actor: Actor, reason: str) -> Outcome:
    """Another invitation for a seat that has not accepted yet (the first one bounced, or was
    lost in a spam folder): a new outbox row, recorded as an event with its reason."""

    def body(work: Work):
        check_seat(work, seat)
        if work.state["meta"]["started"]:
            raise ServiceError("The game has started: there is no invitation to send.", "already_started")
        info = work.seats[seat]
        if Seat.objects.filter(pk=info["id"], invite_accepted=True).exists():
            raise ServiceError(f"{info['name']} has already accepted.", "already_accepted")
        work.platform("InvitationResent", {"seat": seat, "reason": need_reason(reason)})
        work.notices.append({"seat_id": info["id"], "kind": "invitation", "version": work.loaded.version + 1,
                             "to_email": info["email"]})

    return run(game_id, actor, body)


def seat_standin(game_id: int, seat: int, actor: Actor, reason: str) -> Outcome:
    """The Master of Seals hands a seat to the stand-in (its player asked for it, or is gone);
    the player can take it back with one reply ('back')."""

    def body(work: Work):
        check_seat(work, seat)
        require_running(work)
        if seat in work.state["meta"].get("standins", ()):
            raise ServiceError("The stand-in already plays that seat.", "no_change")
        work.platform("StandInSeated", {"seat": seat, "reason": need_reason(reason)})
        info = work.seats[seat]
        if info["email"]:
            work.notices.append({"seat_id": info["id"], "kind": "standin", "version": work.loaded.version + 1,
                                 "to_email": info["email"],
                                 "context": {"reason": "been handed to the stand-in by the Master of Seals"}})

    return run(game_id, actor, body)


def restart_deadline(game_id: int, seat: int, reason: str) -> None:
    """The seat's turn notice reached it only late (the mail server was down): its deadline runs
    a whole period from now, so the delay is not taken from the player's time."""

    def body(work: Work):
        deadlines = dict(work.game.get("deadlines") or {})
        if seat not in (work.game.get("awaited") or []) or str(seat) not in deadlines:
            return
        until = deadline_for(work, seat, timezone.now())
        if until <= deadlines[str(seat)]:
            return
        work.platform("DeadlineExtended", {"seat": seat, "until": until, "reason": reason})
        deadlines[str(seat)] = until
        work.game["deadlines"] = deadlines

    run(game_id, SYSTEM, body)


def replace_player(game_id: int, seat: int, name: str, email: str, actor: Actor, reason: str) -> Outcome:
    """A new player takes the seat: new email, new token; the old token stops working at once."""

    def body(work: Work):
        check_seat(work, seat)
        info = work.seats[seat]
        old_name, old_email = info["name"], info["email"]
        # The newcomer starts with no absence of the old player's: a fresh allowance.
        work.later(lambda: Seat.objects.filter(pk=info["id"]).update(
            name=name, email=email, token_generation=_next_generation(info["id"]), away_until=None,
            away_days_used=0))
        info.update(name=name, email=email, away_until=None, away_days_used=0)
        work.platform("PlayerReplaced", {"seat": seat, "name": name, "replaced": old_name,
                                         "reason": need_reason(reason)})
        version = work.loaded.version + len(work.events)
        # The one who leaves hears it at the old address (the seat's own address is the new one).
        work.notices.append({"seat_id": None, "kind": "replaced", "version": version, "to_email": old_email,
                             "context": {"seat": seat, "name": old_name, "successor": name}})
        work.notices.append({"seat_id": info["id"], "kind": "welcome", "version": version, "to_email": email,
                             "context": {"predecessor": old_name}})

    return run(game_id, actor, body)


def _next_generation(seat_id: int) -> int:
    return Seat.objects.values_list("token_generation", flat=True).get(pk=seat_id) + 1


def correct_score(game_id: int, seat: int, points: int, actor: Actor, reason: str) -> Outcome:
    """A compensating event: the score sheets and everyone's history show it with its reason."""

    def body(work: Work):
        check_seat(work, seat)
        if not points:
            raise ServiceError("A correction of 0 points changes nothing.", "no_change")
        work.platform("ScoreCorrected", {"seat": seat, "points": int(points), "reason": need_reason(reason)})
        info = work.seats[seat]
        work.notices.append({"seat_id": info["id"], "kind": "correction", "version": work.loaded.version + 1,
                             "to_email": info["email"], "context": {"points": int(points), "reason": reason.strip()}})

    return run(game_id, actor, body)


def rewind(game_id: int, to_seq: int, actor: Actor, reason: str) -> Outcome:
    """Corrects a mistaken ruling: every game event after `to_seq` is undone by one event
    (nothing is deleted), and play resumes from the state at `to_seq`."""

    def body(work: Work):
        need_reason(reason)
        undone = eventlog.undone_seqs(work.loaded.game_id)
        seqs = list(Event.objects.filter(game_id=work.loaded.game_id, seq__gt=to_seq)
                    .exclude(type__startswith="pbem.").values_list("seq", flat=True))
        seqs = [s for s in seqs if s not in undone]
        if not seqs:
            raise ServiceError(f"No game event after #{to_seq} to take back.", "no_change")
        if work.state["meta"]["ended"]:
            raise ServiceError("The game is over and its seed revealed; it cannot be rewound.", "not_running")
        work.platform("Undone", {"seat": None, "events": seqs, "reason": reason})
        rebuild_after_undo(work, seqs)

    return run(game_id, actor, body)


def remind_now(game_id: int, actor: Actor, reason: str = "sent from the desk") -> Outcome:
    def body(work: Work):
        awaited = work.game.get("awaited") or []
        if not awaited:
            raise ServiceError("Nobody is awaited, so there is no one to remind.", "not_awaited")
        work.platform("ReminderSent", {"seats": awaited, "reason": reason})
        for seat in awaited:
            info = work.seats[seat]
            work.notices.append({"seat_id": info["id"], "kind": "reminder", "version": work.loaded.version + 1,
                                 "to_email": info["email"]})

    return run(game_id, actor, body)
