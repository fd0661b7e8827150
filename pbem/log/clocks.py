"""The clocks of a game: each seat's deadline derived from the log, pure (standard library only).

A table chooses its clock at creation; it is written in the `pbem.GameCreated` payload
("clock"), so the platform and the offline verifier (`python -m pbem.verify`) derive the same
deadlines from the same events. A game whose creation names no clock (every game before clocks
existed) keeps the platform's old reckoning, untouched by this module.

Kinds (all durations in seconds):

- fixed: {"kind": "fixed", "period": P}. Each turn runs P from its start.
- bank: {"kind": "bank", "initial": I, "increment": N, "cap": C}. A time bank, as Fischer in
  correspondence chess: the seat starts with I; a turn may last what is in the bank; when the
  turn ends (a move, or a timeout) what was used is taken from the bank and N added, the bank
  never above C. E.g. 3 days + 1 day a move, at most 7.
- grace: the bank with a per-move grace G first ({"kind": "grace", "grace": G, ...}): the first G
  of each turn costs nothing (as Online Terra Mystica).

The clock's state lives in the platform's part of the state (meta["clocks"], a seat's number as
a string -> {"bank", "start", "deadline"}), changed only by these events:

- `pbem.Clocks` {"at", "stopped": {seat: bank left}, "started": {seat: {"from", "bank",
  "deadline"[, "resumed": remaining]}}}: written by the platform in the same append as the
  events that ended or began seats' turns, at the append's time.
- `pbem.DeadlineExtended` {"seat", "until"}: the Master of Seals' extension, a hold's end.
- `pbem.NoticeBounced` with "remaining": the seat's deadline is held.
- `pbem.OutageForgiven` {"seconds", "until": {seat: deadline}}: the service itself was down; each
  turn running through the outage starts that much later (so a bank is not charged for it) and
  its deadline moves by as much.
- `pbem.RestDays` {"seat", "days", "zone"}: the seat's rest days (e.g. ["sat", "sun"]) in its
  own zone; a turn that begins after it and whose deadline would fall on one ends when the rest
  does (midnight after it, in that zone).
- `pbem.Absent` {"seat", "at", "until", "seconds", "left", "taken", "auto"[, "deadline"]}: a
  vacation (below); a turn running through it starts that much later, its deadline moves by as
  much. `pbem.Back` with "refund": the player came back early; the unused time is given back.

Vacations that accrue (a clock's optional "vacation": {"per_month", "max", "absences",
"longest"}, the first two in days): each seat starts with a month's days and earns `per_month`
days per 30 days of play (from the game's first turn; time away is not play), never holding more
than `max`. A player
takes them with 'away until DATE' (at most `absences` times a game, at most `longest` days at
once: the table's limits against abuse); and at a deadline the seat would miss, a day of what is
left (or what is left, if less, when at least an hour) is taken by itself instead of the
timeout (as OGS). Each is a
`pbem.Absent` event the table hears of, with its end.
"""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta

KINDS = ("fixed", "bank", "grace")
# No turn shorter than this, no reserve longer than this: a clock that would make the timers spin
# or never end a game is refused at creation.
MIN_SECONDS = 60
MAX_SECONDS = 366 * 86400
DAY = 86400


def gettext_noop(text: str) -> str:
    """Marks an English template for the platform's catalogue (pbem/locale: `makemessages` finds
    it by this name); it is translated where a player reads it (pbem.play.commands.clocks_text).
    This module stays standard library only: the offline verifier runs it."""
    return text


class Said(ValueError):
    """A refusal with its English template and values (`template % values`), so the platform can
    say it in the reader's language. A value named `*_seconds` is a length of time: in the
    template it is `%(name)s`, without the suffix, in words."""

    def __init__(self, template: str, **values):
        self.template, self.values = template, values
        shown = {}
        for name, value in values.items():
            if name.endswith("_seconds"):
                shown[name[: -len("_seconds")]] = left_words(value)
            else:
                shown[name] = value
        super().__init__(template % shown if values else template)


