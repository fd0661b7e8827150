"""The chooser (grammar.choices), the board drawings (board.py) and the 80-column text."""

from __future__ import annotations

import json
import re
import struct
import zlib

import pytest
import resvg_py

from games.base import MAX_FEATURED
from games.testing import canonical, play_random
from games.zauberschwert import GAME
from games.zauberschwert.board import PHONE_WIDTH
from games.zauberschwert.rules import ADV, ART, ARTIFACTS, artifacts_of

from .helpers import BLUE, GREEN, RED, YELLOW, place_all, table_at

# resvg's own RGBA PNG of the picture drawn 600 px wide (a portrait for a phone since issue 27):
# the notice carries a palette PNG made to fit its budget (pbem.mail.pictures), a fraction of it.
PNG_LIMIT = 200_000


def positions(players, seed, every=3):
    """(state, seat) at every `every`-th event of a random game, the seat awaited (or 0)."""
    found = []

    def keep(table):
        if len(table.events) % every == 0:
            awaited = GAME.waiting_for(table.state)
            found.append((json.loads(canonical(table.state)), awaited[0] if awaited else 0))

    table = play_random(GAME, players, seed=seed, check=keep)
    return found + [(table.state, 0)]


def views(players, seed, every=3):
    """Every seat's and the spectator's view at those positions."""
    for state, _ in positions(players, seed, every):
        for viewer in [None, *range(players)]:
            yield GAME.view(state, viewer)


# ---------------------------------------------------------------------------------------------
# the chooser
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4])
def test_chooser_offers_every_legal_move_once_and_numbers_at_most_20(players):
    steps = set()
    for state, seat in positions(players, seed=players, every=1):
        offered = GAME.choices(state, seat)
        legal = GAME.legal(state, seat)
        assert sorted(canonical(c.command) for c in offered) == sorted(canonical(c) for c in legal)
        assert all(c.group and c.label for c in offered)
        featured = [c for c in offered if c.featured]
        assert len(featured) <= MAX_FEATURED
        assert not legal or featured, f"nothing numbered in step {state['step']}"
        assert offered[: len(featured)] == featured or state["step"] in ("auction", "trade")
        steps.add(state["step"])
    assert {"place", "trade", "layout", "over"} <= steps


def test_chooser_targets_name_elements_of_both_drawings_and_links_wrap_them():
    for state, seat in positions(4, seed=9, every=2):
        offered = GAME.choices(state, seat)
        targets = sorted({c.target for c in offered if c.target})
        if not targets:
            continue
        links = {t: f"/g/1/move?target={t}&amp" for t in targets}
        page = GAME.render_html(GAME.view(state, seat), links)
        for target in targets:
            assert f'id="{target}"' in page and f'id="{target}-phone"' in page, target
        assert page.count("<a href=") == 2 * len(targets)  # the web and the phone drawing
        assert "&amp;amp" in page  # the URL is escaped in the attribute
        ids = re.findall(r' id="([^"]+)"', page)
        assert len(ids) == len(set(ids)), "an id appears twice in the page"
        assert "<script" not in page


def test_chooser_placement_offers_each_card_with_what_it_gives_and_pass():
    table = table_at(players=3, display=("A08", "B03"), start=BLUE, mp=[10, 10, 10])
    table.act(BLUE, {"type": "place", "slot": 0})
    offered = GAME.choices(table.state, GREEN)
    assert [c.command for c in offered] == [
        {"type": "place", "slot": 0},
        {"type": "place", "slot": 1},
        {"type": "pass"},
    ]
    goblins, orb, skip = offered
    assert goblins.group == "Place your wizard" and goblins.label == "on card 1: Goblins (strength 5, star)"
    assert goblins.target == "zs-card-1" and "Blue there: shared 1 stone + 1 artifact each for 3 magic" in goblins.note
    assert orb.note == "+4 magic each" and orb.target == "zs-card-2"
    assert skip.note == "+1 magic point" and all(c.featured for c in offered)


def test_chooser_auction_numbers_the_lowest_bids_all_ones_magic_and_pass():
    table = table_at(players=2, display=("A08", "A04"), mp=[20, 12])
    place_all(table, {RED: 0, BLUE: 0})
    table.act(RED, {"type": "alone"})
    table.act(RED, {"type": "bid", "amount": 5})
    offered = GAME.choices(table.state, BLUE)
    featured = [c.command for c in offered if c.featured]
    assert featured == [
        {"type": "bid", "amount": 6},
        {"type": "bid", "amount": 7},
        {"type": "bid", "amount": 8},
        {"type": "bid", "amount": 12},
        {"type": "pass"},
    ]
    assert [c.note for c in offered if c.featured][3] == "all your magic"


def test_chooser_trading_answers_first_then_done_then_asking_for_the_other_half():
    table = table_at(players=3, display=("A04", "B03"), hand=[["ART01", "ART16"], ["ART02"], ["ART05", "ART27"]])
    place_all(table, {})
    table.act(BLUE, {"type": "offer", "give": "ART02", "to": GREEN, "want": "ART05"})
    offered = GAME.choices(table.state, GREEN)
    assert [c.command["type"] for c in offered[:3]] == ["accept", "decline", "done"]
    assert offered[0].label == "accept: give Magic sword 1, get Magic wand 2" and offered[0].target == "zs-player-blue"
    red = GAME.choices(table.state, RED)
    featured = [c for c in red if c.featured and c.command["type"] == "offer"]
    assert featured and {c.command["want"] for c in featured} == {"ART02"}  # Magic wand 2 for Red's wand 1
    assert all(c.command["give"] == "ART16" and c.target == "zs-hand-ART16" for c in featured)
    assert len(red) == len(GAME.legal(table.state, RED)) > 50  # the rest: typed or chosen on the web


