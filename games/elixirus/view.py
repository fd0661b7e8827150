"""What each seat sees, events in words, the 80-column text render and the chooser's moves.

The pictures (web and mail) are in picture.py."""

from __future__ import annotations

from dataclasses import replace

from games.base import MAX_FEATURED, Choice, rank
from games.i18n import current as current_language

from . import words as W
from .data_model import CRYSTAL, FLASKS, INGREDIENTS, PIECE_BY_EFFECT, PIECES, TABLES
from .lang import N_, _
from .picture import TARGET_BASKET, target_curve, target_drawn, target_flask, target_front, target_space
from .rules import SEAT_COLOURS, STAGE_NAMES, breakdowns, current, draft_table, ingredients_on_table, legal, waiting_for
from .standin import Look, replace_value

STEPS = {"take": N_("take"), "keep": N_("keep"), "effect": N_("effect")}
STAGES = STAGE_NAMES  # the board's heading names the stage as the summary does


def view(state, seat):
    n = state["n"]
    forest = []
    for pos in range(6):
        piece = state["circle"][pos]
        known = state["known"][pos] and piece is not None
        up = state["up"][pos]
        forest.append(
            {
                "pos": pos,
                "piece": PIECES[piece]["effect"] if known else None,
                "up": up,
                "signpost": pos == state["signpost"],
                "curves": list(state["curves"][pos]) if up else None,
                "spaces": list(state["spaces"][pos]) if up else None,
            }
        )
    tables = []
    scores = breakdowns(state)
    for s in range(n):
        tables.append(
            {
                "table": state["tables"][s],
                "front": list(state["front"][s]),
                "bowl": state["bowl"][s],
                "flasks": {f: list(v) for f, v in state["flasks"][s].items()},
                "book": list(state["book"][s]),
                "poison": list(state["poison"][s]),
                "corks": dict(state["corks"][s]),
                "left": state["left"][s],
                "done": state["done"][s],
                "score": list(scores[s]),
            }
        )
    cur = current(state)
    out = {
        "seat": seat,
        "players": n,
        "round": state["round"],
        "phase": state["phase"],
        "start": state["start"],
        "turn": state["turn"] if state["phase"] == "place" else None,
        "waiting": waiting_for(state),
        "current": None,
        "order": [p for p in _order(state)],
        "forest": forest,
        "bag": len(state["bag"]),
        "box": len(state["box"]),
        "basket": state["basket"],
        "tables": tables,
        "mine": None,
        "looking": None,
        "looking_count": len(state["looking"]),
        "end": state["end"],
        "ranking": None,
    }
    if state["phase"] == "over":
        tiebreak = [(ingredients_on_table(state, s),) for s in range(n)]
        out["ranking"] = rank([sum(b) for b in scores], tiebreak)
        out["tiebreak"] = [list(t) for t in tiebreak]
    if cur:
        out["current"] = {"seat": cur[0], "pos": cur[1], "space": cur[2], "step": state["step"]}
    if seat is not None and state["looking"] and cur and cur[0] == seat:
        out["looking"] = list(state["looking"])
    if seat is not None and state["drafts"] is not None:
        out["mine"] = draft_table(state, seat)
    return out


def _order(state):
    sign = state["signpost"]
    return [(sign + i) % 6 for i in range(6) if state["up"][(sign + i) % 6]]


# ---------------------------------------------------------------------------------------------
# Narration
# ---------------------------------------------------------------------------------------------


def _name(names, seat):
    if seat is None:
        return _("nobody")
    return names[seat] if seat < len(names) else W.seat(SEAT_COLOURS[seat])


def _list(toks):
    return W.ingredients(toks)


def narrate(event, names):
    d = event.data
    who = _name(names, d["seat"]) if "seat" in d else ""
    narrator = NARRATORS.get(event.type)
    return narrator(d, who, names) if narrator else event.type


def _n_game_started(d, _who, names):
    tables = ", ".join(f"{_name(names, s)} {tid}" for s, tid in enumerate(d["tables"]))
    return _(
        "A game of Elixirus for {players} begins; {start} has the starting marker. Concoction tables: {tables}."
    ).format(players=d["players"], start=_name(names, d["start"]), tables=tables)


