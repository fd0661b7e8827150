"""What a seat may see, the events in words, and the 80-column text (the board drawings: board.py)."""

from __future__ import annotations

import textwrap

from .rules import ADV, ART, ARTIFACTS, COLOURS, PHASE_OF_STEP, artifacts_of, next_letter, order_from_start, waiting_for

STEP_WORDS = {
    "place": "place wizards",
    "fulmentus": "Fulmentus?",
    "lone": "a lone fight",
    "declare": "together or alone?",
    "auction": "auction",
    "bonus": "artifact bonus",
    "spells": "spells",
    "trade": "trading",
    "layout": "laying out artifacts",
    "over": "game over",
    "refill": "new cards",
    "resolve": "resolution",
    "settle": "resolution",
    "end": "end of round",
}
PHASE_WORDS = {
    "A": "new adventure cards",
    "B": "magic supply",
    "C": "choose adventures",
    "D": "resolution",
    "E": "lay out artifacts",
    "F": "change of start player",
    "over": "game over",
}


def view(state, seat):
    n = state["n"]
    mine = seat is not None
    # Once the game is over nothing is secret (the seed is revealed too): every hand is shown.
    over = state["step"] == "over"
    players = []
    for x in range(n):
        players.append(
            {
                "seat": x,
                "colour": COLOURS[x],
                "magic": state["mp"][x],
                "power": state["ps"][x],
                "hand_count": len(state["hand"][x]),
                "laid": list(state["laid"][x]),
                "spells": list(state["spells"][x]),
                "used": list(state["used"][x]),
                "wizard": state["wizard"][x],
                "done": bool(state["done"][x]),
                "hand": list(state["hand"][x]) if over or (mine and x == seat) else None,
            }
        )
    offers = []
    for o in state["offers"]:
        if mine and seat in (o["from"], o["to"]):
            offers.append(dict(o))
        else:
            offers.append({"from": o["from"], "to": o["to"]})
    fight = state["fight"]
    auction = state["auction"]
    v = {
        "game": "zauberschwert",
        "seat": seat,
        "players": n,
        "colours": list(COLOURS[:n]),
        "round": state["round"],
        "step": state["step"],
        "phase": PHASE_OF_STEP.get(state["step"], state["step"]),
        "start": state["start"],
        "display": list(state["display"]),
        "adventure_deck": len(state["adv_deck"]),
        "next_letter": next_letter(len(state["adv_deck"])),  # the backs show A-C
        "artifact_deck": len(state["art_deck"]),
        "gone": list(state["gone"]),
        "discards": list(state["discards"]),
        "players_info": players,
        "hand": list(state["hand"][seat]) if mine else None,
        "fight": None if fight is None else {k: fight[k] for k in ("slot", "card", "seats", "strength")},
        "auction": None
        if auction is None
        else {k: (list(val) if isinstance(val, list) else val) for k, val in auction.items()},
        "choices": [list(c) for c in state["choices"]],
        "offers": offers,
        "waiting_for": waiting_for(state),
        "turn": state["turn"],
        "ended": state["ended"],
        # the seat's own count (it knows how many offers it made this round); others' stay private
        "offers_made": state["made"][seat] if mine else None,
        "offers_limit": state["offers_limit"],
    }
    return v


# ---------------------------------------------------------------------------------------------
# narration
# ---------------------------------------------------------------------------------------------


def _adv(cid):
    c = ADV[cid]
    if c["type"] == "creature":
        return f"{c['name']} (strength {c['strength']}, {c['symbol']})"
    return c["name"]


def _cards(ids):
    return ", ".join(ART[c]["card_name"] for c in ids)


def _who(names, seats):
    return " and ".join(names[x] for x in seats) if seats else "nobody"


def _narrate_round(t, d, names):
    """Narration of the round: setup, phases A to C."""
    if t == "GameStarted":
        return f"Zauberschwert & Drachenei for {d['players']} players begins; {names[d['start']]} is the start player."
    if t == "DecksShuffled":
        return "The adventure deck (A on top of B on top of C) and the artifact deck are shuffled."
    if t == "RoundStarted":
        shown = ", ".join(_adv(c) for c in d["revealed"]) or "no new card"
        return f"Round {d['round']} ({names[d['start']]} starts): turned over {shown}."
    if t == "MagicSupplied":
        extra = f" {_who(names, d['addus'])} also used Addus (+1)." if d["addus"] else ""
        return f"Everyone receives {min(d['income'])} magic points.{extra}"
    if t == "WizardPlaced":
        return f"{names[d['seat']]} places a wizard on {_adv(d['card'])}."
    if t == "WizardPassed":
        return f"{names[d['seat']]} passes and takes {d['magic']} magic point."
    return t


