"""A player's other channels, and a table's shared one: what may be set, and by whom.

A channel is one Apprise URL (discord://…, tgram://…, matrixs://…, slack://…, ntfys://…,
jsons://…): Apprise (a well-kept library of ~130 services) knows each service's API and
formatting. Here: reading and checking a URL, adding, listing, removing and resuming channels,
and the masked form in which a URL is ever shown. Sending is pbem.mail.channels'.

A URL holds the service's secret (a webhook or bot token, an ntfy topic), so it is stored and
used and never shown back: everything that shows a channel shows `shown` (Apprise's privacy
form, every path part masked, no query). It never enters the game's log.

SSRF: a URL is refused when any host it would reach resolves to an address that is not global
(loopback, private, link-local, reserved: the service's own neighbours; an IPv6 address that
carries one of those in it, such as ::ffff:127.0.0.1 or the NAT64 64:ff9b::7f00:1, too), unless
PBEM_CHANNELS_ALLOW_PRIVATE (the tests' fakes listen on 127.0.0.1). Checked when the URL is
given, again before each send, and at the connection itself: while a channel's message is sent,
every connection resolves its host once, checks every address, and connects to a checked
address only (pbem.mail.channels._guard_connections), so a name that resolves to a public
address when checked and to 127.0.0.1 a moment later (DNS rebinding) reaches nothing inside.
"""

from __future__ import annotations

import ipaddress
import re
import socket
from urllib.parse import urlsplit

import apprise
from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils.translation import gettext as _

from pbem.models import Channel, ChannelStatus, Seat

# A player may keep this many channels (all their games' and each game's together).
MAX_PER_PLAYER = 5
SHOWN_LENGTH = 300


class BadChannel(Exception):
    """A URL that is not a channel we send to, said so that the player can fix it."""


class NotFound(BadChannel):
    """A host name that does not resolve now (a typo when given; an outage when sending)."""


def schemes() -> list[str]:
    return list(getattr(settings, "PBEM_CHANNEL_SCHEMES", DEFAULT_SCHEMES))


DEFAULT_SCHEMES = ("discord", "tgram", "matrix", "matrixs", "slack", "ntfy", "ntfys", "json", "jsons")


def plugin_for(url: str):
    """The Apprise plugin for `url`, or BadChannel saying why not."""
    url = (url or "").strip()
    scheme = url.split("://", 1)[0].lower() if "://" in url else ""
    if scheme not in schemes():
        raise BadChannel(
            _("That is not a channel address we send to; give one starting with %(kinds)s (Apprise's forms).")
            % {"kinds": ", ".join(f"{s}://" for s in schemes())}
        )
    plugin = apprise.Apprise.instantiate(url, suppress_exceptions=True)
    if plugin is None:
        raise BadChannel(_("The %(kind)s:// address is not complete or not valid.") % {"kind": scheme})
    return plugin


def masked(plugin) -> str:
    """The URL as it may be shown: Apprise's privacy form (passwords and tokens cut to their
    first and last letter), without its query, and every path part masked too (a JSON
    webhook's path or an ntfy topic is a secret Apprise leaves whole)."""
    parts = urlsplit(plugin.url(privacy=True))
    path = "/".join(_mask_part(p) for p in parts.path.split("/"))
    host = parts.netloc
    if "@" in host:  # user:****@host: the user name may be a token too (matrix://TOKEN@host)
        who, host = host.rsplit("@", 1)
        host = f"{_mask_part(who.split(':', 1)[0])}{':****' if ':' in who else ''}@{host}"
    if getattr(plugin, "mode", None) == "cloud" or not _host_bearing(plugin):
        host = _mask_part(host)
    return f"{parts.scheme}://{host}{path}".rstrip("/").replace("...", "…")[:SHOWN_LENGTH]


def _mask_part(part: str) -> str:
    if "..." in part or len(part) <= 2:
        return part
    return f"{part[0]}…{part[-1]}"


def _host_bearing(plugin) -> bool:
    """Whether the URL names the host it reaches (ntfys://host/topic), rather than a service's
    fixed one (discord://ID/TOKEN goes to discord.com)."""
    return any("{host}" in template for template in getattr(plugin, "templates", ()))


def destinations(plugin) -> set[str]:
    """Every host name the plugin may reach: the URL's own host where the URL names one
    (ntfys://host/topic), else the service's API bases (class attributes such as Discord's
    notify_url, ntfy's cloud_notify_url)."""
    if _host_bearing(plugin) and getattr(plugin, "mode", None) != "cloud" and getattr(plugin, "host", None):
        return {str(plugin.host)}
    hosts = set()
    for klass in type(plugin).__mro__:
        if klass.__name__ in ("NotifyBase", "URLBase", "object"):
            break
        for name, value in vars(klass).items():
            if name.endswith("_url") and name not in ("service_url", "setup_url") and isinstance(value, str):
                if value.startswith(("http://", "https://")) and urlsplit(value).hostname:
                    hosts.add(str(urlsplit(value).hostname))
    return hosts


def check_reachable(plugin) -> None:
    """BadChannel when a host the plugin would reach resolves to an address that is not global
    (the SSRF guard), unless PBEM_CHANNELS_ALLOW_PRIVATE."""
    if private_allowed():
        return
    for host in destinations(plugin):
        checked_addresses(host)


def private_allowed() -> bool:
    return bool(getattr(settings, "PBEM_CHANNELS_ALLOW_PRIVATE", False))


