"""Zauberschwert & Drachenei: state, decide, evolve and the rest of the rules.

The round: A refill the display to two cards, B magic supply, C place wizards in turn order (or pass),
D resolve the cards (start player's card first), E spells, trading and laying out artifacts,
F the start player passes left. Every automatic step is produced by `decide` (or `setup`) as events,
so `evolve` only applies them. Card data lives in data/cards.json.
"""

from __future__ import annotations

import json
from pathlib import Path

from games.base import Event, Rejected, Result, ScoreLine

from .lang import _

DATA = json.loads((Path(__file__).parent / "data" / "cards.json").read_text(encoding="utf-8"))
RULES = DATA["rules"]
CAP = RULES["magic_cap"]
ADV = {c["id"]: c for c in DATA["adventure_cards"]}
ART = {c["id"]: c for c in DATA["artifact_cards"]}
# one entry per artifact (a two-part artifact is one artifact made of two cards)
ARTIFACTS: dict[str, dict] = {}
for _card in DATA["artifact_cards"]:
    _a = ARTIFACTS.setdefault(
        _card["artifact"],
        {
            "key": _card["artifact"],
            "name": _card["name"],
            "symbols": list(_card["symbols"]),
            "bonus": dict(_card["bonus"]),
            "cards": [],
        },
    )
    _a["cards"].append(_card["id"])
SPELL_ID = {c["name"]: c["id"] for c in DATA["adventure_cards"] if c["type"] == "spell"}
# The card data has versions (data/cards.json, "data_versions"; RULINGS.md): a new game records the
# current one in its GameStarted event. Only the deal depends on it (which pile a card is stacked
# in), and the deal is in the log, so a game of any version replays the same.
DATA_VERSION = DATA["data_version"]
LETTER_COUNTS = DATA["deck_letter_counts"]


def letters(version: int) -> dict[str, str]:
    """The pile (A, B, C) of every adventure card in data version `version`."""
    out = {c["id"]: c["letter"] for c in DATA["adventure_cards"]}
    older = DATA["data_versions"].get(str(version), {})
    out.update(older.get("letters", {}))
    return out


def next_letter(deck_left: int) -> str | None:
    """The back of the top adventure card: the piles were stacked A on B on C, so the position in
    the deck tells it (in every data version: the piles' sizes never changed)."""
    if not deck_left:
        return None
    dealt = sum(LETTER_COUNTS.values()) - deck_left
    for letter in sorted(LETTER_COUNTS):
        if dealt < LETTER_COUNTS[letter]:
            return letter
        dealt -= LETTER_COUNTS[letter]
    return None


# The rules a new game is played by (RULINGS.md, "Rules version 2"), recorded in GameStarted: a
# contested spell is always sold (the first bidder opens), and trade offers are free (a limit per
# round is a table option, off by default). A log without it keeps version 1.
RULES_VERSION = 2


def rules_version(state) -> int:
    return state.get("rules", 1)


def offers_cap(state):
    """The table's limit of offers per player and round, or None (no limit: 0 in version 2)."""
    return state["offers_limit"] or None


WINDOW_SPELLS = ("Transformus", "Retransformus", "Harpagarus")  # used in the spell window of phase E
COLOURS = ("red", "blue", "green", "yellow")

PHASE_OF_STEP = {
    "place": "C",
    "fulmentus": "D",
    "lone": "D",
    "declare": "D",
    "auction": "D",
    "bonus": "D",
    "resolve": "D",
    "settle": "D",
    "spells": "E",
    "trade": "E",
    "layout": "E",
    "end": "F",
    "refill": "A",
    "over": "over",
}


# ---------------------------------------------------------------------------------------------
# small helpers
# ---------------------------------------------------------------------------------------------


def clone(state):
    """A copy decide may change freely. The state is at most three levels deep (state -> list or dict ->
    list or dict of plain values), so copying two levels below the top is a deep copy; much cheaper than
    a JSON round trip. (Table.act checks after every command that decide left the state untouched.)"""
    out = {}
    for k, v in state.items():
        if isinstance(v, list):
            out[k] = [x.copy() if isinstance(x, (list, dict)) else x for x in v]
        elif isinstance(v, dict):
            out[k] = {kk: (vv.copy() if isinstance(vv, (list, dict)) else vv) for kk, vv in v.items()}
        else:
            out[k] = v
    return out


def order_from_start(state):
    n, s = state["n"], state["start"]
    return [(s + i) % n for i in range(n)]


def on_slot(state, slot):
    """Seats whose wizard is on `slot`, in seating order from the start player."""
    return [x for x in order_from_start(state) if state["wizard"][x] == slot]


def artifacts_of(card_ids):
    """The artifacts (keys) among laid-out cards."""
    seen = []
    for cid in card_ids:
        k = ART[cid]["artifact"]
        if k not in seen:
            seen.append(k)
    return seen


def complete_in_hand(hand):
    """Artifacts whose every card is in `hand` (one-part artifacts are always complete)."""
    out = []
    for cid in hand:
        k = ART[cid]["artifact"]
        if k not in out and all(c in hand for c in ARTIFACTS[k]["cards"]):
            out.append(k)
    return out


def discardable(hand):
    """Cards Retransformus may discard: not a half of a two-part artifact whose other half is in hand."""
    return [
        c for c in hand if ART[c]["parts"] == 1 or not all(x in hand for x in ARTIFACTS[ART[c]["artifact"]]["cards"])
    ]


def owns_unused(state, seat, spell):
    cid = SPELL_ID[spell]
    return cid in state["spells"][seat] and cid not in state["used"][seat]


def steal_targets(state, seat):
    return [x for x in range(state["n"]) if x != seat and any(c in state["hand"][x] for c in state["received"][x])]


