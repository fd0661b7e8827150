"""Shared helpers for the Elixirus tests: build a table in a known position, check invariants."""

from __future__ import annotations

import json
from collections import Counter

from games.base import Rejected
from games.elixirus import GAME
from games.elixirus.data_model import ALL_TOKENS, CRYSTAL, FLASKS, PIECE_BY_EFFECT, TABLES, book_slot, matches
from games.elixirus.rules import draft_table, scores_breakdown
from games.testing import Table

# Circle used by the rule tests: clockwise steal, swap, draw, replace, dance, collect.
CIRCLE = [PIECE_BY_EFFECT[e] for e in ("steal", "swap", "draw", "replace", "dance", "collect")]


def table(players=2, seed=b"elixirus-test", tables=None, circle=CIRCLE, start=0, signpost=0):
    """A fresh game in a known position: pieces in CIRCLE order, the first players+1 face up from
    `signpost`, seat `start` with the starting marker, chosen concoction tables."""
    t = Table(GAME, players, seed=seed)
    s = t.state
    # Gather the forest back into the bag, then lay the chosen circle and refill it.
    for pos in range(6):
        for c in range(4):
            if s["curves"][pos][c] is not None:
                s["bag"].append(s["curves"][pos][c])
                s["curves"][pos][c] = None
    s["circle"] = list(circle)
    up = [False] * 6
    for i in range(min(players + 1, 6)):
        up[(signpost + i) % 6] = True
    s["up"] = up
    s["known"] = list(up)
    s["signpost"] = signpost
    s["start"] = s["turn"] = start
    if tables:
        s["tables"] = list(tables)
    s["bag"].sort()
    for pos in range(6):
        if up[pos]:
            for c in range(4):
                s["curves"][pos][c] = s["bag"].pop(0)
    return t


def pos(t, effect):
    return t.state["circle"].index(PIECE_BY_EFFECT[effect])


def set_curves(t, effect, toks):
    """Puts exactly these ingredients (None: empty) in the curves of a piece, taking them from the bag."""
    s = t.state
    p = pos(t, effect)
    for c in range(4):
        if s["curves"][p][c] is not None:
            s["bag"].append(s["curves"][p][c])
            s["curves"][p][c] = None
    for c, tok in enumerate(toks):
        if tok is not None:
            take(s, tok)
            s["curves"][p][c] = tok


def take(s, tok):
    """Removes a token from wherever it lies in the bag, box or forest (for arranging tests)."""
    if tok in s["bag"]:
        s["bag"].remove(tok)
        return
    if tok in s["box"]:
        s["box"].remove(tok)
        return
    for curves in s["curves"]:
        if tok in curves:
            curves[curves.index(tok)] = None
            return
    raise AssertionError(f"{tok} is not free to take")


def give_front(t, seat, toks):
    for tok in toks:
        take(t.state, tok)
        t.state["front"][seat].append(tok)


def place(t, *moves):
    """moves: (seat, piece, space) in turn order."""
    for seat, piece, space in moves:
        t.act(seat, {"type": "place", "piece": piece, "space": space})


def rejected(t, seat, command) -> str:
    try:
        t.act(seat, command)
    except Rejected as err:
        return str(err)
    raise AssertionError(f"{command} was accepted")


def say(t, seat, text):
    return t.act(seat, GAME.parse(text, t.state, seat))


def types(events):
    return [e.type for e in events]


# ---------------------------------------------------------------------------------------------
# Invariants checked after bot steps
# ---------------------------------------------------------------------------------------------

FULL = Counter(ALL_TOKENS)


def all_tokens(s) -> Counter:
    c = Counter(s["bag"]) + Counter(s["box"]) + Counter(s["looking"])
    for curves in s["curves"]:
        c.update(t for t in curves if t is not None)
    for seat in range(s["n"]):
        c.update(s["front"][seat])
        c.update(tok for lst in s["flasks"][seat].values() for tok in lst)
        c.update(t for t in s["book"][seat] if t is not None)
        c.update(s["poison"][seat])
        if s["bowl"][seat] is not None:
            c[s["bowl"][seat]] += 1
    return c


