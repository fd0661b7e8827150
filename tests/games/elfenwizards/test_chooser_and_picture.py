"""The chooser (the mail's codes and the web's steps), the picture of the board (render_svg and the
web board drawn from it) and the text board's 80 columns."""

from __future__ import annotations

import json
import re

import pytest
import resvg_py

from games.base import MAX_FEATURED
from games.elfenwizards import GAME
from games.testing import canonical, play_random, play_with_standins

from .helpers import GREEN, RED, stage

# resvg's own RGBA PNG of the picture drawn 600 px wide (a portrait for a phone since issue 27):
# the notice carries a palette PNG made to fit its budget (pbem.mail.pictures), a fraction of it.
PNG_LIMIT = 200_000


def positions(players, seed, every=5, standins=False):
    """(state, seat) every `every` events of a game, for each awaited seat."""
    found = []

    def keep(table):
        if len(table.events) % every == 0:
            for seat in GAME.waiting_for(table.state):
                found.append((json.loads(canonical(table.state)), seat))

    if standins:
        play_with_standins(GAME, players, standins=range(players), seed=seed, check=keep)
    else:
        play_random(GAME, players, seed=seed, check=keep)
    return found


# --- the chooser -------------------------------------------------------------------------------


@pytest.mark.parametrize("players", (3, 5))
def test_every_choice_is_a_legal_command_that_reads_back_from_its_description(players):
    for state, seat in positions(players, seed=7, every=3):
        offered = GAME.choices(state, seat)
        legal = GAME.legal(state, seat)
        assert sorted(canonical(c.command) for c in offered) == sorted(canonical(c) for c in legal)
        assert 1 <= sum(c.featured for c in offered) <= MAX_FEATURED
        for choice in offered:
            assert choice.group and choice.label
            assert GAME.parse(GAME.describe(choice.command), state, seat) == choice.command


@pytest.mark.parametrize("players", (3, 5))
def test_the_stand_ins_move_is_always_among_the_featured_codes(players):
    for state, seat in positions(players, seed=11, every=2, standins=True):
        featured = [c.command for c in GAME.choices(state, seat) if c.featured]
        assert GAME.standin(GAME.view(state, seat), GAME.legal(state, seat)) in featured, state["phase"]


def test_the_winning_spell_comes_first_in_the_competition():
    t = stage("compete", dragon=RED, major={"druid": [[RED, 6]]})
    offered = GAME.choices(t.state, RED)
    assert offered[0].command == {"type": "cast", "spell": 6, "wizard": "red1"}
    assert offered[0].target == "wizard-red1" and "now" in offered[0].note
    assert any(c.command == {"type": "pass"} and c.featured for c in offered)
    # a spell for a rival's candidate stays reachable, not numbered first
    assert [c.command for c in offered].index({"type": "cast", "spell": 6, "wizard": "green1"}) > 0


def test_a_die_is_featured_on_its_best_spaces_and_every_space_stays_reachable():
    t = stage("cast1", dragon=RED, rolled=[6, 1], layout={"red4": "W1"})  # red's Druid has most at stake
    offered = GAME.choices(t.state, RED)
    sixes = [c for c in offered if c.command.get("die") == 6]
    assert len(sixes) == 6 and sixes[0].command["space"] == "druid" and sixes[0].featured
    assert sum(c.featured for c in sixes) <= 2 and {c.group for c in sixes} == {"Place a 6"}
    assert any(c.command == {"type": "done"} and c.featured for c in offered)
    assert offered[0].command == {"type": "place", "die": 6, "space": "druid"}  # the stand-in's move first
    low = GAME.choices(stage("cast1", dragon=RED, rolled=[2, 1]).state, RED)
    assert low[0].command == {"type": "done"}  # low dice: keep them for phase 3


# --- the picture -------------------------------------------------------------------------------


