"""Timers run by Celery beat: reminders before a deadline, the timeout policy at it, digests.

The sweep reads only what is due: the timer rows (`DeadlineTimer`, one per awaited seat of a
running game, kept in step with the game row by the database) whose `due_at` has come, through
their index. It claims them under a lease (SELECT … FOR UPDATE SKIP LOCKED, then a token and
an expiry on the rows), so two sweeps in two processes share the work and never take the same
row; a sweep that dies leaves rows that come due again when the lease runs out. For each row:
at its deadline the timeout policy (timeout_seat re-checks the deadline inside its own
transaction); before it the latest reminder mark now passed, queued under the row's lock with
the mark recorded on the row (so once, by construction), and the row moved on to the next mark;
for a seat held after a bounce, the end of the hold. The timeouts of a chunk are done a group
of games at a time (_timeout_group): loaded together, checked together, appended in one
transaction (one flush of the log for the group), each append still conditional on the version
its game was loaded at, so a seat another sweep timed out meanwhile is not timed out twice.
Digests: one a day per seat, the day recorded on the seat in the transaction that queues it.
"""

from __future__ import annotations

import logging
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db import connection, models, transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_noop

from pbem.log import clocks
from pbem.log.readmodels import awaited_seats
from pbem.models import (
    TURN_NOTICE_KINDS,
    AbsencePolicy,
    DeadlineTimer,
    Event,
    Game,
    GameStatus,
    Notice,
    NoticePreference,
    NoticeStatus,
    Seat,
)
from pbem.play import desk, outbox
from pbem.play.runner import SYSTEM, ServiceError, Work, collector_held, emit_game_events, run, run_group

log = logging.getLogger(__name__)

# At most this many timer rows a run (the rest are still due at the next run).
PER_RUN = 20000
LEASE = timedelta(minutes=5)
# A held seat's row is looked at again at least this often (its allowance may be used up sooner
# by days charged elsewhere).
HOLD_RECHECK = timedelta(hours=1)


def run_deadlines(now: datetime | None = None, helpers: int | None = None) -> dict:
    """Times out the seats whose deadline passed; reminds those whose reminder is due; gives the
    clock back to seats held (their notices bounce) beyond their absence allowance.

    Rows are claimed CHUNK at a time, so sweeps running at once (in several processes) share
    the work. `helpers`: when more than a chunk is due, that many more sweeps are queued as
    tasks for the other workers (with a broker only: in-process they would just run after);
    default HELPERS."""
    now = now or timezone.now()
    helpers = HELPERS if helpers is None else helpers
    counts = {"timed_out": 0, "reported": 0, "reminded": 0, "released": 0, "vacation": 0}
    lease = secrets.token_hex(8)
    later: list[_Claimed] = []  # not done this run: due again once the run ends
    # Only the rows there when the run began: a deadline this run sets (a timeout's new turn)
    # waits for the next run, whatever `now` says.
    newest = DeadlineTimer.objects.order_by("-id").values_list("id", flat=True).first() or 0
    taken = 0
    with collector_held():  # the chunks' groups, and the stand-ins' moves they cause in-process
        while taken < PER_RUN:
            rows = claim_due(now, lease, min(CHUNK, PER_RUN - taken), newest)
            if not rows:
                break
            if not taken and len(rows) == CHUNK and helpers:
                _call_helpers(helpers)
            taken += len(rows)
            for row, verdict in _through(rows, lease, now):
                if verdict is None or verdict == "not_due":
                    later.append(row)
                elif verdict in counts:
                    counts[verdict] += 1
    for row in later:
        # An error, or a seat whose turn notice has not gone out (its time waits): next run.
        _move(row, lease, due_at=row.due_at_before)
    return counts


# Rows a sweep claims at a time; and the helper sweeps it queues when more than that is due (a
# mass timeout), each claiming its own chunks, so the workers share the work.
CHUNK = 500
HELPERS = 3
# Timeouts of this many games are written in one transaction: one flush of the log for the
# group. It bounds how long the group holds the first game's row (a player's reply to it waits
# for the group's commit: about 50-100 ms here) and what a failing game makes the group redo.
# In-process, 1,000 seats: 2.5-2.9 ms a seat by groups of 10, 1.1-1.3 by 50, 0.9-1.1 by 200.
GROUP = 50


