"""Score sheets: what the Master of Seals would keep on paper, derived from the log.

The rows are the game's own bookkeeping (`score_sheet(state)`: ScoreLines per round and seat,
e.g. title points and gray-magic penalties per turn) plus the platform's `pbem.ScoreCorrected`
events, each shown with its reason in the round it was made. Running totals follow every row.
The standings rank the scores the platform records (the game's `summary` scores plus the
corrections) with the game's own tie-breakers (`Result.tiebreak`, via `games.base.rank`).

A seat whose player was replaced keeps the points of each player apart: each point goes to the
player who made the move that scored it (the seat's last move of that round; a correction, to
whoever held the seat when it was made; a round without a move of the seat, to whoever held it
then), so a round the old player finished before the replacement stays theirs, as the
newcomer's welcome mail says. The header names both, and the standings say how much each scored.

Nothing here writes: a sheet is recomputed from the events each time it is shown or exported.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field

from games.base import rank
from pbem.log import eventlog
from pbem.log.readmodels import scores_with_corrections
from pbem.models import Event, Game
from pbem.play import selectors


@dataclass
class Row:
    round: int
    label: str
    kind: str  # "game": the game's own scoring; "correction": a pbem.ScoreCorrected event
    points: list[int | None]  # per seat; None: no entry for that seat in this row
    details: list[str]
    totals: list[int] = field(default_factory=list)  # running totals after this row
    reason: str = ""
    seq: int | None = None  # the correction's event number
    players: list[str] = field(default_factory=list)  # who held each seat then, where it changed hands
    standin: list[bool] = field(default_factory=list)  # the stand-in played the seat in this round

    @property
    def cells(self) -> list[dict]:
        return [
            {"points": p, "total": t, "detail": d, "player": n, "standin": s}
            for p, t, d, n, s in zip(self.points, self.totals, self.details, self.players, self.standin)
        ]


@dataclass
class Standing:
    place: int  # 1-based; seats sharing a place are tied (competition ranking: 1, 1, 3)
    seat: int
    name: str
    score: int
    tiebreak: list
    tied: bool
    by_player: list[tuple[str, int]] = field(default_factory=list)  # several when the seat changed hands


@dataclass
class Sheet:
    game_id: int
    title: str
    kind: str
    status: str
    names: list[str]
    rows: list[Row]
    totals: list[int]  # the rows added up
    recorded: list[int]  # what the platform records: the game's scores plus the corrections
    standings: list[Standing]
    final: bool  # the game is over with a result (not abandoned, not still running)
    problems: list[str] = field(default_factory=list)

    @property
    def consistent(self) -> bool:
        return not self.problems


def build(game: Game) -> Sheet:
    loaded = eventlog.load(game)
    spec, state = loaded.spec, loaded.state
    meta = state["meta"]
    players = meta["players"]
    names = list(meta["names"]) or [f"seat {i + 1}" for i in range(players)]
    lines = spec.score_sheet(state["game"]) if state["game"] is not None else []

    keyed: dict[tuple, Row] = {}
    order: list[tuple] = []
    for line in lines:
        key = (line.round, line.label or f"Round {line.round}")
        row = keyed.get(key)
        if row is None:
            row = keyed[key] = Row(line.round, key[1], "game", [None] * players, [""] * players)
            order.append(key)
        row.points[line.seat] = (row.points[line.seat] or 0) + int(line.points)
        if line.detail:
            row.details[line.seat] = "; ".join(d for d in (row.details[line.seat], line.detail) if d)
    placed = [((key[0], 0, i), keyed[key]) for i, key in enumerate(order)]
    for seat, points, reason, seq in meta["corrections"]:
        points_row: list[int | None] = [None] * players
        points_row[seat] = int(points)
        row = Row(
            _round_at(game, spec, seq), "Correction", "correction", points_row, [""] * players, reason=reason, seq=seq
        )
        placed.append(((row.round, 1, seq), row))
    rows = [row for _key, row in sorted(placed, key=lambda item: item[0])]
    holders = _holders_by_round(game, spec, players, names)
    seated = selectors.occupancy(game.pk)
    movers = _movers(game, spec, seated) if any(len(h) > 1 for h in holders) else {}
    for row in rows:
        # Named only on a seat that changed hands ("" elsewhere: the header says who it is).
        row.players = [
            _credited(row, seat, holders[seat], movers, seated) if len(holders[seat]) > 1 else ""
            for seat in range(players)
        ]
    standin_rounds = _standin_rounds(game, spec, players)
    for row in rows:
        row.standin = [row.round in standin_rounds[seat] for seat in range(players)]

    running = [0] * players
    for row in rows:
        for seat, points in enumerate(row.points):
            running[seat] += points or 0
        row.totals = list(running)

    recorded = scores_with_corrections(spec, state) if players else []
    result = spec.result(state["game"]) if state["game"] is not None else None
    tiebreak = [list(t) for t in result.tiebreak] if result is not None and result.tiebreak else []
    headers = [_header(holders[seat]) for seat in range(players)]
    standings = _standings(recorded, tiebreak, headers)
    for standing in standings:
        if len(holders[standing.seat]) > 1:
            standing.by_player = _points_by_player(rows, standing.seat, holders[standing.seat])
    problems = _problems(names, running, recorded, result, meta["corrections"])
    return Sheet(
        game.pk,
        game.title or spec.title,
        game.kind,
        game.status,
        headers,
        rows,
        running,
        recorded,
        standings,
        final=result is not None and not meta["abandoned"],
        problems=problems,
    )


def _problems(names: list[str], running: list[int], recorded: list[int], result, corrections) -> list[str]:
    """Where the sheet's sums and the game's own scores (and its result) disagree."""
    problems = []
    for seat, name in enumerate(names[: len(running)]):
        if running[seat] != recorded[seat]:
            problems.append(
                f"{name}: the sheet adds up to {running[seat]}, "
                f"the game's own score (with corrections) is {recorded[seat]}"
            )
    if result is not None:
        corrected = list(result.scores)
        for seat, points, _reason, _seq in corrections:
            corrected[seat] += points
        if corrected != recorded:
            problems.append(f"the game's result {corrected} differs from its running scores {recorded}")
    return problems


def _holders_by_round(game: Game, spec, players: int, names: list[str]) -> list[list[tuple[int, str]]]:
    """Per seat: (first round, player) for each player who held it (a replacement counts from
    the round it was made in)."""
    seated = selectors.occupancy(game.pk)
    if len(seated.spans) != players:
        return [[(0, name)] for name in names]
    return [
        [(0 if first == 0 else _round_at(game, spec, first), name) for first, name in spans] for spans in seated.spans
    ]


def _standin_rounds(game: Game, spec, players: int) -> list[set[int]]:
    """Per seat: the rounds in which the stand-in made at least one of its moves."""
    moves = dict(
        Event.objects.filter(game_id=game.pk, actor_kind="standin")
        .exclude(type__startswith="pbem.")
        .values_list("seq", "actor_seat")
    )
    rounds: list[set[int]] = [set() for _ in range(players)]
    for seq, round_ in _rounds_at(game, spec, set(moves)).items():
        seat = moves[seq]
        if seat is not None and 0 <= seat < players:
            rounds[seat].add(round_)
    return rounds


def _rounds_at(game: Game, spec, seqs: set[int]) -> dict[int, int]:
    """The game's round at each event of `seqs`, in one replay of the log."""
    if not seqs:
        return {}
    undone = eventlog.undone_seqs(game.pk)
    state, out = eventlog.new_state(), {}
    rows = Event.objects.filter(game_id=game.pk, seq__lte=max(seqs)).order_by("seq").values_list(*eventlog.EVENT_FIELDS)
    for seq, etype, payload, public, visible_to, reveals, schema in rows.iterator(chunk_size=500):
        if seq not in undone:
            payload = eventlog.upcast(spec, etype, payload, schema)
            state = eventlog.apply(spec, state, etype, payload, visible_to, public, reveals, seq)
        if seq in seqs and state["game"] is not None:
            out[seq] = int(spec.summary(state["game"]).get("round") or 0)
    return out


