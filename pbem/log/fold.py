"""The fold of a game's log into its state, pure: platform events change the platform's part
("meta"), every other event goes to the game's own `evolve`; events named in a later
`pbem.Undone` are skipped.

Imports only the standard library and `games/`: the event store folds with it, and so does the
offline verifier (`python -m pbem.verify`) on a machine with no Django.
"""

from __future__ import annotations

from games.base import Event as GameEvent
from games.base import GameSpec, rank
from pbem.log import clocks

PLATFORM_PREFIX = "pbem."


def new_state() -> dict:
    return {
        "game": None,
        "meta": {
            "players": 0,
            "names": [],
            "started": False,
            "ended": False,
            "seed": None,
            "paused": False,
            "abandoned": False,
            "corrections": [],
        },
    }


def upcast(spec: GameSpec, event_type: str, payload: dict, version: int) -> dict:
    """Brings an old payload up to the current schema, one version at a time."""
    current = spec.schema_versions.get(event_type, 1)
    while version < current:
        payload = spec.upcasters[(event_type, version)](payload)
        version += 1
    return payload


def apply(
    spec: GameSpec,
    state: dict,
    event_type: str,
    payload: dict,
    visible_to=None,
    public=None,
    reveals=False,
    seq: int = 0,
) -> dict:
    if event_type.startswith(PLATFORM_PREFIX):
        apply_platform(state["meta"], event_type[len(PLATFORM_PREFIX) :], payload, seq)
    else:
        vis = tuple(visible_to) if visible_to is not None else None
        state["game"] = spec.evolve(state["game"], GameEvent(event_type, payload, vis, public, reveals))
    return state


# The platform events a game's clock reads (pbem/log/clocks.py); a game without a clock ignores them.
CLOCK_EVENTS = frozenset(
    {"GameCreated", "Clocks", "DeadlineExtended", "NoticeBounced", "OutageForgiven", "Absent", "Back", "RestDays"}
)


def apply_platform(meta: dict, kind: str, data: dict, seq: int) -> None:
    if kind in CLOCK_EVENTS:
        clocks.apply(meta, kind, data)
    if kind == "GameCreated":
        meta["players"] = len(data["players"])
        meta["names"] = [p["name"] for p in data["players"]]
    elif kind == "GameStarted":
        meta["started"] = True
    elif kind == "GameEnded":
        meta["ended"] = True
    elif kind == "SeedRevealed":
        meta["seed"] = data["seed"]
    elif kind == "Paused":
        meta["paused"] = True
    elif kind == "Resumed":
        meta["paused"] = False
    elif kind == "Abandoned":
        meta["abandoned"] = True
    elif kind == "ScoreCorrected":
        meta["corrections"].append([data["seat"], data["points"], data.get("reason", ""), seq])
    elif kind == "DeadlineMissed":
        meta.setdefault("overdue", {})[str(data["seat"])] = data["deadline"]
    elif kind == "PlayerReplaced":
        meta["names"][data["seat"]] = data["name"]
        _stand_in_leaves(meta, data["seat"])  # a new player plays for themselves
    elif kind == "StandInSeated":
        # Set only by these events, so a log without them folds to the same state as before.
        standins = meta.setdefault("standins", [])
        if data["seat"] not in standins:
            standins.append(data["seat"])
            standins.sort()
    elif kind == "StandInLeft":
        _stand_in_leaves(meta, data["seat"])
    elif kind in ("OrderGiven", "OrderCancelled", "OrderPlayed"):
        _orders(meta, kind, data, seq)


def _orders(meta: dict, kind: str, data: dict, seq: int) -> None:
    """A seat's orders given ahead (pbem.play.orders), by seat: {"id": seq of the giving, …}.
    A reader who sees only the public form ({"seat": n}) of these hidden events keeps none."""
    if "seat" not in data or ("order" not in data and "id" not in data):
        return
    held = meta.setdefault("orders", {}).setdefault(str(data["seat"]), [])
    if kind == "OrderGiven":
        held.append({"id": seq, **data["order"]})
    elif kind == "OrderCancelled" or data.get("kind") == "conditional":  # a conditional order is played once
        held[:] = [order for order in held if order["id"] != data["id"]]
    if not held:
        del meta["orders"][str(data["seat"])]


