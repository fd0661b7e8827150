"""The contract between a game and the platform.

A game is a *decider*: plain functions over plain data, collected in a `GameSpec`.
Nothing here (nor in any game) imports Django, pbem, celery or redis; a test enforces it.

Vocabulary
- seat: an int, 0 .. players-1, in seating (clockwise) order.
- command: a JSON-able dict with a "type" key (imperative: {"type": "place", ...}).
- event: an `Event` (past tense: "CounterPlaced") whose `data` is JSON-able.
- state: JSON-able plain data (dicts with str keys, lists, str, int, float, bool, None).
  `json.loads(json.dumps(state)) == state` must hold: use lists, never tuples or sets.

Functions a game provides (see `GameSpec`):
- setup(players, options, rng) -> [Event]        the first events; every random outcome in them
- decide(state, seat, command, rng) -> [Event]   raises Rejected("reason a player understands");
                                                 must not mutate `state`
- evolve(state, event) -> state                  pure: no randomness, no I/O; the first call gets
                                                 state None. It may mutate and return its input:
                                                 the platform never reuses a state it passed in.
                                                 It must not alias the event's data into the
                                                 state (copy lists/dicts it keeps).
- waiting_for(state) -> [seat]                   seats whose input is awaited now ([] when over)
- legal(state, seat) -> [command]                every command that seat may give now
                                                 ([] exactly when the seat is not awaited)
- result(state) -> Result | None                 None until the game is over
- view(state, seat | None) -> dict               what that seat (None: a spectator) may see
- parse(text, state, seat) -> command            raises ParseError (with suggestions)
- describe(command) -> str                       a line that `parse` turns back into the command
- help(state, seat) -> str                       commands with examples for the current phase
- narrate(event, names) -> str                   the event in words; `event.data` may be the
                                                 redacted `public` form for seats that may not
                                                 see it; `names[seat]` is a display name
- render_text(view) -> str                       fits an 80-column plain-text email
- render_html(view) -> str                       an SVG/HTML fragment for the web page
- summary(state) -> dict                         {"round": int, "phase": str, "scores": [int]}
- score_sheet(state) -> [ScoreLine]              the game's own bookkeeping, per round and seat
- timeout(state, seat) -> command | None         what the rules let a late seat do (a pass);
                                                 None: a person must decide
- can_act(state, seat) -> bool (optional)        a seat not awaited that may still act now

Optional functions, picked up by name like the ones above when a module has them:
- choices(state, seat) -> [Choice]               the legal moves as a chooser offers them: every
                                                 command of legal(state, seat) exactly once, the
                                                 moves that matter first; the mail's short codes
                                                 and the web form's step-by-step chooser both come
                                                 from it (default: `default_choices`)
- standin(view, legal) -> command                a sensible player for a seat whose player is
                                                 gone: one of `legal`, chosen only from what
                                                 `view` (that seat's view) shows, so it cannot
                                                 cheat; deterministic (no randomness, no clock)
- render_svg(view) -> str                        the board as one standalone SVG document (for
                                                 the picture in a mail: rasterised to PNG), with
                                                 width and height set and only the fonts
                                                 "DejaVu Sans" / sans-serif

Standing orders (optional, all three or none): a seat's order given ahead, in the game's own
terms, which the platform follows for the seat whenever it is awaited (see pbem/play/orders.py):
- parse_order(text, state, seat) -> dict         an order in the game's words ("draw blind"),
                                                 JSON-able; raises ParseError with the kinds
                                                 the game knows
- describe_order(order) -> str                   a line parse_order turns back into the order
- follow_order(order, view, legal) -> command | None
                                                 the move the order makes now: one of `legal`,
                                                 chosen only from `view` (the seat's own view),
                                                 deterministic; None: the order says nothing
                                                 here, the player decides

render_html(view, links=None): `links` maps the `target` of a Choice (an id in the drawing: a
town, a route, a cell, a card) to a URL; the render wraps each such element in <a href="…">
so a player can pick a move by touching the board (no JavaScript needed).

Commands every game gets from the platform (a game's grammar must not use these words):
help, board, history, say, undo, away, back, notices, zone, orders, order, if. No command line may start with "-", ">",
"From:", "To:", "Sent:", "Subject:" or read like "On ... wrote:" (quoted-reply stripping).

Randomness: `rng` is derived by the platform from the game's secret seed and the number of the
first event the call will produce. Use only its methods; put every outcome into the events, so
`evolve` never draws. Hidden information: an event seen only by some seats sets `visible_to`
and gives the `public` form others see (e.g. {"seat": 1} for "seat 1 drew a counter"). Which
seats may see an event is itself public (the audit feed shows `visible_to`, and the public form
names those seats anyway): only `data` beyond `public` is secret. An event that shows anyone
something that was hidden until then sets `reveals=True` (undo stops there).
"""