def _n_forest_laid(d, _who, _names):
    shown = [W.effect(PIECES[p]["effect"]) if p else _("face down") for p in d["circle"]]
    return _("The forest is laid out clockwise: {pieces}.").format(pieces=", ".join(shown))


def _n_forest_filled(d, _who, _names):
    return _("The forest is filled with {count} ingredients from the bag.").format(count=len(d["fill"]))


def _n_apprentice_placed(d, who, _names):
    return _("{who} places an apprentice on space {space} of the {piece} piece.").format(
        who=who, space=d["space"] + 1, piece=W.effect(d["piece"])
    )


def _n_ingredients_collected(d, who, _names):
    fields = {"who": who, "ings": _list(d["ings"]), "piece": W.effect(d["piece"]), "drawn": _list(d["drawn"])}
    if d["drawn"]:
        return _("{who} collects {ings} from the {piece} piece and draws {drawn} from the bag (first curve).").format(
            **fields
        )
    return _("{who} collects {ings} from the {piece} piece.").format(**fields)


def _n_effect_skipped(d, who, _names):
    return _("{who} does not use the {effect} effect.").format(who=who, effect=W.effect(d["effect"]))


def _n_ingredient_stolen(d, who, names):
    return _("{who} steals {ing} from {victim}.").format(
        who=who, ing=W.ingredient(d["ing"]), victim=_name(names, d["from"])
    )


def _n_ingredient_swapped(d, who, _names):
    return _("{who} swaps {ing} for {got} (curve {curve} of the {piece} piece).").format(
        who=who,
        ing=W.ingredient(d["ing"]),
        got=W.ingredient(d["got"]),
        curve=d["curve"] + 1,
        piece=W.effect(d["piece"]),
    )


def _n_draw_looked(d, who, _names):
    if "drawn" in d:
        return _("{who} draws {drawn} from the bag (seen only by you).").format(who=who, drawn=_list(d["drawn"]))
    return _("{who} draws {count} ingredients from the bag and looks at them.").format(who=who, count=d["count"])


def _n_draw_kept(d, who, _names):
    back = d["back"] if isinstance(d["back"], int) else len(d["back"])
    fields = {"who": who, "keep": _list(d["keep"]), "back": back}
    if not isinstance(d["back"], int) and d["back"]:
        return _("{who} keeps {keep} and returns {back} to the bag ({returned}).").format(
            returned=_list(d["back"]), **fields
        )
    return _("{who} keeps {keep} and returns {back} to the bag.").format(**fields)


def _n_ingredients_replaced(d, who, _names):
    return _("{who} replaces {removed} on the {piece} piece with {drawn} from the bag.").format(
        who=who, removed=_list(d["removed"]), piece=W.effect(d["piece"]), drawn=_list(d["drawn"])
    )


def _n_apprentices_danced(d, who, names):
    a, b = d["spaces"]
    sa, sb = d["seats"]
    return _(
        "{who} makes the apprentices dance on the {piece} piece: "
        "{first}'s (space {a}) and {second}'s (space {b}) change places."
    ).format(who=who, piece=W.effect(d["piece"]), first=_name(names, sa), a=a + 1, second=_name(names, sb), b=b + 1)


def _n_basket_taken(d, who, names):
    if d["from"] is not None:
        return _("{who} takes the basket tile from {other}.").format(who=who, other=_name(names, d["from"]))
    return _("{who} takes the basket tile.").format(who=who)


def _n_ingredient_placed(d, who, _names):
    if "ing" in d:
        fields = {"ing": W.ingredient(d["ing"]), "place": W.place(d["to"])}
        if d["src"] == "bowl":
            return _("You put {ing} on your {place} (from your bowl).").format(**fields)
        return _("You put {ing} on your {place}.").format(**fields)
    return _("{who} is concocting.").format(who=who)


def _n_leftover_picked(d, who, _names):
    if "ing" in d:
        return _("You use the basket tile to collect {ing} from the {piece} piece.").format(
            ing=W.ingredient(d["ing"]), piece=W.effect(d["piece"])
        )
    return _("{who} is concocting.").format(who=who)


def _n_brew_done(_d, who, _names):
    return _("{who} has finished concocting.").format(who=who)


def _n_brew_reset(_d, who, _names):
    return _("{who} is revising their concocting.").format(who=who)