class BadClock(Said):
    """A clock a table cannot have; the message says why."""


class BadAbsence(Said):
    """An absence a seat cannot take; the message says why."""


# A table's vacation settings: per_month and max in days, absences a count, longest in days.
VACATION_KEYS = ("per_month", "max", "absences", "longest")
VACATION_MAX_DAYS = 366
# Vacation switches on by itself only while at least this much is left (no trickle of minutes).
AUTO_MIN = 3600


def parse_vacation(value) -> dict:
    if not isinstance(value, dict):
        raise BadClock(gettext_noop("A clock's vacation is its per_month, max, absences and longest."))
    unknown = set(value) - set(VACATION_KEYS)
    if unknown:
        raise BadClock(gettext_noop("A vacation has no %(names)s."), names=", ".join(sorted(unknown)))
    out = {}
    for name in VACATION_KEYS:
        raw = value.get(name)
        if raw is None:
            raise BadClock(gettext_noop("A vacation needs its %(name)s."), name=name)
        if isinstance(raw, bool) or not isinstance(raw, int):
            raise BadClock(gettext_noop("The vacation's %(name)s must be a whole number."), name=name)
        if not 0 <= raw <= VACATION_MAX_DAYS:
            raise BadClock(
                gettext_noop("The vacation's %(name)s must be between 0 and %(most)s."),
                name=name,
                most=VACATION_MAX_DAYS,
            )
        out[name] = raw
    if out["max"] < out["per_month"]:
        raise BadClock(gettext_noop("The vacation's max must be at least its per_month."))
    return out


def parse(value: dict | None, default_period: int) -> dict:
    """The clock as written in the log, from what a table asked for (durations in seconds).
    None: the fixed period `default_period`. Raises BadClock with a clear message."""
    if not value:
        return {"kind": "fixed", "period": int(default_period)}
    if not isinstance(value, dict):
        raise BadClock(gettext_noop("A clock is a kind and its durations."))
    kind = value.get("kind")
    if kind not in KINDS:
        raise BadClock(gettext_noop("The clock must be one of: %(kinds)s."), kinds=", ".join(KINDS))
    allowed = {
        "fixed": ("period",),
        "bank": ("initial", "increment", "cap"),
        "grace": ("grace", "initial", "increment", "cap"),
    }[kind]
    unknown = set(value) - set(allowed) - {"kind", "vacation"}
    if unknown:
        raise BadClock(gettext_noop("A %(kind)s clock has no %(names)s."), kind=kind, names=", ".join(sorted(unknown)))
    clock: dict = {"kind": kind}
    for name in allowed:
        raw = value.get(name, default_period if name == "period" else None)
        if raw is None:
            raise BadClock(gettext_noop("A %(kind)s clock needs its %(name)s."), kind=kind, name=name)
        if isinstance(raw, bool) or not isinstance(raw, int | float):
            raise BadClock(gettext_noop("The clock's %(name)s must be a number of seconds."), name=name)
        seconds = int(raw)
        low = 0 if name == "increment" else MIN_SECONDS
        if not low <= seconds <= MAX_SECONDS:
            raise BadClock(
                gettext_noop("The clock's %(name)s must be between %(low)s seconds and %(days)s days."),
                name=name,
                low=low,
                days=MAX_SECONDS // DAY,
            )
        clock[name] = seconds
    if kind != "fixed":
        if clock["cap"] < clock["initial"]:
            raise BadClock(gettext_noop("The bank's cap must be at least its initial reserve."))
        if kind == "bank" and clock["increment"] < MIN_SECONDS:
            raise BadClock(
                gettext_noop("A bank without a grace needs an increment (else a timeout would leave no time at all).")
            )
    if value.get("vacation") is not None:
        clock["vacation"] = parse_vacation(value["vacation"])
    return clock


