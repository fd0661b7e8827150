"""What a seat may see, the events in words, and the 80-column text (the board drawings: board.py)."""

from __future__ import annotations

import textwrap

from . import words as W
from .lang import N_, _, ngettext
from .rules import ADV, ART, ARTIFACTS, COLOURS, PHASE_OF_STEP, artifacts_of, next_letter, order_from_start, waiting_for


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
        return _("{creature} (strength {strength}, {symbol})").format(
            creature=W.adventure(cid), strength=c["strength"], symbol=W.symbol(c["symbol"])
        )
    return W.adventure(cid)


def _cards(ids):
    return W.cards(ids)


def _who(names, seats):
    return W.who(names, seats)


def _narrate_round(t, d, names):
    """Narration of the round: setup, phases A to C."""
    if t == "GameStarted":
        text = _("Zauberschwert & Drachenei for {n} players begins; {start} is the start player.")
        return text.format(n=d["players"], start=names[d["start"]])
    if t == "DecksShuffled":
        return _("The adventure deck (A on top of B on top of C) and the artifact deck are shuffled.")
    if t == "RoundStarted":
        shown = ", ".join(_adv(c) for c in d["revealed"]) or _("no new card")
        return _("Round {round} ({start} starts): turned over {cards}.").format(
            round=d["round"], start=names[d["start"]], cards=shown
        )
    if t == "MagicSupplied":
        text = _("Everyone receives {n} magic points.").format(n=min(d["income"]))
        if d["addus"]:
            text += " " + _("{who} also used Addus (+1).").format(who=_who(names, d["addus"]))
        return text
    if t == "WizardPlaced":
        return _("{who} places a wizard on {card}.").format(who=names[d["seat"]], card=_adv(d["card"]))
    if t == "WizardPassed":
        text = ngettext(
            "{who} passes and takes {n} magic point.", "{who} passes and takes {n} magic points.", d["magic"]
        )
        return text.format(who=names[d["seat"]], n=d["magic"])
    return t


def _narrate_adventure(t, d, names):
    """Narration of phase D: spells, orbs, holy sites and the cards they deal."""
    if t == "SpellWon":
        who, spell = names[d["seat"]], W.adventure(d["card"])
        if d["price"]:
            return _("{who} wins the spell {spell} for {n} magic points.").format(who=who, spell=spell, n=d["price"])
        return _("{who} wins the spell {spell} free of charge.").format(who=who, spell=spell)
    if t == "SpellUnsold":
        return _("Nobody bid for {spell}; it leaves the game.").format(spell=W.adventure(d["card"]))
    if t == "OrbResolved":
        text = _("Energy orb: {who} receive {n} magic points each.")
        if len(d["seats"]) == 1:
            text = _("Energy orb: {who} receives {n} magic points.")
        return text.format(who=_who(names, d["seats"]), n=d["magic"])
    if t == "HolySiteResolved":
        text = _("Holy site: {who} note {n} power stones and draw an artifact each.")
        if len(d["seats"]) == 1:
            text = _("Holy site: {who} notes {n} power stones and draws an artifact.")
        return text.format(who=_who(names, d["seats"]), n=d["power"])
    if t == "ArtifactsDrawn":
        if "cards" in d:
            return _("{who} draws {cards}.").format(who=names[d["seat"]], cards=_cards(d["cards"]))
        text = ngettext("{who} draws {n} artifact card.", "{who} draws {n} artifact cards.", d["count"])
        return text.format(who=names[d["seat"]], n=d["count"])
    return t


def _defeated(d, names):
    parts = []
    for w in d["winners"]:
        text = ngettext(
            "{who} pays {paid}, notes {power} power stones and draws {n} artifact",
            "{who} pays {paid}, notes {power} power stones and draws {n} artifacts",
            w["artifacts"],
        )
        part = text.format(who=names[w["seat"]], paid=w["paid"], power=w["power"], n=w["artifacts"])
        if w["bonus_power"] or w["bonus_magic"]:
            part += _(", bonus +{power} stones +{magic} magic").format(power=w["bonus_power"], magic=w["bonus_magic"])
        parts.append(part)
    text = _("The {creature} are defeated ({how}): {winners}.").format(
        creature=W.adventure(d["card"]), how=W.mode(d["mode"]), winners=W.semicolon().join(parts)
    )
    if d["dropped"]:
        text += " " + _("({who} could not pay and dropped out.)").format(who=_who(names, d["dropped"]))
    return text


