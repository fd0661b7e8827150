"""A fixed cast and a table that starts from a chosen situation, for rule tests."""

from __future__ import annotations

from games.testing import Table
from games.zauberschwert import GAME
from games.zauberschwert.rules import ART, _new_state

RED, BLUE, GREEN, YELLOW = 0, 1, 2, 3
ALL_ART = sorted(ART)


def table_at(
    players=4,
    display=("A08", "A06"),
    start=RED,
    mp=None,
    ps=None,
    hand=None,
    laid=None,
    spells=None,
    art_deck=None,
    adv_deck=None,
    step="place",
    rules=2,
    options=None,
    **extra,
):
    """A table in round 1, phase C (start player to place), with the given cards and magic.
    rules: the rules version (RULINGS.md, "Rules version 2"); 1 stands for a game started before
    it (no "rules" in its GameStarted, and the offer limit of 2 it was played with)."""
    table = Table(GAME, players, seed=b"rule-test")
    if options is None:
        options = {} if rules == 1 else GAME.resolve_options(players)
    s = _new_state({"players": players, "start": start, "options": options})
    if rules != 1:
        s["rules"] = rules
    s["round"] = 1
    s["display"] = list(display)
    used = set(display)
    s["mp"] = list(mp) if mp is not None else [10] * players
    s["ps"] = list(ps) if ps is not None else [0] * players
    s["hand"] = [list(h) for h in hand] if hand is not None else [[] for _ in range(players)]
    s["laid"] = [list(h) for h in laid] if laid is not None else [[] for _ in range(players)]
    s["spells"] = [list(h) for h in spells] if spells is not None else [[] for _ in range(players)]
    for group in s["spells"]:
        used.update(group)
    taken = {c for h in s["hand"] + s["laid"] for c in h}
    s["art_deck"] = list(art_deck) if art_deck is not None else [c for c in ALL_ART if c not in taken]
    s["adv_deck"] = list(adv_deck) if adv_deck is not None else []
    s["step"] = step
    s["turn"] = start
    s.update(extra)
    table.state = s
    return table


def types(events):
    return [e.type for e in events]


def find(events, kind):
    found = [e for e in events if e.type == kind]
    assert found, f"no {kind} among {types(events)}"
    return found[0] if len(found) == 1 else found


def place_all(table, moves):
    """moves: {seat: slot or None (pass)} acted in turn order from the start player."""
    events = []
    n = table.players
    for i in range(n):
        seat = (table.state["start"] + i) % n
        slot = moves.get(seat)
        events += table.act(seat, {"type": "pass"} if slot is None else {"type": "place", "slot": slot})
    return events