def _n_potions_revealed(d, _who, names):
    parts = []
    for s, moves in enumerate(d["moves"]):
        if moves:
            parts.append(
                f"{_name(names, s)}: " + "; ".join(f"{W.ingredient(tok)} -> {W.place(dest)}" for tok, dest in moves)
            )
    corks = [
        _("{who} corks {flask} ({points} points)").format(who=_name(names, s), flask=W.place(f), points=p)
        for s, f, p in d["corks"]
    ]
    text = _("Concocting revealed.") + " " + (" | ".join(parts) if parts else _("Nothing was placed."))
    if corks:
        text += " " + _("Corks: {corks}.").format(corks=", ".join(corks))
    return text


def _n_round_ended(d, _who, names):
    text = _("End of the round: {count} leftovers go to the box, the signpost moves on").format(count=len(d["to_box"]))
    if d["piece"]:
        text += _(", the {piece} piece is turned face up").format(piece=W.effect(PIECES[d["piece"]]["effect"]))
    if d["poured"] is not None:
        text += _(", the bag is refilled from the box")
    return text + _("; {start} has the starting marker.").format(start=_name(names, d["start"]))


def _n_game_ended(d, _who, names):
    why = W.ending(d["reason"])
    bowls = "".join(
        " "
        + _("{who}'s bowl ingredient ({ing}) goes to the poison flask.").format(
            who=_name(names, s), ing=W.ingredient(tok)
        )
        for s, tok in d["bowl"]
    )
    scores = ", ".join(f"{_name(names, s)} {p}" for s, p in enumerate(d["scores"]))
    return _("The game ends ({why}).{bowls} Scores: {scores}.").format(why=why, bowls=bowls, scores=scores)


# One small function per event type: narrate(event, names) -> one line (an unknown type is named).
NARRATORS = {
    "GameStarted": _n_game_started,
    "ForestLaid": _n_forest_laid,
    "ForestFilled": _n_forest_filled,
    "ApprenticePlaced": _n_apprentice_placed,
    "IngredientsCollected": _n_ingredients_collected,
    "EffectSkipped": _n_effect_skipped,
    "IngredientStolen": _n_ingredient_stolen,
    "IngredientSwapped": _n_ingredient_swapped,
    "DrawLooked": _n_draw_looked,
    "DrawKept": _n_draw_kept,
    "IngredientsReplaced": _n_ingredients_replaced,
    "ApprenticesDanced": _n_apprentices_danced,
    "BasketTaken": _n_basket_taken,
    "IngredientPlaced": _n_ingredient_placed,
    "LeftoverPicked": _n_leftover_picked,
    "BrewDone": _n_brew_done,
    "BrewReset": _n_brew_reset,
    "PotionsRevealed": _n_potions_revealed,
    "RoundEnded": _n_round_ended,
    "GameEnded": _n_game_ended,
}


# ---------------------------------------------------------------------------------------------
# Text render (80 columns)
# ---------------------------------------------------------------------------------------------


def short(tok):
    if tok is None:
        return "-"
    if tok == CRYSTAL:
        return _("crystal")
    c, v, val = INGREDIENTS[tok]
    if current_language() == "en":
        return f"{c[:3]}-{v[:3]}{val}"
    return _("{colour}-{variety}{value}").format(colour=W.colour_word(c)[:3], variety=W.variety_word(v)[:3], value=val)


def _who(v, s):
    return W.seat(SEAT_COLOURS[s])


def render_text(v):
    """The board in an 80-column mail: every logical line wrapped at a space (never cut off)."""
    return "\n".join(_wrap(line) for line in text_lines(v))