def _movers(game: Game, spec, seated) -> dict[tuple[int, int], str]:
    """(seat, round) -> who held the seat at its last move of that round (a player's or the
    stand-in's for them), for seats that changed hands."""
    changed = {seat for seat, spans in enumerate(seated.spans) if len(spans) > 1}
    moves = dict(
        Event.objects.filter(game_id=game.pk, actor_seat__in=changed)
        .exclude(type__startswith="pbem.")
        .values_list("seq", "actor_seat")
    )
    out: dict[tuple[int, int], str] = {}
    for seq, round_ in sorted(_rounds_before(game, spec, set(moves)).items()):
        seat = moves[seq]
        if seat is None:
            continue
        out[(seat, round_)] = next(name for first, name in reversed(seated.spans[seat]) if first <= seq)
    return out


def _credited(row: Row, seat: int, spans: list[tuple[int, str]], movers: dict, seated) -> str:
    if row.kind == "correction" and row.seq is not None:
        return next(name for first, name in reversed(seated.spans[seat]) if first <= row.seq)
    return movers.get((seat, row.round)) or _holder(spans, row.round)


def _rounds_before(game: Game, spec, seqs: set[int]) -> dict[int, int]:
    """The game's round just before each event of `seqs` (the round a move was made in, even the
    move that ends it), in one replay of the log."""
    if not seqs:
        return {}
    undone = eventlog.undone_seqs(game.pk)
    state, out = eventlog.new_state(), {}
    rows = Event.objects.filter(game_id=game.pk, seq__lte=max(seqs)).order_by("seq").values_list(*eventlog.EVENT_FIELDS)
    for seq, etype, payload, public, visible_to, reveals, schema in rows.iterator(chunk_size=500):
        if seq in seqs and seq not in undone and state["game"] is not None:
            out[seq] = int(spec.summary(state["game"]).get("round") or 0)
        if seq not in undone:
            payload = eventlog.upcast(spec, etype, payload, schema)
            state = eventlog.apply(spec, state, etype, payload, visible_to, public, reveals, seq)
    return out