def usable_window_spells(state, seat):
    out = []
    if owns_unused(state, seat, "Transformus") and state["mp"][seat] >= DATA_SPELL["Transformus"]["effect"]["pay_mp"]:
        out.append("Transformus")
    if owns_unused(state, seat, "Retransformus") and state["art_deck"] and discardable(state["hand"][seat]):
        out.append("Retransformus")
    if (
        owns_unused(state, seat, "Harpagarus")
        and state["mp"][seat] >= DATA_SPELL["Harpagarus"]["effect"]["pay_mp"]
        and steal_targets(state, seat)
    ):
        out.append("Harpagarus")
    return out


DATA_SPELL = {c["name"]: c for c in DATA["adventure_cards"] if c["type"] == "spell"}


def _gain_mp(state, seat, amount):
    state["mp"][seat] = max(0, min(CAP, state["mp"][seat] + amount))


def _gain_ps(state, seat, amount, detail):
    if amount:
        state["ps"][seat] += amount
        state["gained"][seat] = True
        state["sheet"].append([state["round"], seat, amount, detail])


def creature_name(cid):
    c = ADV[cid]
    return f"{c['name']} ({c['strength']})" if c["type"] == "creature" else c["name"]


# ---------------------------------------------------------------------------------------------
# setup
# ---------------------------------------------------------------------------------------------


def setup(players, options, rng):
    return setup_with_data(DATA_VERSION, players, options, rng)


def setup_as_logged(players, options, rng, first):
    """The deal of a game whose first dealt event is `first`, under the card data version it
    recorded (the offline verifier deals an old game again with its own cards)."""
    version = first.get("data", 1)  # none written: version 1
    if isinstance(version, bool) or not isinstance(version, int) or not 1 <= version <= DATA_VERSION:
        # A file may claim anything; only the versions this game has had can be dealt again.
        raise Rejected(_("This game has no data version {version}.").format(version=repr(version)[:20]))
    return setup_with_data(version, players, options, rng)


def setup_with_data(version, players, options, rng):
    """setup with the card data of `version` (an older one to compare with: bench/game_zauberschwert)."""
    piles = {}
    for cid, letter in letters(version).items():
        piles.setdefault(letter, []).append(cid)
    # stacked C at the bottom, B on it, A on top; index 0 is the top of the deck
    adventure = rng.shuffle(piles["A"]) + rng.shuffle(piles["B"]) + rng.shuffle(piles["C"])
    artifacts = rng.shuffle([c["id"] for c in DATA["artifact_cards"]])
    start = rng.randbelow(players)
    events = [
        Event(
            "GameStarted",
            {"players": players, "start": start, "options": dict(options), "data": version, "rules": RULES_VERSION},
        ),
        Event(
            "DecksShuffled",
            {"adventure": adventure, "artifacts": artifacts},
            visible_to=(),
            public={"adventure": len(adventure), "artifacts": len(artifacts)},
        ),
    ]
    state = None
    for e in events:
        state = evolve(state, e)
    events += advance(state, rng)
    return events


# ---------------------------------------------------------------------------------------------
# evolve
# ---------------------------------------------------------------------------------------------


def _new_state(d):
    n = d["players"]
    opts = d.get("options") or {}
    return {
        "n": n,
        "offers_limit": opts.get("offers_per_round", RULES["offers_per_round"]),
        "round": 0,
        "start": d["start"],
        "step": "refill",
        "adv_deck": [],
        "art_deck": [],
        "display": [None, None],
        "gone": [],
        "discards": [],
        "mp": [RULES["start_magic"]] * n,
        "ps": [0] * n,
        "hand": [[] for _ in range(n)],
        "laid": [[] for _ in range(n)],
        "spells": [[] for _ in range(n)],
        "used": [[] for _ in range(n)],
        "received": [[] for _ in range(n)],
        "gained": [False] * n,
        "wizard": [None] * n,
        "turn": None,
        "queue": [],
        "fight": None,
        "auction": None,
        "choices": [],
        "spell_turn": 0,
        "offers": [],
        "done": [False] * n,
        "made": [0] * n,
        "idle": 0,
        "moved": False,
        "sheet": [],
        "ended": None,
    }


def _finish_slot(state, slot, remove):
    if remove:
        state["gone"].append(state["display"][slot])
        state["display"][slot] = None
        state["moved"] = True
    for x in range(state["n"]):
        if state["wizard"][x] == slot:
            state["wizard"][x] = None
    if state["queue"] and state["queue"][0] == slot:
        state["queue"].pop(0)
    state["fight"] = None
    state["auction"] = None
    state["step"] = "bonus" if state["choices"] else "resolve"


def _fight_next(state):
    """After a fight began (and Fulmentus was offered): who must decide, or settle at once."""
    f = state["fight"]
    st = f["strength"]
    if f["fulmentus"] is not None:
        state["step"] = "fulmentus"
        return
    if len(f["seats"]) == 1:
        state["step"] = "lone" if state["mp"][f["seats"][0]] >= st else "settle"
        return
    f["ask"] = [x for x in f["seats"] if state["mp"][x] >= st]
    state["step"] = "declare" if f["ask"] else "settle"


def _advance_spells(state):
    order = order_from_start(state)
    while state["spell_turn"] < state["n"]:
        seat = order[state["spell_turn"]]
        if usable_window_spells(state, seat):
            state["turn"] = seat
            return
        state["spell_turn"] += 1
    state["turn"] = None
    _enter_trade(state)


def _enter_trade(state):
    state["step"] = "trade"
    state["offers"] = []
    state["done"] = [not h for h in state["hand"]]
    state["made"] = [0] * state["n"]
    _check_trade_end(state)


def _check_trade_end(state):
    if all(state["done"]) and not state["offers"]:
        state["step"] = "layout"
        state["done"] = [not complete_in_hand(h) for h in state["hand"]]
        _check_layout_end(state)


def _check_layout_end(state):
    if all(state["done"]):
        state["step"] = "end"


def _wizard_placed(s, d):
    s["wizard"][d["seat"]] = d["slot"]
    _next_to_place(s, d["seat"])
    return s


def _wizard_passed(s, d):
    s["wizard"][d["seat"]] = -1
    _gain_mp(s, d["seat"], d["magic"])
    _next_to_place(s, d["seat"])
    return s