@pytest.mark.parametrize("players", (3, 5))
def test_the_picture_is_a_standalone_svg_with_a_viewbox_readable_text_and_a_small_png(players):
    found = positions(players, seed=3, every=40)
    for state, seat in found:
        svg = GAME.render_svg(GAME.view(state, seat))
        assert svg.startswith('<svg xmlns="http://www.w3.org/2000/svg"') and svg.endswith("</svg>")
        assert svg.count("<svg") == 1
        width, height = (int(n) for n in re.search(r' width="(\d+)" height="(\d+)"', svg).groups())
        box_w, box_h = (int(n) for n in re.search(r'viewBox="0 0 (\d+) (\d+)"', svg).groups())
        # The phone drawing (358 units) drawn 600 px wide, its proportions kept.
        assert (box_w, width) == (358, 600) and abs(height - box_h * width / box_w) <= 1
        assert set(re.findall(r'font-family="([^"]+)"', svg)) == {"DejaVu Sans, sans-serif"}
        sizes = [int(s) for s in re.findall(r'font-size="(\d+)"', svg)]
        assert sizes and min(sizes) >= 11  # 11 px or more when a phone shows it 360 px wide
        png = bytes(resvg_py.svg_to_bytes(svg_string=svg))
        assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) < PNG_LIMIT


def test_the_picture_shows_every_wizard_with_its_gray_magic_and_the_points_cast_for_it():
    t = stage("compete", dragon=RED, major={"druid": [[RED, 6]]}, gray={"green3": 2})
    t.act(RED, {"type": "cast", "spell": 6, "wizard": "red1"})
    svg = GAME.render_svg(GAME.view(t.state, GREEN))
    for name in t.state["names"]:
        assert f'id="wizard-{name}"' in svg and f">{name}<" in svg
    token = svg[svg.index('id="wizard-green3"') :]
    assert "gray 2" in token[: token.index("</g>")]
    mine = svg[svg.index('id="wizard-red1"') :]
    assert "6 pts" in mine[: mine.index("</g>")]
    assert "You are green" in svg


def test_the_picture_of_a_seat_shows_nothing_a_spectator_does_not_see():
    """Everything in Elfenwizards is public: a seat's picture is the spectator's plus the line
    naming the reader's colour."""
    for state, seat in positions(4, seed=5, every=30):
        mine = GAME.render_svg(GAME.view(state, seat))
        public = GAME.render_svg(GAME.view(state, None))
        assert re.sub(r'<text [^>]*class="you"[^>]*>[^<]*</text>', "", mine) == public


def test_the_web_board_links_the_chooser_targets():
    t = stage("compete", dragon=RED, major={"druid": [[RED, 6]]})
    targets = {c.target for c in GAME.choices(t.state, RED) if c.target}
    links = {target: f"/move/{i}" for i, target in enumerate(sorted(targets))}
    page = GAME.render_html(GAME.view(t.state, RED), links)
    assert page.startswith('<div class="elfenwizards">') and "<script" not in page
    for target, url in links.items():
        assert re.search(rf'<a href="{url}"[^>]*>(<title>[^<]*</title>)?<g id="{target}">', page), target
    assert "<a " not in GAME.render_html(GAME.view(t.state, RED))


def test_on_a_phone_the_page_shows_a_358_px_drawing_with_no_text_under_10_px():
    for state, seat in positions(5, seed=8, every=60):
        page = GAME.render_html(GAME.view(state, seat))
        phone = page[page.index('<svg class="ew-phone"') :]
        assert 'viewBox="0 0 358 ' in phone and 'width="358"' in phone and "@media (max-width:" in page
        sizes = [int(x) for x in re.findall(r'font-size="(\d+)"', phone)]
        assert sizes and min(sizes) >= 10
        for name in state["names"]:  # every wizard in both drawings, ids unique in the page
            assert page.count(f'id="wizard-{name}"') == 1 and page.count(f'id="wizard-{name}-phone"') == 1


# --- the text board ------------------------------------------------------------------------------


@pytest.mark.parametrize("players", (3, 4, 5))
def test_the_text_board_fits_80_columns_and_loses_nothing(players):
    for state, seat in positions(players, seed=13, every=4):
        v = GAME.view(state, seat)
        text = GAME.render_text(v)
        assert max(len(line) for line in text.splitlines()) <= 80
        for name in state["names"]:
            assert re.search(rf"\b{name}\b", text), f"{name} is missing from the text board"
        assert v["phase_title"].split()[-1] in text


def test_narration_lines_fit_80_columns():
    t = play_random(GAME, 5, seed=2)
    names = ["Alexandra", "Bartholomew", "Cornelia", "Dorothea", "Evangeline"]
    for event in t.events:
        assert max(len(line) for line in GAME.narrate(event, names).splitlines()) <= 80