def text_lines(v) -> list[str]:
    """The board as logical lines, before wrapping to 80 columns."""
    lines = []
    phase = v["phase"]
    stage = _(STAGES[phase]) if phase in STAGES else phase
    lines.append(_("ELIXIRUS - round {round}, stage {stage}").format(round=v["round"], stage=stage))
    basket = _("centre") if v["basket"] is None else _who(v, v["basket"])
    lines.append(
        _("Starting marker: {start}   Bag: {bag}   Box: {box}   Basket tile: {basket}").format(
            start=_who(v, v["start"]), bag=v["bag"], box=v["box"], basket=basket
        )
    )
    if v["waiting"]:
        lines.append(_("Awaiting: {seats}").format(seats=", ".join(_who(v, s) for s in v["waiting"])))
    lines.append("")
    lines.append(_("FOREST (resolved from the signpost >, clockwise; curve 1* brings a bag draw)"))
    for pos in v["order"]:
        f = v["forest"][pos]
        mark = ">" if f["signpost"] else " "
        name = W.effect(f["piece"]) if f["piece"] else "?"
        curves = "  ".join(f"{i + 1}{'*' if i == 0 else ''}:{short(t)}" for i, t in enumerate(f["curves"]))
        lines.append(f" {mark} {name:8} {curves}")
        baskets = PIECES[PIECE_BY_EFFECT[f["piece"]]]["baskets"] if f["piece"] else [1, 2, 1]
        bsk, free = _("bsk"), _("free")
        spaces = "  ".join(
            f"[{i + 1}: {b} {bsk}{'+' + name if i == 2 else ''}] {_who(v, s) if s is not None else free}"
            for i, (b, s) in enumerate(zip(baskets, f["spaces"]))
        )
        lines.append(f"            {spaces}")
    down = [f for f in v["forest"] if not f["up"]]
    if down:
        names = ", ".join(W.effect(f["piece"]) if f["piece"] else "?" for f in down)
        lines.append("   " + _("face down: {pieces}").format(pieces=names))
    cur = v["current"]
    if cur:
        name = W.effect(v["forest"][cur["pos"]]["piece"])
        step_key = cur["step"]
        step = _(STEPS[step_key]) if step_key in STEPS else step_key
        lines.append(
            _("Now: {seat}'s apprentice on {piece} space {space} ({step}).").format(
                seat=_who(v, cur["seat"]), piece=name, space=cur["space"] + 1, step=step
            )
        )
    if v["looking"]:
        lines.append(_("You drew (only you see them): {ings}").format(ings=", ".join(map(W.ingredient, v["looking"]))))
    for s, tab in enumerate(v["tables"]):
        lines += _seat_lines(v, s, tab)
    if v["ranking"]:
        lines.append("")
        why = W.ending(v["end"])
        lines.append(_("GAME OVER ({why}). Final standings:").format(why=why))
        for place, seats in enumerate(v["ranking"], start=1):
            for s in seats:
                tab = v["tables"][s]
                parts = " ".join(f"{p:+d}" for p in tab["score"])
                line = _("{place}. {seat}: {points} points (A-F: {parts}), {count} ingredients").format(
                    place=place, seat=_who(v, s), points=sum(tab["score"]), parts=parts, count=v["tiebreak"][s][0]
                )
                lines.append("  " + line)
    lines.append("")
    lines.append(
        _("Ingredients are written colour-variety-value: {short} = {ingredient}. 'help' lists commands.").format(
            short=short("red root 2"), ingredient=W.ingredient("red root 2")
        )
    )
    return lines


def _seat_lines(v, s, tab) -> list[str]:
    """A seat's heading and table, as text lines."""
    lines = []
    lines.append("")
    total = sum(tab["score"])
    corks = ", ".join(f"{W.place(f)} {p}" for f, p in tab["corks"].items()) or _("none")
    extra = ""
    if v["phase"] == "place":
        extra = _(", {left} apprentice(s) to place").format(left=tab["left"])
    if v["phase"] == "brew":
        extra = _(", done") if tab["done"] else _(", concocting")
    you = _(" (you)") if s == v["seat"] else ""
    lines.append(
        _("{seat}{you} - table {table}, score {total}, corks: {corks}{extra}").format(
            seat=_who(v, s).upper(), you=you, table=tab["table"], total=total, corks=corks, extra=extra
        )
    )
    shown = tab
    if s == v["seat"] and v["mine"] is not None:
        shown = v["mine"]
        lines.append("  " + _("(your concocting this round, hidden from the others until all are done)"))
    lines.extend(_table_lines(tab["table"], shown))
    return lines


def _wrap(line, width=80):
    """A line of at most `width` columns, or several: cut at the last space that fits (a word
    longer than a line is cut at the width), continued with an indent."""
    if len(line) <= width:
        return line
    out = []
    while len(line) > width:
        cut = line.rfind(" ", 0, width)
        if cut <= 4:
            cut = width
        out.append(line[:cut])
        line = "      " + line[cut:].lstrip()
    out.append(line)
    return "\n".join(out)


