"""Tally: an endless game used only by the benchmark, so that every command goes through the whole
command service (parse, seat check, decide, evolve, append, read model, outbox) and the figure is
the platform's cost, not a particular game's rules. Seats take turns; 'mark N' adds N."""

from games.base import Event, GameSpec, ParseError, Rejected, Result, ScoreLine


def setup(players, options, rng):
    return [Event("Started", {"players": players})]


def evolve(state, event):
    if event.type == "Started":
        return {"players": event.data["players"], "turn": 0, "scores": [0] * event.data["players"], "moves": 0}
    state["scores"][event.data["seat"]] += event.data["n"]
    state["turn"] = (state["turn"] + 1) % state["players"]
    state["moves"] += 1
    return state


def decide(state, seat, command, rng):
    if command.get("n", 0) not in range(1, 10):
        raise Rejected("Mark 1 to 9.")
    return [Event("Marked", {"seat": seat, "n": command["n"]})]


def parse(text, state, seat):
    words = text.split()
    if len(words) != 2 or words[0].lower() != "mark" or not words[1].isdigit():
        raise ParseError("Write 'mark N'.")
    return {"type": "mark", "n": int(words[1])}


GAME = GameSpec(
    name="tally",
    title="Tally (benchmark)",
    min_players=1,
    max_players=4,
    version=1,
    setup=setup,
    decide=decide,
    evolve=evolve,
    waiting_for=lambda s: [s["turn"]],
    legal=lambda s, seat: [{"type": "mark", "n": n} for n in range(1, 10)] if seat == s["turn"] else [],
    result=lambda s: None if s["moves"] < 10**9 else Result(s["scores"]),
    view=lambda s, seat: dict(s),
    parse=parse,
    describe=lambda c: f"mark {c['n']}",
    help=lambda s, seat: "mark N",
    narrate=lambda e, names: e.type,
    render_text=lambda v: str(v),
    render_html=lambda v: str(v),
    summary=lambda s: {"round": s["moves"] // max(1, s["players"]), "phase": "mark", "scores": list(s["scores"])},
    score_sheet=lambda s: [ScoreLine(1, i, p) for i, p in enumerate(s["scores"])],
    timeout=lambda s, seat: {"type": "mark", "n": 1},
)
