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
"""

from __future__ import annotations

from datetime import datetime, timedelta

KINDS = ("fixed", "bank", "grace")
# No turn shorter than this, no reserve longer than this: a clock that would make the timers spin
# or never end a game is refused at creation.
MIN_SECONDS = 60
MAX_SECONDS = 366 * 86400
DAY = 86400


class BadClock(ValueError):
    """A clock a table cannot have; the message says why."""


def parse(value: dict | None, default_period: int) -> dict:
    """The clock as written in the log, from what a table asked for (durations in seconds).
    None: the fixed period `default_period`. Raises BadClock with a clear message."""
    if not value:
        return {"kind": "fixed", "period": int(default_period)}
    if not isinstance(value, dict):
        raise BadClock("A clock is a kind and its durations.")
    kind = value.get("kind")
    if kind not in KINDS:
        raise BadClock(f"The clock must be one of: {', '.join(KINDS)}.")
    allowed = {
        "fixed": ("period",),
        "bank": ("initial", "increment", "cap"),
        "grace": ("grace", "initial", "increment", "cap"),
    }[kind]
    unknown = set(value) - set(allowed) - {"kind"}
    if unknown:
        raise BadClock(f"A {kind} clock has no {', '.join(sorted(unknown))}.")
    clock: dict = {"kind": kind}
    for name in allowed:
        raw = value.get(name, default_period if name == "period" else None)
        if raw is None:
            raise BadClock(f"A {kind} clock needs its {name}.")
        if isinstance(raw, bool) or not isinstance(raw, int | float):
            raise BadClock(f"The clock's {name} must be a number of seconds.")
        seconds = int(raw)
        low = 0 if name == "increment" else MIN_SECONDS
        if not low <= seconds <= MAX_SECONDS:
            raise BadClock(f"The clock's {name} must be between {low} seconds and {MAX_SECONDS // DAY} days.")
        clock[name] = seconds
    if kind != "fixed":
        if clock["cap"] < clock["initial"]:
            raise BadClock("The bank's cap must be at least its initial reserve.")
        if kind == "bank" and clock["increment"] < MIN_SECONDS:
            raise BadClock("A bank without a grace needs an increment (else a timeout would leave no time at all).")
    return clock


def describe(clock: dict | None) -> str:
    """The clock in words, for pages and notices."""
    if not clock:
        return ""
    if clock["kind"] == "fixed":
        return f"{_words(clock['period'])} a move"
    text = f"{_words(clock['initial'])} + {_words(clock['increment'])} a move, at most {_words(clock['cap'])}"
    if clock["kind"] == "grace":
        text = f"{_words(clock['grace'])} free each move, then a bank of {text}"
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
            entry["deadline"] = deadline_from(clock, begin, bank).isoformat()
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
        return
    if "clock" not in meta:
        return
    clocks = meta["clocks"]
    if kind == "Clocks":
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
        elif kind == "TimedOut":
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
        want: str
        if "resumed" in entry:
            want = (at + timedelta(seconds=entry["resumed"])).isoformat()
            if paused.get(seat) != entry["resumed"]:
                problems.append(
                    f"event {seq}: seat {seat} gets {entry['resumed']} s back, the pause recorded {paused.get(seat)}"
                )
        else:
            want = deadline_from(clock, begin, bank).isoformat()
        if entry["deadline"] != want:
            problems.append(f"event {seq}: seat {seat}'s deadline is {entry['deadline']}, its clock says {want}")
        checked += 1
    return checked