def describe(clock: dict | None) -> str:
    """The clock in words, for pages and notices."""
    if not clock:
        return ""
    if clock["kind"] == "fixed":
        text = f"{_words(clock['period'])} a move"
    else:
        text = f"{_words(clock['initial'])} + {_words(clock['increment'])} a move, at most {_words(clock['cap'])}"
        if clock["kind"] == "grace":
            text = f"{_words(clock['grace'])} free each move, then a bank of {text}"
    vacation = clock.get("vacation")
    if vacation:
        text += (
            f"; vacation {vacation['per_month']} days a month of play, at most {vacation['max']} held"
            f", {vacation['absences']} absences of at most {vacation['longest']} days a game"
        )
    return text


def _words(seconds: int) -> str:
    if seconds % DAY == 0:
        days = seconds // DAY
        return f"{days} day" + ("s" if days != 1 else "")
    if seconds % 3600 == 0:
        hours = seconds // 3600
        return f"{hours} hour" + ("s" if hours != 1 else "")
    return f"{seconds // 60} min"


def grace(clock: dict) -> int:
    return clock.get("grace", 0) if clock["kind"] == "grace" else 0


def bank_after(clock: dict, seat_state: dict, at: datetime) -> int:
    """What is in the seat's bank once its turn, running since seat_state["start"], ends at `at`."""
    if clock["kind"] == "fixed":
        return 0
    start = seat_state.get("start")
    used = 0.0
    if start:
        used = max(0.0, (at - datetime.fromisoformat(start)).total_seconds() - grace(clock))
    left = max(0, int(seat_state["bank"] - used))
    return min(clock["cap"], left + clock["increment"])


def deadline_from(clock: dict, start: datetime, bank: int) -> datetime:
    """A turn's deadline, the turn beginning at `start` with `bank` in the seat's bank."""
    if clock["kind"] == "fixed":
        return start + timedelta(seconds=clock["period"])
    return start + timedelta(seconds=grace(clock) + bank)


def seat_state(meta: dict, seat: int | str) -> dict:
    """The seat's clock now (a seat that never played: its initial reserve)."""
    clock = meta["clock"]
    found = meta.get("clocks", {}).get(str(seat))
    if found is not None:
        return found
    return {"bank": clock.get("initial", 0), "start": None, "deadline": None}


def step(
    meta: dict,
    stopped: list[int],
    started: list[int],
    at: datetime,
    starts: dict | None = None,
    resumed: dict | None = None,
) -> dict | None:
    """The `pbem.Clocks` payload for an append at `at` that ends the turns of `stopped` and begins
    those of `started` (a seat may be in both: a timeout that awaits it again). `starts`: a seat's
    turn that begins later than `at` (the end of an absence); `resumed`: seat -> seconds left when
    the game was paused, given back as they were. None when nothing changes."""
    if not stopped and not started:
        return None
    clock = meta["clock"]
    banks = {}
    payload: dict = {"at": at.isoformat(), "stopped": {}, "started": {}}
    for seat in sorted(stopped):
        state = seat_state(meta, seat)
        if state.get("start") is None:
            continue  # its turn never ran (held, or not begun): nothing to charge
        banks[seat] = payload["stopped"][str(seat)] = bank_after(clock, state, at)
    for seat in sorted(started):
        bank = banks.get(seat, seat_state(meta, seat)["bank"])
        begin = max(at, (starts or {}).get(seat) or at)
        entry: dict = {"from": begin.isoformat(), "bank": bank}
        left = (resumed or {}).get(seat)
        if left is not None:
            entry["deadline"] = (at + timedelta(seconds=int(left))).isoformat()
            entry["resumed"] = int(left)
        else:
            entry["deadline"] = out_of_rest(meta, seat, deadline_from(clock, begin, bank)).isoformat()
        payload["started"][str(seat)] = entry
    if not payload["stopped"] and not payload["started"]:
        return None
    return payload