WITHSTOOD = {
    "withdrew": N_("withdraws"),
    "cannot_pay": N_("cannot raise enough magic"),
    "no_bid": N_("all passed"),
}


def _narrate_fight(t, d, names):
    """Narration of phase D: creature fights and their auctions."""
    if t == "FightBegun":
        text = _("{who} faces the {creature}.") if len(d["seats"]) == 1 else _("{who} face the {creature}.")
        return text.format(who=_who(names, d["seats"]), creature=_adv(d["card"]))
    if t == "FulmentusCast":
        text = _("{who} casts Fulmentus: the creature's strength is now {strength}.")
        return text.format(who=names[d["seat"]], strength=d["strength"])
    if t == "FulmentusSkipped":
        return _("{who} does not cast Fulmentus.").format(who=names[d["seat"]])
    if t == "Declared":
        if d["choice"] == "alone":
            return _("{who} wants to face it alone.").format(who=names[d["seat"]])
        return _("{who} wants to face it together.").format(who=names[d["seat"]])
    if t == "AuctionOpened":
        text = _("Auction for {card} among {who}; the lowest first bid is {low}.")
        return text.format(card=W.adventure(d["card"]), who=_who(names, d["seats"]), low=d["min"])
    if t == "BidMade":
        return _("{who} bids {n}.").format(who=names[d["seat"]], n=d["amount"])
    if t == "BidPassed":
        return _("{who} passes.").format(who=names[d["seat"]])
    if t == "CreatureDefeated":
        return _defeated(d, names)
    if t == "CreatureWithstood":
        reason = d["reason"]
        why = _(WITHSTOOD[reason])
        text = _("The {creature} stay in the display ({who}: {why}).")
        return text.format(creature=W.adventure(d["card"]), who=_who(names, d["seats"]), why=why)
    if t == "BonusChosen":
        if d["take"] == "stones":
            text = _("{who} takes {n} power stones from the {artifact}.")
        else:
            text = _("{who} takes {n} magic points from the {artifact}.")
        return text.format(who=names[d["seat"]], n=d["amount"], artifact=W.artifact(d["artifact"]))
    return t


def _narrate_spells(t, d, names):
    """Narration of phase E's spells."""
    if t == "AdventuresEnded":
        gone = ", ".join(_adv(c) for c in d["removed"])
        text = _("The adventures are resolved.")
        return text + (" " + _("Unchosen cards leave the display: {cards}.").format(cards=gone) if gone else "")
    if t == "TransformusCast":
        text = _("{who} casts Transformus: {magic} magic points become {power} power stone.")
        return text.format(who=names[d["seat"]], magic=d["magic"], power=d["power"])
    if t == "RetransformusCast":
        if "draw" in d:
            text = _("{who} casts Retransformus: discards {card} and draws {drawn}.")
            return text.format(who=names[d["seat"]], card=W.card(d["discard"]), drawn=W.card(d["draw"]))
        text = _("{who} casts Retransformus: discards {card} and draws a new card.")
        return text.format(who=names[d["seat"]], card=W.card(d["discard"]))
    if t == "HarpagarusCast":
        if "card" in d:
            text = _("{who} casts Harpagarus and takes {card} from {target}.")
            return text.format(who=names[d["seat"]], card=W.card(d["card"]), target=names[d["target"]])
        text = _("{who} casts Harpagarus and takes an artifact card from {target}.")
        return text.format(who=names[d["seat"]], target=names[d["target"]])
    if t == "SpellsDone":
        return _("{who} casts no more spells this round.").format(who=names[d["seat"]])
    if t == "StonexCast":
        text = ngettext("{who} uses Stonex: {n} power stone.", "{who} uses Stonex: {n} power stones.", d["power"])
        return text.format(who=names[d["seat"]], n=d["power"])
    return t