def _narrate_adventure(t, d, names):
    """Narration of phase D: spells, orbs, holy sites and the cards they deal."""
    if t == "SpellWon":
        price = f" for {d['price']} magic points" if d["price"] else " free of charge"
        return f"{names[d['seat']]} wins the spell {ADV[d['card']]['name']}{price}."
    if t == "SpellUnsold":
        return f"Nobody bid for {ADV[d['card']]['name']}; it leaves the game."
    if t == "OrbResolved":
        return f"Energy orb: {_who(names, d['seats'])} receive {d['magic']} magic points each."
    if t == "HolySiteResolved":
        return f"Holy site: {_who(names, d['seats'])} note {d['power']} power stones and draw an artifact each."
    if t == "ArtifactsDrawn":
        if "cards" in d:
            return f"{names[d['seat']]} draws {_cards(d['cards'])}."
        return f"{names[d['seat']]} draws {d['count']} artifact card(s)."
    return t


def _narrate_fight(t, d, names):
    """Narration of phase D: creature fights and their auctions."""
    if t == "FightBegun":
        return f"{_who(names, d['seats'])} face the {_adv(d['card'])}."
    if t == "FulmentusCast":
        return f"{names[d['seat']]} casts Fulmentus: the creature's strength is now {d['strength']}."
    if t == "FulmentusSkipped":
        return f"{names[d['seat']]} does not cast Fulmentus."
    if t == "Declared":
        return f"{names[d['seat']]} wants to face it {d['choice']}."
    if t == "AuctionOpened":
        what = ADV[d["card"]]["name"]
        return f"Auction for {what} among {_who(names, d['seats'])}; the lowest first bid is {d['min']}."
    if t == "BidMade":
        return f"{names[d['seat']]} bids {d['amount']}."
    if t == "BidPassed":
        return f"{names[d['seat']]} passes."
    if t == "CreatureDefeated":
        parts = []
        for w in d["winners"]:
            bonus = ""
            if w["bonus_power"] or w["bonus_magic"]:
                bonus = f", bonus +{w['bonus_power']} stones +{w['bonus_magic']} magic"
            parts.append(
                f"{names[w['seat']]} pays {w['paid']}, notes {w['power']} power stones and draws "
                f"{w['artifacts']} artifact(s){bonus}"
            )
        dropped = f" ({_who(names, d['dropped'])} could not pay and dropped out.)" if d["dropped"] else ""
        return f"The {ADV[d['card']]['name']} are defeated ({d['mode']}): " + "; ".join(parts) + "." + dropped
    if t == "CreatureWithstood":
        why = {"withdrew": "withdraws", "cannot_pay": "cannot raise enough magic", "no_bid": "all passed"}[d["reason"]]
        return f"The {ADV[d['card']]['name']} stay in the display ({_who(names, d['seats'])}: {why})."
    if t == "BonusChosen":
        what = "power stones" if d["take"] == "stones" else "magic points"
        return f"{names[d['seat']]} takes {d['amount']} {what} from the {ARTIFACTS[d['artifact']]['name']}."
    return t


def _narrate_phase_e(t, d, names):
    """Narration of phase E: spells, trading and laying out; the end."""
    if t == "AdventuresEnded":
        gone = ", ".join(_adv(c) for c in d["removed"])
        return "The adventures are resolved." + (f" Unchosen cards leave the display: {gone}." if gone else "")
    if t == "TransformusCast":
        return f"{names[d['seat']]} casts Transformus: {d['magic']} magic points become {d['power']} power stone."
    if t == "RetransformusCast":
        drawn = f" and draws {ART[d['draw']]['card_name']}" if "draw" in d else " and draws a new card"
        return f"{names[d['seat']]} casts Retransformus: discards {ART[d['discard']]['card_name']}{drawn}."
    if t == "HarpagarusCast":
        took = ART[d["card"]]["card_name"] if "card" in d else "an artifact card"
        return f"{names[d['seat']]} casts Harpagarus and takes {took} from {names[d['target']]}."
    if t == "SpellsDone":
        return f"{names[d['seat']]} casts no more spells this round."
    if t == "OfferMade":
        if "give" in d:
            return (
                f"{names[d['from']]} offers {names[d['to']]} {ART[d['give']]['card_name']} "
                f"for {ART[d['want']]['card_name']}."
            )
        return f"{names[d['from']]} makes {names[d['to']]} an offer."
    if t == "OfferAccepted":
        if "give" in d:
            return (
                f"{names[d['to']]} accepts: {names[d['from']]} gives {ART[d['give']]['card_name']}, "
                f"receives {ART[d['want']]['card_name']}."
            )
        return f"{names[d['from']]} and {names[d['to']]} swap a card."
    if t == "OfferDeclined":
        return f"{names[d['to']]} declines {names[d['from']]}'s offer."
    if t == "TradingDone":
        return f"{names[d['seat']]} is done trading."
    if t == "ArtifactLaid":
        return f"{names[d['seat']]} lays out the {ARTIFACTS[d['artifact']]['name']} ({_cards(d['cards'])})."
    if t == "LayingDone":
        return f"{names[d['seat']]} lays out nothing more."
    if t == "StonexCast":
        return f"{names[d['seat']]} uses Stonex: {d['power']} power stone."
    if t == "RoundEnded":
        return f"Round {d['round']} ends; {names[d['start']]} is the new start player."
    if t == "GameEnded":
        if d["reason"] == "stall":
            return "The game ends: no card has left the display for 15 rounds (a stalemate)."
        return "The game ends: the display can no longer be refilled to two cards."
    return t