def apply(meta: dict, kind: str, data: dict) -> None:
    """The clock's part of the platform fold (fold.apply_platform): only for a game with a clock."""
    if kind == "GameCreated":
        if data.get("clock"):
            meta["clock"] = data["clock"]
            meta["clocks"] = {}
            if data["clock"].get("vacation"):
                meta["vacation"] = {}
        return
    if "clock" not in meta:
        return
    clocks = meta["clocks"]
    if kind == "Clocks" and "vacation" in meta and "vacation_since" not in meta:
        meta["vacation_since"] = data["at"]  # play begins: vacation accrues from here
    if kind == "RestDays":
        meta.setdefault("rest", {})[str(data["seat"])] = {"days": data["days"], "zone": data["zone"]}
    elif kind == "Absent":
        meta["vacation"][str(data["seat"])] = {
            "left": data["left"],
            "at": data["at"],
            "taken": data["taken"],
            "until": data["until"],
        }
        _shift(clocks.get(str(data["seat"])), data["seconds"], data.get("deadline"))
    elif kind == "Back" and "refund" in data and "vacation" in meta:
        state = meta["vacation"][str(data["seat"])]
        state.update(left=data["left"], at=data["at"], until=None)
        _shift(clocks.get(str(data["seat"])), -data["refund"], data.get("deadline"))
    elif kind == "Clocks":
        for seat, bank in data["stopped"].items():
            clocks[seat] = {"bank": bank, "start": None, "deadline": None}
        for seat, entry in data["started"].items():
            clocks[seat] = {"bank": entry["bank"], "start": entry["from"], "deadline": entry["deadline"]}
    elif kind == "DeadlineExtended":
        state = clocks.get(str(data["seat"]))
        if state is not None and state.get("start"):
            state["deadline"] = data["until"]
    elif kind == "NoticeBounced":
        state = clocks.get(str(data["seat"]))
        if state is not None and "remaining" in data:
            state["deadline"] = None
    elif kind == "OutageForgiven":
        for seat, until in data["until"].items():
            state = clocks.get(seat)
            if state is not None and state.get("start"):
                state["start"] = (
                    datetime.fromisoformat(state["start"]) + timedelta(seconds=data["seconds"])
                ).isoformat()
                state["deadline"] = until


def _shift(state: dict | None, seconds: int, deadline: str | None) -> None:
    """A running turn moved by `seconds` (an absence, or what an early return gives back)."""
    if state is None or not state.get("start") or not deadline:
        return
    state["start"] = (datetime.fromisoformat(state["start"]) + timedelta(seconds=seconds)).isoformat()
    state["deadline"] = deadline


WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
# At most this many rest days a week: a table's turns must still come round.
MAX_REST_DAYS = 3


def rest_days(words: list[str]) -> list[str]:
    """The rest days a seat names ('sat sun', 'none'), in week order, or BadClock saying why not."""
    if words in (["none"], ["off"]):
        return []
    days = []
    for word in words:
        day = word[:3].lower()
        if len(word) < 3 or day not in WEEKDAYS:
            raise BadClock(
                gettext_noop("%(word)s is not a day of the week; write e.g. 'rest sat sun' or 'rest none'."),
                word=word[:40],
            )
        days.append(day)
    days = sorted(set(days), key=WEEKDAYS.index)
    if len(days) > MAX_REST_DAYS:
        raise BadClock(gettext_noop("At most %(count)s rest days a week."), count=MAX_REST_DAYS)
    return days


