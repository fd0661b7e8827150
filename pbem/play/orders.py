"""Orders given ahead: fewer mail round trips (issue 32).

A seat may leave the service three kinds of order, each played for it through the one write
path as the seat's own move (actor "seat"), whenever the game awaits it:

- forced: when the rules leave the seat exactly one legal move (a lone "pass", "done", "end" or
  move), that move is played (`games.base.forced_move`); never when there is any choice.
- standing: an order in the game's own terms ("draw blind", "no offers"), which the game's
  `follow_order` turns into a move from the seat's own view, or into nothing (then the player
  decides as usual). It stands until cancelled.
- conditional: "if Bob place dragon on Feodor-Rivinia then move to Rivinia else end": read on the
  named seat's next move after the order was given, played (once) at the giver's next turn after
  that move. The condition must be readable by the giver: a move of Bob's with any hidden part
  makes the order lapse (and one known to be hidden is refused when given).

Secret until used: an order is given by a `pbem.OrderGiven` event seen only by its seat (others
see `{"seat": n}`; the chain holds only the keyed commitment of its payload, and the payload is
revealed with the seed at the end, like every hidden payload, pbem/CHAIN.md). A move played by
an order is preceded, in the same append, by `pbem.OrderPlayed`, again seen in full only by its
seat: the others learn that the move was made by an order given ahead (its timing would show
it anyway), never which order or what it said. The server keeps the orders in the game's state
(`meta["orders"]`, folded from those events), which no view, picture or feed shows; once the
game is over the offline verifier holds each played order to its words (pbem/audit/verify.py).
"""

from __future__ import annotations

import logging
import re

from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop, ngettext

from games.base import Rejected, Rng, forced_move, key
from pbem.log import eventlog
from pbem.models import Event, PlayerSettings
from pbem.play.orderbook import CONDITIONAL, FORCED, STANDING, orders_of
from pbem.play.runner import Actor, CommandRejected, ServiceError, Work, emit_game_events, require_running, run

log = logging.getLogger(__name__)

ORDER_WORDS = ("orders", "order", "if")
# The most orders one seat may hold in one game (each is looked at on every turn of the seat).
MAX_ORDERS = 20
ORDERS_HELP = gettext_noop(
    "Orders given ahead: 'orders' shows yours; 'orders forced on' (or off) has your only legal "
    "move played for you whenever the rules leave you no choice ('orders forced on default': in "
    "the games you join from now on too); 'order …' gives a standing order in this game's own "
    "words%(kinds)s; 'if NAME MOVE then MOVE else MOVE' plays a move at your next turn after "
    "NAME's next move, by what that move was; 'orders cancel N' or 'orders cancel all'."
)


# ---------------------------------------------------------------------------------------------
# Reading: what a seat has ordered
# ---------------------------------------------------------------------------------------------


def describe(spec, order: dict, names: list[str]) -> str:
    """An order in the words that give it."""
    kind = order["kind"]
    if kind == FORCED:
        return "orders forced on"
    if kind == STANDING:
        return "order " + (spec.describe_order(order["order"]) if spec.describe_order else str(order["order"]))
    text = f"if {names[order['on']]} {spec.describe(order['if'])} then {spec.describe(order['then'])}"
    return text + (f" else {spec.describe(order['else'])}" if order.get("else") else "")


def listing(spec, state: dict, seat: int) -> str:
    held = orders_of(state, seat)
    names = state["meta"]["names"]
    if not held:
        return _("You have no orders in this game.") + " " + help_text(spec)
    lines = [f"  {order['id']}: {describe(spec, order, names)}" for order in held]
    return _("Your orders in this game (seen by nobody else until played):") + "\n" + "\n".join(lines)


def help_text(spec) -> str:
    from games.i18n import current, game_text

    kinds = ""
    if spec.parse_order and spec.parse_order.__doc__:
        # The kinds of standing order, as the game's parse_order says them: in the reader's
        # language where the game's catalogue has that line, else only to an English reader.
        english = spec.parse_order.__doc__.strip().splitlines()[0]
        said = game_text(spec.name, english)
        kinds = f" ({said})" if said != english or current() == "en" else ""
    return _(ORDERS_HELP) % {"kinds": kinds}