def _next_to_place(s, seat):
    """Phase C: the next player clockwise places; after the last, the cards are queued for phase D."""
    nxt = (seat + 1) % s["n"]
    if nxt != s["start"]:
        s["turn"] = nxt
        return
    s["turn"] = None
    queue = []
    for x in order_from_start(s):
        slot = s["wizard"][x]
        if slot is not None and slot >= 0 and slot not in queue:
            queue.append(slot)
    s["queue"] = queue
    s["step"] = "resolve"


def _bid_made(s, d):
    a = s["auction"]
    a["high"] = d["amount"]
    a["bidder"] = d["seat"]
    _next_bidder(a, d["seat"])
    return s


def _bid_passed(s, d):
    a = s["auction"]
    a["passed"].append(d["seat"])
    _next_bidder(a, d["seat"])
    return s


def _next_bidder(a, seat):
    """The next participant clockwise who has not passed bids next."""
    seats = a["seats"]
    i = seats.index(seat)
    for k in range(1, len(seats) + 1):
        cand = seats[(i + k) % len(seats)]
        if cand not in a["passed"]:
            a["turn"] = cand
            break


def _game_started(_s, d):
    state = _new_state(d)
    if "rules" in d:  # absent from a log written before rules version 2: its state stays as it was
        state["rules"] = d["rules"]
    return state


def _decks_shuffled(s, d):
    s["adv_deck"] = list(d["adventure"])
    s["art_deck"] = list(d["artifacts"])
    return s


def _round_started(s, d):
    s["round"] = d["round"]
    s["display"] = [c for c in s["display"] if c is not None] + list(d["revealed"])
    del s["adv_deck"][: len(d["revealed"])]
    n = s["n"]
    s["used"] = [[] for _ in range(n)]
    s["received"] = [[] for _ in range(n)]
    s["gained"] = [False] * n
    s["moved"] = False
    return s


def _magic_supplied(s, d):
    for seat, gain in enumerate(d["income"]):
        _gain_mp(s, seat, gain)
    for seat in d["addus"]:
        s["used"][seat].append(SPELL_ID["Addus"])
    s["step"] = "place"
    s["wizard"] = [None] * s["n"]
    s["turn"] = s["start"]
    return s


def _spell_won(s, d):
    s["spells"][d["seat"]].append(d["card"])
    _gain_mp(s, d["seat"], -d["price"])
    s["display"][d["slot"]] = None
    s["moved"] = True
    _finish_slot(s, d["slot"], False)
    return s


def _spell_unsold(s, d):
    _finish_slot(s, d["slot"], True)
    return s


def _orb_resolved(s, d):
    for seat in d["seats"]:
        _gain_mp(s, seat, d["magic"])
    _finish_slot(s, d["slot"], True)
    return s


def _holy_site_resolved(s, d):
    for seat in d["seats"]:
        _gain_ps(s, seat, d["power"], "Holy site")
    _finish_slot(s, d["slot"], True)
    return s


def _artifacts_drawn(s, d):
    cards = d["cards"]
    del s["art_deck"][: len(cards)]
    s["hand"][d["seat"]].extend(cards)
    s["received"][d["seat"]].extend(cards)
    return s


def _fight_begun(s, d):
    owner = None
    for x in order_from_start(s):
        if owns_unused(s, x, "Fulmentus"):
            owner = x
    s["fight"] = {
        "slot": d["slot"],
        "card": d["card"],
        "seats": list(d["seats"]),
        "strength": d["strength"],
        "fulmentus": owner,
        "ask": [],
    }
    _fight_next(s)
    return s


def _fulmentus_cast(s, d):
    f = s["fight"]
    f["strength"] = d["strength"]
    f["fulmentus"] = None
    s["used"][d["seat"]].append(SPELL_ID["Fulmentus"])
    _fight_next(s)
    return s


def _fulmentus_skipped(s, _d):
    s["fight"]["fulmentus"] = None
    _fight_next(s)
    return s


def _declared(s, d):
    f = s["fight"]
    f["ask"].remove(d["seat"])
    if d["choice"] == "together" and not f["ask"]:
        s["step"] = "settle"
    return s


def _auction_opened(s, d):
    s["auction"] = {
        "slot": d["slot"],
        "card": d["card"],
        "kind": d["kind"],
        "seats": list(d["seats"]),
        "passed": [],
        "high": None,
        "bidder": None,
        "turn": d["seats"][0],
        "min": d["min"],
    }
    s["step"] = "auction"
    return s


def _creature_defeated(s, d):
    for w in d["winners"]:
        seat = w["seat"]
        _gain_mp(s, seat, -w["paid"])
        _gain_ps(s, seat, w["power"], f"{ADV[d['card']]['name']} ({d['mode']})")
        _gain_ps(s, seat, w["bonus_power"], "Artifact bonus")
        _gain_mp(s, seat, w["bonus_magic"])
    s["choices"] = [list(c) for c in d["choices"]]
    _finish_slot(s, d["slot"], True)
    return s


def _creature_withstood(s, d):
    _finish_slot(s, d["slot"], False)
    return s


def _bonus_chosen(s, d):
    seat = d["seat"]
    if d["take"] == "stones":
        _gain_ps(s, seat, d["amount"], f"Artifact bonus ({ARTIFACTS[d['artifact']]['name']})")
    else:
        _gain_mp(s, seat, d["amount"])
    s["choices"].pop(0)
    if not s["choices"]:
        s["step"] = "resolve"
    return s


def _adventures_ended(s, d):
    for slot, cid in enumerate(s["display"]):
        if cid in d["removed"]:
            s["gone"].append(cid)
            s["display"][slot] = None
            s["moved"] = True
    s["wizard"] = [None] * s["n"]
    s["queue"] = []
    s["step"] = "spells"
    s["spell_turn"] = 0
    _advance_spells(s)
    return s