def out_of_rest(meta: dict, seat: int | str, deadline: datetime) -> datetime:
    """A deadline that falls on one of the seat's rest days, in its own zone (`pbem.RestDays`),
    moved to the rest's end: the next day that is not one, at midnight there."""
    rest = (meta.get("rest") or {}).get(str(seat))
    if not rest or not rest["days"]:
        return deadline
    # Only a log with rest days needs the zone database (zoneinfo reads sysconfig on import: the
    # verifier run with -S loads nothing it does not need).
    from zoneinfo import ZoneInfo

    zone = ZoneInfo(rest["zone"])
    local = deadline.astimezone(zone)
    moved = False
    while WEEKDAYS[local.weekday()] in rest["days"]:
        local = datetime.combine(local.date() + timedelta(days=1), time(0), tzinfo=zone)
        moved = True
    return local.astimezone(UTC) if moved else deadline


def vacation_at(meta: dict, seat: int | str, at: datetime) -> dict:
    """The seat's vacation reckoned to `at`: {"left" (seconds), "at", "taken", "until"}. A seat
    starts with a month's days; it earns per_month days per 30 days of play, never above max."""
    config = meta["clock"]["vacation"]
    found = (meta.get("vacation") or {}).get(str(seat))
    state = dict(found) if found else {"left": min(config["per_month"], config["max"]) * DAY, "at": None, "taken": 0}
    state.setdefault("until", None)
    since = state["at"] or meta.get("vacation_since")
    if since and state["until"]:
        since = max(since, state["until"], key=datetime.fromisoformat)  # time away is not play
    if since and datetime.fromisoformat(since) < at:
        elapsed = max(0.0, (at - datetime.fromisoformat(since)).total_seconds())
        state["left"] = min(config["max"] * DAY, state["left"] + int(elapsed * config["per_month"] / 30))
    state["at"] = at.isoformat()
    return state


def absence(meta: dict, seat: int, at: datetime, until: datetime, auto: bool = False) -> dict:
    """The `pbem.Absent` payload for the seat away from `at` to `until` (`auto`: taken by itself
    at a deadline), or BadAbsence saying why not."""
    config = meta["clock"]["vacation"]
    state = vacation_at(meta, seat, at)
    seconds = int((until - at).total_seconds())
    if seconds <= 0:
        raise BadAbsence(gettext_noop("That date is already past."))
    if state["until"] and datetime.fromisoformat(state["until"]) > at:
        raise BadAbsence(
            gettext_noop("You are already away, until %(until)s: write 'back' first."), until=state["until"]
        )
    if not auto:
        if state["taken"] >= config["absences"]:
            raise BadAbsence(
                gettext_noop("This table allows %(count)s absences a player in a game, and you have taken them all."),
                count=config["absences"],
            )
        if seconds > config["longest"] * DAY:
            raise BadAbsence(
                gettext_noop("This table allows absences of at most %(days)s days at once."), days=config["longest"]
            )
    if seconds > state["left"]:
        raise BadAbsence(
            gettext_noop("You have %(left)s of vacation left in this game; that would take %(take)s."),
            left_seconds=state["left"],
            take_seconds=seconds,
        )
    payload = {
        "seat": seat,
        "at": at.isoformat(),
        "until": until.isoformat(),
        "seconds": seconds,
        "left": state["left"] - seconds,
        "taken": state["taken"] + (0 if auto else 1),
        "auto": auto,
    }
    running = seat_state(meta, seat)
    if running.get("start") and running.get("deadline"):
        payload["deadline"] = (datetime.fromisoformat(running["deadline"]) + timedelta(seconds=seconds)).isoformat()
    return payload


def auto_absence(meta: dict, seat: int, at: datetime) -> dict | None:
    """At a deadline the seat would miss: the `pbem.Absent` payload that takes a day of its
    vacation (or what is left, if less) by itself; None when too little is left."""
    if "vacation" not in meta.get("clock", {}):
        return None
    left = vacation_at(meta, seat, at)["left"]
    if left < AUTO_MIN:
        return None
    return absence(meta, seat, at, at + timedelta(seconds=min(left, DAY)), auto=True)