# ---------------------------------------------------------------------------------------------
# Giving and cancelling (inside a command's Work)
# ---------------------------------------------------------------------------------------------


def give(work: Work, seat: int, order: dict) -> int:
    """Records the order (seen only by its seat); returns its number (the event's seq)."""
    if len(orders_of(work.state, seat)) >= MAX_ORDERS:
        raise ServiceError(
            _("You hold %(count)d orders in this game already; cancel one first.") % {"count": MAX_ORDERS},
            "too_many",
        )
    number = work.next_seq
    work.platform("OrderGiven", {"seat": seat, "order": order}, visible_to=[seat], public={"seat": seat})
    return number


def cancel(work: Work, seat: int, number: int, reason: str) -> None:
    work.platform(
        "OrderCancelled", {"seat": seat, "id": number, "reason": reason}, visible_to=[seat], public={"seat": seat}
    )


def command(work: Work, seat: int, word: str, rest: str, line: str) -> None:
    """A line of a seat's: 'orders …', 'order …' or 'if …' (see ORDERS_HELP)."""
    spec, state = work.spec, work.state
    if word == "if":
        require_running(work)
        order = read_conditional(spec, state, seat, rest, line)
        number = give(work, seat, order)
        work.told.applied.append(
            _("order %(number)s: %(order)s")
            % {"number": number, "order": describe(spec, order, state["meta"]["names"])}
        )
        return
    if word == "order":
        require_running(work)
        order = read_standing(spec, state, seat, rest, line)
        number = give(work, seat, order)
        work.told.applied.append(
            _("order %(number)s: %(order)s")
            % {"number": number, "order": describe(spec, order, state["meta"]["names"])}
        )
        return
    words = rest.lower().split()
    if not words:
        work.told.answers.append(listing(spec, state, seat))
        return
    if words[0] == "forced" and len(words) >= 2 and words[1] in ("on", "off"):
        set_forced(work, seat, words[1] == "on", default=words[2:] == ["default"], line=line)
        return
    if words[0] == "cancel" and len(words) == 2:
        held = orders_of(state, seat)
        if words[1] == "all":
            if not held:
                raise CommandRejected(_("You have no orders to cancel."), line)
            for order in held:
                cancel(work, seat, order["id"], gettext_noop("cancelled by the player"))
            work.told.applied.append(
                ngettext("cancelled your order (%(count)d)", "cancelled all your orders (%(count)d)", len(held))
                % {"count": len(held)}
            )
            return
        if not words[1].isdigit() or int(words[1]) not in {o["id"] for o in held}:
            known = ", ".join(str(o["id"]) for o in held) or _("none")
            raise CommandRejected(
                _("You have no order %(number)s (yours: %(known)s).") % {"number": words[1][:20], "known": known}, line
            )
        cancel(work, seat, int(words[1]), gettext_noop("cancelled by the player"))
        work.told.applied.append(_("cancelled order %(number)s") % {"number": words[1]})
        return
    raise CommandRejected(help_text(spec), line)


def set_forced(work: Work, seat: int, on: bool, default: bool = False, line: str = "") -> None:
    held = [o for o in orders_of(work.state, seat) if o["kind"] == FORCED]
    if on and not held:
        give(work, seat, {"kind": FORCED})
    elif not on:
        for order in held:
            cancel(work, seat, order["id"], gettext_noop("forced moves off"))
    if default:
        email = work.seats[seat]["email"]
        if email:
            work.later(
                lambda: PlayerSettings.objects.update_or_create(email=email.lower(), defaults={"forced_moves": on})
            )
    said = (
        _("forced moves on: your only legal move is played for you when the rules leave you no choice")
        if on
        else _("forced moves off")
    )
    work.told.applied.append(said + (_(" (your default for new games too)") if default else ""))


def read_standing(spec, state: dict, seat: int, text: str, line: str) -> dict:
    if spec.parse_order is None:
        raise CommandRejected(_("%(title)s has no standing orders.") % {"title": spec.title}, line)
    try:
        order = spec.parse_order(text, state["game"], seat)
    except Rejected as exc:
        raise CommandRejected(str(exc), line) from None
    return {"kind": STANDING, "order": order}