def seat_tokens(tab) -> Counter:
    c = Counter(tab["front"]) + Counter(tab["poison"])
    c.update(t for v in tab["flasks"].values() for t in v)
    c.update(t for t in tab["book"] if t is not None)
    if tab["bowl"] is not None:
        c[tab["bowl"]] += 1
    return c


def check_table_legal(tid, tab):
    spec = TABLES[tid]
    for f in FLASKS:
        req = spec["flasks"][f]
        assert len(tab["flasks"][f]) <= len(req)
        for tok, r in zip(tab["flasks"][f], req):
            assert matches(tok, r), (tid, f, tok, r)
    for i, tok in enumerate(tab["book"]):
        if tok is not None:
            assert book_slot(tid, tok) == i


def check_invariants(t: Table):
    s = t.state
    assert all_tokens(s) == FULL, "ingredients not conserved"
    n = s["n"]
    for seat in range(n):
        check_table_legal(s["tables"][seat], {k: s[k][seat] for k in ("flasks", "book")})
        spec = TABLES[s["tables"][seat]]["flasks"]
        for f in FLASKS:
            full = len(s["flasks"][seat][f]) == len(spec[f])
            assert full == (f in s["corks"][seat]), "a cork for every full flask and only those"
    # apprentices: placed + left + (returned) never exceed 3 each
    for seat in range(n):
        on_board = sum(1 for sp in s["spaces"] for x in sp if x == seat)
        assert on_board + s["left"][seat] <= 3
    if s["drafts"] is not None:
        for seat in range(n):
            dr = draft_table(s, seat)
            committed = seat_tokens({k: s[k][seat] for k in ("front", "bowl", "flasks", "book", "poison")})
            if dr["picked"] is not None:
                p, c = dr["picked"]
                committed[s["curves"][p][c]] += 1
            assert seat_tokens(dr) == committed, "a draft gains or loses ingredients"
            check_table_legal(s["tables"][seat], dr)
            assert dr["bowl"] is None or isinstance(dr["bowl"], str)
    # scores: the summary equals the score sheet and the table as it lies
    summary = GAME.summary(s)
    sheet = [0] * n
    for line in GAME.score_sheet(s):
        sheet[line.seat] += line.points
    assert summary["scores"] == sheet == [sum(scores_breakdown(s, x)) for x in range(n)]
    check_no_leaks(t)


def check_no_leaks(t: Table):
    s = t.state
    n = s["n"]
    hidden_pieces = [s["circle"][p] for p in range(6) if not s["known"][p]]
    for viewer in list(range(n)) + [None]:
        v = GAME.view(s, viewer)
        secrets = s["looking"] or (s["drafts"] is not None and any(d["moves"] for d in s["drafts"]))
        text_v = json.dumps(v) if secrets else ""
        for pid in hidden_pieces:
            effect = GAME_EFFECT[pid]
            assert all(f["piece"] != effect for f in v["forest"]), "a face-down piece is shown"
        if s["looking"]:
            drawer = GAME.waiting_for(s)[0]
            if viewer != drawer:
                assert v["looking"] is None
                for tok in s["looking"]:
                    if tok != CRYSTAL:
                        assert json.dumps(tok) not in text_v, f"drawn {tok} leaks to {viewer}"
        if s["drafts"] is not None:
            for seat in range(n):
                if seat == viewer:
                    assert v["mine"]["moves"] == s["drafts"][seat]["moves"]
                    continue
                for move in s["drafts"][seat]["moves"]:
                    if move[0] == CRYSTAL:
                        continue  # crystals are alike: another seat may have made the same move
                    assert json.dumps(move) not in text_v, f"seat {seat}'s concocting leaks to {viewer}"
            if viewer is None:
                assert v["mine"] is None
    # what a seat sees renders within 80 columns (one viewer in turn, every few checks, to stay fast)
    if len(t.events) % 3 == 0:
        viewer = len(t.events) % (n + 1)
        text = GAME.render_text(GAME.view(s, viewer if viewer < n else None))
        assert max(len(line) for line in text.splitlines()) <= 80


GAME_EFFECT = {pid: e for e, pid in PIECE_BY_EFFECT.items()}
