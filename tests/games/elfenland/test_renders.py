"""The renders: the 80-column text board (re-laid out, never cut), the picture of a turn notice
(one standalone SVG, a PNG under 150 kB that shows its text), the web board (two drawings, the
targets as links with touch-sized hit areas, no second text board) and the help."""

from __future__ import annotations

import json
import re
import struct
import zlib

import pytest

from games.elfenland import GAME
from games.elfenland import board as B
from games.elfenland import drawing as D
from games.testing import canonical, fold, play_random

from .common import given

resvg_py = pytest.importorskip("resvg_py", reason="resvg-py rasterises the mail's picture")

PNG_LIMIT = 150_000


def views_of_bot_games(players, options=None, seed=1, every=9):
    """Views of every seat and the spectator at every `every`-th event of a random game."""
    tb = play_random(GAME, players, options or {}, seed=seed)
    out = []
    state = None
    for i, ev in enumerate(tb.events):
        state = GAME.evolve(state, ev)
        if i % every == 0 or i == len(tb.events) - 1:
            snapshot = json.loads(canonical(state))
            out += [GAME.view(snapshot, seat) for seat in [None, *range(players)]]
    return out


def collapsed(text):
    return " ".join(text.split())


def must_show(v) -> list[str]:
    """What the text board must say in full for view `v` (wrapping may break it across lines)."""
    out = []
    for st in v["seats"]:
        out.append(f"at {B.name(st['elf'])}")
        if st["up"]:
            out.append(" ".join(B.WORD[c] for c in st["up"]))
        if st["down"]:
            out.append(f"+{st['down']} hidden")
    for route, counter in v["board"].items():
        r = B.ROUTES[route]
        out.append(f"{B.name(r['a'])}-{B.name(r['b'])} {r['type']} {B.WORD[counter]}")
    if v["reachable"]:
        out += [B.name(t) for t in v["reachable"]]
    if v["final"]:
        out += [f"{v['final']['collected'][s]} towns" for s in range(v["players"])]
    return out


# --- text -------------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_text_board_fits_80_columns_and_cuts_nothing_for_every_seat_and_the_spectator(players):
    for options in ({}, {"home_cities": True, "lakes": True, "boatmen": True}):
        for v in views_of_bot_games(players, options, seed=players):
            text = GAME.render_text(v)
            assert max(len(line) for line in text.splitlines()) <= 80, text
            flat = collapsed(text)
            for piece in must_show(v):
                assert collapsed(piece) in flat, f"{piece!r} is missing from\n{text}"


def test_a_seat_line_too_long_for_80_columns_goes_on_a_second_line_not_cut():
    """The testers' "+1 hidd": four face-up counters and a hidden one on a long town name."""
    t = given(
        6,
        phase="place",
        turn=0,
        elf={4: "mah_davikia"},
        up={4: ["troll_wagon", "elfcycle", "magic_cloud", "unicorn"]},
        down={4: ["dragon"]},
    )
    t.state["got"][4] = [[town, 1] for town in B.PIECE_TOWNS[:12]]
    text = GAME.render_text(GAME.view(t.state, 0))
    assert max(len(line) for line in text.splitlines()) <= 80
    assert "elfcycle cloud troll unicorn +1 hidden" in collapsed(text)
    line = next(i for i, ln in enumerate(text.splitlines()) if "P5 purple" in ln)
    assert "counters: elfcycle cloud troll unicorn +1 hidden" in text.splitlines()[line + 1]


# --- the picture of a turn notice -------------------------------------------------------------


