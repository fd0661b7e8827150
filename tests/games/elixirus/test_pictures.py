"""The pictures: the mail's standalone SVG (rasterised with resvg), the web page's fragment with
links on the board, and how it reads at phone and desktop width in Chromium."""

from __future__ import annotations

import io
import json
import os
import re
import zlib
from pathlib import Path

import pytest

from games.elixirus import GAME
from games.elixirus.picture import FONT
from games.testing import Table, canonical

ROOT = Path(__file__).resolve().parents[3]
ARTIFACTS = ROOT / "test-artifacts" / "elixirus"
CHROMIUM = "/usr/bin/chromium"


def positions(players, seed=1):
    """(name, state, seat) at one moment of every kind in a stand-in game: each stage and effect
    step for the seat awaited, and the end."""
    t = Table(GAME, players, seed=f"pictures-{seed}".encode())
    found = {}
    while GAME.waiting_for(t.state):
        seat = GAME.waiting_for(t.state)[0]
        s = t.state
        name = s["phase"] if s["phase"] != "collect" else f"collect-{s['step']}"
        if s["phase"] == "brew" and s["drafts"][seat]["moves"]:
            name = "brew-under-way"
        if name not in found or found[name][0]["round"] == 1 and s["round"] >= 2:
            found[name] = (json.loads(canonical(s)), seat)  # the first of its kind, from round 2 if any
        t.act(seat, GAME.standin(GAME.view(s, seat), GAME.legal(s, seat)))
    found["over"] = (t.state, 0)
    return [(name, state, seat) for name, (state, seat) in found.items()]


ALL = [(players, *p) for players in (2, 3, 4, 5) for p in positions(players)]