def _table_lines(table_id, tab):
    spec = TABLES[table_id]
    lines = []
    lines.append(
        "  " + _("in front: {front}   bowl: {bowl}").format(front=_list(tab["front"]), bowl=W.ingredient(tab["bowl"]))
    )
    for f in FLASKS:
        req = spec["flasks"][f]
        filled = tab["flasks"][f]
        cells = [short(filled[i]) if i < len(filled) else f"({W.trait(r)})" for i, r in enumerate(req)]
        lines.append(f"  {W.place(f):9} " + " ".join(cells))
    specials = [W.kind(c, v) for c, v in spec["special"]]
    book = [W.ingredient(tab["book"][i]) if tab["book"][i] else f"({specials[i]})" for i in range(2)]
    ench = W.trait(spec["enchanted"])
    curse = W.trait(spec["cursed"])
    lines.append(
        "  "
        + _("book: {first}; {second}   enchanted +1: {enchanted}, cursed -1: {cursed}").format(
            first=book[0], second=book[1], enchanted=ench, cursed=curse
        )
    )
    toxic = sum(INGREDIENTS[t][2] for t in tab["poison"])
    ings = " ".join(short(t) for t in tab["poison"]) or _("nothing")
    lines.append("  " + _("poison (-{toxic}): {ings}").format(toxic=toxic, ings=ings))
    return lines


# ---------------------------------------------------------------------------------------------
# The chooser: every legal move once, the ones that matter first
# ---------------------------------------------------------------------------------------------

# Featured (numbered in a turn notice) at most this many in a stage where there are many moves.
FEATURED_PLACES = 6
FEATURED_EFFECTS = 5


def choices(state, seat):
    """Every command of legal(state, seat) once as a Choice, the best first (valued as the
    stand-in values them, from the seat's own view), featured: the few worth a code."""
    commands = legal(state, seat)
    if not commands:
        return []
    v = view(state, seat)
    look = Look(v)
    kind = commands[0]["type"]
    if kind == "place":
        return _place_choices(look, commands)
    if kind == "take":
        return _take_choices(look, commands)
    if kind == "keep":
        return _keep_choices(look, commands)
    if state["phase"] == "brew":
        return _brew_choices(look, commands)
    return _effect_choices(look, commands)


def _ranked(scored, featured_count):
    """(value, Choice) pairs, best first (stable on ties), the first `featured_count` featured."""
    order = sorted(range(len(scored)), key=lambda i: -scored[i][0])
    out = []
    for rank_, i in enumerate(order):
        choice = scored[i][1]
        out.append(replace(choice, featured=rank_ < featured_count))
    return out


def _fits(look, tok):
    """Where an ingredient would go on the seat's own table now ("love flask", "recipe book")."""
    me = look.seat(look.me)
    _plan, moves = me.plan((tok,))
    dest = moves[0][1] if moves else "poison"
    if dest == "book":
        return _("recipe book")
    if dest == "bowl":
        return _("bowl")
    if dest == "poison":
        return _("poison flask")
    return _("{flask} flask").format(flask=W.place(dest))


def _place_choices(look, commands):
    v = look.view
    me = look.seat(look.me)
    scored = []
    for c in commands:
        pos = look.pos_of[c["piece"]]
        baskets = PIECES[PIECE_BY_EFFECT[c["piece"]]]["baskets"][c["space"] - 1]
        best = max((t for t in v["forest"][pos]["curves"] if t is not None), key=me.quick, default=None)
        if best is not None and me.quick(best) > 0:
            note = _("{ing} for your {place}").format(ing=W.ingredient(best), place=_fits(look, best))
        else:
            note = _("nothing here fits your table")
        what = _("take {baskets}").format(baskets=baskets) + (f" + {W.effect(c['piece'])}" if c["space"] == 3 else "")
        scored.append(
            (
                look.glance_value(c),
                Choice(
                    c,
                    _("{piece} piece").format(piece=W.effect(c["piece"])),
                    _("space {space}: {what}").format(space=c["space"], what=what),
                    target=target_space(c["piece"], c["space"]),
                    note=note,
                ),
            )
        )
    return _ranked(scored, FEATURED_PLACES)


