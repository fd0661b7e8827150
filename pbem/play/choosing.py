"""Choosing a move: one menu per seat and version, from the game's own chooser
(`GameSpec.choices_for`), shared by the codes in a turn notice and the web form's chooser.

The featured choices are numbered from 1 in the order the game gives them: a code in a notice
means the featured choice of that number *at the version the notice was mailed at*, so a reply
to an older notice is translated against that version's menu (and the write path then judges
whether it still stands). The other choices stay reachable by group (the web form's two steps)
and by typing the command.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from games.base import Choice


@dataclass(frozen=True)
class Group:
    name: str
    choices: tuple[Choice, ...]
    example: str  # a command of the group as typed, for "other placements: type `place …`"

    @property
    def unfeatured(self) -> int:
        return sum(not c.featured for c in self.choices)


@dataclass(frozen=True)
class Menu:
    featured: tuple[Choice, ...]  # code N is featured[N - 1]
    groups: tuple[Group, ...]  # every choice, by group, in the game's order
    describe: Callable[[dict], str]  # the game's describe(command)

    @property
    def empty(self) -> bool:
        return not self.groups

    def line(self, choice: Choice) -> str:
        """The command as typed, the way a code stands for it."""
        return self.describe(choice.command)

    def codes(self) -> list[tuple[int, Choice]]:
        return list(enumerate(self.featured, start=1))

    def by_code(self, code: int) -> Choice | None:
        return self.featured[code - 1] if 1 <= code <= len(self.featured) else None

    def group(self, name: str) -> Group | None:
        return next((g for g in self.groups if g.name == name), None)


def menu(spec, game_state, seat: int) -> Menu:
    """The seat's menu now ([] when it may not act)."""
    choices = spec.choices_for(game_state, seat) if game_state is not None else []
    groups: dict[str, list[Choice]] = {}
    for choice in choices:
        groups.setdefault(choice.group, []).append(choice)
    built = tuple(
        Group(name, tuple(items), spec.describe(next((c for c in items if not c.featured), items[0]).command))
        for name, items in groups.items()
    )
    return Menu(tuple(c for c in choices if c.featured), built, spec.describe)