def _transformus_cast(s, d):
    seat = d["seat"]
    _gain_mp(s, seat, -d["magic"])
    _gain_ps(s, seat, d["power"], "Transformus")
    s["used"][seat].append(SPELL_ID["Transformus"])
    _advance_spells(s)
    return s


def _retransformus_cast(s, d):
    seat = d["seat"]
    s["hand"][seat].remove(d["discard"])
    if d["discard"] in s["received"][seat]:
        s["received"][seat].remove(d["discard"])
    s["discards"].append(d["discard"])
    s["used"][seat].append(SPELL_ID["Retransformus"])
    if "draw" in d:  # the full event (evolve always gets it); the public form has no "draw"
        s["art_deck"].remove(d["draw"])
        s["hand"][seat].append(d["draw"])
        s["received"][seat].append(d["draw"])
    _advance_spells(s)
    return s


def _harpagarus_cast(s, d):
    seat, target, card = d["seat"], d["target"], d["card"]
    _gain_mp(s, seat, -d["magic"])
    s["hand"][target].remove(card)
    s["received"][target].remove(card)
    s["hand"][seat].append(card)
    s["used"][seat].append(SPELL_ID["Harpagarus"])
    _advance_spells(s)
    return s


def _spells_done(s, _d):
    s["spell_turn"] += 1
    _advance_spells(s)
    return s


def _offer_made(s, d):
    s["offers"].append({"from": d["from"], "to": d["to"], "give": d["give"], "want": d["want"]})
    s["made"][d["from"]] += 1
    return s


def _offer_accepted(s, d):
    a, b = d["from"], d["to"]
    s["offers"] = [o for o in s["offers"] if o["from"] != a or o["to"] != b]
    for seat, out_card, in_card in ((a, d["give"], d["want"]), (b, d["want"], d["give"])):
        s["hand"][seat].remove(out_card)
        s["hand"][seat].append(in_card)
        if out_card in s["received"][seat]:
            s["received"][seat].remove(out_card)
    # an offer whose card has left its owner's hand lapses
    s["offers"] = [o for o in s["offers"] if o["give"] in s["hand"][o["from"]]]
    _check_trade_end(s)
    return s


def _offer_declined(s, d):
    s["offers"] = [o for o in s["offers"] if o["from"] != d["from"] or o["to"] != d["to"]]
    _check_trade_end(s)
    return s


def _trading_done(s, d):
    s["done"][d["seat"]] = True
    _check_trade_end(s)
    return s


def _artifact_laid(s, d):
    seat = d["seat"]
    for cid in d["cards"]:
        s["hand"][seat].remove(cid)
        if cid in s["received"][seat]:
            s["received"][seat].remove(cid)
        s["laid"][seat].append(cid)
    if not complete_in_hand(s["hand"][seat]):
        s["done"][seat] = True
    _check_layout_end(s)
    return s


def _laying_done(s, d):
    s["done"][d["seat"]] = True
    _check_layout_end(s)
    return s


def _stonex_cast(s, d):
    _gain_ps(s, d["seat"], d["power"], "Stonex")
    s["used"][d["seat"]].append(SPELL_ID["Stonex"])
    return s


def _round_ended(s, d):
    s["idle"] = d["idle"]
    s["start"] = d["start"]
    s["step"] = "refill"
    s["done"] = [False] * s["n"]
    s["offers"] = []
    return s


def _game_ended(s, d):
    s["step"] = "over"
    s["ended"] = d["reason"]
    s["turn"] = None
    return s


# One small function per event type: evolve(state, event) -> state (it may mutate its input).
EVOLVERS = {
    "GameStarted": _game_started,
    "DecksShuffled": _decks_shuffled,
    "RoundStarted": _round_started,
    "MagicSupplied": _magic_supplied,
    "WizardPlaced": _wizard_placed,
    "WizardPassed": _wizard_passed,
    "SpellWon": _spell_won,
    "SpellUnsold": _spell_unsold,
    "OrbResolved": _orb_resolved,
    "HolySiteResolved": _holy_site_resolved,
    "ArtifactsDrawn": _artifacts_drawn,
    "FightBegun": _fight_begun,
    "FulmentusCast": _fulmentus_cast,
    "FulmentusSkipped": _fulmentus_skipped,
    "Declared": _declared,
    "AuctionOpened": _auction_opened,
    "BidMade": _bid_made,
    "BidPassed": _bid_passed,
    "CreatureDefeated": _creature_defeated,
    "CreatureWithstood": _creature_withstood,
    "BonusChosen": _bonus_chosen,
    "AdventuresEnded": _adventures_ended,
    "TransformusCast": _transformus_cast,
    "RetransformusCast": _retransformus_cast,
    "HarpagarusCast": _harpagarus_cast,
    "SpellsDone": _spells_done,
    "OfferMade": _offer_made,
    "OfferAccepted": _offer_accepted,
    "OfferDeclined": _offer_declined,
    "TradingDone": _trading_done,
    "ArtifactLaid": _artifact_laid,
    "LayingDone": _laying_done,
    "StonexCast": _stonex_cast,
    "RoundEnded": _round_ended,
    "GameEnded": _game_ended,
}


def _unchanged(s, _d):
    return s


def evolve(state, event):
    # an event type this reducer does not know changes nothing (as before the table existed)
    return EVOLVERS.get(event.type, _unchanged)(state, event.data)


# ---------------------------------------------------------------------------------------------
# automatic steps: events produced without anyone's input
# ---------------------------------------------------------------------------------------------


class _Out:
    """Collects events while applying them to a scratch state."""

    def __init__(self, state):
        self.state = state
        self.events: list[Event] = []

    def emit(self, event: Event):
        self.state = evolve(self.state, event)
        self.events.append(event)


def advance(state, rng):
    """Events for every automatic step from `state` (a scratch copy, updated) until input is awaited."""
    out = _Out(state)
    for _step in range(1000):
        if not _auto_step(out, rng):
            break
    return out.events