def _take_choices(look, commands):
    curves = look.view["forest"][look.view["current"]["pos"]]["curves"]
    piece = look.view["forest"][look.view["current"]["pos"]]["piece"]
    scored = []
    me = look.seat(look.me)
    for c in commands:
        got = [curves[i - 1] for i in c["curves"]]
        value = sum(me.quick(tok) for tok in got) + (look.draw_value(look.me) if 1 in c["curves"] else 0.0)
        label = _(" and ").join(_curve(i, tok) for i, tok in zip(c["curves"], got))
        note = ", ".join(_for_your(look, tok) for tok in got)
        if 1 in c["curves"]:
            note += _("; curve 1 also draws one from the bag")
        target = target_curve(piece, c["curves"][0]) if len(c["curves"]) == 1 else None
        scored.append(
            (
                value,
                Choice(
                    c,
                    _("Collect from the {piece} piece").format(piece=W.effect(piece)),
                    label,
                    target=target,
                    note=note,
                ),
            )
        )
    return _ranked(scored, len(scored))


def _keep_choices(look, commands):
    me = look.seat(look.me)
    drawn = list(look.view["looking"] or [])
    scored = []
    for c in commands:
        target = target_drawn(drawn.index(c["ings"][0])) if len(c["ings"]) == 1 else None
        note = ", ".join(_for_your(look, tok) for tok in c["ings"])
        label = _(" and ").join(W.ingredient(tok) for tok in c["ings"])
        scored.append(
            (
                sum(me.quick(tok) for tok in c["ings"]),
                Choice(c, _("Keep"), label, target=target, note=note),
            )
        )
    return _ranked(scored, len(scored))


def _effect_choices(look, commands):
    scored = [EFFECT_CHOICES.get(c["type"], _basket_choice)(look, c) for c in commands]
    ranked = _ranked(scored, FEATURED_EFFECTS)
    return [replace(ch, featured=True) if ch.command["type"] == "skip" else ch for ch in ranked]


def _skip_choice(_look, c):
    return 0.0, Choice(c, _("Skip"), _("do not use the effect"), note=_("the effect is optional"))


def _steal_choice(look, c):
    victim = W.seat(SEAT_COLOURS[c["from"]])
    index = look.view["tables"][c["from"]]["front"].index(c["ing"])
    value = look.seat(look.me).quick(c["ing"])
    target = target_front(c["from"], index)
    return value, Choice(
        c,
        _("Steal"),
        _("{ing} from {victim}").format(ing=W.ingredient(c["ing"]), victim=victim),
        target=target,
        note=_("for your {place}").format(place=_fits(look, c["ing"])),
    )


def _swap_choice(look, c):
    me = look.seat(look.me)
    got = look.curve_token(c["piece"], c["curve"])
    value = me.quick(got) - me.quick(c["ing"])
    return value, Choice(
        c,
        _("Swap your {ing}").format(ing=W.ingredient(c["ing"])),
        _("for {ing} ({piece} curve {curve})").format(
            ing=W.ingredient(got), piece=W.effect(c["piece"]), curve=c["curve"]
        ),
        target=target_curve(c["piece"], c["curve"]),
        note=_for_your(look, got),
    )


def _replace_choice(look, c):
    toks = [look.curve_token(c["piece"], i) for i in c["curves"]]
    label = _(" and ").join(_curve(i, tok) for i, tok in zip(c["curves"], toks))
    target = target_curve(c["piece"], c["curves"][0]) if len(c["curves"]) == 1 else None
    title = _("Replace on the {piece} piece").format(piece=W.effect(c["piece"]))
    note = _("back to the bag, new ones drawn")
    return replace_value(look, c), Choice(c, title, label, target=target, note=note)


def _dance_choice(look, c):
    spaces = look.view["forest"][look.pos_of[c["piece"]]]["spaces"]
    a, b = c["spaces"]
    first, second = W.seat(SEAT_COLOURS[spaces[a - 1]]), W.seat(SEAT_COLOURS[spaces[b - 1]])
    mine = look.me in (spaces[a - 1], spaces[b - 1])
    title = _("Dance on the {piece} piece").format(piece=W.effect(c["piece"]))
    label = _("spaces {a} and {b} ({first} and {second} change places)").format(a=a, b=b, first=first, second=second)
    choice = Choice(c, title, label, target=target_space(c["piece"], a))
    return (1.0 if mine else -1.0), choice