from __future__ import annotations

import difflib
import hashlib
import hmac
import json
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from games.i18n import GAMES

_ = GAMES.gettext


class Rejected(Exception):
    """The rules do not allow this command. `str(error)` is shown to the player as it is."""


class ParseError(Rejected):
    """The text is not a command of this game. `suggestions` are near misses ("did you mean")."""

    def __init__(self, message: str, suggestions: list[str] | tuple[str, ...] = ()):
        self.suggestions = list(suggestions)
        if self.suggestions:
            message = _("{message} Did you mean: {suggestions}?").format(
                message=message, suggestions=", ".join(self.suggestions)
            )
        super().__init__(message)


@dataclass(frozen=True)
class Event:
    type: str
    data: dict
    visible_to: tuple[int, ...] | None = None  # None: everyone; (): nobody; else these seats
    public: dict | None = None  # what other seats see of `data` when visible_to restricts it
    reveals: bool = False  # shows someone what was hidden: an undo barrier

    @classmethod
    def of_row(cls, type: str, data: dict, visible_to, public, reveals) -> Event:
        """Event(type, data, visible_to, public, reveals), made without the frozen dataclass's
        __init__ (one object.__setattr__ call per field): a replay makes one per event, and the
        __init__ alone was a third of the fold's time. `visible_to` as a list is made a tuple."""
        event = object.__new__(cls)
        # Key by key into the instance's own dict, in the fields' order: it stays a key-sharing
        # dict (half the time of one update() with keywords, which builds a dict of them first).
        fields = event.__dict__
        fields["type"] = type
        fields["data"] = data
        fields["visible_to"] = None if visible_to is None else tuple(visible_to)
        fields["public"] = public
        fields["reveals"] = bool(reveals)
        return event

    def seen_by(self, seat: int | None) -> bool:
        return self.visible_to is None or (seat is not None and seat in self.visible_to)

    def as_seen_by(self, seat: int | None) -> Event:
        """The event as `seat` may see it: itself, or its public form."""
        if self.seen_by(seat):
            return self
        return Event(self.type, dict(self.public or {}), self.visible_to, self.public, self.reveals)


@dataclass(frozen=True)
class Option:
    """A game option or variant. The type is the default's type (bool, int or str)."""

    name: str
    default: Any
    help: str = ""
    choices: tuple | None = None  # allowed values; None: any value of the default's type
    minimum: int | None = None
    maximum: int | None = None
    # What a page calls the option and each of its choices (English, marked N_ in the game's
    # catalogue and said in the reader's language where shown); by default the name and values.
    label: str = ""
    choice_labels: tuple[str, ...] = ()  # one per choice, in the order of `choices`

    @property
    def title(self) -> str:
        """The option's label in English (its name, spaced, where the game gives none)."""
        return self.label or self.name.replace("_", " ").capitalize()

    def coerce(self, raw: Any) -> Any:
        """Turns a value typed by a person (e.g. "yes", "3") into the option's type."""
        kind = type(self.default)
        value: Any
        try:
            if kind is bool:
                value = raw if isinstance(raw, bool) else _parse_bool(str(raw))
            elif kind is int:
                value = int(raw)
            else:
                value = str(raw).strip()
                if self.choices is not None and value not in self.choices:
                    # Lenient with what people type: "royal gates" means "Royal Gates".
                    folded = {key(str(c)): c for c in self.choices}
                    value = folded.get(key(value), value)
        except ValueError:
            raise Rejected(
                _("Option {name} takes a {kind}, not {raw}.").format(name=self.name, kind=kind.__name__, raw=repr(raw))
            ) from None
        if self.choices is not None and value not in self.choices:
            allowed = ", ".join(str(c) for c in self.choices)
            raise Rejected(_("Option {name} must be one of: {allowed}.").format(name=self.name, allowed=allowed))
        if self.minimum is not None and value < self.minimum:
            raise Rejected(_("Option {name} must be at least {n}.").format(name=self.name, n=self.minimum))
        if self.maximum is not None and value > self.maximum:
            raise Rejected(_("Option {name} must be at most {n}.").format(name=self.name, n=self.maximum))
        return value


def _parse_bool(text: str) -> bool:
    low = text.strip().lower()
    if low in ("1", "true", "yes", "on", "y"):
        return True
    if low in ("0", "false", "no", "off", "n"):
        return False
    raise ValueError(text)