IF_RE = re.compile(r"^(?P<cond>.+?)\s*[,;]?\s+then\s+(?P<then>.+?)(?:\s*[,;]?\s+else\s+(?P<else>.+?))?\s*\.?$", re.I)


def read_conditional(spec, state: dict, seat: int, text: str, line: str) -> dict:
    """'NAME MOVE then MOVE [else MOVE]' checked now: a seat that exists and is not the giver, a
    move the game can read for that seat, moves the game can read for the giver, and a condition
    the giver could read (a move with a hidden part never can)."""
    match = IF_RE.match(text.strip())
    if not match:
        raise CommandRejected(
            _("Write a conditional order as 'if NAME MOVE then MOVE', optionally followed by 'else MOVE'."), line
        )
    names = state["meta"]["names"]
    on, cond_text = _named_seat(names, match.group("cond"), line)
    if on == seat:
        raise CommandRejected(_("A condition names another player's move, not your own."), line)
    game = state["game"]
    try:
        condition = spec.parse(cond_text, game, on)
    except Rejected as exc:
        raise CommandRejected(
            _("The condition cannot be read as a move of %(name)s's: %(why)s") % {"name": names[on], "why": exc}, line
        ) from None
    order: dict = {"kind": CONDITIONAL, "on": on, "if": condition}
    for part in ("then", "else"):
        words = match.group(part)
        if words is None:
            continue
        try:
            order[part] = spec.parse(words, game, seat)
        except Rejected as exc:
            raise CommandRejected(
                _("'%(words)s' cannot be read as a move of yours: %(why)s") % {"words": words, "why": exc}, line
            ) from None
    if _kind_is_hidden(spec, game, on, condition):
        raise CommandRejected(
            _("A move of %(name)s's of that kind is partly hidden from you, so the condition could never be read.")
            % {"name": names[on]},
            line,
        )
    return order


def _kind_is_hidden(spec, game, on: int, condition: dict) -> bool:
    """Whether the named seat's moves of the condition's kind ("type") show the giver only a
    public form now. Judged over all the seat's legal moves of that kind, never over the one
    named: whether that one is legal (say, a card in a hidden hand) must not show in the answer,
    nor in any refusal's words."""
    for move in spec.legal(game, on):
        if move.get("type") != condition.get("type"):
            continue
        try:
            events = spec.decide(game, on, move, Rng(b"\0" * 32, 1))
        except Rejected:
            continue
        if any(ev.visible_to is not None for ev in events):
            return True
    return False


def _named_seat(names: list[str], text: str, line: str) -> tuple[int, str]:
    """The seat whose name the condition starts with, and the move after the name."""
    words = text.split()
    by_key = {key(name): number for number, name in enumerate(names)}
    for cut in range(len(words) - 1, 0, -1):
        number = by_key.get(key(" ".join(words[:cut])))
        if number is not None:
            return number, " ".join(words[cut:])
    raise CommandRejected(
        _("A condition starts with a player's name (%(names)s) and then their move.") % {"names": ", ".join(names)},
        line,
    )


# ---------------------------------------------------------------------------------------------
# Playing: each awaited seat's orders, after every append that awaits it
# ---------------------------------------------------------------------------------------------


def _conditional_outcome(game_id: int, spec, seed: bytes, order: dict) -> str | None:
    """'then' or 'else' once the named seat has moved after the order, 'unreadable' if that
    move had a hidden part; None while it has not moved. The move is read from the log: the
    first batch of game events by that seat after the order, compared with what the condition's
    move would have given there (the same state, the same draws)."""
    undone = eventlog.undone_seqs(game_id)
    rows = list(
        Event.objects.filter(
            game_id=game_id, seq__gt=order["id"], actor_seat=order["on"], actor_kind__in=("seat", "standin")
        )
        .exclude(type__startswith="pbem.")
        .exclude(seq__in=undone)
        .order_by("seq")
        .values("seq", "type", "payload", "visible_to", "causation_id", "created_at")[:200]
    )
    if not rows:
        return None
    first = rows[0]
    batch = [r for r in rows if (r["causation_id"], r["created_at"]) == (first["causation_id"], first["created_at"])]
    if any(r["visible_to"] is not None for r in batch):
        return "unreadable"
    before = eventlog.load(game_id, at=first["seq"] - 1, use_snapshots=True).state
    try:
        expected = spec.decide(before["game"], order["on"], order["if"], Rng(seed, first["seq"]))
    except Rejected:
        return "else"
    same = [(ev.type, eventlog.canonical(ev.data)) for ev in expected] == [
        (r["type"], eventlog.canonical(r["payload"])) for r in batch
    ]
    return "then" if same else "else"


