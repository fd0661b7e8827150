"""DNS rebinding against the channels' SSRF guard: a name that is public when checked and
internal when the message is sent must reach nothing inside.

The resolver is faked (socket.getaddrinfo, which the guard and urllib3 both call): each name
answers from a script, one answer a lookup, so a test says exactly what the name says at the
add, at the check before the send and at the connection. The internal service is a local fake
on 127.0.0.1; a "public" answer is a documentation-range address nobody connects to here (the
connector is recorded instead, where a test lets the connection go that far)."""

from __future__ import annotations

import socket

import pytest

from pbem.mail import channels as news
from pbem.models import Channel, ChannelMessage
from pbem.play import channels

from .fake import FakeService

PUBLIC = "93.184.215.14"  # a public address (example.com's); never really connected to here
NAME = "hooks.rebind.example"


class Resolver:
    """getaddrinfo with a script per name: each lookup of `NAME` takes the next answer (the last
    one repeats); IP literals and every other name resolve as they really do."""

    def __init__(self, monkeypatch, *answers: list[str]):
        self.answers = list(answers)
        self.lookups: list[list[str]] = []
        self.real = socket.getaddrinfo
        monkeypatch.setattr(socket, "getaddrinfo", self)

    def __call__(self, host, port, family=0, type=0, proto=0, flags=0):
        if host != NAME:
            return self.real(host, port, family, type, proto, flags)
        answer = self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]
        self.lookups.append(answer)
        return [
            (
                socket.AF_INET6 if ":" in address else socket.AF_INET,
                socket.SOCK_STREAM,
                socket.IPPROTO_TCP,
                "",
                (address, port or 0) if ":" not in address else (address, port or 0, 0, 0),
            )
            for address in answer
        ]


@pytest.fixture
def inside(db, settings):
    """The service's neighbour a rebinding would reach: a local fake, the guard on."""
    settings.PBEM_CHANNELS_ALLOW_PRIVATE = False
    settings.PBEM_CHANNEL_TIMEOUT = 2
    service = FakeService()
    yield service
    service.stop()


def added(port: int) -> Channel:
    """A JSON webhook channel by name, added while the name resolves to a public address."""
    return channels.add("alice@example.org", f"json://{NAME}:{port}/hook/jsonSECRET", None)


def send(channel: Channel) -> dict:
    ChannelMessage.objects.create(channel=channel, kind="turn", title="Your move", body="b")
    return news.send_pending()


def test_rebinding_public_when_added_then_loopback_when_sent(inside, monkeypatch):
    resolver = Resolver(monkeypatch, [PUBLIC], ["127.0.0.1"])
    channel = added(inside.port)
    assert resolver.lookups == [[PUBLIC]]  # checked at the add, and taken
    assert send(channel) == {"failed": 1}
    assert inside.requests == []
    message = ChannelMessage.objects.get()
    assert "not on the public internet" in message.last_error


def test_rebinding_between_the_check_before_sending_and_the_connection(inside, monkeypatch):
    """Public at the add and at the check before the send; 127.0.0.1 from the next lookup on,
    the one a connection that resolved the name again would make."""
    resolver = Resolver(monkeypatch, [PUBLIC], [PUBLIC], ["127.0.0.1"])
    channel = added(inside.port)
    assert send(channel) == {"failed": 1}
    assert inside.requests == []  # the connection resolved, checked and refused
    assert resolver.lookups == [[PUBLIC], [PUBLIC], ["127.0.0.1"]]
    assert Channel.objects.get().failures == 1


def test_rebinding_after_the_connections_own_check_reaches_only_the_checked_address(inside, monkeypatch):
    """The connection resolves once and connects to the address it checked: a lookup after
    that (which would answer 127.0.0.1) is never made, and the name is never handed on."""
    resolver = Resolver(monkeypatch, [PUBLIC], [PUBLIC], [PUBLIC], ["127.0.0.1"])
    connected: list[tuple] = []

    def connector(address, *args, **kwargs):
        connected.append(address)
        raise ConnectionRefusedError("the public address is not reached in a test")

    monkeypatch.setattr(news, "_connect", connector)
    channel = added(inside.port)
    assert send(channel) == {"retry": 1}  # a refused connection is a failure like any: retried
    assert connected and all(address == (PUBLIC, inside.port) for address in connected)
    assert ["127.0.0.1"] not in resolver.lookups and inside.requests == []


def test_rebinding_to_an_answer_mixing_a_public_and_a_loopback_address(inside, monkeypatch):
    Resolver(monkeypatch, [PUBLIC], [PUBLIC], [PUBLIC, "127.0.0.1"])
    channel = added(inside.port)
    assert send(channel) == {"failed": 1} and inside.requests == []


@pytest.mark.parametrize(
    "inner",
    ["::ffff:127.0.0.1", "64:ff9b::7f00:1", "2002:7f00:1::1", "::1", "0.0.0.0", "169.254.169.254", "10.0.0.7"],
)
def test_rebinding_to_an_internal_address_in_another_form(inside, monkeypatch, inner):
    """An IPv4-mapped, NAT64 or 6to4 address carrying 127.0.0.1, and the other internal ranges."""
    Resolver(monkeypatch, [PUBLIC], [inner])
    channel = added(inside.port)
    assert send(channel) == {"failed": 1} and inside.requests == []
    with pytest.raises(channels.BadChannel, match="not on the public internet"):
        channels.add("bob@example.org", f"json://{NAME}:{inside.port}/x", None)  # and at the add, too


def test_a_public_name_still_reaches_its_service_with_the_guard_on(inside, monkeypatch):
    """The guard takes nothing from an honest service: here the 'public' answer is pointed at
    the fake (the check is told 127.0.0.1 is public for this test only)."""
    Resolver(monkeypatch, ["127.0.0.1"])
    monkeypatch.setattr(channels, "public", lambda address: True)
    channel = added(inside.port)
    assert send(channel) == {"sent": 1}
    assert len(inside.requests) == 1 and inside.requests[0].path == "/hook/jsonSECRET"