def _through(rows: list[_Claimed], lease: str, now: datetime) -> list[tuple[_Claimed, str | None]]:
    """Each claimed row with what was done for it (None: it failed). The timeouts are done a
    group of distinct games at a time on PostgreSQL (_timeout_group): a game with several seats
    due (a phase all seats play at once) has its second seat in a second pass of groups, after
    the first pass's groups (and the stand-ins' moves they cause), as one timed out alone would
    be; reminders and holds one by one."""
    passes: list[list[_Claimed]] = []
    taken: list[set[int]] = []
    alone: list[_Claimed] = []
    batch = connection.vendor == "postgresql"
    for row in rows:
        if batch and row.deadline and datetime.fromisoformat(row.deadline) <= now:
            depth = next((n for n, games in enumerate(taken) if row.game_id not in games), len(taken))
            if depth == len(taken):
                passes.append([])
                taken.append(set())
            passes[depth].append(row)
            taken[depth].add(row.game_id)
        else:
            alone.append(row)  # a reminder or a hold
    done: list[tuple[_Claimed, str | None]] = []
    for grouped in passes:
        for start in range(0, len(grouped), GROUP):
            done += _timeout_group(grouped[start : start + GROUP], lease, now)
    done += [(row, _handle_alone(row, lease, now)) for row in alone]
    return done


def _handle_alone(row: _Claimed, lease: str, now: datetime) -> str | None:
    try:
        return _handle(row, lease, now)
    except ServiceError:
        log.warning("timer of game %s seat %s failed", row.game_id, row.seat, exc_info=True)
        return None


def _call_helpers(count: int) -> None:
    from celery import current_app

    if current_app.conf.task_always_eager:
        return
    for _ in range(count):
        try:
            outbox.queue_task("pbem.tasks.help_with_deadlines")
        except Exception:  # noqa: BLE001 - the sweep does the work alone, only slower
            log.warning("could not queue a deadline helper", exc_info=True)
            return


@dataclass(slots=True)
class _Claimed:
    """A timer row as a sweep claimed it; `due_at_before`: when it was due before the claim
    moved it a lease ahead."""

    id: int
    game_id: int
    seat: int
    deadline: str
    period: int
    reminded_at: datetime | None
    due_at_before: datetime | None


def claim_due(now: datetime, lease: str, limit: int = PER_RUN, newest: int | None = None) -> list[_Claimed]:
    """Takes the timer rows due at `now` that no other sweep holds (and, given `newest`, no
    newer row than that): their lease is set to this run's token until now + LEASE. Earliest
    first."""
    due = DeadlineTimer.objects.filter(due_at__lte=now)
    if newest is not None:
        due = due.filter(id__lte=newest)
    with transaction.atomic():
        rows = list(
            due.select_for_update(skip_locked=True)
            .order_by("due_at")
            .values("id", "game_id", "seat", "deadline", "period", "reminded_at", "due_at")[:limit]
        )
        if rows:
            DeadlineTimer.objects.filter(id__in=[r["id"] for r in rows]).update(lease=lease, due_at=now + LEASE)
    return [
        _Claimed(
            id=values["id"],
            game_id=values["game_id"],
            seat=values["seat"],
            deadline=values["deadline"],
            period=values["period"],
            reminded_at=values["reminded_at"],
            due_at_before=values["due_at"],
        )
        for values in rows
    ]


def _mine(row: _Claimed, lease: str):
    """The row as this sweep claimed it (not replaced since by a new deadline)."""
    return DeadlineTimer.objects.filter(id=row.id, lease=lease)


def _move(row: _Claimed, lease: str, **updates) -> None:
    _mine(row, lease).update(lease="", **updates)


def _handle(row: _Claimed, lease: str, now: datetime) -> str | None:
    if not row.deadline:
        return _held(row, lease, now)
    deadline = datetime.fromisoformat(row.deadline)
    if deadline <= now:
        verdict = timeout_seat(row.game_id, row.seat, now)
        if verdict == "reported":
            _move(row, lease, reported=True, due_at=None)  # told once: nothing more for this deadline
        else:
            # Passed or seated a stand-in: the seat's new deadline replaced the row already. Not
            # due (its turn notice has not gone out): its time waits (the run puts it back).
            if verdict != "not_due":
                _move(row, lease, due_at=deadline)
        return {"passed": "timed_out", "standin": "timed_out"}.get(verdict, verdict)
    marks = reminder_marks(deadline, row.period)
    passed = [at for _name, at in marks if at <= now]
    upcoming = [at for _name, at in marks if at > now]
    next_due = upcoming[0] if upcoming else deadline
    if not passed or (row.reminded_at is not None and passed[-1] <= row.reminded_at):
        _move(row, lease, due_at=next_due)
        return "waiting"
    name = [name for name, at in marks if at == passed[-1]][-1]
    return "reminded" if remind(row, lease, name, passed[-1], next_due) else "waiting"