# Which function tells each event type.
NARRATORS = {
    "GameStarted": _narrate_round,
    "DecksShuffled": _narrate_round,
    "RoundStarted": _narrate_round,
    "MagicSupplied": _narrate_round,
    "WizardPlaced": _narrate_round,
    "WizardPassed": _narrate_round,
    "SpellWon": _narrate_adventure,
    "SpellUnsold": _narrate_adventure,
    "OrbResolved": _narrate_adventure,
    "HolySiteResolved": _narrate_adventure,
    "ArtifactsDrawn": _narrate_adventure,
    "FightBegun": _narrate_fight,
    "FulmentusCast": _narrate_fight,
    "FulmentusSkipped": _narrate_fight,
    "Declared": _narrate_fight,
    "AuctionOpened": _narrate_fight,
    "BidMade": _narrate_fight,
    "BidPassed": _narrate_fight,
    "CreatureDefeated": _narrate_fight,
    "CreatureWithstood": _narrate_fight,
    "BonusChosen": _narrate_fight,
    "AdventuresEnded": _narrate_phase_e,
    "TransformusCast": _narrate_phase_e,
    "RetransformusCast": _narrate_phase_e,
    "HarpagarusCast": _narrate_phase_e,
    "SpellsDone": _narrate_phase_e,
    "OfferMade": _narrate_phase_e,
    "OfferAccepted": _narrate_phase_e,
    "OfferDeclined": _narrate_phase_e,
    "TradingDone": _narrate_phase_e,
    "ArtifactLaid": _narrate_phase_e,
    "LayingDone": _narrate_phase_e,
    "StonexCast": _narrate_phase_e,
    "RoundEnded": _narrate_phase_e,
    "GameEnded": _narrate_phase_e,
}


def narrate(event, names):
    teller = NARRATORS.get(event.type)
    return teller(event.type, event.data, names) if teller else event.type


# ---------------------------------------------------------------------------------------------
# renders
# ---------------------------------------------------------------------------------------------


def card_line(cid):
    c = ADV[cid]
    if c["type"] == "creature":
        one, two = c["reward_one_wizard"], c["reward_two_wizards_each"]
        return (
            f"{c['name']} str {c['strength']} [{c['symbol']}] alone {one['power_stones']}PS+{one['artifacts']}A, "
            f"shared {two['power_stones']}PS+{two['artifacts']}A each"
        )
    if c["type"] == "energy_orb":
        return f"Energy orb: +{c['reward_each_attached_wizard']['magic_points']} magic each"
    if c["type"] == "holy_site":
        r = c["reward_each_attached_wizard"]
        return f"Holy site: {r['power_stones']}PS + {r['artifacts']} artifact each"
    return f"Spell {c['name']}: {c['effect_text']}"


def artifact_line(key):
    a = ARTIFACTS[key]
    b = a["bonus"]
    what = {"power_stones": "PS", "magic_points": "MP", "choice": "PS or MP"}[b["type"]]
    return f"{a['name']} [{'/'.join(a['symbols'])}] +{b['amount']} {what}"


def _where(v, seat):
    w = v["players_info"][seat]["wizard"]
    if w is None:
        return ""
    if w == -1:
        return "passed"
    return f"on card {w + 1}"


WIDTH = 80  # columns of a plain-text mail


