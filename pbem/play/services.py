"""The write path's public face: games created and started, and a seat's commands submitted.

Email, the web form, the API, the desk and the timers all end in `runner.run`; this module holds
what a seat or the lobby asks for. The platform's own commands (help, board, undo, …) are in
`commands`, the Master of Seals' actions in `desk`, the timers in `deadlines`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from games import i18n
from games.base import Rejected, may_act
from pbem.log import clocks, eventlog
from pbem.log.eventlog import NewEvent
from pbem.models import AbsencePolicy, Event, Game, GameStatus, Notice, NoticePreference, PlayerSettings, Seat
from pbem.play import commands, languages, orders, outbox, selectors
from pbem.play.runner import (
    NEUTRAL_EVENTS,
    SYSTEM,
    Actor,
    CommandRejected,
    NotAwaited,
    NotAwaitedAfterEarlierLines,
    Outcome,
    ServiceError,
    StaleVersion,
    Work,
    check_seat,
    emit_game_events,
    require_running,
    run,
)
from pbem.registry import get_game


@dataclass
class PlayerSpec:
    name: str
    email: str
    # The language the player reads ("en", "de", "fr"; blank: their own default, else English).
    language: str = ""


def create_game(
    kind: str,
    players: list[PlayerSpec],
    options: dict | None = None,
    *,
    title: str = "",
    deadline_seconds: int | None = None,
    start: bool = True,
    invited: bool = False,
    notices: str | None = None,
    absence: str = AbsencePolicy.STANDIN,
    standin_after: int = 2,
    standin_seats: tuple[int, ...] = (),
    actor: Actor = SYSTEM,
    clock: dict | None = None,
) -> Game:
    """A new game with its seats; its first event publishes the seed's commitment.

    `invited`: the players are invited by mail (outbox rows, so they are retried like any notice
    and visible on the desk), and the game starts once all have accepted; else it starts at once
    when `start`. The first player is the game's creator: only they are mailed at first, and the
    others once the creator has accepted (`accept_invitation`), which proves the creator reads
    that address. So a stranger can make us mail nobody but the address they give as their own,
    within the per-creator and per-day limits (`check_creation_limits`); the invitation's text
    is fixed (pbem/SECURITY.md). `notices`: the table's preference for news (NoticePreference),
    where a player has set no default of their own ('notices default …'); None: once per turn.
    `absence`, `standin_after`: what happens to a seat that misses that many deadlines in a row.
    `standin_seats`: seats the stand-in plays from the start (a practice game's: never mailed).
    `clock`: the table's clock (pbem/log/clocks.py: fixed, bank or grace, durations in seconds),
    written in the creation event; None: the fixed period `deadline_seconds`, as before clocks."""
    _check_absence(absence, standin_after)
    period = deadline_seconds or settings.PBEM_DEFAULT_DEADLINE_HOURS * 3600
    chosen: dict = {}
    if clock is not None:
        try:
            chosen = clocks.parse(clock, period)
        except clocks.BadClock as exc:
            raise ServiceError(selectors.clocks_text(exc), "bad_clock") from None
        # The reminders' marks count from a turn's usual length.
        period = chosen.get("period") or chosen.get("grace", 0) + chosen["initial"]
    spec = get_game(kind)
    if invited:
        check_creation_limits(players)
    try:
        resolved = spec.resolve_options(len(players), options)
    except Rejected as exc:
        raise ServiceError(str(exc), "bad_options") from None
    colours = list(spec.colours[: len(players)]) if spec.colours else [""] * len(players)
    with transaction.atomic():
        game = Game(
            kind=kind,
            title=title or spec.title,
            options=resolved,
            reducer_version=spec.version,
            absence_policy=absence,
            standin_after=standin_after,
            deadline_seconds=period,
            clock=chosen,
        )
        game.seed_commitment = eventlog.seed_commitment(game.seed)
        game.save()
        invitations = _seat_players(game, players, colours, invited, notices, standin_seats)
        first = [_created_event(game, spec, players, colours)] + [
            NewEvent("pbem.StandInSeated", {"seat": seat, "reason": gettext_noop("a practice game's opponent")})
            for seat in sorted(set(standin_seats))
        ]
        rows, head = eventlog.build_rows(game.pk, 0, eventlog.GENESIS, first, actor.as_tuple(), "", spec, game=game)
        eventlog.append(game.pk, 0, eventlog.GENESIS, rows, {"status": GameStatus.OPEN}, invitations)
        if invitations:
            outbox.dispatch_on_commit(game.pk)
    if start and not invited:
        start_game(game.pk, actor)
    game.refresh_from_db()
    return game


def _check_absence(absence: str, standin_after: int) -> None:
    if absence not in AbsencePolicy.values:
        raise ServiceError(
            _("What happens to an absent player must be one of: %(choices)s.")
            % {"choices": ", ".join(AbsencePolicy.values)},
            "bad_options",
        )
    if standin_after < 1:
        raise ServiceError(_("A seat is handed over after at least one missed deadline."), "bad_options")


def _seat_players(game: Game, players, colours, invited: bool, notices: str | None, standin_seats) -> list[dict]:
    """The seats, in order; returns the invitation to mail (only the creator's at first)."""
    invitations: list[dict] = []
    own = _players_own_settings(players)
    for number, (player, colour) in enumerate(zip(players, colours)):
        by_standin = number in standin_seats
        mine = own.get(player.email.lower())
        seat = Seat.objects.create(
            game=game,
            number=number,
            name=player.name,
            email=player.email,
            colour=colour,
            invite_accepted=by_standin or not invited,
            notice_preference=mine.notice_preference if mine else notices or NoticePreference.TURN,
            news_pictures=bool(mine and mine.news_pictures),
            language=languages.known(player.language) or (mine.language if mine else "") or "",
        )
        if invited and number == CREATOR_SEAT and not by_standin:
            invitations.append(
                {
                    "seat_id": seat.pk,
                    "kind": "invitation",
                    "version": 1,
                    "to_email": seat.email,
                    "context": {"creator": True},
                }
            )
    return invitations


def _players_own_settings(players) -> dict:
    """The defaults the players set for themselves ('notices default …'), by address."""
    emails = [p.email.lower() for p in players if p.email]
    return {row.email: row for row in PlayerSettings.objects.filter(email__in=emails)} if emails else {}


def _created_event(game: Game, spec, players, colours) -> NewEvent:
    """The first event: what the game is, and the commitment to its secret seed."""
    return NewEvent(
        "pbem.GameCreated",
        {
            "kind": game.kind,
            "title": game.title,
            "options": game.options,
            "reducer_version": spec.version,
            "players": [{"name": p.name, "colour": c} for p, c in zip(players, colours)],
            "seed_commitment": game.seed_commitment,
            "deadline_seconds": game.deadline_seconds,
            "absence_policy": game.absence_policy,
            "standin_after": game.standin_after,
            **({"clock": game.clock} if game.clock else {}),
        },
    )


CREATOR_SEAT = 0


def check_creation_limits(players: list[PlayerSpec]) -> None:
    """Games created by one creator (the first player's address) per day, and invitations the
    whole site sends per day: past either, the game is not created."""
    since = timezone.now() - timedelta(days=1)
    invitations = Notice.objects.filter(kind="invitation", created_at__gte=since)
    creator = players[0].email.strip() if players else ""
    if (
        invitations.filter(to_email__iexact=creator, context__creator=True).count()
        >= settings.PBEM_GAMES_PER_CREATOR_PER_DAY
    ):
        raise ServiceError(
            _(
                "%(creator)s has set up %(count)s games in the last 24 hours, as many as one player may; "
                "please try again tomorrow."
            )
            % {"creator": creator, "count": settings.PBEM_GAMES_PER_CREATOR_PER_DAY},
            "rate_limited",
        )
    # Every player of a game set up today counts, invited yet or not (the others follow the creator).
    reserved = Seat.objects.filter(game__in=invitations.filter(context__creator=True).values("game_id")).count()
    if reserved + len(players) > settings.PBEM_INVITATIONS_PER_DAY:
        raise ServiceError(
            _("This site has sent as many invitations today as it sends in a day; please try again tomorrow."),
            "rate_limited",
        )


def invite_the_others(game_id: int) -> Outcome:
    """The creator accepted: every other player gets an invitation now (once)."""

    def body(work: Work):
        if Event.objects.filter(game_id=work.loaded.game_id, type="pbem.InvitationsSent").exists():
            return
        # Not the creator, and not a seat only a stand-in plays (a practice game's: no address).
        others = [info for info in work.seats if info["number"] != CREATOR_SEAT and info["email"]]
        work.platform("InvitationsSent", {"seats": [info["number"] for info in others]})
        for info in others:
            work.notices.append(
                {
                    "seat_id": info["id"],
                    "kind": "invitation",
                    "version": work.loaded.version + 1,
                    "to_email": info["email"],
                }
            )

    return run(game_id, SYSTEM, body)


def accept_invitation(seat: Seat) -> bool:
    """Marks the seat accepted; the last acceptance starts the game. True if it started now.
    The creator's acceptance invites the others."""
    with transaction.atomic():
        # The game row lock orders concurrent acceptances: the last one sees all the others.
        game = Game.objects.select_for_update().get(pk=seat.game_id)
        Seat.objects.filter(pk=seat.pk).update(invite_accepted=True)
        if game.status == GameStatus.OPEN and seat.number == CREATOR_SEAT and _invited_creator_only(game):
            invite_the_others(game.pk)
        if game.status != GameStatus.OPEN or Seat.objects.filter(game=game, invite_accepted=False).exists():
            return False
        try:
            start_game(game.pk)
        except ServiceError as exc:
            if exc.code != "already_started":
                raise
            return False
    return True


def _invited_creator_only(game: Game) -> bool:
    invitations = Notice.objects.filter(game=game, kind="invitation")
    return (
        invitations.filter(context__creator=True).exists()
        and not Event.objects.filter(game=game, type="pbem.InvitationsSent").exists()
    )


def start_game(game_id: int, actor: Actor = SYSTEM, reason: str = "") -> Outcome:
    """Deals the game: the game's setup events, every random outcome in them. `reason`: why
    (the desk records one when a Master of Seals starts a game by hand)."""

    def body(work: Work):
        if work.state["meta"]["started"]:
            raise ServiceError("The game has already started.", "already_started")
        players = work.state["meta"]["players"]
        options = dict(Game.objects.values_list("options", flat=True).get(pk=work.loaded.game_id))
        work.platform("GameStarted", {"reason": reason.strip()} if reason.strip() else {})
        rng = work.rng()
        setup_events = work.spec.setup(players, options, rng)
        emit_game_events(work, setup_events, rng)
        orders.start_defaults(work)

    return run(game_id, actor, body)


def submit(
    game_id: int,
    seat: int,
    lines: str | list[str] | None = None,
    *,
    command: dict | None = None,
    expected_version: int | None = None,
    causation_id: str = "",
    actor: Actor | None = None,
) -> Outcome:
    """Applies a seat's command(s): text lines in the game's grammar, or one structured command.

    Several lines are applied in order, all or none. The same causation id is applied once.
    With `expected_version`, a submission is refused as stale when something this seat can see
    has changed since that version.
    """
    actor = actor or Actor("seat", seat)
    if isinstance(lines, str):
        lines = lines.replace("\x00", "")  # a NUL cannot be stored (PostgreSQL text) and means nothing
    elif lines:
        lines = [line.replace("\x00", "") for line in lines]
    if command is not None and "\\u0000" in eventlog.canonical(command):  # JSON writes a NUL as \u0000
        raise ServiceError(_("The command contains a NUL character."), "bad_input")
    if isinstance(lines, str):
        lines = [line for line in (raw.strip() for raw in lines.splitlines()) if line]
    items: list[tuple[str, dict | None]] = [(line, None) for line in (lines or [])]
    if command is not None:
        items.append(("", command))
    if not items:
        raise ServiceError(_("There was no command in your message."), "empty")

    def body(work: Work):
        check_seat(work, seat)
        if expected_version is not None:
            _check_fresh(work, seat, expected_version)
        work.outcome = Outcome(work.loaded.version)
        for number, (line, structured) in enumerate(items, start=1):
            _one(work, seat, line, structured, number, writer)

    # The write path speaks the log's language (English): what a game describes into a payload
    # (an order played, a timeout) is the same whoever reads it later. Only what the writer wrote
    # is read, and what is told back to them written, in their own (`_one`): the language the
    # reader (pbem.mail.replies, submissions) chose from the seat's row.
    writer = i18n.current()
    with i18n.using(i18n.DEFAULT):
        return run(game_id, actor, body, causation_id)


def _check_fresh(work: Work, seat: int, expected: int) -> None:
    if expected > work.loaded.version:
        raise StaleVersion(
            _("Version %(expected)s is ahead of the game (at %(version)s).")
            % {"expected": expected, "version": work.loaded.version}
        )
    if expected == work.loaded.version:
        return
    if moved_on_for(work.loaded.game_id, seat, expected):
        raise StaleVersion(_stale_reason(work, seat))


def moved_on_for(game_id: int, seat: int, version: int) -> bool:
    """Whether something this seat can see has happened since `version` (platform events that
    change nothing on the board, such as table talk, do not count)."""
    later = Event.objects.filter(game_id=game_id, seq__gt=version).exclude(type__in=NEUTRAL_EVENTS)
    return any(
        visible_to is None or seat in visible_to or public is not None
        for visible_to, public in later.values_list("visible_to", "public")
    )


def _stale_reason(work: Work, seat: int) -> str:
    """Why a reply to an older notice was not applied, and what to do now: send the move again
    if it is still the seat's move, else whom the game waits for."""
    moved = _("The game has moved on since the notice you answered: your command was not applied.")
    state = work.state
    if state["game"] is None or state["meta"]["ended"]:
        return f"{moved} " + _("The game is over.")
    if may_act(work.spec, state["game"], seat):
        return f"{moved} " + _("Here is the board as it stands now; it is still your move: please send it again.")
    names = state["meta"]["names"]
    waiting = ", ".join(names[s] for s in work.spec.waiting_for(state["game"])) or _("nobody")
    return f"{moved} " + _(
        "It is not your move now: the game is waiting for %(names)s. "
        "Here is the board as it stands; you get a notice when it is your turn."
    ) % {"names": waiting}


def _one(work: Work, seat: int, line: str, structured: dict | None, number: int, writer: str = i18n.DEFAULT) -> None:
    parts = line.split(None, 1)
    word = parts[0].lower() if parts else ""
    rest = parts[1].strip() if len(parts) > 1 else ""
    if structured is None and word in commands.PLATFORM_WORDS:
        return commands.PLATFORM_COMMANDS[word](work, seat, rest, line)
    if structured is None and word in orders.ORDER_WORDS:
        return _in(writer, lambda: orders.command(work, seat, word, rest, line))
    require_running(work)
    spec, game_state = work.spec, work.state["game"]
    legal_now = lambda: _in(writer, lambda: [spec.describe(c) for c in spec.legal(game_state, seat)])  # noqa: E731
    played_by_standin = seat in work.state["meta"].get("standins", ()) and work.actor.kind == "seat"
    if not may_act(spec, game_state, seat):
        waiting = ", ".join(work.state["meta"]["names"][s] for s in spec.waiting_for(game_state)) or _("nobody")
        hint = (
            " " + _("The stand-in is playing your seat: reply 'back' to play it yourself again.")
            if played_by_standin
            else ""
        )
        if number > 1 and structured is None:
            raise _in(writer, lambda: _not_awaited_after_earlier_lines(spec, game_state, seat, line, number, waiting))
        raise NotAwaited(_("It is not your turn: the game is waiting for %(names)s.") % {"names": waiting} + hint)
    if played_by_standin:
        commands.take_seat_back(work, seat)  # a move of the player's own: they are back
    said = line or spec_describe(spec, structured)
    try:
        command = structured if structured is not None else _in(writer, lambda: spec.parse(line, game_state, seat))
    except Rejected as exc:  # parsed in the writer's words: its reason is in them too
        raise CommandRejected(str(exc), said, number, legal_now()) from None
    rng = work.rng()
    try:
        events = spec.decide(game_state, seat, command, rng)
    except Rejected as exc:
        reason = str(exc) if writer == i18n.DEFAULT else _refusal_in(writer, work, seat, command, exc)
        raise CommandRejected(reason, said, number, legal_now()) from None
    emit_game_events(work, events, rng)
    work.told.applied.append(_in(writer, lambda: spec.describe(command)))


def _refusal_in(language: str, work: Work, seat: int, command, refused: Rejected) -> str:
    """Why the game refused a move, in the writer's language. `decide` runs in the log's language
    (what it puts into events must not depend on who typed the move), so a refusal comes out in
    English; deciding again in the writer's language is pure (the same state, the same dice from
    the same seed and event number) and ends in the same refusal, now in their words."""
    try:
        _in(language, lambda: work.spec.decide(work.state["game"], seat, command, work.rng()))
    except Rejected as again:
        return str(again)
    return str(refused)  # cannot happen for a pure decide; the English reason is still true


def _in(language: str, call):
    """`call()` in the games' words of `language` (a parse of what a player wrote, or what is
    told back to them; never what goes in the log)."""
    with i18n.using(language):
        return call()


def _not_awaited_after_earlier_lines(
    spec, game_state, seat: int, line: str, number: int, waiting: str
) -> CommandRejected:
    """Line 2 of a reply when line 1 ended the turn: the real reason, naming the line. A line the
    game cannot read at all is refused for that; a good move for having come after the turn ended."""
    try:
        spec.parse(line, game_state, seat)
    except Rejected as exc:
        return CommandRejected(str(exc), line, number, [])
    text = (
        _(
            "After your line 1 it is no longer your turn: the game is now waiting for %(names)s, so this line "
            "cannot be played as well."
        )
        if number == 2
        else _(
            "After your lines 1-%(last)s it is no longer your turn: the game is now waiting for %(names)s, so "
            "this line cannot be played as well."
        )
    )
    return NotAwaitedAfterEarlierLines(
        text % {"names": waiting, "last": number - 1},
        line,
        number,
        [],
    )


def spec_describe(spec, command) -> str:
    try:
        return spec.describe(command)
    except Exception:  # a malformed structured command cannot always be described
        return str(command)