@dataclass(frozen=True)
class Result:
    """Final standings. `tiebreak[seat]` is a tuple compared after the score (higher is better)."""

    scores: list[int]
    tiebreak: list[tuple] = field(default_factory=list)
    detail: dict = field(default_factory=dict)  # anything worth showing (e.g. breakdowns)

    def ranking(self) -> list[list[int]]:
        """Places from first to last; seats sharing a place are tied."""
        return rank(self.scores, self.tiebreak)


def rank(scores: list[int], tiebreak: list[tuple] | None = None) -> list[list[int]]:
    keys = [(s, tuple(tiebreak[i]) if tiebreak else ()) for i, s in enumerate(scores)]
    places: list[list[int]] = []
    for seat in sorted(range(len(scores)), key=lambda i: keys[i], reverse=True):
        if places and keys[places[-1][0]] == keys[seat]:
            places[-1].append(seat)
        else:
            places.append([seat])
    return places


@dataclass(frozen=True)
class Choice:
    """One legal move as a chooser offers it, in two steps: `group` (what: the piece, the
    action) then `label` (where or how, readable on its own within its group).

    `featured`: worth a short code in a turn notice (the few moves that matter: scoring
    placements, the sensible routes); the others stay reachable by typing (`describe(command)`)
    or by the web chooser. `target`: the id of the element of the board drawing where this move
    is made (see render_html's `links`), if there is one. `note`: why it is worth it ("scores
    6"), shown beside the label.
    """

    command: dict
    group: str
    label: str
    featured: bool = False
    target: str | None = None
    note: str = ""


# At most this many featured moves are numbered in a notice (the rest: typed, or on the web), unless
# the game's spec says otherwise (`GameSpec.max_featured`).
MAX_FEATURED = 20


def default_choices(spec: GameSpec, state, seat: int) -> list[Choice]:
    """Every legal move, grouped by the first word of its description, the first
    MAX_FEATURED featured (for a game without a `choices` of its own)."""
    out = []
    for i, command in enumerate(spec.legal(state, seat)):
        text = spec.describe(command)
        word = text.split(" ", 1)[0] if text else str(command.get("type", "move"))
        out.append(Choice(command, word.capitalize(), text, featured=i < MAX_FEATURED))
    return out


@dataclass(frozen=True)
class ScoreLine:
    """One entry of a score sheet: `points` scored by `seat` in round `round` (label `label`)."""

    round: int
    seat: int
    points: int
    detail: str = ""
    label: str = ""


# The functions every game provides, by the names GameSpec.from_modules looks for.
CONTRACT_FUNCTIONS = (
    "setup",
    "decide",
    "evolve",
    "waiting_for",
    "legal",
    "result",
    "view",
    "parse",
    "describe",
    "help",
    "narrate",
    "render_text",
    "render_html",
    "summary",
    "score_sheet",
    "timeout",
)
# Functions a game may provide, picked up by the same names when a module has them.
OPTIONAL_FUNCTIONS = (
    "choices",
    "standin",
    "render_svg",
    "parse_order",
    "describe_order",
    "follow_order",
    "setup_as_logged",
)


