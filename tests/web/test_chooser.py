"""The seat page's chooser by steps (pbem/web/chooser.py) and the board's phone layout
(pbem/web/board.py), on real games' menus."""

from __future__ import annotations

import pytest

from games.base import Rng
from pbem.play import choosing
from pbem.registry import all_games, get_game
from pbem.web import board, chooser

BASE = "/play/TOKEN/"


def menu_of(kind, players=3):
    spec = get_game(kind)
    state = None
    for event in spec.setup(players, spec.resolve_options(players, {}), Rng(b"s" * 32, 1)):
        state = spec.evolve(state, event)
    seat = spec.waiting_for(state)[0]
    return spec, state, seat, choosing.menu(spec, state, seat)


def lines(options):
    return [o.line for o in options]


def test_a_short_menu_is_one_step_with_every_move():
    spec, state, seat, menu = menu_of("zauberschwert")
    step = chooser.step(menu, BASE)
    assert sorted(lines(step.options)) == sorted(spec.describe(c) for c in spec.legal(state, seat))
    assert not step.groups and not step.searchable


def test_a_long_menu_asks_what_first_then_where():
    spec, state, seat, menu = menu_of("elven_castle")
    first = chooser.step(menu, BASE)
    assert not first.options and len(first.suggested) <= chooser.SUGGESTED
    assert [g["name"] for g in first.groups] == [g.name for g in menu.groups]
    assert first.groups[0]["url"] == f"{BASE}?group={first.groups[0]['name']}#move-form"
    bridges = chooser.step(menu, BASE, group="Bridge")
    assert bridges.title == "Bridge" and len(bridges.options) == chooser.PAGE
    assert set(lines(bridges.options)) <= {menu.line(c) for c in menu.group("Bridge").choices}


def test_a_long_step_goes_on_page_by_page_to_its_last_move():
    spec, state, seat, menu = menu_of("elven_castle")
    wanted = [menu.line(c) for c in menu.group("Balcony").choices]
    seen, page = [], 1
    while True:
        step = chooser.step(menu, BASE, group="Balcony", page=page)
        seen += lines(step.options)
        if not step.next_url:
            break
        assert f"page={page + 1}" in step.next_url
        page += 1
    assert seen == wanted and step.more == 0 and step.prev_url


def test_a_place_on_the_board_leads_to_the_moves_made_there():
    spec, state, seat, menu = menu_of("elven_castle")
    links = chooser.board_links(menu, BASE)
    assert links["ec-a1"] == f"{BASE}?pick=ec-a1#move-form"
    step = chooser.step(menu, BASE, pick="ec-a1")
    assert lines(step.options) == [menu.line(c) for g in menu.groups for c in g.choices if c.target == "ec-a1"][:60]
    assert step.back_url == f"{BASE}#move-form"


def test_the_filter_keeps_the_moves_with_every_word():
    spec, state, seat, menu = menu_of("elven_castle")
    step = chooser.step(menu, BASE, query="window a1 east")
    assert step.options and all("window a1 east" in o.line for o in step.options)
    assert chooser.step(menu, BASE, query="nonsense words").problem == "No move matches “nonsense words”."


def test_an_unknown_group_or_place_says_so_and_offers_the_first_step():
    spec, state, seat, menu = menu_of("elven_castle")
    lost = chooser.step(menu, BASE, group="Tower")
    assert lost.problem.startswith("There is no “Tower” among your moves now") and lost.groups
    nowhere = chooser.step(menu, BASE, pick="ec-z99")
    assert nowhere.problem.startswith("Nothing can be done at that place") and nowhere.groups


def test_moves_with_the_same_label_show_their_commands():
    spec, state, seat, menu = menu_of("elven_castle")
    step = chooser.step(menu, BASE, pick="ec-a1")
    labels = [o.label for o in step.options]
    assert len(labels) == len(set(labels))


def test_a_drawing_too_small_for_a_phone_gets_a_legible_minimum_width():
    markup = (
        '<div><svg viewBox="0 0 860 300" width="100%" style="max-width:860px"><g font-size="10">'
        "<text>a</text><text>b</text></g></svg></div>"
    )
    out = board.phone_layout(markup)
    assert 'style="min-width:775px;max-width:860px"' in out  # 860 * 9 / 10, rounded up
    assert out.count("style=") == 1


def test_a_legible_drawing_is_left_to_scale():
    markup = '<svg viewBox="0 0 300 100"><text font-size="12">x</text></svg>'
    assert board.legible_width(300, [12]) == 226  # never more than a phone's width: it just scales
    assert "min-width:226px" in board.phone_layout(markup)


def test_markup_without_a_drawing_is_unchanged():
    assert board.phone_layout("<p>no board</p>") == "<p>no board</p>"


@pytest.mark.django_db
@pytest.mark.parametrize("kind", sorted(all_games()))
def test_the_places_on_the_board_are_links_to_their_moves(client, kind, settings):
    """Where a game draws the places its moves are made at (Choice.target) and takes links,
    each such place on the seat page's board leads to the step with the moves made there."""
    import html
    import inspect
    import re

    from pbem.log import eventlog
    from pbem.models import Seat
    from pbem.play import addressing, services

    settings.PBEM_NOTICE_DISPATCH = "none"
    spec = get_game(kind)
    players = [services.PlayerSpec(n, f"{n.lower()}@example.org") for n in ["Ann", "Ben", "Cid"]]
    game = services.create_game(kind, players[: max(spec.min_players, 2)], {})
    game.refresh_from_db()
    seat = game.awaited[0]
    token = addressing.token_for(Seat.objects.get(game=game, number=seat))
    state = eventlog.load(game).state["game"]
    targets = {c.target for c in spec.choices_for(state, seat) if c.target}
    page = client.get(f"/play/{token}/").content.decode()
    board = page[page.index('<section class="board"') : page.index("</section>", page.index('<section class="board"'))]
    linked = {html.unescape(t) for t in re.findall(r'href="/play/[^"?]+/\?pick=([^"#&]+)#move-form"', board)}
    if not targets or "links" not in inspect.signature(spec.render_html).parameters:
        assert not linked
        return
    assert linked and linked <= targets
    for target in sorted(linked)[:3]:
        step = client.get(f"/play/{token}/", {"pick": target}).content.decode()
        wanted = {choosing.menu(spec, state, seat).line(c) for c in spec.choices_for(state, seat) if c.target == target}
        shown = {html.unescape(v) for v in re.findall(r'name="choice" value="([^"]*)"', step)}
        assert shown and shown <= wanted


@pytest.mark.parametrize("kind", sorted(all_games()))
def test_a_suggested_move_says_the_whole_move_not_only_its_label_within_its_group(kind):
    """Issue 27: Elfenland's suggested 'with elfcycle' submitted `move to Beata by road with
    elfcycle`; shown outside its group, a button names the group too."""
    spec, state, seat, menu = menu_of(kind, max(3, spec_min(kind)) if kind != "diceduel" else 2)
    step = chooser.step(menu, BASE)
    featured = {menu.line(c): c for c in menu.featured}
    for option in step.suggested:
        choice = featured[option.line]
        assert option.label.startswith(f"{choice.group}: ") and choice.label in option.label


def spec_min(kind):
    return get_game(kind).min_players