def back(meta: dict, seat: int, at: datetime) -> dict | None:
    """The `pbem.Back` payload for a seat back before its absence's end (the rest given back),
    or None when it is not away."""
    state = vacation_at(meta, seat, at)
    if not state["until"] or datetime.fromisoformat(state["until"]) <= at:
        return None
    refund = int((datetime.fromisoformat(state["until"]) - at).total_seconds())
    payload = {"seat": seat, "at": at.isoformat(), "refund": refund, "left": state["left"] + refund}
    running = seat_state(meta, seat)
    if running.get("start") and running.get("deadline"):
        payload["deadline"] = (datetime.fromisoformat(running["deadline"]) - timedelta(seconds=refund)).isoformat()
    return payload


def left_words(seconds: int) -> str:
    days, rest = divmod(int(seconds), DAY)
    hours = rest // 3600
    parts = [f"{days} day" + ("s" if days != 1 else "")] if days else []
    if hours or not parts:
        parts.append(f"{hours} hour" + ("s" if hours != 1 else ""))
    return " ".join(parts)


def deadlines(meta: dict, awaited: list[int]) -> dict:
    """The running deadlines of the awaited seats, as the read model holds them."""
    clocks = meta.get("clocks", {})
    out = {}
    for seat in awaited:
        state = clocks.get(str(seat))
        if state and state.get("deadline"):
            out[str(seat)] = state["deadline"]
    return out


def remaining(meta: dict, seat: int, now: datetime) -> dict | None:
    """A seat's time, for pages and the API: its deadline, the seconds to it, its bank."""
    if "clock" not in meta:
        return None
    state = seat_state(meta, seat)
    left = None
    if state.get("deadline"):
        left = max(0, int((datetime.fromisoformat(state["deadline"]) - now).total_seconds()))
    return {"deadline": state.get("deadline"), "seconds_left": left, "bank": state["bank"]}


def check(events, paused_remaining=None) -> tuple[list[str], int]:
    """Re-derives every deadline of a log: `events`, in order, as (seq, type, payload, created_at
    datetime). Returns (problems, deadlines checked). Each `pbem.Clocks` entry is computed again
    from the clock and the seat's state before it; each `pbem.TimedOut` must name the seat's
    deadline as derived and come at or after it."""
    problems: list[str] = []
    meta: dict = {}
    checked = 0
    paused: dict = {}
    for seq, etype, payload, at in events:
        if payload is None:
            continue
        kind = etype[5:] if etype.startswith("pbem.") else ""
        if kind == "GameCreated":
            apply(meta, kind, payload)
            if "clock" not in meta:
                return [], 0
            continue
        if "clock" not in meta:
            return [], 0
        if kind == "Paused":
            paused = dict(payload.get("remaining") or {})
        elif kind == "Clocks":
            checked += _check_step(meta, seq, payload, at, paused, problems)
        elif kind in ("Absent", "Back") and "vacation" in meta:
            checked += _check_vacation(meta, seq, kind, payload, at, problems)
        elif kind == "TimedOut":
            if "vacation" in meta and vacation_at(meta, payload["seat"], at)["left"] >= AUTO_MIN:
                problems.append(
                    f"event {seq}: seat {payload['seat']} timed out with vacation left: it should have been taken"
                )
            state = meta["clocks"].get(str(payload["seat"])) or {}
            if payload.get("deadline") != state.get("deadline"):
                problems.append(
                    f"event {seq}: seat {payload['seat']} timed out with deadline {payload.get('deadline')}, "
                    f"but its clock says {state.get('deadline')}"
                )
            elif at < datetime.fromisoformat(payload["deadline"]):
                problems.append(
                    f"event {seq}: seat {payload['seat']} timed out before its deadline {payload['deadline']}"
                )
            checked += 1
        elif kind == "OutageForgiven":
            for seat, until in payload["until"].items():
                state = meta["clocks"].get(seat) or {}
                want = (
                    (datetime.fromisoformat(state["deadline"]) + timedelta(seconds=payload["seconds"])).isoformat()
                    if state.get("deadline")
                    else None
                )
                if until != want:
                    problems.append(f"event {seq}: seat {seat}'s deadline forgiven to {until}, its clock says {want}")
                checked += 1
        apply(meta, kind, payload)
    return problems, checked