def _narrate_phase_e(t, d, names):
    """Narration of phase E: trading and laying out; the end."""
    if t == "OfferMade":
        if "give" in d:
            text = _("{who} offers {other} {card} for {wanted}.")
            return text.format(
                who=names[d["from"]], other=names[d["to"]], card=W.card(d["give"]), wanted=W.card(d["want"])
            )
        return _("{who} makes {other} an offer.").format(who=names[d["from"]], other=names[d["to"]])
    if t == "OfferAccepted":
        if "give" in d:
            text = _("{other} accepts: {who} gives {card}, receives {wanted}.")
            return text.format(
                who=names[d["from"]], other=names[d["to"]], card=W.card(d["give"]), wanted=W.card(d["want"])
            )
        return _("{who} and {other} swap a card.").format(who=names[d["from"]], other=names[d["to"]])
    if t == "OfferDeclined":
        return _("{other} declines {who}'s offer.").format(who=names[d["from"]], other=names[d["to"]])
    if t == "TradingDone":
        return _("{who} is done trading.").format(who=names[d["seat"]])
    if t == "ArtifactLaid":
        text = _("{who} lays out the {artifact} ({cards}).")
        return text.format(who=names[d["seat"]], artifact=W.artifact(d["artifact"]), cards=_cards(d["cards"]))
    if t == "LayingDone":
        return _("{who} lays out nothing more.").format(who=names[d["seat"]])
    if t == "RoundEnded":
        return _("Round {round} ends; {start} is the new start player.").format(
            round=d["round"], start=names[d["start"]]
        )
    if t == "GameEnded":
        if d["reason"] == "stall":
            return _("The game ends: no card has left the display for 15 rounds (a stalemate).")
        return _("The game ends: the display can no longer be refilled to two cards.")
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
    "AdventuresEnded": _narrate_spells,
    "TransformusCast": _narrate_spells,
    "RetransformusCast": _narrate_spells,
    "HarpagarusCast": _narrate_spells,
    "SpellsDone": _narrate_spells,
    "OfferMade": _narrate_phase_e,
    "OfferAccepted": _narrate_phase_e,
    "OfferDeclined": _narrate_phase_e,
    "TradingDone": _narrate_phase_e,
    "ArtifactLaid": _narrate_phase_e,
    "LayingDone": _narrate_phase_e,
    "StonexCast": _narrate_spells,
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
        text = _("{creature} str {strength} [{symbol}] alone {ps1}PS+{a1}A, shared {ps2}PS+{a2}A each")
        return text.format(
            creature=W.adventure(cid),
            strength=c["strength"],
            symbol=W.symbol(c["symbol"]),
            ps1=one["power_stones"],
            a1=one["artifacts"],
            ps2=two["power_stones"],
            a2=two["artifacts"],
        )
    if c["type"] == "energy_orb":
        return _("Energy orb: +{n} magic each").format(n=c["reward_each_attached_wizard"]["magic_points"])
    if c["type"] == "holy_site":
        r = c["reward_each_attached_wizard"]
        return _("Holy site: {ps}PS + {n} artifact each").format(ps=r["power_stones"], n=r["artifacts"])
    return _("Spell {spell}: {effect}").format(spell=c["name"], effect=W.spell_effect(cid))


def artifact_line(key):
    a = ARTIFACTS[key]
    b = a["bonus"]
    return f"{W.artifact(key)} [{W.symbols(a['symbols'])}] +{b['amount']} {W.bonus_short(b['type'])}"


def _where(v, seat):
    w = v["players_info"][seat]["wizard"]
    if w is None:
        return ""
    if w == -1:
        return _("passed")
    return _("on card {n}").format(n=w + 1)


WIDTH = 80  # columns of a plain-text mail


def _wrapped(text, indent="", more="     "):
    """`text` in lines of at most 80 columns, nothing cut (a word longer than a line is split)."""
    return textwrap.wrap(text, WIDTH, initial_indent=indent, subsequent_indent=more, break_on_hyphens=False) or [""]


def _head(v, names):
    phase = v["phase"]
    if phase == "over":
        head = _("Zauberschwert & Drachenei - game over after round {round}").format(round=v["round"])
    else:
        head = _("Zauberschwert & Drachenei - round {round}, phase {phase}").format(round=v["round"], phase=phase)
        if phase in W.PHASES:
            head += f" ({W.phase(phase)}{W.semicolon()}{W.step(v['step'])})"
    lines = _wrapped(head, more="  ")
    decks = _("Start player: {start}.  Adventure deck: {n}").format(start=names[v["start"]], n=v["adventure_deck"])
    if v["next_letter"]:
        decks += " " + _("(next: {letter})").format(letter=v["next_letter"])
    decks += ".  " + _("Artifact deck: {n}.").format(n=v["artifact_deck"])
    return lines + _wrapped(decks, more="  ")