def _held(row: _Claimed, lease: str, now: datetime) -> str:
    """A seat awaited with its deadline held (its notices bounce): its clock runs again once the
    hold has lasted its absence allowance, and the Master of Seals is told."""
    hold = desk.open_hold(row.game_id, row.seat)
    allowance = Game.objects.filter(pk=row.game_id).values_list("away_allowance_days", flat=True).first()
    used = Seat.objects.filter(game_id=row.game_id, number=row.seat).values_list("away_days_used", flat=True).first()
    if hold is None or used is None or allowance is None:
        _move(row, lease, due_at=now + HOLD_RECHECK)
        return "waiting"
    ends = datetime.fromisoformat(hold["held_at"]) + timedelta(days=max(0, allowance - used))
    if ends > now:
        _move(row, lease, due_at=min(ends, now + HOLD_RECHECK))
        return "waiting"
    desk.rearm_deadline(
        row.game_id,
        row.seat,
        gettext_noop("the absence allowance is used up while notices still bounce"),
        tell_master=True,
        now=now,
    )
    _move(row, lease, due_at=now + HOLD_RECHECK)  # still held (the rearm found nothing to do): later
    return "released"


def _timeout_group(rows: list[_Claimed], lease: str, now: datetime) -> list[tuple[_Claimed, str | None]]:
    """The timeouts of `rows` (due, one per game) written together: the games loaded in a few
    queries, the two checks answered for the group in one query each, and the appends in one
    transaction (runner.run_group: done again with a savepoint per game if one fails). A game
    the group could not do (a lost race, an error) goes through timeout_seat on its own, as
    before, and is logged there if it fails again; if the group's transaction itself fails,
    every row does. The timer rows are moved in one statement."""
    by_game = {row.game_id: row for row in rows}
    verdicts = {row.game_id: {"value": "not_due"} for row in rows}
    checks = _Checks()
    bodies = {
        row.game_id: (lambda work, row=row: _timeout(work, row.seat, now, verdicts[row.game_id], checks))
        for row in rows
    }
    try:
        done = run_group(bodies, SYSTEM, prepare=lambda works: checks.read(works, by_game))
    except Exception:  # noqa: BLE001 - nothing of the group is in: each row on its own, as before
        log.warning("a group of %d timeouts failed; doing them one by one", len(rows), exc_info=True)
        done = dict.fromkeys(by_game)
    results: list[tuple[_Claimed, str | None]] = []
    moves: list[tuple[_Claimed, datetime | None, bool]] = []
    for game_id, row in by_game.items():
        if done.get(game_id) is None:
            results.append((row, _handle_alone(row, lease, now)))
            continue
        verdict = verdicts[game_id]["value"]
        if verdict == "reported":
            moves.append((row, None, True))  # told once: nothing more for this deadline
        elif verdict != "not_due":
            moves.append((row, datetime.fromisoformat(row.deadline), False))  # replaced already, mostly
        results.append((row, {"passed": "timed_out", "standin": "timed_out"}.get(verdict, verdict)))
    _move_many(moves, lease)
    return results


def _move_many(moves: list[tuple[_Claimed, datetime | None, bool]], lease: str) -> None:
    """_move for many rows in one statement: (row, its due_at, reported)."""
    if not moves:
        return
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE pbem_deadlinetimer t SET lease = '', due_at = v.due_at, reported = t.reported OR v.reported "
            "FROM unnest(%s::bigint[], %s::timestamptz[], %s::boolean[]) AS v(id, due_at, reported) "
            "WHERE t.id = v.id AND t.lease = %s",
            [[row.id for row, _, _ in moves], [due for _, due, _ in moves], [rep for _, _, rep in moves], lease],
        )


