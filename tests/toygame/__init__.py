"""Dice Duel: a tiny game that exists only to prove the platform (dice, hidden hands,
simultaneous moves). Also the reference example of the game contract in games/base.py.

Rules: a deck of cards 1..12 is shuffled; each player is dealt 3 cards face down. Each of
`rounds` rounds, every player plays a card face down at once (simultaneous); when all are in
they are revealed; the highest card wins the round (ties: nobody). The winner then either
takes 2 points or rolls a die for its pips. Highest score wins; ties broken by the sum of cards
left in hand. A late bidder plays their lowest card; a late winner takes 2.
"""

from __future__ import annotations

import sys

from games.base import Event, GameSpec, Option, ParseError, Rejected, Result, ScoreLine, match_name

COLOURS = ("red", "blue", "green", "yellow")


def setup(players, options, rng):
    deck = rng.shuffle(range(1, 13))
    events = [Event("GameStarted", {"players": players, "rounds": options["rounds"]})]
    for seat in range(players):
        hand = sorted(deck[seat * 3 : seat * 3 + 3])
        events.append(
            Event(
                "HandDealt",
                {"seat": seat, "cards": hand},
                visible_to=(seat,),
                public={"seat": seat, "count": 3},
                reveals=True,
            )
        )
    return events


def evolve(state, event):
    d = event.data
    if event.type == "GameStarted":
        n = d["players"]
        return {
            "players": n,
            "rounds": d["rounds"],
            "round": 1,
            "phase": "bid",
            "hands": [[] for _ in range(n)],
            "played": [None] * n,
            "scores": [0] * n,
            "winner": None,
            "sheet": [],
        }
    if event.type == "HandDealt":
        state["hands"][d["seat"]] = list(d["cards"])  # copy: never alias event data
    elif event.type == "CardPlayed":
        state["played"][d["seat"]] = d["card"]
        state["hands"][d["seat"]].remove(d["card"])
    elif event.type == "CardsRevealed":
        state["winner"] = d["winner"]
        state["phase"] = "claim" if d["winner"] is not None else state["phase"]
        if d["winner"] is None:
            _next_round(state)
    elif event.type == "PointsTaken":
        state["scores"][d["seat"]] += d["points"]
        state["sheet"].append([state["round"], d["seat"], d["points"], d["how"]])
        _next_round(state)
    return state


def _next_round(state):
    state["played"] = [None] * state["players"]
    state["winner"] = None
    if state["round"] >= state["rounds"]:
        state["phase"] = "over"
    else:
        state["round"] += 1
        state["phase"] = "bid"


def waiting_for(state):
    if state["phase"] == "bid":
        return [s for s in range(state["players"]) if state["played"][s] is None]
    if state["phase"] == "claim":
        return [state["winner"]]
    return []


def legal(state, seat):
    if seat not in waiting_for(state):
        return []
    if state["phase"] == "bid":
        return [{"type": "play", "card": c} for c in state["hands"][seat]]
    return [{"type": "take"}, {"type": "roll"}]


def decide(state, seat, command, rng):
    if seat not in waiting_for(state):
        raise Rejected("It is not your turn.")
    kind = command.get("type")
    if state["phase"] == "bid":
        if kind != "play":
            raise Rejected("Now every player plays a card: 'play N'.")
        card = command.get("card")
        if card not in state["hands"][seat]:
            raise Rejected(f"You have no card {card}; your hand is {state['hands'][seat]}.")
        events = [Event("CardPlayed", {"seat": seat, "card": card}, visible_to=(seat,), public={"seat": seat})]
        played = list(state["played"])
        played[seat] = card
        if all(p is not None for p in played):
            top = max(played)
            winners = [s for s, p in enumerate(played) if p == top]
            winner = winners[0] if len(winners) == 1 else None
            events.append(Event("CardsRevealed", {"cards": played, "winner": winner}, reveals=True))
        return events
    if kind == "take":
        return [Event("PointsTaken", {"seat": seat, "points": 2, "how": "take"})]
    if kind == "roll":
        return [Event("PointsTaken", {"seat": seat, "points": rng.roll(6), "how": "roll"})]
    raise Rejected("You won the round: 'take' 2 points or 'roll' a die.")


def result(state):
    if state["phase"] != "over":
        return None
    return Result(list(state["scores"]), [(sum(h),) for h in state["hands"]])