@dataclass(frozen=True)
class GameSpec:
    name: str  # slug used in commands and URLs, e.g. "elfenland"
    title: str
    min_players: int
    max_players: int
    version: int  # reducer version: bump when replaying an old log could give another state
    setup: Callable[..., list[Event]]
    decide: Callable[..., list[Event]]
    evolve: Callable[[Any, Event], Any]
    waiting_for: Callable[[Any], list[int]]
    legal: Callable[[Any, int], list[dict]]
    result: Callable[[Any], Result | None]
    view: Callable[[Any, int | None], dict]
    parse: Callable[[str, Any, int], dict]
    describe: Callable[[dict], str]
    help: Callable[[Any, int | None], str]
    narrate: Callable[[Event, list[str]], str]
    render_text: Callable[[dict], str]
    render_html: Callable[[dict], str]
    summary: Callable[[Any], dict]
    score_sheet: Callable[[Any], list[ScoreLine]]
    timeout: Callable[[Any, int], dict | None]
    options: tuple[Option, ...] = ()
    colours: tuple[str, ...] = ()  # seat colours in order, if the game has them
    check_options: Callable[[int, dict], None] | None = None  # raises Rejected on a bad mix
    # Seats that may act although not awaited (e.g. revising a secret choice already handed in
    # while others still choose). None: only awaited seats may act.
    can_act: Callable[[Any, int], bool] | None = None
    # Payload schema: current version per event type (default 1) and upcasters
    # {(event_type, from_version): fn(data) -> data at from_version + 1}.
    schema_versions: dict = field(default_factory=dict)
    upcasters: dict = field(default_factory=dict)
    rulebook: str = ""  # a short line about the rules, shown in the lobby
    # Optional contract functions (see the module's docstring); None: the platform's default.
    choices: Callable[[Any, int], list[Choice]] | None = None
    standin: Callable[[dict, list[dict]], dict] | None = None
    render_svg: Callable[[dict], str] | None = None
    parse_order: Callable[[str, Any, int], dict] | None = None
    describe_order: Callable[[dict], str] | None = None
    follow_order: Callable[[dict, dict, list[dict]], dict | None] | None = None
    # setup_as_logged(players, options, rng, first_payload): the deal of a game whose first dealt
    # event's payload is `first_payload`, under the component data it recorded (a game whose data
    # has versions: the offline verifier deals an old game again as it was dealt). None: `setup`.
    setup_as_logged: Callable[[int, dict, Any, dict], list[Event]] | None = None
    # The most featured moves (numbered codes) a notice of this game holds; None: as many as its
    # `choices` feature. A game whose rules single out more moves than MAX_FEATURED that a player
    # must be able to make by code alone (Elven Castle: every scoring placement) lifts the cap.
    max_featured: int | None = MAX_FEATURED

    def choices_for(self, state, seat: int) -> list[Choice]:
        """The chooser's moves for `seat` (the game's own `choices`, else `default_choices`)."""
        if self.choices is not None:
            return self.choices(state, seat)
        return default_choices(self, state, seat)

    @classmethod
    def from_modules(cls, *modules, **metadata) -> GameSpec:
        """The spec of a game whose contract functions live in `modules` under their contract
        names (setup, decide, evolve, … timeout), looked up in the order given; `metadata` is the
        rest (name, title, player counts, options, and the optional hooks, which are never
        picked up by name). A function the contract needs and no module has is an error here,
        at import, not when the first player needs it."""
        found = {}
        for name in CONTRACT_FUNCTIONS:
            holder = next((m for m in modules if callable(getattr(m, name, None))), None)
            if holder is None:
                raise TypeError(f"{metadata.get('name', '?')}: no module gives the contract function {name}()")
            found[name] = getattr(holder, name)
        for name in OPTIONAL_FUNCTIONS:
            holder = next((m for m in modules if callable(getattr(m, name, None))), None)
            if holder is not None and name not in metadata:
                found[name] = getattr(holder, name)
        return cls(**found, **metadata)

    def resolve_options(self, players: int, given: dict | None = None) -> dict:
        """Defaults filled in, each value checked and typed; raises Rejected with the reason."""
        if not self.min_players <= players <= self.max_players:
            raise Rejected(
                _("{title} is for {low} to {high} players, not {n}.").format(
                    title=self.title, low=self.min_players, high=self.max_players, n=players
                )
            )
        known = {o.name: o for o in self.options}
        given = dict(given or {})
        unknown = sorted(set(given) - set(known))
        if unknown:
            raise Rejected(
                _("{title} has no option {options}.").format(title=self.title, options=", ".join(unknown))
                + _did_you_mean(unknown[0], known)
            )
        options = {name: opt.coerce(given[name]) if name in given else opt.default for name, opt in known.items()}
        if self.check_options:
            self.check_options(players, options)
        return options


def _did_you_mean(word: str, candidates) -> str:
    close = difflib.get_close_matches(word, list(candidates), n=3, cutoff=0.6)
    return " " + _("Did you mean: {names}?").format(names=", ".join(close)) if close else ""


# ---------------------------------------------------------------------------------------------
# Randomness you can audit
# ---------------------------------------------------------------------------------------------


MAX_OUTCOMES = 2**64  # the most outcomes one draw may have: one 64-bit word decides it