class _Checks:
    """The two checks of a timeout (turn notice unsent, misses in a row) read for a whole group
    of games at once, from their loaded Works (each game's claimed seat, at its loaded version)."""

    def __init__(self):
        self.unsent: set[int] = set()  # seat ids
        self.misses: dict[int, int] = {}  # game id -> misses in a row so far (absent: count alone)

    def read(self, works: dict[int, Work], rows: dict[int, _Claimed]) -> None:
        seat_ids, games, seats, versions = [], [], [], []
        for game_id, work in works.items():
            seat = rows[game_id].seat
            if 0 <= seat < len(work.seats):
                seat_ids.append(work.seats[seat]["id"])
                games.append(game_id)
                seats.append(seat)
                versions.append(work.loaded.version)
        if not games:
            return
        self.unsent = set(
            Notice.objects.filter(
                game_id__in=games,
                seat_id__in=seat_ids,
                kind__in=TURN_NOTICE_KINDS,
                status__in=(NoticeStatus.PENDING, NoticeStatus.SENDING),
            ).values_list("seat_id", flat=True)
        )
        pages: dict[int, list[str]] = {game_id: [] for game_id in games}
        with connection.cursor() as cursor:
            # Each seat's newest events of its own and timeouts of it, newest first (the same
            # page _misses_in_a_row reads first), for all the group's games in one query.
            cursor.execute(
                "SELECT w.game_id, m.type FROM unnest(%s::bigint[], %s::smallint[], %s::integer[]) "
                "AS w(game_id, seat, upto) CROSS JOIN LATERAL (SELECT e.seq, e.type FROM pbem_event e "
                "WHERE e.game_id = w.game_id AND e.seq <= w.upto AND ((e.actor_kind = 'seat' AND "
                "e.actor_seat = w.seat) OR (e.type = 'pbem.TimedOut' AND e.payload -> 'seat' = to_jsonb(w.seat))) "
                "ORDER BY e.seq DESC LIMIT %s) m ORDER BY w.game_id, m.seq DESC",
                [games, seats, versions, MISSES_PAGE],
            )
            for game_id, etype in cursor.fetchall():
                pages[game_id].append(etype)
        for game_id, page in pages.items():
            misses = 0
            for etype in page:
                if etype != "pbem.TimedOut":
                    break
                misses += 1
            else:
                if len(page) == MISSES_PAGE:
                    continue  # a longer run of misses than a page: counted on its own
            self.misses[game_id] = misses


def timeout_seat(game_id: int, seat: int, now: datetime | None = None) -> str:
    """At a deadline: the rules' minimal action (a pass where the rules allow), else tell the
    Master of Seals. Once the seat has missed `standin_after` deadlines in a row, the table's
    absence policy decides: the stand-in takes the seat over (and moves at once), or the Master
    of Seals is told instead of passing again. Returns "passed", "standin", "reported" or
    "not_due"."""
    now = now or timezone.now()
    verdict = {"value": "not_due"}
    run(game_id, SYSTEM, lambda work: _timeout(work, seat, now, verdict))
    return verdict["value"]


def _timeout(work: Work, seat: int, now: datetime, verdict: dict, checks: _Checks | None = None) -> None:
    """timeout_seat's command on a loaded game; `checks`: the group's answers, if read.
    `verdict` is set afresh each time (run() may run it again after a lost race)."""
    verdict["value"] = "not_due"
    deadline = (work.game.get("deadlines") or {}).get(str(seat))
    if seat not in awaited_seats(work.spec, work.state) or not deadline or datetime.fromisoformat(deadline) > now:
        return
    game_id = work.loaded.game_id
    seat_id = work.seats[seat]["id"]
    if (seat_id in checks.unsent) if checks is not None else _notice_unsent(game_id, seat_id):
        return  # the seat has not been told yet (the mail server is down): its time waits
    if seat not in work.state["meta"].get("standins", ()):
        # Vacation left: it switches on by itself instead of the timeout (as OGS), a day at a time.
        auto = clocks.auto_absence(work.state["meta"], seat, now)
        if auto is not None:
            until = datetime.fromisoformat(auto["until"])
            work.later(lambda: Seat.objects.filter(pk=seat_id).update(away_until=until))
            work.seats[seat]["away_until"] = until
            work.platform("Absent", auto)
            verdict["value"] = "vacation"
            return
    counted = checks.misses.get(game_id) if checks is not None else None
    misses = (_misses_in_a_row(game_id, seat) if counted is None else counted) + 1
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
        work.notices.append(
            {
                "seat_id": None,
                "kind": "overdue",
                "version": work.loaded.version + 1,
                "to_email": "",
                "context": {"seat": seat},
            }
        )
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
    work.notices.append(
        {
            "seat_id": None,
            "kind": "timedout",
            "version": work.loaded.version + len(work.events),
            "to_email": "",
            "context": {"seat": seat, "command": described, "misses": misses},
        }
    )
    verdict["value"] = "passed"


def _seat_standin(work: Work, seat: int, deadline: str, misses: int) -> None:
    """The player seems gone: the stand-in plays the seat from now on (its move follows at once,
    as its own actor); the player and the Master of Seals are told."""
    # In the log in English (the news tells it in each reader's language: selectors.reason_text).
    reason = (
        f"missed {misses} deadlines in a row"
        if misses > 1
        else gettext_noop("missed a deadline where the rules allow no pass")
    )
    work.platform("TimedOut", {"seat": seat, "deadline": deadline, "command": "", "standin": True})
    work.platform("StandInSeated", {"seat": seat, "reason": reason})
    info = work.seats[seat]
    version = work.loaded.version + len(work.events)
    if info["email"]:
        work.notices.append(
            {
                "seat_id": info["id"],
                "kind": "standin",
                "version": version,
                "to_email": info["email"],
                # The count too: the notice says the reason in its reader's language.
                "context": {"reason": reason, **({"misses": misses} if misses > 1 else {})},
            }
        )
    work.notices.append(
        {
            "seat_id": None,
            "kind": "timedout",
            "version": version,
            "to_email": "",
            "context": {"seat": seat, "command": gettext_noop("the stand-in takes the seat over"), "misses": misses},
        }
    )