def _auto_step(out, rng) -> bool:
    s = out.state
    step = s["step"]
    if step == "refill":
        present = [c for c in s["display"] if c is not None]
        need = RULES["display_size"] - len(present)
        if s["idle"] >= RULES["stall_rounds"]:
            out.emit(Event("GameEnded", {"reason": "stall", "round": s["round"]}))
        elif need > len(s["adv_deck"]):
            out.emit(Event("GameEnded", {"reason": "display", "round": s["round"]}))
        else:
            revealed = s["adv_deck"][:need]
            out.emit(
                Event(
                    "RoundStarted",
                    {"round": s["round"] + 1, "start": s["start"], "revealed": revealed},
                    reveals=bool(revealed),
                )
            )
            income = [RULES["income"]] * s["n"]
            addus = [x for x in order_from_start(s) if owns_unused(s, x, "Addus")]
            for x in addus:
                income[x] += DATA_SPELL["Addus"]["effect"]["gain_mp"]
            out.emit(Event("MagicSupplied", {"income": income, "addus": addus}))
        return True
    if step == "resolve":
        _resolve_next(out)
        return True
    if step == "settle":
        _settle(out)
        return True
    if step == "end":
        for x in order_from_start(s):
            if owns_unused(s, x, "Stonex") and not s["gained"][x]:
                out.emit(
                    Event("StonexCast", {"seat": x, "power": DATA_SPELL["Stonex"]["effect"]["gain_ps_if_none_gained"]})
                )
        # a round in which no card left the display: the next round starts with the same two creatures
        idle = 0 if s["moved"] else s["idle"] + 1
        out.emit(Event("RoundEnded", {"round": s["round"], "start": (s["start"] + 1) % s["n"], "idle": idle}))
        return True
    return False


def _resolve_next(out):
    s = out.state
    if not s["queue"]:
        removed = [c for c in s["display"] if c is not None and ADV[c]["type"] != "creature"]
        out.emit(Event("AdventuresEnded", {"removed": removed}))
        return
    slot = s["queue"][0]
    cid = s["display"][slot]
    card = ADV[cid]
    seats = on_slot(s, slot)
    kind = card["type"]
    if kind == "spell":
        if len(seats) == 1:
            out.emit(Event("SpellWon", {"seat": seats[0], "card": cid, "slot": slot, "price": 0}))
        else:
            out.emit(Event("AuctionOpened", {"slot": slot, "card": cid, "kind": "spell", "seats": seats, "min": 0}))
    elif kind == "energy_orb":
        out.emit(
            Event(
                "OrbResolved",
                {
                    "slot": slot,
                    "card": cid,
                    "seats": seats,
                    "magic": card["reward_each_attached_wizard"]["magic_points"],
                },
            )
        )
    elif kind == "holy_site":
        reward = card["reward_each_attached_wizard"]
        out.emit(
            Event("HolySiteResolved", {"slot": slot, "card": cid, "seats": seats, "power": reward["power_stones"]})
        )
        for x in seats:
            _draw(out, x, reward["artifacts"])
    else:
        out.emit(Event("FightBegun", {"slot": slot, "card": cid, "seats": seats, "strength": card["strength"]}))


def _draw(out, seat, count):
    cards = out.state["art_deck"][:count]
    if cards:
        out.emit(
            Event(
                "ArtifactsDrawn",
                {"seat": seat, "cards": list(cards)},
                visible_to=(seat,),
                public={"seat": seat, "count": len(cards)},
                reveals=True,
            )
        )


