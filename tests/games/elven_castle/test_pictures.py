"""The renders: the text board (80 columns, arches shown, nothing cut off), the web page's board
(links on the plan's squares, small) and the picture in a turn notice (one SVG, a PNG under
200 kB whose text is drawn in DejaVu Sans)."""

from __future__ import annotations

import re
import zlib

import pytest

from games.elven_castle import GAME, rules, view
from games.testing import play_random, play_with_standins

from .helpers import given, table

resvg_py = pytest.importorskip("resvg_py", reason="resvg-py (the platform's rasteriser) is not installed")


def views_of_bot_games(players, every=5):
    """The views of every seat and of a spectator, every few steps of a random game."""
    found = []

    def keep(t):
        if len(t.events) % every == 0 or GAME.result(t.state):
            found.extend(GAME.view(t.state, seat) for seat in [None, *range(players)])

    play_random(GAME, players, {"staircase": True, "penalties": True}, seed=players, check=keep)
    return found


# --- Text ------------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4])
def test_render_text_never_exceeds_80_columns_and_cuts_nothing_off(players):
    for v in views_of_bot_games(players):
        text = GAME.render_text(v)
        lines = text.splitlines()
        assert max(len(line) for line in lines) <= 80
        listed = [line for line in lines if re.match(r" #\d+ ", line)]
        assert len(listed) == len(v["pieces"])  # every piece, each on its own line
        ranks = [line for line in lines if re.match(r"[ 1-9]\d ", line) and line[:2].strip().isdigit()]
        assert len(ranks) % rules.D == 0 and ranks  # every rank of the map (in one or two halves)
        for s in range(players):
            assert f"{v['scores'][s]:>4} pts" in text


def test_render_text_shows_the_arches_on_the_map_and_in_the_list():
    t = table(2)
    given(t, 0, "place bridge a1 north level 0")
    given(t, 1, "place bridge c1 north level 0")
    given(t, 0, "place bridge a2 east level 1")  # its opening over b2 stands on nothing: an arch 1 high
    text = GAME.render_text(GAME.view(t.state, 1))
    row2 = [line for line in text.splitlines() if line.startswith(" 2 ")][0]
    assert row2.split()[1:4] == ["R2.2", "R2.2^1", "R2.2"]
    assert "#2  R bridge    a2 east  level 1 on #0+#1 arch 1" in text
    assert "^2 = an arch 2 spans" in text


def test_the_map_is_split_in_two_halves_when_a_cell_is_too_wide_for_one():
    v = GAME.view(table(2).state, None)
    tops = {(x, y): (12, 0, 45, 3) for x in range(rules.W) for y in range(rules.D)}  # "R12.45^3", 8 wide
    lines = view._map_lines(v, tops)
    assert max(len(line) for line in lines) <= 80
    assert sum(line.count("R12.45^3") for line in lines) == rules.W * rules.D


# --- The web page's board --------------------------------------------------------------------


def test_render_html_wraps_each_linked_square_of_the_plan_in_a_named_link():
    t = table(3)
    given(t, 0, "place window c3 east level 0")
    seat = t.state["turn"]
    offered = GAME.choices(t.state, seat)
    links = {c.target: f"/seat/move?code={i}&x=<1>" for i, c in enumerate(offered)}
    html = GAME.render_html(GAME.view(t.state, seat), links)
    anchors = re.findall(r'<a href="([^"]+)" aria-label="([^"]+)"><rect id="(ec-[a-i][1-9])"', html)
    assert {target for _href, _name, target in anchors} == set(links)
    for href, name, target in anchors:
        assert href == links[target].replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        assert name.startswith(target[3:] + ": ")
    assert 'aria-label="a1: free ground"' in html
    assert "<script" not in html and "on" + "click" not in html  # links only: no JavaScript
    assert "<a " not in GAME.render_html(GAME.view(t.state, seat))  # no links unless given


def test_render_html_is_small():
    for players in (2, 4):
        t = play_with_standins(GAME, players, range(players), {"scenario": "library"} if players > 2 else {}, seed=1)
        assert len(GAME.render_html(GAME.view(t.state, 0))) < 60_000  # was 88-95 kB