def _notice_unsent(game_id: int, seat_id: int) -> bool:
    return Notice.objects.filter(
        game_id=game_id,
        seat_id=seat_id,
        kind__in=TURN_NOTICE_KINDS,
        status__in=(NoticeStatus.PENDING, NoticeStatus.SENDING),
    ).exists()


def _misses_in_a_row(game_id: int, seat: int) -> int:
    """How many deadlines this seat has missed since it last acted itself."""
    misses, before = 0, None
    rows = Event.objects.filter(game_id=game_id).filter(
        models.Q(actor_kind="seat", actor_seat=seat) | models.Q(type="pbem.TimedOut", payload__seat=seat)
    )
    while True:  # pages of the newest first, as plain queries (a server-side cursor costs more here)
        page = list(
            (rows.filter(seq__lt=before) if before else rows).order_by("-seq").values_list("seq", "type")[:MISSES_PAGE]
        )
        for seq, etype in page:
            if etype != "pbem.TimedOut":
                return misses
            misses, before = misses + 1, seq
        if len(page) < MISSES_PAGE:
            return misses


MISSES_PAGE = 20


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


def remind(row: _Claimed, lease: str, mark: str, mark_at: datetime, next_due: datetime) -> bool:
    """Queues the reminder of `mark` for the claimed row's deadline, with the mark recorded on
    the row in the same transaction, under its lock: once. Returns False if the row changed
    under the claim (a new deadline) or the seat is gone."""
    with transaction.atomic():
        locked = _mine(row, lease).select_for_update().values("reminded_at").first()
        info = Seat.objects.filter(game_id=row.game_id, number=row.seat).values("id", "email").first()
        if locked is None or info is None:
            return False
        if locked["reminded_at"] is not None and locked["reminded_at"] >= mark_at:
            return False  # this mark's reminder is queued already
        version = Game.objects.values_list("version", flat=True).get(pk=row.game_id)
        Notice.objects.create(
            game_id=row.game_id,
            seat_id=info["id"],
            kind="reminder",
            version=version,
            to_email=info["email"],
            context={"mark": mark, "deadline": row.deadline},
        )
        _move(row, lease, reminded_at=mark_at, due_at=next_due)
        outbox.dispatch_on_commit(row.game_id)
    return True


def send_digests(now: datetime | None = None) -> int:
    """Once a day: news since their last notice to every seat that asked for a digest. Reads the
    seats that asked for one and have had none today (an index of their own); each is queued
    under the seat's lock with the day recorded on the seat, so once a day by construction."""
    now = now or timezone.now()
    if now.hour < settings.PBEM_DIGEST_HOUR:
        return 0
    today = now.date()
    queued = 0
    candidates = (
        Seat.objects.filter(notice_preference=NoticePreference.DIGEST)
        .filter(Q(last_digest_on__isnull=True) | Q(last_digest_on__lt=today))
        .filter(
            game__status__in=[GameStatus.RUNNING, GameStatus.PAUSED], game__version__gt=models.F("last_notice_version")
        )
        .values_list("id", flat=True)
    )
    for seat_id in list(candidates.iterator()):
        with transaction.atomic():
            seat = (
                Seat.objects.select_for_update(skip_locked=True)
                .select_related("game")
                .filter(
                    Q(last_digest_on__isnull=True) | Q(last_digest_on__lt=today),
                    pk=seat_id,
                    notice_preference=NoticePreference.DIGEST,
                )
                .first()
            )
            if seat is None:
                continue  # another run has it, or queued it already
            game = seat.game
            news = Event.objects.filter(game=game, seq__gt=seat.last_notice_version).exclude(actor_seat=seat.number)
            if not news.exists():
                continue  # nothing new from the others yet: looked at again next hour
            Notice.objects.create(
                game_id=game.pk, seat_id=seat.pk, kind="digest", version=game.version, to_email=seat.email
            )
            Seat.objects.filter(pk=seat.pk).update(last_digest_on=today)
            outbox.dispatch_on_commit(game.pk)
            queued += 1
    return queued
