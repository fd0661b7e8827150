"""The seat page's move chooser, by steps and without JavaScript: plain links and buttons.

Built on pbem.play.choosing's menu (the same groups, labels and targets as the codes in a turn
notice). A short menu is shown whole. A longer one in steps: first what (the groups: a piece,
an action; the suggested moves beside them), then where or how (the group's moves, as buttons),
or the moves at one place on the board (a drawing's targets are links to that step), or the
moves matching a filter typed into a search box (a GET form). Each move is a submit button
sending the command as typed (`describe`), so the write path judges it as any other line.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import urlencode

from pbem.play.choosing import Menu

SHOW_ALL_UP_TO = 12  # a menu this short is one step
SUGGESTED = 6  # featured moves offered at the first step
PAGE = 60  # at most this many buttons in one step; a filter narrows the rest


@dataclass(frozen=True)
class Option:
    line: str  # the command as typed: what the button sends
    label: str
    note: str = ""
    group: str = ""


@dataclass
class Step:
    title: str = ""
    options: list[Option] = field(default_factory=list)
    groups: list[dict] = field(default_factory=list)  # {"name", "count", "url"}
    suggested: list[Option] = field(default_factory=list)
    more: int = 0  # moves of this step after the ones shown
    next_url: str = ""  # the step's next page of moves
    prev_url: str = ""
    query: str = ""
    group: str = ""
    pick: str = ""
    back_url: str = ""
    searchable: bool = False
    total: int = 0
    problem: str = ""


def _url(base: str, **params) -> str:
    params = {k: v for k, v in params.items() if v}
    return f"{base}?{urlencode(params)}#move-form" if params else f"{base}#move-form"


def board_links(menu: Menu, base: str) -> dict[str, str]:
    """A link for each place on the board where a move can be made: to the step with its moves."""
    targets = []
    for group in menu.groups:
        for choice in group.choices:
            if choice.target and choice.target not in targets:
                targets.append(choice.target)
    return {target: _url(base, pick=target) for target in targets}


def _options(menu: Menu, choices, whole: bool = False) -> list[Option]:
    """Buttons for `choices`; `whole`: shown outside their group (the suggested moves), so each
    says the whole move, its group and its label ("Move to Beata by road: with elfcycle")."""
    out = [Option(menu.line(c), f"{c.group}: {c.label}" if whole else c.label, c.note, "") for c in choices]
    seen: dict[str, int] = {}
    for option in out:
        seen[option.label] = seen.get(option.label, 0) + 1
    # Two buttons with the same label would look alike: then the command itself tells them apart.
    return [o if seen[o.label] == 1 else Option(o.line, o.line, o.note) for o in out]


def _matches(query: str, menu: Menu, choice, group: str) -> bool:
    haystack = f"{group} {choice.label} {menu.line(choice)} {choice.note}".casefold()
    return all(word in haystack for word in query.casefold().split())


def step(menu: Menu, base: str, group: str = "", pick: str = "", query: str = "", page: int = 1) -> Step:
    """The chooser's step for the page's query (?group=…, ?pick=…, ?q=…, and ?page=… of them)."""
    everything = [(g.name, c) for g in menu.groups for c in g.choices]
    shown = Step(total=len(everything), searchable=len(everything) > SHOW_ALL_UP_TO, query=query.strip()[:100])
    if not everything:
        return shown
    if shown.query:
        found = [c for name, c in everything if _matches(shown.query, menu, c, name)]
        shown.title, shown.back_url = f"Moves matching “{shown.query}”", _url(base)
        if not found:
            shown.problem = f"No move matches “{shown.query}”."
        return _page(shown, _options(menu, found), base, page, q=shown.query)
    if pick:
        found = [c for _, c in everything if c.target == pick]
        shown.pick, shown.back_url = pick, _url(base)
        if not found:
            shown.problem = "Nothing can be done at that place now; choose another."
            return _first_step(shown, menu, base)
        shown.title = "Moves at the place you chose"
        return _page(shown, _options(menu, found), base, page, pick=pick)
    if group:
        chosen = menu.group(group)
        if chosen is None:
            shown.problem = f"There is no “{group[:60]}” among your moves now; choose again."
            return _first_step(shown, menu, base)
        shown.group, shown.title, shown.back_url = chosen.name, chosen.name, _url(base)
        return _page(shown, _options(menu, chosen.choices), base, page, group=chosen.name)
    if len(everything) <= SHOW_ALL_UP_TO:
        return _page(shown, _options(menu, [c for _, c in everything]), base, 1)
    return _first_step(shown, menu, base)


def _first_step(shown: Step, menu: Menu, base: str) -> Step:
    shown.groups = [{"name": g.name, "count": len(g.choices), "url": _url(base, group=g.name)} for g in menu.groups]
    shown.suggested = _options(menu, menu.featured[:SUGGESTED], whole=True)
    return shown


def _page(shown: Step, options: list[Option], base: str, page: int, **where) -> Step:
    pages = max(1, -(-len(options) // PAGE))
    page = min(max(page, 1), pages)
    shown.options = options[(page - 1) * PAGE : page * PAGE]
    shown.more = max(0, len(options) - page * PAGE)
    if page < pages:
        shown.next_url = _url(base, **where, page=str(page + 1))
    if page > 1:
        shown.prev_url = _url(base, **where, page=str(page - 1) if page > 2 else "")
    return shown