def _draw_choice(_look, c):
    target = target_space("draw", 3)
    label = _("draw 3 from the bag, keep 1 or 2")
    return 1.0, Choice(c, _("Draw"), label, target=target, note=_("only you see them"))


def _basket_choice(_look, c):
    note = _("pick 1 leftover in a later concocting stage")
    return 1.0, Choice(c, _("Basket tile"), _("take the basket tile"), target=TARGET_BASKET, note=note)


# One small function per effect command: (value, Choice); the basket tile is the default.
EFFECT_CHOICES = {
    "skip": _skip_choice,
    "steal": _steal_choice,
    "swap": _swap_choice,
    "replace": _replace_choice,
    "dance": _dance_choice,
    "draw": _draw_choice,
}


def _brew_choices(look, commands):
    me = look.seat(look.me)
    spec = TABLES[look.view["tables"][look.me]["table"]]
    mine = look.view["mine"]
    scoring = {c["ing"] for c in commands if c["type"] == "put" and (c["to"] in FLASKS or c["to"] == "book")}
    scored = []
    for c in commands:
        kind = c["type"]
        if kind == "done":
            scored.append(
                (
                    50.0,
                    Choice(
                        c,
                        _("Done"),
                        _("I have placed everything"),
                        featured=True,
                        note=_("hand in this round's concocting"),
                    ),
                )
            )
            continue
        if kind == "pick":
            tok = look.curve_token(c["piece"], c["curve"])
            value = me.quick(tok)
            scored.append(
                (
                    value,
                    Choice(
                        c,
                        _("Basket tile"),
                        _("take {ing} ({piece} curve {curve})").format(
                            ing=W.ingredient(tok), piece=W.effect(c["piece"]), curve=c["curve"]
                        ),
                        featured=value > 0,
                        target=target_curve(c["piece"], c["curve"]),
                        note=_("for your {place}").format(place=_fits(look, tok)),
                    ),
                )
            )
            continue
        tok, dest = c["ing"], c["to"]
        from_bowl = tok == mine["bowl"] and tok not in mine["front"]
        name = W.ingredient(tok)
        group = _("{ing} (from your bowl)").format(ing=name) if from_bowl else name
        value, label, note = _put_words(spec, mine, tok, dest)
        # Featured: where it scores; for an ingredient that scores nowhere, the bowl and the poison.
        featured = dest in FLASKS or dest == "book" or tok not in scoring
        scored.append(
            (
                value + me.quick(tok) / 10,
                Choice(c, group, label, featured=featured, target=target_flask(look.me, dest), note=note),
            )
        )
    out = []
    featured = 0
    for i in sorted(range(len(scored)), key=lambda i: -scored[i][0]):
        choice = scored[i][1]
        if choice.featured:
            featured += 1
            if featured > MAX_FEATURED:
                choice = replace(choice, featured=False)
        out.append(choice)
    return out


def _put_words(spec, mine, tok, dest):
    """(value for ordering, label, note) of putting an ingredient somewhere on one's own table."""
    value = INGREDIENTS[tok][2]
    if dest in FLASKS:
        req = spec["flasks"][dest]
        k = len(mine["flasks"][dest])
        seals = k + 1 == len(req)
        note = _("space {k} of {n}").format(k=k + 1, n=len(req)) + (_(", seals it: a cork") if seals else "")
        return 10.0 + value + (5 if seals else 0), _("on your {flask} flask").format(flask=W.place(dest)), note
    if dest == "book":
        other = [t for t in mine["book"] if t is not None]
        note = _("scores {points}").format(points=2 * value) + (_(" and 3 for both") if other else "")
        return 20.0 + 2 * value, _("in your recipe book"), note
    if dest == "bowl":
        return 5.0, _("in your bowl"), _("saved for a later round")
    return -value, _("on the poison flask"), _("costs {value}").format(value=value)


def _curve(i, tok) -> str:
    return _("curve {curve} ({ing})").format(curve=i, ing=W.ingredient(tok))


def _for_your(look, tok) -> str:
    return _("{ing} for your {place}").format(ing=W.ingredient(tok), place=_fits(look, tok))
