"""The Elfenland map and components, read once from data/elfenland_map.json.

Everything here is static: towns, routes, the travel chart, component counts and the
all-pairs shortest-route distances used by the Home Cities variant (computed once at import,
so a distance is a dictionary look-up).
"""

from __future__ import annotations

import json
from collections import deque
from pathlib import Path

from .lang import N_, _

DATA = json.loads((Path(__file__).parent / "data" / "elfenland_map.json").read_text())

START = DATA["start_town"]
TOWNS: dict[str, dict] = {t["id"]: t for t in DATA["towns"]}
TOWN_IDS: list[str] = [t["id"] for t in DATA["towns"]]
PIECE_TOWNS: list[str] = [t["id"] for t in DATA["towns"] if t["has_town_pieces"]]
ROUTES: dict[str, dict] = {r["id"]: r for r in DATA["routes"]}
ROUTE_IDS: list[str] = [r["id"] for r in DATA["routes"]]
LAND = ("road", "forest", "desert", "mountain")
WATER = ("river", "lake")
LAND_ROUTES: list[str] = [r for r in ROUTE_IDS if ROUTES[r]["type"] in LAND]

COMPONENTS = DATA["components"]
CARD_COUNTS: dict[str, int] = {k: v for k, v in COMPONENTS["travel_cards"].items() if k != "total"}
CARD_TYPES: list[str] = sorted(CARD_COUNTS)
COUNTER_COUNTS: dict[str, int] = {
    k: v for k, v in COMPONENTS["transportation_counters"].items() if isinstance(v, int) and k != "total" and v > 0
}
COUNTER_TYPES: list[str] = sorted(COUNTER_COUNTS)
COSTS: dict[str, dict] = COMPONENTS["travel_costs"]
TOWN_CARDS: list[str] = list(COMPONENTS["town_cards"]["towns"])
HAND_SIZE = 8  # "deals 8 to each player", "bring them up to 8 cards"
HAND_LIMIT_AFTER_MOVE = 4  # "must discard down to four cards"
COUNTER_LIMIT = 5  # "A player may never have more than five counters"
KEEP_LIMIT = 1  # "A player may not keep more than one counter from one Round to the next"
POOL_SIZE = 5  # "Turn 5 Transportation Counters face up"
ROUNDS = 4
DRAWS_PER_ROUND = 3  # step 2: "until each player has drawn 3 counters"
CARAVAN_CARDS = 3
BOATMEN_CARDS = 3
MAGNUM = "Mare Magnum"
NEBULAE = "Mare Nebulae"

# Short words used in commands and texts for each card / counter type.
WORD = {
    "giant_pig": N_("pig"),
    "elfcycle": N_("elfcycle"),
    "magic_cloud": N_("cloud"),
    "unicorn": N_("unicorn"),
    "troll_wagon": N_("troll"),
    "dragon": N_("dragon"),
    "raft": N_("raft"),
}
LONG = {
    "giant_pig": N_("Giant Pig"),
    "elfcycle": N_("Elfcycle"),
    "magic_cloud": N_("Magic Cloud"),
    "unicorn": N_("Unicorn"),
    "troll_wagon": N_("Trollwagon"),
    "dragon": N_("Dragon"),
    "raft": N_("Raft"),
}
TYPE_WORD = {
    "road": N_("road"),
    "forest": N_("forest"),
    "desert": N_("desert"),
    "mountain": N_("mountain"),
    "river": N_("river"),
    "lake": N_("lake"),
}
TYPE_LONG = {
    "road": N_("open road"),
    "forest": N_("forest path"),
    "desert": N_("desert track"),
    "mountain": N_("mountain trail"),
    "river": N_("river"),
    "lake": N_("lake"),
}


def word(kind: str) -> str:
    """A card or counter type's short word ("pig") in the reader's language."""
    return _(WORD[kind])


def long(kind: str) -> str:
    """A card or counter type's full name ("Giant Pig") in the reader's language."""
    return _(LONG[kind])


def type_long(route_type: str) -> str:
    """A route type's full name ("open road") in the reader's language."""
    return _(TYPE_LONG[route_type])


def type_word(route_type: str) -> str:
    """A route type's short word ("road", as commands say it) in the reader's language."""
    return _(TYPE_WORD[route_type])


def name(town: str) -> str:
    return TOWNS[town]["name"]


# Routes leaving each town: list of (route id, other town).
EXITS: dict[str, list[tuple[str, str]]] = {t: [] for t in TOWN_IDS}
for _r in DATA["routes"]:
    EXITS[_r["a"]].append((_r["id"], _r["b"]))
    EXITS[_r["b"]].append((_r["id"], _r["a"]))

# (town, town) -> list of route ids joining them (land and/or water).
BETWEEN: dict[tuple[str, str], list[str]] = {}
for _r in DATA["routes"]:
    BETWEEN.setdefault((_r["a"], _r["b"]), []).append(_r["id"])
    BETWEEN.setdefault((_r["b"], _r["a"]), []).append(_r["id"])


def counter_cost(counter: str, route: str) -> int | None:
    """Cards of `counter`'s type needed on a land route (None: not allowed there), no Trouble."""
    return COSTS[counter][ROUTES[route]["type"]]


def placed_cost(counter: str, route: str) -> int:
    """Cards needed to travel with `counter` where it lies (it lies only where it is allowed)."""
    cost = counter_cost(counter, route)
    if cost is None:
        raise ValueError(f"a {counter} counter cannot lie on {route}")
    return cost


def allowed(counter: str, route: str) -> bool:
    r = ROUTES[route]
    return r["type"] in LAND and COSTS[counter][r["type"]] is not None


def raft_cost(route: str, to: str, lakes_variant: bool) -> int:
    """Raft cards to travel `route` arriving at `to`: downstream 1, upstream 2, lakes 2
    (Mare Nebulae 1 with the Lakes variant)."""
    r = ROUTES[route]
    if r["type"] == "river":
        return COSTS["raft"]["river_downstream"] if r["downstream_to"] == to else COSTS["raft"]["river_upstream"]
    if lakes_variant and r["lake"] == NEBULAE:
        return 1
    return COSTS["raft"]["lake"]


def _bfs(src: str) -> dict[str, int]:
    dist = {src: 0}
    queue = deque([src])
    while queue:
        t = queue.popleft()
        for _route, o in EXITS[t]:
            if o not in dist:
                dist[o] = dist[t] + 1
                queue.append(o)
    return dist


# Shortest route distance (number of routes of any kind, water included) between two towns.
DIST: dict[str, dict[str, int]] = {t: _bfs(t) for t in TOWN_IDS}


def distance(a: str, b: str) -> int:
    return DIST[a][b]
