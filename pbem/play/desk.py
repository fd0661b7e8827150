"""The Master of Seals' actions on a game: pause, resume, abandon, deadlines, replacing a player,
score corrections, rewinds, reminders. Each is one event with its actor and reason, appended
through `runner.run` like every other write."""

from __future__ import annotations

import math
from datetime import datetime, timedelta

from django.contrib.auth import get_user_model
from django.utils import timezone
from django.utils.translation import gettext_noop

from pbem.log import clocks, eventlog
from pbem.models import Event, Seat, duration_text
from pbem.play.commands import rebuild_after_undo
from pbem.play.runner import (
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
        remaining = {seat: _seconds_until(iso, now) for seat, iso in (work.game.get("deadlines") or {}).items()}
        for seat in work.game.get("awaited") or []:
            hold = open_hold(work.loaded.game_id, seat) if str(seat) not in remaining else None
            if hold is not None:  # a held seat keeps, at the resume, the time it had when held
                remaining[str(seat)] = hold["remaining"]
        work.platform("Paused", {"reason": need_reason(reason), "remaining": remaining})

    return run(game_id, actor, body)


def resume_game(game_id: int, actor: Actor, reason: str) -> Outcome:
    def body(work: Work):
        if not work.state["meta"]["paused"]:
            raise ServiceError("The game is not paused.", "not_paused")
        paused = (
            Event.objects.filter(game_id=work.loaded.game_id, type="pbem.Paused")
            .order_by("-seq")
            .values_list("payload", flat=True)
            .first()
        ) or {}
        now = timezone.now()
        work.deadline_overrides = {
            seat: (now + timedelta(seconds=left)).isoformat() for seat, left in (paused.get("remaining") or {}).items()
        }
        work.clock_resumed = dict(paused.get("remaining") or {})
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
    """A notice to this seat bounced: its deadline is held, keeping the time that remained, until
    a notice gets through (`rearm_deadline`) or the seat's absence allowance is used up
    (the deadline timer, `deadlines.run_deadlines`); the Master of Seals is told. The time held counts against the
    allowance, so a player cannot stall the table by making their mail bounce. A seat with no
    allowance left is not held at all: its clock keeps running."""

    def body(work: Work):
        now = timezone.now()
        deadlines = dict(work.game.get("deadlines") or {})
        payload: dict = {"seat": seat, "reason": reason[:300]}
        left = _allowance_left(work, seat)
        running = deadlines.get(str(seat))
        if running is not None and left > 0:
            del deadlines[str(seat)]
            work.game["deadlines"] = deadlines
            payload.update(remaining=_seconds_until(running, now), held_at=now.isoformat())
        # The diagnostic may quote the player's address: the seats see only that a notice bounced.
        work.platform("NoticeBounced", payload, visible_to=[], public={"seat": seat})
        work.notices.append(
            {
                "seat_id": None,
                "kind": "bounced",
                "version": work.loaded.version + 1,
                "to_email": "",
                "context": {
                    "seat": seat,
                    "reason": reason[:300],
                    "held": "remaining" in payload,
                    "remaining": duration_text(payload.get("remaining", 0)),
                    "allowance_left": left,
                    "running": running is not None,
                },
            }
        )

    return run(game_id, SYSTEM, body)


def rearm_deadline(
    game_id: int,
    seat: int,
    reason: str = "a notice reached the player again",
    tell_master: bool = False,
    now: datetime | None = None,
) -> None:
    """Ends the hold of a seat that is awaited with no deadline: its clock runs again with the
    time that remained when the hold began (a whole period only if no hold is on record), and the
    days held, rounded up, are taken from its absence allowance."""

    def body(work: Work):
        deadlines = dict(work.game.get("deadlines") or {})
        if seat not in (work.game.get("awaited") or []) or str(seat) in deadlines:
            return
        at = now or timezone.now()
        hold = open_hold(work.loaded.game_id, seat)
        remaining = hold["remaining"] if hold else work.game["deadline_seconds"]
        held = (at - datetime.fromisoformat(hold["held_at"])).total_seconds() if hold else 0
        charged = min(_allowance_left(work, seat), math.ceil(held / 86400))  # whole days, rounded up
        info = work.seats[seat]
        used = info["away_days_used"] + charged
        work.later(lambda: Seat.objects.filter(pk=info["id"]).update(away_days_used=used))
        info["away_days_used"] = used
        until = (at + timedelta(seconds=remaining)).isoformat() if hold else deadline_for(work, seat, at)
        work.platform(
            "DeadlineExtended",
            {
                "seat": seat,
                "until": until,
                "reason": reason,
                "remaining": remaining,
                "held_seconds": int(held),
                "days_charged": charged,
            },
        )
        deadlines[str(seat)] = until
        work.game["deadlines"] = deadlines
        if tell_master:
            work.notices.append(
                {
                    "seat_id": None,
                    "kind": "holdended",
                    "version": work.loaded.version + 1,
                    "to_email": "",
                    "context": {"seat": seat, "reason": reason, "remaining": duration_text(remaining)},
                }
            )

    run(game_id, SYSTEM, body)


def open_hold(game_id: int, seat: int) -> dict | None:
    """The NoticeBounced payload that holds this seat's deadline now, if any: the newest event
    that began or ended a hold of the seat, when it is a beginning."""
    rows = (
        Event.objects.filter(
            game_id=game_id, type__in=("pbem.NoticeBounced", "pbem.DeadlineExtended"), payload__seat=seat
        )
        .order_by("-seq")
        .values_list("type", "payload")
    )
    for etype, payload in rows.iterator(chunk_size=20):
        if etype == "pbem.NoticeBounced" and "remaining" in payload:
            return payload
        if etype == "pbem.DeadlineExtended":
            return None
    return None


def _allowance_left(work: Work, seat: int) -> int:
    return max(0, work.game["away_allowance_days"] - work.seats[seat]["away_days_used"])


def _seconds_until(iso: str, now: datetime) -> int:
    return max(0, int((datetime.fromisoformat(iso) - now).total_seconds()))


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
        work.notices.append(
            {"seat_id": info["id"], "kind": "invitation", "version": work.loaded.version + 1, "to_email": info["email"]}
        )

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
            work.notices.append(
                {
                    "seat_id": info["id"],
                    "kind": "standin",
                    "version": work.loaded.version + 1,
                    "to_email": info["email"],
                    "context": {"reason": gettext_noop("been handed to the stand-in by the Master of Seals")},
                }
            )

    return run(game_id, actor, body)


def restart_deadline(game_id: int, seat: int, reason: str) -> None:
    """The seat's turn notice reached it only late (the mail server was down): its deadline runs
    a whole period from now, so the delay is not taken from the player's time."""

    def body(work: Work):
        deadlines = dict(work.game.get("deadlines") or {})
        if seat not in (work.game.get("awaited") or []) or str(seat) not in deadlines:
            return
        if "clock" in work.state["meta"]:
            _forgive_late_notice(work, seat, reason)
            return
        until = deadline_for(work, seat, timezone.now())
        if until <= deadlines[str(seat)]:
            return
        work.platform("DeadlineExtended", {"seat": seat, "until": until, "reason": reason})
        deadlines[str(seat)] = until
        work.game["deadlines"] = deadlines

    run(game_id, SYSTEM, body)


def forgive_outage(game_id: int, outage: int, started: datetime, seconds: int, reason: str) -> bool:
    """The service was down from `started` for `seconds` (pbem/ops/outages.py): every deadline of
    the game still running when it began moves by as much, by one `pbem.OutageForgiven` event
    naming the outage. A game that has the outage's event already gets nothing more. Returns
    whether the game was extended."""
    done = {"value": False}

    def body(work: Work):
        done["value"] = False
        if Event.objects.filter(game_id=game_id, type="pbem.OutageForgiven", payload__outage=outage).exists():
            return  # forgiven once already
        deadlines = dict(work.game.get("deadlines") or {})
        until = {
            seat: (datetime.fromisoformat(iso) + timedelta(seconds=seconds)).isoformat()
            for seat, iso in deadlines.items()
            if datetime.fromisoformat(iso) > started
        }
        if not until or seconds <= 0:
            return
        work.platform("OutageForgiven", {"seconds": seconds, "until": until, "reason": reason, "outage": outage})
        work.game["deadlines"] = {**deadlines, **until}
        done["value"] = True

    run(game_id, SYSTEM, body)
    return done["value"]


def _forgive_late_notice(work: Work, seat: int, reason: str) -> None:
    """A clocked game: a turn whose notice went out after more than half its time had run starts
    again from now, its deadline as much later, and its bank not charged for the wait."""
    state = clocks.seat_state(work.state["meta"], seat)
    if not state.get("start") or not state.get("deadline"):
        return
    now = timezone.now()
    start, deadline = datetime.fromisoformat(state["start"]), datetime.fromisoformat(state["deadline"])
    delay = int((now - start).total_seconds())
    if delay * 2 <= (deadline - start).total_seconds():
        return  # not late: the turn keeps its time
    until = (deadline + timedelta(seconds=delay)).isoformat()
    work.platform("OutageForgiven", {"seconds": delay, "until": {str(seat): until}, "reason": reason})
    work.game["deadlines"] = {**(work.game.get("deadlines") or {}), str(seat): until}


def replace_player(game_id: int, seat: int, name: str, email: str, actor: Actor, reason: str) -> Outcome:
    """A new player takes the seat: new email, new token; the old token stops working at once."""

    def body(work: Work):
        check_seat(work, seat)
        _not_a_master(work.loaded.game_id, email, actor)
        info = work.seats[seat]
        old_name, old_email = info["name"], info["email"]
        # The newcomer starts with no absence of the old player's: a fresh allowance.
        work.later(
            lambda: Seat.objects.filter(pk=info["id"]).update(
                name=name, email=email, token_generation=_next_generation(info["id"]), away_until=None, away_days_used=0
            )
        )
        info.update(name=name, email=email, away_until=None, away_days_used=0)
        work.platform(
            "PlayerReplaced", {"seat": seat, "name": name, "replaced": old_name, "reason": need_reason(reason)}
        )
        version = work.loaded.version + len(work.events)
        # The one who leaves hears it at the old address (the seat's own address is the new one).
        work.notices.append(
            {
                "seat_id": None,
                "kind": "replaced",
                "version": version,
                "to_email": old_email,
                "context": {"seat": seat, "name": old_name, "successor": name},
            }
        )
        work.notices.append(
            {
                "seat_id": info["id"],
                "kind": "welcome",
                "version": version,
                "to_email": email,
                "context": {"predecessor": old_name},
            }
        )

    return run(game_id, actor, body)


def _not_a_master(game_id: int, email: str, actor: Actor) -> None:
    """The desk shows a running game's hidden information (every payload, every draw): nobody who
    can see it may take a seat, neither a Master of Seals of the game nor the one acting (a
    superuser sees every game). The same rule as assigning Masters on the desk."""
    address = (email or "").strip().lower()
    masters = get_user_model().objects.filter(mastered_games=game_id)
    if actor.user_id is not None:
        masters = masters | get_user_model().objects.filter(pk=actor.user_id)
    if any(address == (user.email or "").strip().lower() for user in masters.distinct()):
        raise ServiceError(
            f"{email} belongs to a Master of Seals who can see this game's hidden information on "
            "the desk: choose a player who does not run the game.",
            "master_seat",
        )


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
        work.notices.append(
            {
                "seat_id": info["id"],
                "kind": "correction",
                "version": work.loaded.version + 1,
                "to_email": info["email"],
                "context": {"points": int(points), "reason": reason.strip()},
            }
        )

    return run(game_id, actor, body)


def rewind(game_id: int, to_seq: int, actor: Actor, reason: str) -> Outcome:
    """Corrects a mistaken ruling: every game event after `to_seq` is undone by one event
    (nothing is deleted), and play resumes from the state at `to_seq`."""

    def body(work: Work):
        need_reason(reason)
        undone = eventlog.undone_seqs(work.loaded.game_id)
        seqs = list(
            Event.objects.filter(game_id=work.loaded.game_id, seq__gt=to_seq)
            .exclude(type__startswith="pbem.")
            .values_list("seq", flat=True)
        )
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
            work.notices.append(
                {
                    "seat_id": info["id"],
                    "kind": "reminder",
                    "version": work.loaded.version + 1,
                    "to_email": info["email"],
                }
            )

    return run(game_id, actor, body)