def test_render_html_shows_the_altar_and_the_red_points():
    t = play_random(GAME, 3, {"scenario": "altar"}, seed=2)
    html = GAME.render_html(GAME.view(t.state, None))
    assert html.count("<svg") == 3 and 'stroke="#e00000"' in html  # the altar's red frame
    t = table(3, {"scenario": "catacombs"})
    assert GAME.render_html(GAME.view(t.state, None)).count("<circle") == 9  # the free red points


# --- The picture in a turn notice ------------------------------------------------------------


def png_rows(data, rows):
    """The first `rows` rows of pixels of an 8-bit RGBA PNG, as (width, [bytes of each row])."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        length = int.from_bytes(data[pos : pos + 4], "big")
        kind, body = data[pos + 4 : pos + 8], data[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            width = int.from_bytes(body[:4], "big")
            assert (body[8], body[9], body[12]) == (8, 6, 0), "expected 8-bit RGBA, not interlaced"
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompressobj().decompress(idat, (width * 4 + 1) * rows)
    stride, prev, out = width * 4, bytearray(width * 4), []
    for y in range(rows):
        kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1 : (y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - 4] if i >= 4 else 0
            b, c = prev[i], (prev[i - 4] if i >= 4 else 0)
            if kind == 1:
                line[i] = (line[i] + a) & 255
            elif kind == 2:
                line[i] = (line[i] + b) & 255
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                near = (
                    a
                    if abs(p - a) <= abs(p - b) and abs(p - a) <= abs(p - c)
                    else (b if abs(p - b) <= abs(p - c) else c)
                )
                line[i] = (line[i] + near) & 255
        out.append(bytes(line))
        prev = line
    return width, out


def test_the_picture_is_one_svg_600_px_wide_in_dejavu_sans_only():
    t = play_random(GAME, 4, {"scenario": "altar"}, seed=3)
    svg = GAME.render_svg(GAME.view(t.state, 0))
    assert svg.startswith('<svg xmlns="http://www.w3.org/2000/svg" width="600" height="') and svg.count("<svg") == 1
    assert set(re.findall(r'font-family="([^"]+)"', svg)) == {"DejaVu Sans,sans-serif"}


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_picture_rasterises_under_200_kb_at_the_end_of_every_kind_of_game(players):
    scenarios = ["none", *rules.SCENARIOS] if players > 2 else ["none"]
    for n, scenario in enumerate(scenarios):
        opts = {"scoring": "AB"[n % 2], "staircase": True, "scenario": scenario}
        t = play_with_standins(GAME, players, range(players), opts, seed=n)
        png = bytes(resvg_py.svg_to_bytes(svg_string=GAME.render_svg(GAME.view(t.state, 0))))
        assert len(png) < 200_000, (scenario, len(png))  # resvg's RGBA PNG; the notice's is a palette PNG


def test_the_pictures_text_and_colours_are_drawn():
    t = table(2)
    given(t, 0, "place bridge a1 east level 0")
    png = bytes(resvg_py.svg_to_bytes(svg_string=GAME.render_svg(GAME.view(t.state, 1))))
    width, rows = png_rows(png, 64)
    assert width == 600
    dark = sum(1 for row in rows[8:32] for i in range(0, len(row), 4) if max(row[i : i + 3]) < 90)
    assert dark > 400  # the title's letters: a missing font would leave the band white
    red = bytes.fromhex(view.FILL["red"][1:])
    k = 600 / view.PICTURE_UNITS  # the phone layout's units drawn 600 px wide
    x, y = round(13 * k), round(35 * k)  # the middle of the red player's colour square before the scores
    assert rows[y][x * 4 : x * 4 + 3] == red


@pytest.mark.parametrize("players", [2, 3, 4])
def test_every_seats_picture_is_the_same_drawing_so_it_is_drawn_once(players):
    """render_svg.picture_ignores says the picture does not read the view's seat (the sender then
    finds one picture for every seat of a version): every seat's and a spectator's view, and the
    view with its seat changed or left out, draw the same SVG, all through random games."""
    assert view.render_svg.picture_ignores == ("seat",)
    for v in views_of_bot_games(players, every=7):
        svg = GAME.render_svg(v)
        for seat in [None, *range(players), players + 3]:
            assert GAME.render_svg({**v, "seat": seat}) == svg
        assert GAME.render_svg({key: value for key, value in v.items() if key != "seat"}) == svg