def share_out(state, seats, strength):
    """Joint fight: the cost split equally (rounded up); who cannot pay drops out, the rest split again."""
    group = list(seats)
    dropped = []
    while group:
        share = -(-strength // len(group))
        poor = [x for x in group if state["mp"][x] < share]
        if not poor:
            return group, share, dropped
        dropped += poor
        group = [x for x in group if x not in poor]
    return [], 0, dropped


def _settle(out):
    s = out.state
    f = s["fight"]
    if len(f["seats"]) == 1:
        out.emit(
            Event(
                "CreatureWithstood",
                {"slot": f["slot"], "card": f["card"], "seats": list(f["seats"]), "reason": "cannot_pay"},
            )
        )
        return
    group, share, dropped = share_out(s, f["seats"], f["strength"])
    if not group:
        out.emit(
            Event(
                "CreatureWithstood",
                {"slot": f["slot"], "card": f["card"], "seats": list(f["seats"]), "reason": "cannot_pay"},
            )
        )
        return
    _defeat(out, group, [share] * len(group), "together", dropped)


def bonuses(state, seat, symbol):
    """(power, magic, [artifacts with a choice]) for the seat's laid-out artifacts showing `symbol`."""
    power = magic = 0
    choices = []
    for k in artifacts_of(state["laid"][seat]):
        a = ARTIFACTS[k]
        if symbol not in a["symbols"]:
            continue
        kind, amount = a["bonus"]["type"], a["bonus"]["amount"]
        if kind == "power_stones":
            power += amount
        elif kind == "magic_points":
            magic += amount
        else:
            choices.append(k)
    return power, magic, choices


def _defeat(out, seats, paid, mode, dropped=()):
    s = out.state
    f = s["fight"] or {}
    a = s["auction"] or {}
    slot = f.get("slot", a.get("slot"))
    cid = s["display"][slot]
    card = ADV[cid]
    reward = card["reward_one_wizard"] if len(seats) == 1 else card["reward_two_wizards_each"]
    winners = []
    choices = []
    for seat, pay in zip(seats, paid):
        bp, bm, ch = bonuses(s, seat, card["symbol"])
        winners.append(
            {
                "seat": seat,
                "paid": pay,
                "power": reward["power_stones"],
                "bonus_power": bp,
                "bonus_magic": bm,
                "artifacts": reward["artifacts"],
                "bonus_artifacts": [
                    k for k in artifacts_of(s["laid"][seat]) if card["symbol"] in ARTIFACTS[k]["symbols"]
                ],
            }
        )
        choices += [[seat, k] for k in ch]
    out.emit(
        Event(
            "CreatureDefeated",
            {"slot": slot, "card": cid, "mode": mode, "winners": winners, "dropped": list(dropped), "choices": choices},
        )
    )
    for w in winners:
        _draw(out, w["seat"], w["artifacts"])


# ---------------------------------------------------------------------------------------------
# waiting_for, legal
# ---------------------------------------------------------------------------------------------


def waiting_for(state):
    step = state["step"]
    if step in ("place", "spells"):
        return [state["turn"]]
    if step == "fulmentus":
        return [state["fight"]["fulmentus"]]
    if step == "lone":
        return [state["fight"]["seats"][0]]
    if step == "declare":
        return state["fight"]["ask"][:1]
    if step == "auction":
        return [state["auction"]["turn"]]
    if step == "bonus":
        return [state["choices"][0][0]]
    if step == "trade":
        offers = state["offers"]
        incoming = {o["to"] for o in offers}
        outgoing = {o["from"] for o in offers}
        done = state["done"]
        if rules_version(state) >= 2:  # an offerer may go on trading with the others meanwhile
            outgoing = set()
        return [x for x in range(state["n"]) if x in incoming or (not done[x] and x not in outgoing)]
    if step == "layout":
        return [x for x in range(state["n"]) if not state["done"][x]]
    return []


def must_open(state, seat) -> bool:
    """Rules version 2: "The first bid comes either from the start player ... or from the first
    participating player clockwise": while nobody has bid, a bidder who can pay the lowest bid
    must make it (so a contested spell is always sold, for 0 at least)."""
    a = state["auction"]
    return rules_version(state) >= 2 and a["high"] is None and state["mp"][seat] >= a["min"]


def may_offer_to(state, seat) -> list[int]:
    """The players `seat` may make an offer to now. Version 1: one open offer at a time. Version 2
    leaves trading free ("negotiate freely"), except that a player has at most one open offer to
    each other player: an answer names only the offerer ('accept red')."""
    if rules_version(state) < 2 and any(o["from"] == seat for o in state["offers"]):
        return []
    cap = offers_cap(state) if rules_version(state) >= 2 else state["offers_limit"]
    if cap is not None and state["made"][seat] >= cap:
        return []
    open_to = {o["to"] for o in state["offers"] if o["from"] == seat}
    return [x for x in range(state["n"]) if x != seat and state["hand"][x] and x not in open_to]


def known_out(state):
    """Artifact cards everyone knows are not in any hand: laid out or discarded."""
    out = set(state["discards"])
    for laid in state["laid"]:
        out.update(laid)
    return out


def legal(state, seat):
    if seat not in waiting_for(state):
        return []
    step = state["step"]
    if step == "place":
        return [{"type": "place", "slot": i} for i, c in enumerate(state["display"]) if c is not None] + [
            {"type": "pass"}
        ]
    if step == "fulmentus":
        return [{"type": "fulmentus", "delta": -2}, {"type": "fulmentus", "delta": 2}, {"type": "skip"}]
    if step == "lone":
        return [{"type": "fight"}, {"type": "withdraw"}]
    if step == "declare":
        return [{"type": "together"}, {"type": "alone"}]
    if step == "auction":
        a = state["auction"]
        low = a["min"] if a["high"] is None else a["high"] + 1
        bids = [{"type": "bid", "amount": v} for v in range(low, state["mp"][seat] + 1)]
        return bids + ([] if must_open(state, seat) else [{"type": "pass"}])
    if step == "bonus":
        return [{"type": "bonus", "take": "stones"}, {"type": "bonus", "take": "magic"}]
    if step == "spells":
        out = []
        for spell in usable_window_spells(state, seat):
            if spell == "Transformus":
                out.append({"type": "cast", "spell": spell})
            elif spell == "Retransformus":
                out += [{"type": "cast", "spell": spell, "card": c} for c in discardable(state["hand"][seat])]
            else:
                out += [{"type": "cast", "spell": spell, "target": x} for x in steal_targets(state, seat)]
        return out + [{"type": "done"}]
    if step == "trade":
        out = [
            cmd
            for o in state["offers"]
            if o["to"] == seat
            for cmd in ([{"type": "accept", "from": o["from"]}] if o["want"] in state["hand"][seat] else [])
            + [{"type": "decline", "from": o["from"]}]
        ]
        waiting = rules_version(state) < 2 and any(o["from"] == seat for o in state["offers"])
        if not state["done"][seat] and not waiting:
            hand = state["hand"][seat]
            gone = known_out(state)
            wants = [c for c in ART if c not in hand and c not in gone]
            others = may_offer_to(state, seat)
            out += [{"type": "offer", "give": g, "to": x, "want": w} for g in hand for x in others for w in wants]
            out.append({"type": "done"})
        return out
    if step == "layout":
        return [{"type": "lay", "artifact": k} for k in complete_in_hand(state["hand"][seat])] + [{"type": "done"}]
    return []


# ---------------------------------------------------------------------------------------------
# decide
# ---------------------------------------------------------------------------------------------


def decide(state, seat, command, rng):
    if seat not in waiting_for(state):
        raise Rejected(_("It is not your turn.") if state["step"] != "over" else _("The game is over."))
    kind = command.get("type")
    handler = DECIDERS.get(state["step"])
    out = _Out(clone(state))
    handler(out, seat, kind, command, rng)
    out.events += advance(out.state, rng)
    return out.events


def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def _want(kind, allowed, hint):
    if kind not in allowed:
        raise Rejected(hint)


def _do_place(out, seat, kind, cmd, rng):
    s = out.state
    _want(kind, ("place", "pass"), _("Place your wizard on a card ('place 1', 'place 2') or 'pass' for 1 magic point."))
    if kind == "pass":
        out.emit(Event("WizardPassed", {"seat": seat, "magic": RULES["pass_bonus"]}))
        return
    slot = cmd.get("slot")
    if not _is_int(slot) or slot not in (0, 1) or s["display"][slot] is None:
        raise Rejected(_("There is no such card in the display; say 'place 1' or 'place 2'."))
    out.emit(Event("WizardPlaced", {"seat": seat, "slot": slot, "card": s["display"][slot]}))


def _do_fulmentus(out, seat, kind, cmd, rng):
    s = out.state
    _want(
        kind, ("fulmentus", "skip"), _("Cast Fulmentus on this fight ('fulmentus up' or 'fulmentus down') or 'skip'.")
    )
    if kind == "skip":
        out.emit(Event("FulmentusSkipped", {"seat": seat}))
        return
    delta = cmd.get("delta")
    if not _is_int(delta) or delta not in DATA_SPELL["Fulmentus"]["effect"]["creature_strength_delta"]:
        raise Rejected(_("Fulmentus raises or lowers the strength by 2: 'fulmentus up' or 'fulmentus down'."))
    f = s["fight"]
    out.emit(
        Event(
            "FulmentusCast",
            {"seat": seat, "card": f["card"], "delta": delta, "strength": max(0, f["strength"] + delta)},
        )
    )


def _do_lone(out, seat, kind, cmd, rng):
    s = out.state
    _want(kind, ("fight", "withdraw"), _("You face this creature alone: 'fight' (pay its strength) or 'withdraw'."))
    f = s["fight"]
    if kind == "withdraw":
        out.emit(
            Event("CreatureWithstood", {"slot": f["slot"], "card": f["card"], "seats": [seat], "reason": "withdrew"})
        )
        return
    _defeat(out, [seat], [f["strength"]], "alone")


def _do_declare(out, seat, kind, cmd, rng):
    s = out.state
    _want(kind, ("together", "alone"), _("Say 'together' to share the fight or 'alone' to claim it (an auction)."))
    f = s["fight"]
    out.emit(Event("Declared", {"seat": seat, "choice": kind}))
    if kind == "alone":
        out.emit(
            Event(
                "AuctionOpened",
                {
                    "slot": f["slot"],
                    "card": f["card"],
                    "kind": "creature",
                    "seats": list(f["seats"]),
                    "min": f["strength"],
                },
            )
        )


def _do_auction(out, seat, kind, cmd, rng):
    s = out.state
    a = s["auction"]
    _want(kind, ("bid", "pass"), _("Bid magic points ('bid 5') or 'pass'."))
    if kind == "bid":
        amount = cmd.get("amount")
        low = a["min"] if a["high"] is None else a["high"] + 1
        if not _is_int(amount):
            raise Rejected(_("Say how much you bid: 'bid 5'."))
        if amount < low:
            raise Rejected(_("Your bid must be at least {low}.").format(low=low))
        if amount > s["mp"][seat]:
            raise Rejected(_("You cannot bid more than your {n} magic points.").format(n=s["mp"][seat]))
        out.emit(Event("BidMade", {"seat": seat, "amount": amount}))
    elif must_open(s, seat):
        raise Rejected(_("You bid first: the first bid must be made (at least {low}).").format(low=a["min"]))
    else:
        out.emit(Event("BidPassed", {"seat": seat}))
    a = out.state["auction"]
    left = [x for x in a["seats"] if x not in a["passed"]]
    if len(left) == 1 and left[0] == a["bidder"]:
        winner, price = a["bidder"], a["high"]
        if a["kind"] == "spell":
            out.emit(Event("SpellWon", {"seat": winner, "card": a["card"], "slot": a["slot"], "price": price}))
        else:
            _defeat(out, [winner], [price], "auction")
    elif not left:
        if a["kind"] == "spell":
            out.emit(Event("SpellUnsold", {"slot": a["slot"], "card": a["card"]}))
        else:
            out.emit(
                Event(
                    "CreatureWithstood",
                    {"slot": a["slot"], "card": a["card"], "seats": list(a["seats"]), "reason": "no_bid"},
                )
            )


def _do_bonus(out, seat, kind, cmd, rng):
    s = out.state
    _want(kind, ("bonus",), _("Take the artifact bonus as 'take stones' or 'take magic'."))
    take = cmd.get("take")
    if take not in ("stones", "magic"):
        raise Rejected(_("Say 'take stones' or 'take magic'."))
    art = s["choices"][0][1]
    out.emit(
        Event("BonusChosen", {"seat": seat, "artifact": art, "take": take, "amount": ARTIFACTS[art]["bonus"]["amount"]})
    )


def _do_spells(out, seat, kind, cmd, rng):
    s = out.state
    _want(kind, ("cast", "done"), _("Cast a spell ('cast transformus') or say 'done'."))
    if kind == "done":
        out.emit(Event("SpellsDone", {"seat": seat}))
        return
    spell = cmd.get("spell")
    usable = usable_window_spells(s, seat)
    if spell not in usable:
        if spell in SPELL_ID and SPELL_ID[spell] in s["spells"][seat]:
            raise Rejected(_("You cannot use {spell} now.").format(spell=spell))
        text = _("You have no spell {spell} to use now.").format(spell=spell)
        if usable:
            text += " " + _("You can cast: {spells}.").format(spells=", ".join(usable))
        raise Rejected(text)
    if spell == "Transformus":
        eff = DATA_SPELL[spell]["effect"]
        out.emit(Event("TransformusCast", {"seat": seat, "magic": eff["pay_mp"], "power": eff["gain_ps"]}))
    elif spell == "Retransformus":
        card = cmd.get("card")
        if card not in discardable(s["hand"][seat]):
            raise Rejected(_("Discard a card from your hand that is not half of a complete two-part artifact."))
        draw = s["art_deck"][0]
        out.emit(
            Event(
                "RetransformusCast",
                {"seat": seat, "discard": card, "draw": draw},
                visible_to=(seat,),
                public={"seat": seat, "discard": card},
                reveals=True,
            )
        )
    else:
        target = cmd.get("target")
        if not _is_int(target) or target not in steal_targets(s, seat):
            raise Rejected(_("Harpagarus takes a card from a player who received artifact cards this round."))
        pool = [c for c in s["received"][target] if c in s["hand"][target]]
        card = rng.choice(pool)
        out.emit(
            Event(
                "HarpagarusCast",
                {"seat": seat, "target": target, "card": card, "magic": DATA_SPELL[spell]["effect"]["pay_mp"]},
                visible_to=(seat, target),
                public={"seat": seat, "target": target, "magic": DATA_SPELL[spell]["effect"]["pay_mp"]},
                reveals=True,
            )
        )


def _do_trade(out, seat, kind, cmd, rng):
    s = out.state
    _want(
        kind,
        ("offer", "accept", "decline", "done"),
        _("Trade: 'offer <your card> to <colour> for <card>', 'accept <colour>', 'decline <colour>' or 'done'."),
    )
    if kind in ("accept", "decline"):
        src = cmd.get("from")
        offer = next((o for o in s["offers"] if _is_int(src) and o["from"] == src and o["to"] == seat), None)
        if offer is None:
            raise Rejected(_("There is no offer to you from that player."))
        if kind == "decline":
            out.emit(Event("OfferDeclined", {"from": src, "to": seat}))
            return
        if offer["want"] not in s["hand"][seat]:
            from .words import card

            raise Rejected(_("You do not hold {card}.").format(card=card(offer["want"])))
        pair = (src, seat)
        out.emit(Event("OfferAccepted", dict(offer), visible_to=pair, public={"from": src, "to": seat}, reveals=True))
        return
    if s["done"][seat]:
        raise Rejected(_("You have finished trading this round; you can only answer offers made to you."))
    if rules_version(s) < 2 and any(o["from"] == seat for o in s["offers"]):
        raise Rejected(_("Wait for the answer to your offer first."))
    if kind == "done":
        out.emit(Event("TradingDone", {"seat": seat}))
        return
    cap = offers_cap(s) if rules_version(s) >= 2 else s["offers_limit"]
    if cap is not None and s["made"][seat] >= cap:
        raise Rejected(_("You have made your {n} offers this round; say 'done'.").format(n=cap))
    give, to, want = cmd.get("give"), cmd.get("to"), cmd.get("want")
    if give not in s["hand"][seat]:
        raise Rejected(_("You can only offer an artifact card from your hand."))
    if not _is_int(to) or not 0 <= to < s["n"] or to == seat:
        raise Rejected(_("Offer to another player."))
    if not s["hand"][to]:
        raise Rejected(_("That player has no artifact cards in hand."))
    if any(o["from"] == seat and o["to"] == to for o in s["offers"]):
        raise Rejected(_("Your offer to that player is still open: wait for the answer."))
    if want not in ART or want in s["hand"][seat] or want in known_out(s):
        raise Rejected(_("Ask for an artifact card that may be in another player's hand (not laid out or discarded)."))
    # the recipient now sees one of the offerer's hand cards: a reveal (an undo barrier)
    out.emit(
        Event(
            "OfferMade",
            {"from": seat, "to": to, "give": give, "want": want},
            visible_to=(seat, to),
            public={"from": seat, "to": to},
            reveals=True,
        )
    )


def _do_layout(out, seat, kind, cmd, rng):
    s = out.state
    _want(kind, ("lay", "done"), _("Lay out a complete artifact ('lay magic wand') or say 'done'."))
    if kind == "done":
        out.emit(Event("LayingDone", {"seat": seat}))
        return
    art = cmd.get("artifact")
    if art not in complete_in_hand(s["hand"][seat]):
        raise Rejected(_("You can lay out only a complete artifact from your hand (both halves of a two-part one)."))
    out.emit(
        Event("ArtifactLaid", {"seat": seat, "artifact": art, "cards": list(ARTIFACTS[art]["cards"])}, reveals=True)
    )


# One small function per step that awaits a command (the step says which commands it takes).
DECIDERS = {
    "place": _do_place,
    "fulmentus": _do_fulmentus,
    "lone": _do_lone,
    "declare": _do_declare,
    "auction": _do_auction,
    "bonus": _do_bonus,
    "spells": _do_spells,
    "trade": _do_trade,
    "layout": _do_layout,
}


# ---------------------------------------------------------------------------------------------
# result, summary, score sheet, timeout
# ---------------------------------------------------------------------------------------------


def result(state):
    if state["step"] != "over":
        return None
    return Result(
        list(state["ps"]),
        [(state["mp"][x], len(state["laid"][x])) for x in range(state["n"])],
        {"magic": list(state["mp"]), "laid_cards": [len(x) for x in state["laid"]], "reason": state["ended"]},
    )


def summary(state):
    from .words import PHASES  # words names what this module plays; it imports this module

    # The phase by its name (the read model keeps it in English, the log's language; the platform
    # says it in the reader's words through this game's catalogue), not its letter alone.
    letter = PHASE_OF_STEP.get(state["step"], state["step"])
    return {
        "round": state["round"],
        "phase": PHASES.get(letter, letter),
        "scores": list(state["ps"]),
    }


def score_sheet(state):
    from . import words as W  # words names the cards of this module

    return [
        ScoreLine(r, seat, pts, W.sheet_detail(detail), W.sheet_label(r)) for r, seat, pts, detail in state["sheet"]
    ]


def timeout(state, seat):
    if seat not in waiting_for(state):
        return None
    step = state["step"]
    if step == "auction" and must_open(state, seat):
        return {"type": "bid", "amount": state["auction"]["min"]}
    if step == "trade":
        incoming = [o for o in state["offers"] if o["to"] == seat]
        if incoming:
            return {"type": "decline", "from": incoming[0]["from"]}
        return {"type": "done"}
    return {
        "place": {"type": "pass"},
        "fulmentus": {"type": "skip"},
        "lone": {"type": "withdraw"},
        "declare": {"type": "together"},
        "auction": {"type": "pass"},
        "bonus": {"type": "bonus", "take": "stones"},
        "spells": {"type": "done"},
        "layout": {"type": "done"},
    }.get(step)