def png_pixels(png: bytes, max_rows=None):
    """(width, height, RGB rows) of an 8-bit RGBA or RGB PNG (no library needed), decoded down
    to `max_rows` rows."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, width = 8, b"", 0
    while pos < len(png):
        length, kind = struct.unpack(">I4s", png[pos : pos + 8])
        body = png[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and colour in (2, 6)
            bpp = 4 if colour == 6 else 3
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows, prev = [], bytearray(stride)
    for y in range(min(height, max_rows or height)):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1 : (y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append([tuple(line[x * bpp : x * bpp + 3]) for x in range(width)])
        prev = line
    return width, height, rows


def dark_pixels(rows, x0, y0, x1, y1):
    return sum(1 for row in rows[int(y0) : int(y1)] for r, g, b in row[int(x0) : int(x1)] if r + g + b < 250)


def test_the_picture_is_one_standalone_svg_in_dejavu_sans_600_px_wide():
    v = views_of_bot_games(4, {"home_cities": True})[40]
    svg = GAME.render_svg(v)
    assert svg.startswith('<svg xmlns="http://www.w3.org/2000/svg" width="600" height="') and svg.count("<svg") == 1
    assert set(re.findall(r'font-family="([^"]+)"', svg)) == {"DejaVu Sans, sans-serif"}
    assert "<style" not in svg and "<script" not in svg and "href" not in svg


def test_the_picture_draws_its_text_the_title_and_the_town_names():
    t = given(3, phase="move", turn=0, hands={0: ["giant_pig"]}, board={"elvenhold-lapphalya:road": "giant_pig"})
    png = bytes(resvg_py.svg_to_bytes(svg_string=GAME.render_svg(GAME.view(t.state, 0))))
    lx, ly, _anchor = D.NARROW.labels["elvenhold"]
    width, height, rows = png_pixels(png, max_rows=int((ly + 5) * 600 / D.NARROW.width))
    scale = width / D.NARROW.width
    assert width == 600
    assert dark_pixels(rows, 10 * scale, 8 * scale, 200 * scale, 24 * scale) > 150  # "Round 1 of 4 · ..."
    assert dark_pixels(rows, 200 * scale, 8 * scale, 360 * scale, 24 * scale) < dark_pixels(
        rows, 10 * scale, 8 * scale, 200 * scale, 24 * scale
    )  # left-aligned: ink mostly on the left
    w = D.text_width("Elvenhold", D.NARROW.font)
    ink = dark_pixels(rows, lx * scale, (ly - 10) * scale, (lx + w) * scale, (ly + 2) * scale)
    assert ink > 60, "the town name is not drawn (no font?)"


@pytest.mark.parametrize("players", [2, 4, 6])
def test_the_pictures_png_stays_under_150_kb_in_every_phase(players):
    largest = 0
    views = [
        v
        for v in views_of_bot_games(players, {"home_cities": True, "lakes": True}, seed=players, every=29)
        if v["seat"] == (v["waiting"] or [0])[0]
    ]
    for v in views[:: max(1, len(views) // 12)] + views[-1:]:  # a dozen positions, and the end
        png = bytes(resvg_py.svg_to_bytes(svg_string=GAME.render_svg(v)))
        largest = max(largest, len(png))
    assert 40_000 < largest < PNG_LIMIT, largest


# --- the web board --------------------------------------------------------------------------


def test_the_web_board_has_no_second_text_board_and_no_script():
    v = views_of_bot_games(3)[30]
    html = GAME.render_html(v)
    assert "<pre" not in html and "<script" not in html
    assert "Town pieces still on the board" not in html and "Face-down counters:" not in html
    assert html.count("<svg") == 2 and 'class="elf-wide"' in html and 'class="elf-narrow"' in html
    assert "@media (max-width:700px)" in html


def test_linked_targets_are_focusable_links_with_a_name_and_a_touch_sized_hit_area():
    t = given(3, phase="place", turn=0, up={0: ["giant_pig"]}, down={0: []}, hands={0: ["giant_pig"] * 3})
    choices = GAME.choices(t.state, 0)
    links = {c.target: f"/seat/x/pick?code={i}" for i, c in enumerate(choices) if c.target}
    html = GAME.render_html(GAME.view(t.state, 0), links)
    anchors = re.findall(r'<a href="([^"]+)" aria-label="([^"]+)" class="elf-link"><g id="([^"]+)">(.*?)</g></a>', html)
    assert len(anchors) == 2 * len(links)  # in both drawings
    for href, name, ident, inner in anchors:
        assert links[ident.removeprefix("n-")] == href.replace("&amp;", "&") and name
        hits = re.findall(r'class="elf-hit" cx="[^"]+" cy="[^"]+" r="([\d.]+)"', inner)
        rects = re.findall(r'class="elf-hit" x="[^"]+" y="[^"]+" width="([\d.]+)" height="([\d.]+)"', inner)
        assert any(2 * float(r) >= 44 for r in hits) or any(float(w) >= 44 and float(h) >= 44 for w, h in rects)
    ids = re.findall(r'\bid="([^"]+)"', html)
    assert len(ids) == len(set(ids)), "an id is used twice"


def test_without_links_nothing_is_a_link():
    v = views_of_bot_games(3)[30]
    assert "<a " not in GAME.render_html(v) and "<a " not in GAME.render_svg(v)


# --- help -------------------------------------------------------------------------------------


def test_help_never_numbers_seats_the_platform_names_them():
    tb = play_random(GAME, 4, {"home_cities": True}, seed=6)
    state = None
    for ev in tb.events[:400]:
        state = GAME.evolve(state, ev)
        for seat in [None, *range(4)]:
            text = GAME.help(state, seat)
            assert not re.search(r"\bseats? \d", text), text
            assert "Waiting for" not in text


def test_renders_of_a_finished_game_show_the_result():
    tb = play_random(GAME, 5, {"home_cities": True}, seed=9)
    v = GAME.view(fold(GAME, tb.events), None)
    assert "Final result" in GAME.render_text(v) and "Final result" in GAME.render_svg(v)


def test_the_text_board_names_the_winner_as_the_standings_do_when_the_platform_gives_the_names():
    table = play_random(GAME, 3, {}, seed=7)
    view = GAME.view(table.state, 0)
    winners = view["final"]["ranking"][0]
    named = GAME.render_text({**view, "names": ["Alice", "Bob", "Carol"]})
    shown = " and ".join(f"{['Alice', 'Bob', 'Carol'][s]} ({D.COLOURS[s]})" for s in winners)
    assert f"Final result (winner: {shown}):" in named
    assert "P1 red" not in named and "P2 blue" not in named
    assert f"Final result (winner: P{winners[0] + 1} " in GAME.render_text(view)  # without names, as before