def choose(work: Work, seat: int) -> tuple[dict, dict, str] | None:
    """(order, command, how) for the seat now, or None: a conditional order whose condition was
    read, else the first standing order with something to say, else a forced move if the seat
    asked for them. An order whose move is no longer legal lapses (cancelled, with the reason)."""
    spec, state = work.spec, work.state
    game = state["game"]
    held = orders_of(state, seat)
    if not held or game is None or seat not in spec.waiting_for(game):
        return None
    legal = spec.legal(game, seat)
    for order in held:
        if order["kind"] != CONDITIONAL:
            continue
        outcome = _conditional_outcome(work.loaded.game_id, spec, bytes.fromhex(work.game["seed"]), order)
        if outcome is None:
            continue
        if outcome == "unreadable":
            cancel(
                work,
                seat,
                order["id"],
                gettext_noop("the move it waited for was partly hidden, so it could not be read"),
            )
            continue
        move = order.get(outcome)
        if move is None:
            cancel(work, seat, order["id"], gettext_noop("its condition was not met, and it had no 'else'"))
            continue
        if move not in legal:
            cancel(work, seat, order["id"], f"its move ({spec.describe(move)}) was not legal when it came to be played")
            continue
        return order, move, outcome
    view = None
    for order in held:
        if order["kind"] != STANDING or spec.follow_order is None:
            continue
        view = view if view is not None else spec.view(game, seat)
        move = spec.follow_order(order["order"], view, legal)
        if move is not None and move in legal:
            return order, move, STANDING
    if any(order["kind"] == FORCED for order in held):
        move = forced_move(spec, game, seat)
        if move is not None:
            return next(o for o in held if o["kind"] == FORCED), move, FORCED
    return None


def play_seat(game_id: int, seat: int) -> int:
    """Plays the seat's orders while they give it a move (1: a move was made, 0: none)."""
    made = {"moves": 0}

    def body(work: Work):
        state = work.state
        work.automatic = True
        if state["game"] is None or state["meta"]["paused"] or state["meta"]["ended"]:
            return
        if seat in state["meta"].get("standins", ()):
            return
        picked = choose(work, seat)
        if picked is None:
            return
        order, move, how = picked
        spec = work.spec
        rng = Rng(bytes.fromhex(work.game["seed"]), work.next_seq + 1)
        try:
            events = spec.decide(state["game"], seat, move, rng)
        except Rejected as exc:
            cancel(work, seat, order["id"], f"the game refused its move: {exc}")
            work.fresh_turn.add(seat)  # not told of its turn when it began: told now
            return
        played = {"seat": seat, "id": order["id"], "kind": order["kind"], "move": spec.describe(move)}
        if how in ("then", "else"):
            played["branch"] = how
        work.platform("OrderPlayed", played, visible_to=[seat], public={"seat": seat})
        emit_game_events(work, events, rng)
        made["moves"] = 1

    try:
        run(game_id, Actor("seat", seat), body)
    except ServiceError:
        log.warning("the orders of seat %s of game %s could not be played", seat, game_id, exc_info=True)
        return 0
    return made["moves"]


def start_defaults(work: Work) -> None:
    """At the start: forced moves on for the seats whose players made that their default."""
    emails = {info["email"].lower(): info["number"] for info in work.seats if info["email"]}
    if not emails:
        return
    for email in PlayerSettings.objects.filter(email__in=list(emails), forced_moves=True).values_list(
        "email", flat=True
    ):
        seat = emails[email]
        work.platform("OrderGiven", {"seat": seat, "order": {"kind": FORCED}}, visible_to=[seat], public={"seat": seat})