def _check_vacation(meta: dict, seq: int, kind: str, payload: dict, at: datetime, problems: list[str]) -> int:
    """An absence (or an early return) computed again from the table's vacation and the seat's
    days before it: when, how long, what is left, how many taken, the deadline moved."""
    seat = payload["seat"]
    # Reckoned when the command (or the sweep) ran, written as its append commits: never after
    # that (a sweep's seats of one game are written one after the other, at its one time).
    said = datetime.fromisoformat(payload["at"]) if isinstance(payload.get("at"), str) else None
    if said is None or said > at:
        problems.append(f"event {seq}: seat {seat}'s {kind} says {payload.get('at')}, written at {at.isoformat()}")
        return 1
    at = said
    if kind == "Back":
        want = back(meta, seat, at)
    else:
        running = seat_state(meta, seat)
        if payload.get("auto") and running.get("deadline") and at < datetime.fromisoformat(running["deadline"]):
            problems.append(f"event {seq}: seat {seat}'s vacation switched on by itself before its deadline")
        try:
            want = absence(meta, seat, at, datetime.fromisoformat(payload["until"]), auto=bool(payload.get("auto")))
        except BadAbsence as exc:
            problems.append(f"event {seq}: seat {seat}'s absence is not one its table allows: {exc}")
            return 1
        if payload.get("auto") and want["seconds"] != min(vacation_at(meta, seat, at)["left"], DAY):
            problems.append(f"event {seq}: seat {seat}'s automatic vacation is not a day (or what was left)")
    if want != payload:
        problems.append(f"event {seq}: seat {seat}'s {kind} is {payload}, its vacation says {want}")
    return 1


def _check_step(meta: dict, seq: int, payload: dict, at: datetime, paused: dict, problems: list[str]) -> int:
    clock = meta["clock"]
    checked = 0
    if payload.get("at") != at.isoformat():
        problems.append(
            f"event {seq}: the clocks are stepped at {payload.get('at')}, but the event was written at {at.isoformat()}"
        )
    banks = {}
    for seat, bank in payload["stopped"].items():
        state = seat_state(meta, seat)
        owed = bank_after(clock, state, at)
        if bank != owed:
            problems.append(f"event {seq}: seat {seat}'s bank after its turn is {bank}, its clock says {owed}")
        banks[seat] = owed
        checked += 1
    for seat, entry in payload["started"].items():
        bank = banks.get(seat, seat_state(meta, seat)["bank"])
        if entry["bank"] != bank:
            problems.append(
                f"event {seq}: seat {seat}'s turn begins with a bank of {entry['bank']}, its clock says {bank}"
            )
        begin = datetime.fromisoformat(entry["from"])
        if begin < at:
            problems.append(f"event {seq}: seat {seat}'s turn begins before the event that begins it")
        away = ((meta.get("vacation") or {}).get(str(seat)) or {}).get("until")
        if away and datetime.fromisoformat(away) > at and begin != datetime.fromisoformat(away):
            problems.append(f"event {seq}: seat {seat} is away until {away}, but its turn begins at {entry['from']}")
        want: str
        if "resumed" in entry:
            want = (at + timedelta(seconds=entry["resumed"])).isoformat()
            if paused.get(seat) != entry["resumed"]:
                problems.append(
                    f"event {seq}: seat {seat} gets {entry['resumed']} s back, the pause recorded {paused.get(seat)}"
                )
        else:
            want = out_of_rest(meta, seat, deadline_from(clock, begin, bank)).isoformat()
        if entry["deadline"] != want:
            problems.append(f"event {seq}: seat {seat}'s deadline is {entry['deadline']}, its clock says {want}")
        checked += 1
    return checked