def _player_lines(v, p, names):
    x = p["seat"]
    mark = "*" if x == v["start"] else " "
    text = _("{mark}{name:<7} magic {magic:>2}  power stones {power:>3}  hand {hand:>2}  {where}")
    line = text.format(
        mark=mark, name=names[x], magic=p["magic"], power=p["power"], hand=p["hand_count"], where=_where(v, x)
    )
    lines = _wrapped(line.rstrip(), more="         ")
    if p["spells"]:
        used = " " + _("(used)")
        spells = ", ".join(ADV[c]["name"] + (used if c in p["used"] else "") for c in p["spells"])
        lines += _wrapped(_("spells: {spells}").format(spells=spells), "   ")
    laid = W.semicolon().join(artifact_line(k) for k in artifacts_of(p["laid"]))
    if laid:
        lines += _wrapped(_("laid out: {artifacts}").format(artifacts=laid), "   ")
    if p.get("hand") is not None and x != v["seat"]:  # every hand is shown once the game is over
        lines += _wrapped(_("hand: {cards}").format(cards=_hand_text(p["hand"])), "   ")
    return lines


def _situation(v, names):
    lines = []
    if v["fight"]:
        f = v["fight"]
        text = _("Fight: {creature} strength {strength}, {who}.")
        who = ", ".join(names[x] for x in f["seats"])
        lines += _wrapped(text.format(creature=W.adventure(f["card"]), strength=f["strength"], who=who))
    if v["auction"]:
        a = v["auction"]
        if a["high"] is not None:
            high = _("{n} by {who}").format(n=a["high"], who=names[a["bidder"]])
        else:
            high = _("none yet (min {n})").format(n=a["min"])
        passed = ", ".join(names[x] for x in a["passed"]) or _("nobody")
        text = _("Auction for {card}: high bid {high}; passed: {passed}.")
        lines += _wrapped(text.format(card=W.adventure(a["card"]), high=high, passed=passed))
    for o in v["offers"]:
        lines += _wrapped(offer_line(o, names))
    if v["choices"]:
        seat, art = v["choices"][0]
        text = _("Bonus: {who} takes the {artifact}'s bonus as stones or magic.")
        lines += _wrapped(text.format(who=names[seat], artifact=W.artifact(art)))
    return lines


def offer_line(o, names):
    """An open offer as the board tells it (its cards only to the two players concerned)."""
    if "give" in o:
        text = _("Offer: {who} gives {card} to {other} for {wanted}.")
        return text.format(who=names[o["from"]], card=W.card(o["give"]), other=names[o["to"]], wanted=W.card(o["want"]))
    return _("Offer pending from {who} to {other}.").format(who=names[o["from"]], other=names[o["to"]])


def render_text(v):
    names = [W.player(x) for x in range(len(v["colours"]))]
    lines = _head(v, names)
    lines.append(_("Display:"))
    for i, cid in enumerate(v["display"]):
        if cid is None:
            continue
        wiz = [names[p["seat"]] for p in v["players_info"] if p["wizard"] == i]
        lines += _wrapped(f"{i + 1}) {card_line(cid)}" + (f"  <- {', '.join(wiz)}" if wiz else ""), "  ", "       ")
    lines.append("")
    for p in v["players_info"]:
        lines += _player_lines(v, p, names)
    lines += _situation(v, names)
    if v["hand"] is not None:
        lines.append("")
        lines.append(_("You are {who}.").format(who=names[v["seat"]]))
        lines += _wrapped(_("Your hand: {cards}").format(cards=_hand_text(v["hand"], True)), more="  ")
    if v["step"] == "over":
        lines.append(_("Game over. Most power stones wins (ties: magic, then laid-out cards)."))
        ranked = sorted(v["players_info"], key=lambda p: (p["power"], p["magic"], len(p["laid"])), reverse=True)
        standings = ", ".join(f"{names[p['seat']]} {p['power']}" for p in ranked)
        lines += _wrapped(_("Standings: {players}.").format(players=standings))
    elif v["waiting_for"]:
        lines += _wrapped(_("Waiting for: {who}.").format(who=", ".join(names[x] for x in v["waiting_for"])))
    return "\n".join(lines)


def _hand_text(hand, symbols=False):
    if not hand:
        return _("(empty)")
    return W.semicolon().join(W.card(c) + (f" [{W.symbols(ART[c]['symbols'])}]" if symbols else "") for c in hand)


__all__ = ["view", "narrate", "render_text", "order_from_start"]