def status_of(meta: dict) -> str:
    """The game's status as its platform events leave it (the read model's and the verifier's)."""
    if meta["abandoned"]:
        return "abandoned"
    if meta["ended"]:
        return "finished"
    if not meta["started"]:
        return "open"
    if meta["paused"]:
        return "paused"
    return "running"


def _stand_in_leaves(meta: dict, seat: int) -> None:
    if seat in meta.get("standins", ()):
        meta["standins"].remove(seat)


def fold_rows(spec: GameSpec, state: dict, rows, undone: set) -> dict:
    """Folds (seq, type, payload, public, visible_to, reveals, schema_version) rows, skipping `undone`.

    What `apply` does for each row, with the per-row lookups hoisted out of the loop: this is the
    hot path of every replay from scratch (bench/run.py's replay line)."""
    evolve, event_of, upcasting = spec.evolve, GameEvent.of_row, bool(spec.schema_versions)
    meta, game = state["meta"], state["game"]
    for seq, etype, payload, public, visible_to, reveals, schema in rows:
        if undone and seq in undone:
            continue
        if schema != 1 or upcasting:
            payload = upcast(spec, etype, payload, schema)
        if etype.startswith(PLATFORM_PREFIX):
            apply_platform(meta, etype[len(PLATFORM_PREFIX) :], payload, seq)
        else:
            game = evolve(game, event_of(etype, payload, visible_to, public, reveals))
    state["game"] = game
    return state


def fold_text_rows(spec: GameSpec, state: dict, rows, undone: set, decode) -> dict:
    """fold_rows over rows as the event store reads them for a replay: (seq, type, payload,
    extra), payload JSON text, extra None where public, visible_to, reveals and schema_version
    are null, null, false and 1 (most events), else the JSON text of the array of the four. Each
    is decoded by `decode` only where the fold reads it: nothing of an undone event, no extra
    that is all defaults. One pass, no list of decoded rows in between: a replay from scratch
    folds every row it reads (the hot path of every cold load)."""
    evolve, event_of, upcasting = spec.evolve, GameEvent.of_row, bool(spec.schema_versions)
    meta, game = state["meta"], state["game"]
    for seq, etype, payload, extra in rows:
        if undone and seq in undone:
            continue
        payload = decode(payload)
        if extra is None:
            public, visible_to, reveals = None, None, False
            if upcasting:
                payload = upcast(spec, etype, payload, 1)
        else:
            public, visible_to, reveals, schema = decode(extra)
            if schema != 1 or upcasting:
                payload = upcast(spec, etype, payload, schema)
        if etype.startswith(PLATFORM_PREFIX):
            apply_platform(meta, etype[len(PLATFORM_PREFIX) :], payload, seq)
        else:
            game = evolve(game, event_of(etype, payload, visible_to, public, reveals))
    state["game"] = game
    return state


def undone_in(rows, decode=None) -> set[int]:
    """The seqs that the `pbem.Undone` events among `rows` take back (`decode`: rows whose
    payload is JSON text, as fold_text_rows takes them)."""
    undone: set[int] = set()
    for row in rows:
        if row[1] == "pbem.Undone":
            undone.update((row[2] if decode is None else decode(row[2]))["events"])
    return undone


def scores_with_corrections(spec: GameSpec, state: dict, summary: dict | None = None) -> list[int]:
    """The game's scores plus the Master of Seals' recorded corrections."""
    meta = state["meta"]
    if state["game"] is None:
        return [0] * meta["players"]
    if summary is None:
        summary = spec.summary(state["game"])
    scores = list(summary.get("scores") or [0] * meta["players"])
    for seat, points, _reason, _seq in meta["corrections"]:
        scores[seat] += points
    return scores


def final_standing(spec: GameSpec, state: dict) -> dict | None:
    """What `pbem.GameEnded` records once the game's `result` is in: scores (with corrections),
    ranking and tiebreak; None while the game goes on."""
    if state["game"] is None:
        return None
    result = spec.result(state["game"])
    if result is None:
        return None
    scores = scores_with_corrections(spec, state)
    tiebreak = [list(t) for t in result.tiebreak] if result.tiebreak else []
    return {"scores": scores, "ranking": rank(scores, result.tiebreak or None), "tiebreak": tiebreak}
