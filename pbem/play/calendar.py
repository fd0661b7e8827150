"""Each player's calendar feed: every running deadline of theirs, across all their games, as an
iCalendar file (RFC 5545) a calendar program subscribes to.

A player is an address: every seat whose address it is, in any game (PlayerSettings holds what
is the player's own, by address). The feed's URL is private and signed:
/calendar/<player id>-<generation>-<mac>.ics, the mac an HMAC of both under SECRET_KEY (or a
fallback, see `signing`). Asking for a new link ('calendar new' by mail, or the button on the
seat page) bumps the generation: every older URL then stops working at once. A URL that is
malformed, forged, tampered with, of no player or of an older generation is answered like any
unknown page (the view raises a bare 404): nothing tells a guesser which it was.

One VEVENT per running deadline (a seat the table awaits, its game running): its UID is the
game's and the seat's, so a calendar program moves the event when the deadline moves; its
SEQUENCE is the game's version; its URL the seat's link. The file is written by `icalendar`.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import F
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from icalendar import Alarm, Calendar, Event

from pbem.log import eventlog
from pbem.models import Game, GameStatus, PlayerSettings, Seat
from pbem.play import addressing, languages, signing

TOKEN_RE = re.compile(r"^(\d{1,18})-(\d{1,9})-([a-z2-7]{26})$")
MAC_LENGTH = 26  # base32 characters: 130 bits
# Calendar programs are told to look again this often (RFC 7986 REFRESH-INTERVAL, and the
# older X-PUBLISHED-TTL some still read).
REFRESH = timedelta(hours=1)
# Each deadline comes with an alarm this long before it.
ALARM_BEFORE = timedelta(hours=6)


def _signed(player_id: int, generation: int) -> str:
    return f"pbem-calendar:{player_id}:{generation}"


def token_for(player: PlayerSettings) -> str:
    generation = player.calendar_generation
    return f"{player.pk}-{generation}-{signing.mac(_signed(player.pk, generation), MAC_LENGTH)}"


def url_for(player: PlayerSettings) -> str:
    return f"{settings.PBEM_BASE_URL}/calendar/{token_for(player)}.ics"


def player_of(email: str) -> PlayerSettings:
    """The player an address stands for (their settings row, made with the defaults if they
    have none yet: the defaults are what a new seat gets anyway)."""
    player, _created = PlayerSettings.objects.get_or_create(email=email.strip().lower())
    return player


def url_of(email: str) -> str:
    """The feed URL of the player at `email`; once per address within a batch of notices."""
    key = email.strip().lower()
    return eventlog.shared(("calendar", key), lambda: url_for(player_of(key)))


def renew(email: str) -> PlayerSettings:
    """A new feed URL for the player at `email`: every older one stops working."""
    player = player_of(email)
    PlayerSettings.objects.filter(pk=player.pk).update(calendar_generation=F("calendar_generation") + 1)
    player.refresh_from_db(fields=["calendar_generation"])
    return player


def resolve(token: str) -> PlayerSettings | None:
    """The player whose current feed `token` is, or None (for every reason alike)."""
    match = TOKEN_RE.match(token or "")
    if not match:
        return None
    player_id, generation, mac = int(match.group(1)), int(match.group(2)), match.group(3)
    if not signing.verify(_signed(player_id, generation), mac, MAC_LENGTH):
        return None
    player = PlayerSettings.objects.filter(pk=player_id).first()
    if player is None or player.calendar_generation != generation:
        return None
    return player


def running_deadlines(email: str) -> list[tuple[Seat, datetime]]:
    """Every running deadline of the player at `email`: (seat with its game, deadline), soonest
    first."""
    seats = (
        Seat.objects.filter(email__iexact=email, game__status=GameStatus.RUNNING)
        .select_related("game")
        .order_by("game_id", "number")
    )
    found = []
    for seat in seats:
        when = (seat.game.deadlines or {}).get(str(seat.number))
        if when:
            found.append((seat, datetime.fromisoformat(when)))
    return sorted(found, key=lambda pair: (pair[1], pair[0].game_id, pair[0].number))


def feed(player: PlayerSettings, now: datetime | None = None) -> bytes:
    """The player's calendar, as bytes (CRLF lines, folded at 75 octets: icalendar's to_ical)."""
    now = now or timezone.now()
    cal = Calendar()
    cal.add("prodid", "-//pbem//deadlines//EN")
    cal.add("version", "2.0")
    cal.add("calscale", "GREGORIAN")
    cal.add("method", "PUBLISH")
    with languages.reading(player.language):  # the player's own default language
        return _feed(player, now, cal)


def _feed(player: PlayerSettings, now: datetime, cal: Calendar) -> bytes:
    cal.add("x-wr-calname", _("Play-by-email deadlines"))
    cal.add("refresh-interval", REFRESH, parameters={"VALUE": "DURATION"})
    cal.add("x-published-ttl", REFRESH)
    for seat, deadline in running_deadlines(player.email):
        cal.add_component(_event(seat, seat.game, deadline, now))
    return cal.to_ical()


def _event(seat: Seat, game: Game, deadline: datetime, now: datetime) -> Event:
    title = game.title or game.kind
    link = addressing.seat_url(seat)
    event = Event()
    event.add("uid", f"pbem-game-{game.pk}-seat-{seat.number}@{settings.PBEM_MAIL_DOMAIN}")
    event.add("dtstamp", now)
    event.add("last-modified", game.updated_at)
    event.add("sequence", game.version)
    event.add("dtstart", deadline)
    event.add("dtend", deadline)
    event.add("summary", _("Your move is due: %(title)s (game #%(game)s)") % {"title": title, "game": game.pk})
    event.add(
        "description",
        _("%(name)s, the table waits for your move in %(title)s (game #%(game)s) until this time.")
        % {"name": seat.name, "title": title, "game": game.pk}
        + "\n"
        + _("Your seat: %(link)s") % {"link": link},
    )
    event.add("url", link)
    event.add("transp", "TRANSPARENT")
    alarm = Alarm()
    alarm.add("action", "DISPLAY")
    hours = int(ALARM_BEFORE.total_seconds() // 3600)
    alarm.add(
        "description",
        ngettext(
            "Your move in %(title)s is due in %(hours)d hour", "Your move in %(title)s is due in %(hours)d hours", hours
        )
        % {"title": title, "hours": hours},
    )
    alarm.add("trigger", -ALARM_BEFORE)
    event.add_component(alarm)
    return event