def test_chooser_spells_and_laying_out_point_at_the_card_or_player_concerned():
    table = table_at(
        players=3,
        display=("C03", "A04"),
        start=BLUE,
        mp=[10, 10, 10],
        spells=[["B02", "C01"], [], []],
        hand=[["ART01", "ART02", "ART16"], [], []],
    )
    place_all(table, {BLUE: 0, GREEN: 1, RED: 1})
    offered = GAME.choices(table.state, RED)
    by_target = {c.target: c for c in offered if c.target}
    assert by_target["zs-player-blue"].label == "take a card from Blue"
    assert by_target["zs-hand-ART16"].label == "discard Potion, draw the top artifact"
    assert offered[-1].command == {"type": "done"}


# ---------------------------------------------------------------------------------------------
# the picture for a mail (render_svg) and the web board (render_html)
# ---------------------------------------------------------------------------------------------


def png_pixels(data: bytes):
    """Width, height and RGBA rows of an 8-bit RGBA PNG (what resvg writes)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos : pos + 8])
        body = data[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", body[:10])
            assert (depth, colour) == (8, 6)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride, rows, prev = width * 4, [], bytearray(width * 4)
    for y in range(height):
        kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1 : (y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - 4] if i >= 4 else 0
            b = prev[i]
            c = prev[i - 4] if i >= 4 else 0
            if kind == 1:
                line[i] = (line[i] + a) & 255
            elif kind == 2:
                line[i] = (line[i] + b) & 255
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        prev = line
    return width, height, rows


def dark_share(rows):
    dark = total = 0
    for line in rows[::3]:
        for i in range(0, len(line), 12):
            total += 1
            dark += line[i] + line[i + 1] + line[i + 2] < 240
    return dark / total


@pytest.mark.parametrize("players", [2, 4])
def test_picture_is_one_standalone_svg_600_px_wide_and_its_png_is_small_with_text_drawn(players):
    found = positions(players, seed=31, every=60)
    for number, (state, seat) in enumerate(found):
        svg = GAME.render_svg(GAME.view(state, seat))
        assert svg.startswith('<svg xmlns="http://www.w3.org/2000/svg"') and svg.endswith("</svg>")
        assert svg.count("<svg") == 1 and ' width="600"' in svg and re.search(r' height="\d+"', svg)
        assert set(re.findall(r'font-family="([^"]+)"', svg)) == {"DejaVu Sans, sans-serif"}
        png = bytes(resvg_py.svg_to_bytes(svg_string=svg))
        assert len(png) < PNG_LIMIT, f"{state['step']}: {len(png)} bytes"
        if number in (0, len(found) - 1):  # the pixels (decoding is slow here): text drawn, dark on light
            width, height, rows = png_pixels(png)
            assert width == 600 and 0.01 < dark_share(rows) < 0.3


def test_phone_drawing_is_358_px_wide_with_no_text_under_11_px():
    for v in views(4, seed=2, every=25):
        page = GAME.render_html(v)
        phone = page[page.index('<svg class="zs-phone"') :]
        assert f'viewBox="0 0 {PHONE_WIDTH} ' in phone and f'width="{PHONE_WIDTH}"' in phone
        sizes = [int(s) for s in re.findall(r'font-size="(\d+)"', phone)]
        assert sizes and min(sizes) >= 11
        assert "@media (max-width:" in page  # the phone drawing is shown on narrow screens


def test_board_shows_the_card_being_fought_and_the_wizards_on_each_card():
    table = table_at(players=3, display=("A08", "A04"), mp=[9, 9, 9])
    place_all(table, {RED: 0, BLUE: 0, GREEN: 1})
    page = GAME.render_html(GAME.view(table.state, None))
    web = page[: page.index('<svg class="zs-phone"')]
    card = web[web.index('id="zs-card-1"') : web.index('id="zs-card-2"')]
    assert 'stroke-width="3"' in card and ">Red<" in card and ">Blue<" in card and ">Green<" not in card


# ---------------------------------------------------------------------------------------------
# the text of a mail
# ---------------------------------------------------------------------------------------------


def expected_names(v):
    """What the text must show somewhere: hand cards, laid-out artifacts, spells, display cards."""
    names = [ART[c]["card_name"] for c in v["hand"] or []]
    for p in v["players_info"]:
        names += [ARTIFACTS[k]["name"] for k in artifacts_of(p["laid"])]
        names += [ADV[c]["name"] for c in p["spells"]]
        names += [ART[c]["card_name"] for c in p["hand"] or []]
    names += [ADV[c]["name"] for c in v["display"] if c is not None]
    return names


@pytest.mark.parametrize("players", [2, 3, 4])
def test_text_never_exceeds_80_columns_and_cuts_nothing_for_every_seat_and_the_spectator(players):
    for seed in range(3):
        for v in views(players, seed=seed, every=4):
            text = GAME.render_text(v)
            widest = max(len(line) for line in text.splitlines())
            assert widest <= 80, f"a line of {widest} columns"
            flat = " ".join(text.split())
            for name in expected_names(v):
                assert name in flat, f"{name} is missing from the text"


def test_text_wraps_a_long_line_of_laid_out_artifacts_instead_of_cutting_it():
    laid = ["ART13", "ART14", "ART15", "ART17", "ART18", "ART20", "ART21", "ART22", "ART23", "ART24", "ART25"]
    table = table_at(
        players=4, display=("A08", "B03"), laid=[laid, [], [], []], spells=[["A01", "A02", "B01"], [], [], []]
    )
    text = GAME.render_text(GAME.view(table.state, YELLOW))
    assert all(len(line) <= 80 for line in text.splitlines())
    flat = " ".join(text.split())
    assert all(ARTIFACTS[ART[c]["artifact"]]["name"] in flat for c in laid)