class Rng:
    """Every random outcome of a game, derived from its secret seed and an event number.

    Stream: block i = HMAC-SHA256(key=seed, msg=f"pbem:{seq}:{i}"), read as big-endian 64-bit
    words. randbelow(n) takes the next word w and accepts it when w < 2**64 - (2**64 % n),
    giving w % n (rejection sampling, so no bias). One word bounds a draw: n is at most 2**64
    (above it no word would ever be accepted, and the loop would never end). Every other method is built on randbelow,
    and each call is logged in `draws` as [n, outcome], so anyone holding the revealed seed can
    re-derive every outcome (see `rederive`).
    """

    def __init__(self, seed: bytes, seq: int):
        self._seed = seed
        self._seq = seq
        self._block = 0
        self._words: list[int] = []
        self.draws: list[list[int]] = []

    def _word(self) -> int:
        if not self._words:
            digest = hmac.new(self._seed, f"pbem:{self._seq}:{self._block}".encode(), hashlib.sha256).digest()
            self._block += 1
            self._words = [int.from_bytes(digest[i : i + 8], "big") for i in range(0, 32, 8)]
        return self._words.pop(0)

    def randbelow(self, n: int) -> int:
        if not 1 <= n <= MAX_OUTCOMES:
            raise ValueError(f"randbelow needs 1 <= n <= 2**64, not {n}")
        limit = 2**64 - (2**64 % n)
        while True:
            word = self._word()
            if word < limit:
                value = word % n
                self.draws.append([n, value])
                return value

    def roll(self, sides: int = 6) -> int:
        """A die: 1 .. sides."""
        return self.randbelow(sides) + 1

    def choice(self, items):
        items = list(items)
        return items[self.randbelow(len(items))]

    def shuffle(self, items) -> list:
        """A new list: Fisher-Yates from the end, one randbelow(i + 1) per position."""
        out = list(items)
        for i in range(len(out) - 1, 0, -1):
            j = self.randbelow(i + 1)
            out[i], out[j] = out[j], out[i]
        return out

    def sample(self, items, k: int) -> list:
        return self.shuffle(items)[:k]

    @property
    def used(self) -> bool:
        return bool(self.draws)


def rederive(seed: bytes, seq: int, draws: list[list[int]]) -> bool:
    """True when `draws` (as recorded) are exactly what the seed gives at event `seq`; False too
    for a draw that no Rng could have made (n out of 1 .. 2**64)."""
    rng = Rng(seed, seq)
    try:
        return all(rng.randbelow(n) == value for n, value in draws)
    except ValueError:
        return False


# ---------------------------------------------------------------------------------------------
# Helpers for grammars: lenient reading of what people type
# ---------------------------------------------------------------------------------------------


def normalize(text: str) -> str:
    """Lower case, accents folded, apostrophes dropped, dashes to spaces, spaces collapsed.

    "Mah' Davikia" -> "mah davikia"; compare names with `key()`, which drops the spaces too.
    """
    decomposed = unicodedata.normalize("NFKD", text)
    plain = "".join(c for c in decomposed if not unicodedata.combining(c))
    plain = plain.replace("ß", "ss")
    for mark in "'’`´‘":
        plain = plain.replace(mark, "")
    return " ".join(plain.lower().replace("-", " ").replace("_", " ").split())


def key(text: str) -> str:
    """A name reduced to letters and digits only, for matching names: "Erg' Eren" -> "ergeren"."""
    return "".join(c for c in normalize(text) if c.isalnum())


def match_name(word: str, names, what: str = "name") -> str:
    """The one name in `names` that `word` means (by `key`, unique prefix allowed).

    Raises ParseError with "did you mean" suggestions on a near miss or an ambiguous prefix.
    """
    names = list(names)
    by_key = {key(n): n for n in names}
    k = key(word)
    if k in by_key:
        return by_key[k]
    prefixed = [n for kk, n in by_key.items() if k and kk.startswith(k)]
    if len(prefixed) == 1:
        return prefixed[0]
    if len(prefixed) > 1:
        raise ParseError(_("'{word}' could be several {what}s.").format(word=word, what=what), sorted(prefixed)[:5])
    close = difflib.get_close_matches(k, list(by_key), n=3, cutoff=0.6)
    raise ParseError(_("There is no {what} '{word}'.").format(what=what, word=word), [by_key[c] for c in close])


def forced_move(spec: GameSpec, state, seat: int) -> dict | None:
    """The seat's only legal move, when the rules leave it exactly one (a lone "pass", "done",
    "end" or move); None when the seat is not awaited or has any choice at all."""
    if seat not in spec.waiting_for(state):
        return None
    legal = spec.legal(state, seat)
    distinct = {_key(c): c for c in legal}
    return next(iter(distinct.values())) if len(distinct) == 1 else None


def _key(command: dict) -> str:
    return json.dumps(command, sort_keys=True)


def may_act(spec: GameSpec, state, seat: int) -> bool:
    """Whether `seat` may give a command now (awaited, or allowed by the game's `can_act`)."""
    return seat in spec.waiting_for(state) or bool(spec.can_act and spec.can_act(state, seat))