def png_pixels(png: bytes):
    """(width, height, rows of RGBA bytes) of a PNG as resvg writes it (8-bit RGBA, no interlace)."""
    data = io.BytesIO(png)
    assert data.read(8) == b"\x89PNG\r\n\x1a\n"
    idat = b""
    while True:
        length = int.from_bytes(data.read(4), "big")
        kind = data.read(4)
        chunk = data.read(length)
        data.read(4)
        if kind == b"IHDR":
            width, height = int.from_bytes(chunk[:4], "big"), int.from_bytes(chunk[4:8], "big")
            assert chunk[8] == 8 and chunk[9] == 6, "8-bit RGBA expected"
        elif kind == b"IDAT":
            idat += chunk
        elif kind == b"IEND":
            break
    raw = zlib.decompress(idat)
    stride = width * 4
    rows, prev, i = [], bytearray(stride), 0
    for _ in range(height):
        kind, line = raw[i], bytearray(raw[i + 1 : i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            left = line[x - 4] if x >= 4 else 0
            up = prev[x]
            corner = prev[x - 4] if x >= 4 else 0
            if kind == 1:
                line[x] = (line[x] + left) & 255
            elif kind == 2:
                line[x] = (line[x] + up) & 255
            elif kind == 3:
                line[x] = (line[x] + (left + up) // 2) & 255
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                line[x] = (line[x] + (left if pa <= pb and pa <= pc else up if pb <= pc else corner)) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, rows


@pytest.mark.parametrize("players,name,state,seat", ALL, ids=[f"{p}p-{n}" for p, n, _, _ in ALL])
def test_the_mail_picture_is_one_svg_in_dejavu_sans_and_rasterises_under_250_kb(players, name, state, seat):
    resvg = pytest.importorskip("resvg_py")
    svg = GAME.render_svg(GAME.view(state, seat))
    assert svg.startswith("<svg") and svg.endswith("</svg>") and svg.count("<svg") == 1
    assert 'xmlns="http://www.w3.org/2000/svg"' in svg
    assert re.match(r'<svg [^>]*width="\d+" height="\d+"', svg)
    assert set(re.findall(r'font-family="([^"]*)"', svg)) == {"DejaVu Sans, sans-serif"} == {FONT.split('"')[1]}
    assert "<a " not in svg and "<style" not in svg and "<image" not in svg
    png = bytes(resvg.svg_to_bytes(svg_string=svg))
    assert len(png) < 250_000, f"{len(png)} bytes"  # resvg's RGBA PNG; the notice's is a palette PNG
    width, height, rows = png_pixels(png)
    assert width >= 600
    # Ink, not a blank page: dark text pixels and the forest's green panel are there.
    dark = sum(1 for row in rows[::4] for x in range(0, len(row), 16) if row[x] < 80 and row[x + 1] < 80)
    green = sum(1 for row in rows[::4] for x in range(0, len(row), 16) if row[x : x + 3] == bytes((0xEE, 0xF6, 0xE8)))
    assert dark > 100 and green > 500
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / f"mail-{players}p-{name}.png").write_bytes(png)


def _links(state, seat):
    return {c.target: f"/play/{i}" for i, c in enumerate(GAME.choices(state, seat)) if c.target}


@pytest.mark.parametrize("players,name,state,seat", ALL, ids=[f"{p}p-{n}" for p, n, _, _ in ALL])
def test_every_board_target_of_a_choice_is_drawn_and_linked_with_a_touch_sized_named_hit_area(
    players, name, state, seat
):
    links = _links(state, seat)
    html = GAME.render_html(GAME.view(state, seat), links)
    for target, url in links.items():
        found = re.search(
            rf'<a id="{re.escape(target)}" href="{re.escape(url)}" aria-label="([^"]+)">'
            r'<title>[^<]+</title><rect class="hit" x="[-\d.]+" y="[-\d.]+" width="([\d.]+)" '
            r'height="([\d.]+)"',
            html,
        )
        assert found, f"{target} is not linked"
        assert float(found.group(2)) >= 40 and float(found.group(3)) >= 40, target
    plain = GAME.render_html(GAME.view(state, seat))
    assert "<a " not in plain and "<script" not in plain
    assert all(f'id="{t}"' in plain for t in links), "a target has no element without links either"
    assert len(re.findall(r' id="([^"]+)"', plain)) == len(set(re.findall(r' id="([^"]+)"', plain))), "ids repeat"


def test_the_web_fragment_is_panels_that_wrap_one_column_on_a_phone():
    _, state, seat = positions(5)[0]
    html = GAME.render_html(GAME.view(state, seat))
    assert html.startswith('<div class="elixirus"><style>')
    assert html.count("<svg") == 1 + 5  # the forest and five tables
    assert ".elixirus>svg{flex:1 1 300px;max-width:440px;min-width:0;height:auto}" in html


# ---------------------------------------------------------------------------------------------
# In Chromium: phone and desktop
# ---------------------------------------------------------------------------------------------

PAGE = """<!doctype html><html><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{{margin:16px;font-family:sans-serif}} .board{{width:{width}px;max-width:100%;overflow-x:auto;
border:1px solid #ddd;padding:0}} .board svg{{max-width:100%;height:auto}}</style></head>
<body><section class="board">{fragment}</section></body></html>"""

MEASURE = """() => {
  const board = document.querySelector('.board');
  const sizes = [...board.querySelectorAll('text')].map(t => {
    const m = t.getScreenCTM();
    return parseFloat(getComputedStyle(t).fontSize) * Math.hypot(m.a, m.b);
  });
  const hits = [...board.querySelectorAll('a > rect.hit')].map(r => {
    const b = r.getBoundingClientRect(); return [r.parentNode.id, b.width, b.height];
  });
  return {sizes, hits, boardWidth: board.getBoundingClientRect().width,
          scroll: document.documentElement.scrollWidth, inner: window.innerWidth};
}"""


@pytest.mark.browser
@pytest.mark.skipif(not os.path.exists(CHROMIUM), reason=f"{CHROMIUM} is missing (apt-get install -y chromium)")
def test_the_board_reads_at_phone_width_and_on_a_desktop():
    sync_api = pytest.importorskip("playwright.sync_api", reason="the playwright package is not installed")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    cases = [(p, n, s, seat) for p, n, s, seat in ALL if n in ("place", "collect-take", "brew-under-way", "over")]
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=CHROMIUM,
            args=["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
        )
        try:
            for viewport, width in (((390, 844), 358), ((1280, 800), 1200)):
                page = browser.new_page(viewport={"width": viewport[0], "height": viewport[1]})
                for players, name, state, seat in cases:
                    fragment = GAME.render_html(GAME.view(state, seat), _links(state, seat))
                    page.set_content(PAGE.format(width=width, fragment=fragment))
                    m = page.evaluate(MEASURE)
                    where = f"{players}p {name} at {viewport[0]} px"
                    assert m["scroll"] <= m["inner"], f"{where}: the page scrolls sideways"
                    big = sum(1 for s in m["sizes"] if s >= 9 - 1e-6)
                    assert big >= 0.9 * len(m["sizes"]), f"{where}: {big} of {len(m['sizes'])} texts at 9 px or more"
                    if viewport[0] == 390:
                        assert min(m["sizes"]) >= 9, where
                        small = [h for h in m["hits"] if h[1] < 44 or h[2] < 44]
                        assert not small, f"{where}: hit areas under 44 px: {small[:3]}"
                    page.screenshot(path=str(ARTIFACTS / f"board-{viewport[0]}-{players}p-{name}.png"), full_page=True)
                # Keyboard: the first Tab lands on a link of the board (a space to place on), with a name.
                players, name, state, seat = next(c for c in cases if c[1] == "place")
                page.set_content(
                    PAGE.format(width=width, fragment=GAME.render_html(GAME.view(state, seat), _links(state, seat)))
                )
                page.keyboard.press("Tab")
                focused = page.evaluate(
                    "() => [document.activeElement.tagName, document.activeElement.getAttribute('aria-label')]"
                )
                assert focused[0].lower() == "a" and "space 1" in focused[1], focused
                page.close()
        finally:
            browser.close()