def checked_addresses(host: str, port: int | None = None) -> list[str]:
    """The addresses `host` resolves to now, resolved once, each of them public: what a
    connection to `host` may use (and nothing else: a second lookup could answer otherwise).
    NotFound when it does not resolve, BadChannel when any address is not public."""
    try:
        infos = socket.getaddrinfo(host.strip("[]"), port, proto=socket.IPPROTO_TCP)
    except OSError:
        raise NotFound(_("The host %(host)s cannot be found.") % {"host": host}) from None
    found = list(dict.fromkeys(str(info[4][0]).split("%", 1)[0] for info in infos))
    if not found:
        raise NotFound(_("The host %(host)s cannot be found.") % {"host": host})
    for address in found:
        if not public(address):
            raise BadChannel(
                _("The host %(host)s is not on the public internet: channels may only reach public services.")
                % {"host": host}
            )
    return found


# NAT64's well-known prefix: 64:ff9b::a.b.c.d reaches the IPv4 address a.b.c.d through a
# translator, and Python calls every such address global whatever the IPv4 one is.
NAT64 = ipaddress.ip_network("64:ff9b::/96")


def public(address: str) -> bool:
    """Whether an address is on the public internet, and so is any IPv4 address it carries
    (an IPv4-mapped, 6to4, Teredo or NAT64 IPv6 address reaches that one)."""
    ip = ipaddress.ip_address(address)
    if not ip.is_global:
        return False
    if isinstance(ip, ipaddress.IPv6Address):
        carried = [ip.ipv4_mapped, ip.sixtofour, ip.teredo[1] if ip.teredo else None]
        if ip in NAT64:
            carried.append(ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF))
        return all(inner is None or inner.is_global for inner in carried)
    return True


def read(url: str):
    """(plugin, kind, shown) of a URL we may send to, or BadChannel."""
    plugin = plugin_for(url)
    check_reachable(plugin)
    return plugin, url.strip().split("://", 1)[0].lower(), masked(plugin)


def player_channels(email: str, game_id: int | None = None):
    """The player's own channels: those for all their games, and those for `game_id`."""
    rows = Channel.objects.filter(email=email.strip().lower(), table=False)
    if game_id is not None:
        return rows.filter(Q(game__isnull=True) | Q(game_id=game_id))
    return rows


def table_channel(game_id: int) -> Channel | None:
    return Channel.objects.filter(game_id=game_id, table=True).first()


def add(email: str, url: str, game_id: int | None) -> Channel:
    """A channel of the player at `email`, for one game or (None) all their games."""
    email = email.strip().lower()
    if not email:
        raise BadChannel(_("This seat has no address: it has no channels either."))
    plugin, kind, shown = read(url)
    with transaction.atomic():
        if Channel.objects.select_for_update().filter(email=email, table=False).count() >= MAX_PER_PLAYER:
            raise BadChannel(
                _("You have %(count)d channels already, the most one player may have: remove one first.")
                % {"count": MAX_PER_PLAYER}
            )
        return Channel.objects.create(email=email, game_id=game_id, url=url.strip(), kind=kind, shown=shown)


def set_table(game_id: int, url: str | None) -> Channel | None:
    """The table's shared channel (one a game; None removes it): its public news only."""
    with transaction.atomic():
        Channel.objects.filter(game_id=game_id, table=True).delete()
        if not url:
            return None
        _plugin, kind, shown = read(url)
        return Channel.objects.create(game_id=game_id, table=True, url=url.strip(), kind=kind, shown=shown)


def is_owner(seat: Seat) -> bool:
    """The game's owner: the player of its first seat, who made it (invitations name them so)."""
    first = Seat.objects.filter(game_id=seat.game_id).order_by("number").values_list("email", flat=True).first()
    return bool(first) and str(first).lower() == seat.email.lower()


def numbered(email: str, game_id: int) -> list[Channel]:
    """The player's channels as their list numbers them (1, 2, …): all their own, oldest first."""
    return list(player_channels(email).order_by("id"))


def pick(email: str, game_id: int, number: str) -> Channel:
    rows = numbered(email, game_id)
    if not re.fullmatch(r"\d{1,3}", number or "") or not 1 <= int(number) <= len(rows):
        raise BadChannel(
            _("There is no channel %(number)s: you have %(count)d (see 'channels').")
            % {"number": number, "count": len(rows)}
        )
    return rows[int(number) - 1]


def remove(channel: Channel) -> None:
    Channel.objects.filter(pk=channel.pk).delete()


def resume(channel: Channel) -> None:
    """A paused channel is tried again (its failures forgotten)."""
    Channel.objects.filter(pk=channel.pk).update(
        status=ChannelStatus.ACTIVE, failures=0, failing_since=None, last_error=""
    )


def describe(channel: Channel, game_titles: dict[int, str] | None = None) -> str:
    """One line of the list: the masked URL, for which games, and how it fares."""
    scope = (
        _("all your games")
        if channel.game_id is None
        else _("game #%(game)s") % {"game": channel.game_id}
        if not channel.table
        else _("the table of game #%(game)s") % {"game": channel.game_id}
    )
    state = _("active")
    if channel.status == ChannelStatus.PAUSED:
        state = _("paused after %(count)d failures: %(error)s") % {
            "count": channel.failures,
            "error": channel.last_error,
        }
    elif channel.failures:
        state = _("failing (%(count)d in a row): %(error)s") % {"count": channel.failures, "error": channel.last_error}
    return f"{channel.shown} ({scope}; {state})"


def listing(email: str, game_id: int) -> list[str]:
    return [f"{n}. {describe(c)}" for n, c in enumerate(numbered(email, game_id), start=1)]