def _wrapped(text, indent="", more="     "):
    """`text` in lines of at most 80 columns, nothing cut (a word longer than a line is split)."""
    return textwrap.wrap(text, WIDTH, initial_indent=indent, subsequent_indent=more, break_on_hyphens=False) or [""]


def render_text(v):
    names = [c.capitalize() for c in v["colours"]]
    lines = []
    phase = v["phase"]
    head = f"Zauberschwert & Drachenei - round {v['round']}, phase {phase}"
    if phase == "over":
        head = f"Zauberschwert & Drachenei - game over after round {v['round']}"
    elif phase in PHASE_WORDS:
        head += f" ({PHASE_WORDS[phase]}; {STEP_WORDS.get(v['step'], v['step'])})"
    lines += _wrapped(head, more="  ")
    lines += _wrapped(
        f"Start player: {names[v['start']]}.  Adventure deck: {v['adventure_deck']}"
        + (f" (next: {v['next_letter']})" if v["next_letter"] else "")
        + f".  Artifact deck: {v['artifact_deck']}.",
        more="  ",
    )
    lines.append("Display:")
    for i, cid in enumerate(v["display"]):
        if cid is None:
            continue
        wiz = [names[p["seat"]] for p in v["players_info"] if p["wizard"] == i]
        lines += _wrapped(f"{i + 1}) {card_line(cid)}" + (f"  <- {', '.join(wiz)}" if wiz else ""), "  ", "       ")
    lines.append("")
    for p in v["players_info"]:
        x = p["seat"]
        mark = "*" if x == v["start"] else " "
        lines += _wrapped(
            f"{mark}{names[x]:<7} magic {p['magic']:>2}  power stones {p['power']:>3}  "
            f"hand {p['hand_count']:>2}  {_where(v, x)}".rstrip(),
            more="         ",
        )
        if p["spells"]:
            spells = ", ".join(ADV[c]["name"] + ("(used)" if c in p["used"] else "") for c in p["spells"])
            lines += _wrapped(f"spells: {spells}", "   ")
        laid = "; ".join(artifact_line(k) for k in artifacts_of(p["laid"]))
        if laid:
            lines += _wrapped(f"laid out: {laid}", "   ")
        if p.get("hand") is not None and x != v["seat"]:  # every hand is shown once the game is over
            lines += _wrapped(f"hand: {_hand_text(p['hand'])}", "   ")
    if v["fight"]:
        f = v["fight"]
        lines += _wrapped(
            f"Fight: {ADV[f['card']]['name']} strength {f['strength']}, {', '.join(names[x] for x in f['seats'])}."
        )
    if v["auction"]:
        a = v["auction"]
        high = f"{a['high']} by {names[a['bidder']]}" if a["high"] is not None else f"none yet (min {a['min']})"
        passed = ", ".join(names[x] for x in a["passed"]) or "nobody"
        lines += _wrapped(f"Auction for {ADV[a['card']]['name']}: high bid {high}; passed: {passed}.")
    for o in v["offers"]:
        if "give" in o:
            lines += _wrapped(
                f"Offer: {names[o['from']]} gives {ART[o['give']]['card_name']} to {names[o['to']]} "
                f"for {ART[o['want']]['card_name']}."
            )
        else:
            lines += _wrapped(f"Offer pending from {names[o['from']]} to {names[o['to']]}.")
    if v["choices"]:
        seat, art = v["choices"][0]
        lines += _wrapped(f"Bonus: {names[seat]} takes the {ARTIFACTS[art]['name']}'s bonus as stones or magic.")
    if v["hand"] is not None:
        lines.append("")
        lines.append(f"You are {names[v['seat']]}.")
        lines += _wrapped(f"Your hand: {_hand_text(v['hand'], True)}", more="  ")
    if v["step"] == "over":
        lines.append("Game over. Most power stones wins (ties: magic, then laid-out cards).")
        ranked = sorted(v["players_info"], key=lambda p: (p["power"], p["magic"], len(p["laid"])), reverse=True)
        lines += _wrapped("Standings: " + ", ".join(f"{names[p['seat']]} {p['power']}" for p in ranked) + ".")
    elif v["waiting_for"]:
        lines += _wrapped(f"Waiting for: {', '.join(names[x] for x in v['waiting_for'])}.")
    return "\n".join(lines)


def _hand_text(hand, symbols=False):
    if not hand:
        return "(empty)"
    return "; ".join(ART[c]["card_name"] + (f" [{'/'.join(ART[c]['symbols'])}]" if symbols else "") for c in hand)


__all__ = ["view", "narrate", "render_text", "order_from_start"]