def view(state, seat):
    return {
        "seat": seat,
        "round": state["round"],
        "rounds": state["rounds"],
        "phase": state["phase"],
        "scores": list(state["scores"]),
        "hand": list(state["hands"][seat]) if seat is not None else None,
        "hand_sizes": [len(h) for h in state["hands"]],
        "played": [p is not None for p in state["played"]],
        "my_card": state["played"][seat] if seat is not None else None,
        "winner": state["winner"],
    }


def parse(text, state, seat):
    words = text.strip().lower().split()
    if not words:
        raise ParseError("Empty command.")
    verb = match_name(words[0], ["play", "take", "roll"], "command")
    if verb == "play":
        if len(words) != 2 or not words[1].isdigit():
            raise ParseError("Say which card: 'play 7'.")
        return {"type": "play", "card": int(words[1])}
    return {"type": verb}


def describe(command):
    if command["type"] == "play":
        return f"play {command['card']}"
    return command["type"]


def help(state, seat):
    if state["phase"] == "bid":
        return "play N   play card N face down, e.g. 'play 7'"
    return "take     take 2 points\nroll     roll a die for its pips"


def narrate(event, names):
    d = event.data
    if event.type == "GameStarted":
        return f"A game of Dice Duel for {d['players']} players begins."
    if event.type == "HandDealt":
        if "cards" in d:
            return f"{names[d['seat']]} was dealt {', '.join(map(str, d['cards']))}."
        return f"{names[d['seat']]} was dealt {d['count']} cards."
    if event.type == "CardPlayed":
        if "card" in d:
            return f"{names[d['seat']]} played {d['card']} face down."
        return f"{names[d['seat']]} played a card face down."
    if event.type == "CardsRevealed":
        shown = ", ".join(f"{names[s]} {c}" for s, c in enumerate(d["cards"]))
        who = names[d["winner"]] if d["winner"] is not None else "nobody (a tie)"
        return f"Cards revealed: {shown}; the round goes to {who}."
    if event.type == "PointsTaken":
        return f"{names[d['seat']]} scored {d['points']} ({d['how']})."
    return event.type


def render_text(v):
    lines = [f"Dice Duel - round {v['round']} of {v['rounds']}, phase {v['phase']}"]
    # Seats are numbered from 1 on the board, as on every page and in every mail.
    lines += [f"  seat {s + 1}: {score} points, {v['hand_sizes'][s]} cards" for s, score in enumerate(v["scores"])]
    if v["hand"] is not None:
        lines.append(f"Your hand: {' '.join(map(str, v['hand'])) or '(empty)'}")
    return "\n".join(lines)


def render_html(v, links=None):
    cells = "".join(f"<li>seat {s}: {score}</li>" for s, score in enumerate(v["scores"], start=1))
    return f'<div class="toy"><ul>{cells}</ul></div>'


def summary(state):
    return {"round": state["round"], "phase": state["phase"], "scores": list(state["scores"])}


def score_sheet(state):
    return [ScoreLine(r, s, p, how, f"Round {r}") for r, s, p, how in state["sheet"]]


def timeout(state, seat):
    if state["phase"] == "bid":
        return {"type": "play", "card": min(state["hands"][seat])}
    if state["phase"] == "claim":
        return {"type": "take"}
    return None


def standin(view, legal):
    """Bids its highest card when it is likely to win (9 or more), else gets rid of its lowest;
    a round won is worth a die (3.5 on average) rather than 2 points."""
    if view["phase"] == "claim":
        return {"type": "roll"}
    cards = sorted(c["card"] for c in legal)
    return {"type": "play", "card": cards[-1] if cards[-1] >= 9 else cards[0]}


def parse_order(text, state, seat):
    """'take' or 'roll': what to do with every round I win"""
    word = text.strip().lower()
    if word not in ("take", "roll"):
        raise ParseError("Dice Duel knows the standing orders 'order take' and 'order roll'.")
    return {"claim": word}


def describe_order(order):
    return order["claim"]


def follow_order(order, view, legal):
    """Every round won is claimed the same way: the order answers the claim phase, nothing else."""
    if view["phase"] != "claim":
        return None
    return {"type": order["claim"]}


GAME = GameSpec.from_modules(
    sys.modules[__name__],
    name="diceduel",
    title="Dice Duel",
    min_players=2,
    max_players=4,
    version=1,
    options=(Option("rounds", 3, label="Rounds to play", minimum=1, maximum=3),),
    colours=COLOURS,
)