def _holder(spans: list[tuple[int, str]], round_: int) -> str:
    return next((name for first, name in reversed(spans) if first <= round_), spans[0][1])


def _header(spans: list[tuple[int, str]]) -> str:
    if len(spans) == 1:
        return spans[0][1]
    later = ", then ".join(f"{name} (took the seat in round {first})" for first, name in spans[1:])
    return f"{spans[0][1]}, then {later}"


def _points_by_player(rows: list[Row], seat: int, spans: list[tuple[int, str]]) -> list[tuple[str, int]]:
    totals: dict[str, int] = {}
    for _first, name in spans:
        totals.setdefault(name, 0)
    for row in rows:
        totals[row.players[seat]] += row.points[seat] or 0
    return list(totals.items())


def _round_at(game: Game, spec, seq: int) -> int:
    """The game's round when event `seq` was appended (where a correction goes on the sheet)."""
    state = eventlog.load(game, at=seq).state
    if state["game"] is None:
        return 0
    return int(spec.summary(state["game"]).get("round") or 0)


def _standings(scores: list[int], tiebreak: list[list], names: list[str]) -> list[Standing]:
    out: list[Standing] = []
    place = 1
    for group in rank(scores, [tuple(t) for t in tiebreak] if tiebreak else None):
        for seat in group:
            out.append(
                Standing(place, seat, names[seat], scores[seat], tiebreak[seat] if tiebreak else [], len(group) > 1)
            )
        place += len(group)
    return out


# ---------------------------------------------------------------------------------------------
# CSV export
# ---------------------------------------------------------------------------------------------


def _cell(value):
    # A name or reason starting with = + - @ would be a formula to a spreadsheet: quote it.
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + value
    return value


def to_csv(sheet: Sheet) -> str:
    """The sheet as CSV: one row per sheet row (points and running total per player, then a note),
    an empty line, then the standings with their tie-breakers."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    w = lambda cells: writer.writerow([_cell(c) for c in cells])  # noqa: E731
    w([f"Game #{sheet.game_id}", sheet.title, sheet.kind, sheet.status])
    header = ["round", "entry"]
    for name in sheet.names:
        header += [name, f"{name} total"]
    w(header + ["note"])
    for row in sheet.rows:
        cells: list = [row.round, row.label]
        for seat in range(len(sheet.names)):
            cells += ["" if row.points[seat] is None else row.points[seat], row.totals[seat]]
        if row.kind == "correction":
            note = row.reason
        else:
            note = "; ".join(f"{sheet.names[s]}: {d}" for s, d in enumerate(row.details) if d)
        w(cells + [note])
    w([])
    w(["Final standings" if sheet.final else "Standings so far (provisional)"])
    w(["place", "seat", "player", "score", "tiebreak"])
    for s in sheet.standings:
        w([s.place, s.seat + 1, s.name, s.score, " ".join(str(v) for v in s.tiebreak)])
        for name, points in s.by_player:
            w(["", "", f"  of which {name}", points, ""])
    return out.getvalue()
