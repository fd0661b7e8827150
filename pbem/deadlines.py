"""Timers run by Celery beat: reminders before a deadline, the timeout policy at it, digests.

Each run looks at the read model (Game.deadlines) and is safe to repeat or to run in two
processes at once: timeouts go through timeout_seat (which re-checks the deadline
inside its transaction), reminders and digests are outbox rows with a unique dedupe key.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from django.conf import settings
from django.db import IntegrityError, models, transaction
from django.utils import timezone

from . import desk, outbox
from .models import (
    TURN_NOTICE_KINDS,
    AbsencePolicy,
    Event,
    Game,
    GameStatus,
    Notice,
    NoticePreference,
    NoticeStatus,
    Seat,
)
from .readmodels import awaited_seats
from .runner import SYSTEM, ServiceError, Work, emit_game_events, run

log = logging.getLogger(__name__)


def run_deadlines(now: datetime | None = None) -> dict:
    """Times out the seats whose deadline passed; reminds those whose reminder is due; gives the
    clock back to seats held (their notices bounce) beyond their absence allowance."""
    now = now or timezone.now()
    counts = {"timed_out": 0, "reported": 0, "reminded": 0, "released": desk.release_exhausted_holds(now)}
    games = Game.objects.filter(status=GameStatus.RUNNING).exclude(deadlines={}).values_list(
        "id", "deadlines", "deadline_seconds")
    for game_id, deadlines, period in games.iterator():
        for seat_key, iso in sorted((deadlines or {}).items()):
            deadline = datetime.fromisoformat(iso)
            if deadline <= now:
                if _reported(game_id, int(seat_key), iso):
                    continue  # the Master of Seals was told of this very deadline already
                try:
                    verdict = timeout_seat(game_id, int(seat_key), now)
                except ServiceError:
                    log.warning("timeout of game %s seat %s failed", game_id, seat_key, exc_info=True)
                    continue
                if verdict != "not_due":
                    counts["reported" if verdict == "reported" else "timed_out"] += 1
            elif remind(game_id, int(seat_key), iso, deadline, period, now):
                counts["reminded"] += 1
    return counts


def timeout_seat(game_id: int, seat: int, now: datetime | None = None) -> str:
    """At a deadline: the rules' minimal action (a pass where the rules allow), else tell the
    Master of Seals. Once the seat has missed `standin_after` deadlines in a row, the table's
    absence policy decides: the stand-in takes the seat over (and moves at once), or the Master
    of Seals is told instead of passing again. Returns "passed", "standin", "reported" or
    "not_due"."""
    now = now or timezone.now()
    verdict = {"value": "not_due"}

    def body(work: Work):
        deadline = (work.game.get("deadlines") or {}).get(str(seat))
        if seat not in awaited_seats(work.spec, work.state) or not deadline or datetime.fromisoformat(deadline) > now:
            return
        if _notice_unsent(work.loaded.game_id, work.seats[seat]["id"]):
            return  # the seat has not been told yet (the mail server is down): its time waits
        misses = _misses_in_a_row(work.loaded.game_id, seat) + 1
        policy = work.game["absence_policy"]
        command = work.spec.timeout(work.state["game"], seat)
        free = seat not in work.state["meta"].get("standins", ())
        gone = free and misses >= work.game["standin_after"]
        # Where the rules give no minimal action, nothing but the stand-in moves the game on:
        # a table that chose it gets it at the first missed deadline.
        if policy == AbsencePolicy.STANDIN and free and (gone or command is None):
            _seat_standin(work, seat, deadline, misses)
            verdict["value"] = "standin"
            return
        if command is None or (gone and policy == AbsencePolicy.MASTER):
            if work.state["meta"].get("overdue", {}).get(str(seat)) == deadline:
                return  # the Master of Seals was already told about this deadline
            work.platform("DeadlineMissed", {"seat": seat, "deadline": deadline})
            work.notices.append({"seat_id": None, "kind": "overdue", "version": work.loaded.version + 1,
                                 "to_email": "", "context": {"seat": seat}})
            verdict["value"] = "reported"
            return
        described = work.spec.describe(command)
        work.platform("TimedOut", {"seat": seat, "deadline": deadline, "command": described})
        rng = work.rng()
        events = work.spec.decide(work.state["game"], seat, command, rng)
        emit_game_events(work, events, rng)
        # Still awaited (a turn of several steps): the seat is told and gets a whole period
        # again, so the timer never plays for it twice without a notice in between.
        work.fresh_turn.add(seat)
        work.notices.append({"seat_id": None, "kind": "timedout", "version": work.loaded.version + len(work.events),
                             "to_email": "", "context": {"seat": seat, "command": described,
                                                         "misses": _misses_in_a_row(work.loaded.game_id, seat) + 1}})
        verdict["value"] = "passed"

    run(game_id, SYSTEM, body)
    return verdict["value"]


def _seat_standin(work: Work, seat: int, deadline: str, misses: int) -> None:
    """The player seems gone: the stand-in plays the seat from now on (its move follows at once,
    as its own actor); the player and the Master of Seals are told."""
    reason = f"missed {misses} deadlines in a row" if misses > 1 else "missed a deadline where the rules allow no pass"
    work.platform("TimedOut", {"seat": seat, "deadline": deadline, "command": "", "standin": True})
    work.platform("StandInSeated", {"seat": seat, "reason": reason})
    info = work.seats[seat]
    version = work.loaded.version + len(work.events)
    if info["email"]:
        work.notices.append({"seat_id": info["id"], "kind": "standin", "version": version,
                             "to_email": info["email"], "context": {"reason": reason}})
    work.notices.append({"seat_id": None, "kind": "timedout", "version": version, "to_email": "",
                         "context": {"seat": seat, "command": "the stand-in takes the seat over", "misses": misses}})


def _notice_unsent(game_id: int, seat_id: int) -> bool:
    return Notice.objects.filter(game_id=game_id, seat_id=seat_id, kind__in=TURN_NOTICE_KINDS,
                                 status__in=(NoticeStatus.PENDING, NoticeStatus.SENDING)).exists()


def _misses_in_a_row(game_id: int, seat: int) -> int:
    """How many deadlines this seat has missed since it last acted itself."""
    misses = 0
    rows = (Event.objects.filter(game_id=game_id).filter(models.Q(actor_kind="seat", actor_seat=seat) |
                                                         models.Q(type="pbem.TimedOut", payload__seat=seat))
            .order_by("-seq").values_list("type", flat=True))
    for etype in rows.iterator(chunk_size=50):
        if etype != "pbem.TimedOut":
            break
        misses += 1
    return misses


def _reported(game_id: int, seat: int, iso: str) -> bool:
    return Event.objects.filter(game_id=game_id, type="pbem.DeadlineMissed", payload__seat=seat,
                                payload__deadline=iso).exists()


def reminder_marks(deadline: datetime, period: int) -> list[tuple[str, datetime]]:
    """(name, when) of each reminder before `deadline`, earliest first."""
    start = deadline - timedelta(seconds=period)
    marks = []
    if settings.PBEM_REMINDER_HALF_TIME:
        marks.append(("half", start + (deadline - start) / 2))
    for before in settings.PBEM_REMINDER_HOURS_BEFORE:
        at = deadline - timedelta(hours=before)
        if at > start:
            marks.append((f"{before}h", at))
    return sorted(marks, key=lambda m: m[1])


def remind(game_id: int, seat: int, iso: str, deadline: datetime, period: int, now: datetime) -> bool:
    """Queues the latest reminder now due for this deadline, once (a missed earlier one is skipped)."""
    passed = [(name, at) for name, at in reminder_marks(deadline, period) if at <= now]
    if not passed:
        return False
    name, _at = passed[-1]
    info = Seat.objects.filter(game_id=game_id, number=seat).values("id", "email").first()
    if info is None:
        return False
    version = Game.objects.values_list("version", flat=True).get(pk=game_id)
    return _queue_once(f"reminder:{game_id}:{seat}:{iso}:{name}", game_id=game_id, seat_id=info["id"],
                       kind="reminder", version=version, to_email=info["email"],
                       context={"mark": name, "deadline": iso})


def send_digests(now: datetime | None = None) -> int:
    """Once a day: news since their last notice to every seat that asked for a digest."""
    now = now or timezone.now()
    if now.hour < settings.PBEM_DIGEST_HOUR:
        return 0
    queued = 0
    seats = Seat.objects.filter(notice_preference=NoticePreference.DIGEST,
                                game__status__in=[GameStatus.RUNNING, GameStatus.PAUSED]).select_related("game")
    for seat in seats.iterator():
        game = seat.game
        if game.version <= seat.last_notice_version:
            continue
        news = Event.objects.filter(game=game, seq__gt=seat.last_notice_version).exclude(actor_seat=seat.number)
        if not news.exists():
            continue
        queued += _queue_once(f"digest:{seat.pk}:{now.date().isoformat()}", game_id=game.pk, seat_id=seat.pk,
                              kind="digest", version=game.version, to_email=seat.email)
    return queued


def _queue_once(key: str, **fields) -> bool:
    try:
        with transaction.atomic():
            Notice.objects.create(dedupe_key=key, **fields)
            outbox.dispatch_on_commit(fields.get("game_id"))
    except IntegrityError:
        return False  # another run queued it already
    return True
