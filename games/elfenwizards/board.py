"""The board of Elfenwizards, read from data/board.json (a documented proposal, see RULINGS.md)."""

from __future__ import annotations

import json
from pathlib import Path

DATA = json.loads((Path(__file__).parent / "data" / "board.json").read_text())

LEVELS = [lv["id"] for lv in DATA["levels"]]  # top to bottom
LEVEL = {lv["id"]: lv for lv in DATA["levels"]}
TOP = LEVELS[0]  # grand_druid
BOTTOM = LEVELS[-1]  # wizard (unlimited spaces, no rout)
LEVEL_NAME = {lv["id"]: lv["name"] for lv in DATA["levels"]}
POINTS = {lv["id"]: lv["points_per_turn"] for lv in DATA["levels"]}
ROUT_OF = {lv["id"]: lv["rout_space"] for lv in DATA["levels"] if lv["rout_space"]}
GRAY_ON_DEMOTION = {lv["id"]: lv["demotion_from_this_level_gives_gray_magic"] for lv in DATA["levels"]}

SPACE_LEVEL: dict[str, str] = {}
for _sp in DATA["spaces"]:
    if _sp["kind"] in ("title", "wizard", "rout"):
        SPACE_LEVEL[_sp["id"]] = _sp["level"]

TITLE_SPACES = list(DATA["award_order"])  # GD, D1, D2, S1 .. N8: top to bottom, left to right
TITLES_BY_LEVEL = {lv: [s for s in TITLE_SPACES if SPACE_LEVEL[s] == lv] for lv in LEVELS}
WIZARD_SPACES = [sp["id"] for sp in DATA["spaces"] if sp["kind"] == "wizard"]
ROUT_SPACES = [ROUT_OF[lv] for lv in LEVELS if lv in ROUT_OF]  # druid, sorcerer, necromancer
ROUT_LEVEL = {ROUT_OF[lv]: lv for lv in ROUT_OF}
MAJOR_LEVELS = [sp["level"] for sp in DATA["spaces"] if sp["kind"] == "major_spells"]
GD = TITLES_BY_LEVEL[TOP][0]

_first = {c["titles"][0]: c for c in DATA["contests"]}
CONTESTS = [
    {"titles": list(_first[t]["titles"]), "from": list(_first[t]["candidates_from"])}
    for t in TITLE_SPACES
    if t in _first
]
CONTEST_OF_SPACE = {}  # candidate space -> index into CONTESTS
for _i, _c in enumerate(CONTESTS):
    for _s in _c["from"]:
        CONTEST_OF_SPACE[_s] = _i

COLOURS = ("red", "green", "blue", "yellow", "black")
# The placement table has versions (RULINGS.md, "Data version 2" and "Data version 3"): a new
# game is set up with the current one and records its number in GameStarted; the positions
# themselves are in that event, so an old game replays from its log whatever the table says now.
DATA_VERSION = DATA["data_version"]
PLACEMENT = DATA["placement_table"]


def placement(players: int, version: int = DATA_VERSION) -> dict:
    """The placement table's row for `players` in data version `version`. `data_versions` keeps,
    under each older version, the rows the next version changed: the first of versions `version`,
    `version` + 1, ... that has the row gives it, else the current table does."""
    for older in range(version, DATA_VERSION):
        rows = DATA["data_versions"].get(str(older), {}).get("placement_table", {})
        if str(players) in rows:
            return rows[str(players)]
    return PLACEMENT[str(players)]


COMPONENTS = DATA["sourced_facts"]["components"]
DICE_PER_PLAYER = COMPONENTS["dice_per_colour"]
MINOR_PER_PLAYER = COMPONENTS["minor_spells_per_colour"]
GRAY_TOKENS = COMPONENTS["gray_magic_tokens"]
TURNS = COMPONENTS["turns_max"]

# Names a player may type for the six spaces where dice are placed.
DIE_SPACES = [*MAJOR_LEVELS, "minor", "gray"]
