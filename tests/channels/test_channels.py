"""A player's other channels, each kind told through Apprise against a local fake of its
endpoint (tests/channels/fake.py: HTTP on 127.0.0.1, a free port).

Where the URL names its host (ntfy, Matrix, the JSON webhook), the URL points at the fake. Where
the service's host is fixed (Discord, Telegram, Slack), the Apprise plugin's API base (a class
attribute: NotifyDiscord.notify_url, NotifyTelegram.notify_url, NotifySlack.webhook_url) is
pointed at the fake for the test, so the plugin's own formatting is what the fake receives."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from apprise.plugins.discord import NotifyDiscord
from apprise.plugins.slack import NotifySlack
from apprise.plugins.telegram import NotifyTelegram
from django.utils import timezone

from pbem.mail import channels as news
from pbem.mail import sending
from pbem.models import Channel, ChannelMessage, Notice, NoticeStatus, Seat
from pbem.play import addressing, services
from pbem.play import channels as settings_of
from tests.conftest import deliver

from .fake import FakeService


@pytest.fixture
def fake(monkeypatch):
    service = FakeService()
    monkeypatch.setattr(NotifyDiscord, "notify_url", f"{service.base}/api/webhooks")
    monkeypatch.setattr(NotifyTelegram, "notify_url", f"{service.base}/bot")
    monkeypatch.setattr(NotifySlack, "webhook_url", f"{service.base}/services")
    yield service
    service.stop()


def urls(port: int) -> dict[str, str]:
    return {
        "discord": "discord://1234567/abcdefDISCORDsecret",
        "tgram": "tgram://123456789:ABCdefGHIjklMNOpqr/987654",
        "slack": "slack://T1JJ3T3L2/A1BRTD4JD/TIiajkdnlazkcOXrIdevi7",
        "ntfy": f"ntfy://127.0.0.1:{port}/pbem-alice-topic-secret",
        "matrix": f"matrix://pbem:matrixpw@127.0.0.1:{port}/#room?discovery=no",
        "json": f"json://127.0.0.1:{port}/hook/jsonSECRETpath",
    }


def what_the_service_got(kind: str, requests) -> str:
    """The text the service was given, read as each service's API carries it."""
    last = requests[-1]
    body = last.json()
    if kind == "discord":
        assert last.path == "/api/webhooks/1234567/abcdefDISCORDsecret"
        return body["content"]
    if kind == "tgram":
        assert last.path == "/bot123456789:ABCdefGHIjklMNOpqr/sendMessage" and body["chat_id"] == 987654
        return body["text"]
    if kind == "slack":
        assert last.path == "/services/T1JJ3T3L2/A1BRTD4JD/TIiajkdnlazkcOXrIdevi7"
        return body["attachments"][0]["title"] + "\n" + body["attachments"][0]["text"]
    if kind == "ntfy":
        assert body["topic"] == "pbem-alice-topic-secret"
        return body["title"] + "\n" + body["message"]
    if kind == "matrix":  # log in, join the room, send, log out
        sent = [r for r in requests if "/send/m.room.message/" in r.path and r.method == "PUT"]
        assert len(sent) == 1 and requests[0].path.endswith("/login")
        return sent[0].json()["body"]
    assert last.path == "/hook/jsonSECRETpath"
    return body["title"] + "\n" + body["message"]


TOKEN = re.compile(r"\d+-\d+-[a-z2-7]{16}")


@pytest.mark.parametrize("kind", ["discord", "tgram", "slack", "ntfy", "matrix", "json"])
def test_each_kind_tells_the_player_their_move_with_their_own_link_only(make_game, fake, kind, mailoutbox):
    game = make_game(2)
    url = urls(fake.port)[kind]
    outcome = services.submit(game.pk, 0, f"channel add {url}")
    assert outcome.events == 0 and len(outcome.applied) == 1
    assert url not in outcome.applied[0] and "secret" not in outcome.applied[0].lower()
    assert deliver(game) == {"sent": 2}  # the mail goes out first, as ever
    assert news.send_pending() == {"sent": 1}
    text = what_the_service_got(kind, fake.wait_for(1))
    alice, bob = Seat.objects.filter(game=game).order_by("number")
    assert "Your move" in text and f"#{game.pk}" in text
    assert addressing.seat_url(alice) in text
    assert TOKEN.findall(text) == [addressing.token_for(alice)]  # Bob's secret never
    assert addressing.reply_address(alice) not in text  # nor the reply address, nor the board
    assert {n.status for n in Notice.objects.filter(game=game)} == {NoticeStatus.SENT}


def test_a_player_reads_their_channel_and_its_failure_in_their_language(make_game, fake, mailoutbox):
    game = make_game(2)
    Seat.objects.filter(game=game, number=0).update(language="de")
    settings_of.add("alice@example.org", urls(fake.port)["json"], None)
    assert deliver(game) == {"sent": 2}
    message = ChannelMessage.objects.get()
    alice = Seat.objects.get(game=game, number=0)
    assert message.title == f"Dein Zug: {game.title or game.kind} #{game.pk}"
    assert f"Deine Spielerseite: {addressing.seat_url(alice)}" in message.body
    assert "Deine Frist: " in message.body and "Your" not in message.body
    news.channel_failed(Channel.objects.get(), message, "HTTP 500")
    told = Notice.objects.get(kind="channel")
    assert told.context["text"].startswith("Eine Nachricht an deinen Kanal ")


def test_a_failing_channel_is_retried_with_backoff_then_reported_and_paused_mail_untouched(
    make_game, fake, monkeypatch, settings, mailoutbox
):
    game = make_game(2)
    settings_of.add("alice@example.org", urls(fake.port)["json"], None)  # all her games
    fake.status = 500
    assert deliver(game) == {"sent": 2}
    mailed = set(Notice.objects.filter(game=game).values_list("id", "status"))
    now = timezone.now()
    for attempt in range(1, news.MAX_ATTEMPTS + 1):
        monkeypatch.setattr(news.timezone, "now", lambda at=now: at)
        assert news.send_pending() == ({"retry": 1} if attempt < news.MAX_ATTEMPTS else {"failed": 1})
        assert news.send_pending() == {}  # not due again before its backoff
        now += news.backoff(attempt) + timedelta(seconds=1)
    assert len(fake.wait_for(news.MAX_ATTEMPTS)) == news.MAX_ATTEMPTS  # each attempt reached the fake
    channel = Channel.objects.get()
    assert channel.failures == 1 and channel.status == "active" and "500" in channel.last_error
    assert "SECRET" not in channel.last_error and "hook" not in channel.last_error
    told = Notice.objects.get(kind="channel")
    assert told.seat.number == 0 and "could not be delivered" in told.context["text"]
    # Two more messages fail: the channel is paused, and she is told again.
    for _second_and_third in (2, 3):
        ChannelMessage.objects.create(channel=channel, kind="turn", title="t", body="b", attempts=news.MAX_ATTEMPTS - 1)
        assert news.send_pending() == {"failed": 1}
    channel.refresh_from_db()
    assert channel.status == "paused" and channel.failures == news.PAUSE_AFTER
    assert Notice.objects.filter(kind="channel").count() == 2
    assert "paused" in Notice.objects.filter(kind="channel").last().context["text"]
    ChannelMessage.objects.create(channel=channel, kind="turn", title="t", body="b")
    before = len(fake.requests)
    assert news.send_pending() == {"skipped": 1} and len(fake.requests) == before  # paused: nothing sent
    # The mail was never touched: every game notice as it was, and the reports go out by mail.
    assert mailed <= set(Notice.objects.filter(game=game).values_list("id", "status"))
    assert sending.send_pending(None) == {"sent": 2}
    assert [m.to for m in mailoutbox[-2:]] == [["alice@example.org"]] * 2
    assert "Your other channel failed" in mailoutbox[-1].subject
    # Tried again from the seat page's button (or 'channel resume 1'): sent once the service is back.
    fake.status = 200
    services.submit(game.pk, 0, "channel resume 1")
    ChannelMessage.objects.create(channel=channel, kind="turn", title="t", body="b")
    assert news.send_pending() == {"sent": 1}
    channel.refresh_from_db()
    assert channel.status == "active" and channel.failures == 0


def test_a_service_that_does_not_answer_times_out_and_is_retried(make_game, fake, settings):
    settings.PBEM_CHANNEL_TIMEOUT = 0.5
    make_game(2)
    channel = settings_of.add("alice@example.org", urls(fake.port)["ntfy"], None)
    fake.hanging = True
    ChannelMessage.objects.create(channel=channel, kind="turn", title="t", body="b")
    assert news.send_pending() == {"retry": 1}
    message = ChannelMessage.objects.get()
    assert message.status == "pending" and message.next_attempt_at > timezone.now()
    assert "pbem-alice-topic-secret" not in message.last_error


def test_the_table_channel_gets_public_news_without_any_link_or_token(make_game, fake, mailoutbox):
    game = make_game(2)
    refused = services.submit
    with pytest.raises(services.CommandRejected, match="owner"):
        refused(game.pk, 1, f"channel table {urls(fake.port)['discord']}")
    services.submit(game.pk, 0, f"channel table {urls(fake.port)['discord']}")
    assert deliver(game) == {"sent": 2}
    assert news.send_pending() == {"sent": 2}  # Alice's move, Bob's move: one each
    said = [r.json()["content"] for r in fake.wait_for(2)]
    assert sorted(said) == sorted(
        f"{game.title} #{game.pk}\r\n{game.title} #{game.pk}: {n}'s move." for n in ("Alice", "Bob")
    )
    for text in said:
        assert not TOKEN.search(text) and "/play/" not in text and "@" not in text


def test_ssrf_a_channel_may_not_reach_private_addresses(make_game, settings, fake):
    settings.PBEM_CHANNELS_ALLOW_PRIVATE = False
    game = make_game(2)
    for url in (
        f"json://127.0.0.1:{fake.port}/x",
        "json://10.1.2.3/x",
        "jsons://[::1]:8443/x",
        "ntfy://localhost/topic",
        "json://169.254.169.254/latest/meta-data",
        "matrixs://u:p@192.168.1.5/#room",
        "discord://1/abcdefgh",  # its API base is pointed at the fake on 127.0.0.1 here
    ):
        with pytest.raises(services.CommandRejected, match="not on the public internet"):
            services.submit(game.pk, 0, f"channel add {url}")
    assert not Channel.objects.exists()
    # One stored while allowed (a setting changed, a name that resolves elsewhere now): refused
    # at the send too, for good, and the fake never hears of it.
    channel = Channel.objects.create(email="alice@example.org", url=f"json://127.0.0.1:{fake.port}/x", kind="json")
    ChannelMessage.objects.create(channel=channel, kind="turn", title="t", body="b")
    assert news.send_pending() == {"failed": 1} and fake.requests == []


def test_ssrf_a_redirect_is_not_followed(make_game, fake):
    """A service answering with a redirect to an internal address is not followed there."""
    inside = FakeService()  # stands for an internal service
    try:
        fake.redirect_to = f"{inside.base}/internal"
        channel = settings_of.add("alice@example.org", urls(fake.port)["json"], None)
        ChannelMessage.objects.create(channel=channel, kind="turn", title="t", body="b")
        assert news.send_pending() == {"retry": 1}
        assert len(fake.requests) == 1 and inside.requests == []
    finally:
        inside.stop()


def test_a_bad_url_is_refused_clearly_and_never_said_back(make_game):
    game = make_game(2)
    with pytest.raises(services.CommandRejected) as refused:
        services.submit(game.pk, 0, "channel add gopher://secret-host/TOKENVALUE")
    assert "discord://" in str(refused.value) and "TOKENVALUE" not in refused.value.line
    with pytest.raises(services.CommandRejected, match="not complete or not valid"):
        services.submit(game.pk, 0, "channel add tgram://TOKENVALUE")
    with pytest.raises(services.CommandRejected, match="no channel 3"):
        services.submit(game.pk, 0, "channel remove 3")
    assert not Channel.objects.exists()


def test_the_url_is_never_shown_back_logged_or_in_a_public_feed(make_game, fake, client, caplog, quiet_limits):
    caplog.set_level("DEBUG")
    game = make_game(2)
    url = urls(fake.port)["discord"]
    services.submit(game.pk, 0, f"channel add {url} all")
    listing = services.submit(game.pk, 0, "channels").answers[0]
    assert "1. discord://" in listing and "all your games" in listing and "DISCORDsecret" not in listing
    deliver(game)
    news.send_pending()
    assert fake.wait_for(1)
    alice = Seat.objects.get(game=game, number=0)
    page = client.get(f"/play/{addressing.token_for(alice)}/").content.decode()
    assert 'id="channels"' in page and "discord://" in page and "DISCORDsecret" not in page
    api = client.get(f"/api/games/{game.pk}/channels", HTTP_X_SEAT_TOKEN=addressing.token_for(alice)).json()
    assert api["channels"][0]["games"] == "all" and "DISCORDsecret" not in str(api)
    for public in (f"/games/{game.pk}/", f"/games/{game.pk}/audit/", "/heads.json", f"/api/games/{game.pk}"):
        assert "DISCORDsecret" not in client.get(public).content.decode()
    assert "DISCORDsecret" not in caplog.text and "abcdefDISCORD" not in caplog.text
    # A JSON webhook's secret is its path, which no pattern knows: Apprise's own log of the
    # request it makes is scrubbed of the channel's parts while it sends.
    hook = settings_of.add("bob@example.org", urls(fake.port)["json"], None)
    ChannelMessage.objects.create(channel=hook, kind="turn", title="t", body="b")
    assert news.send_pending() == {"sent": 1}
    assert "jsonSECRETpath" not in caplog.text and "apprise" in caplog.text
    assert all("DISCORDsecret" not in str(n.context) for n in Notice.objects.all())


def test_channels_by_api_add_list_remove_and_the_owners_table(make_game, fake, client, quiet_limits):
    game = make_game(2)
    alice, bob = (addressing.token_for(s) for s in Seat.objects.filter(game=game).order_by("number"))
    added = client.post(
        f"/api/games/{game.pk}/channels",
        {"url": urls(fake.port)["tgram"], "all_games": False},
        content_type="application/json",
        HTTP_X_SEAT_TOKEN=alice,
    )
    assert added.status_code == 200, added.content
    assert added.json()["channels"][0]["kind"] == "tgram" and "ABCdef" not in added.content.decode()
    bad = client.post(
        f"/api/games/{game.pk}/channels",
        {"url": "http://example.org/"},
        content_type="application/json",
        HTTP_X_SEAT_TOKEN=alice,
    )
    assert bad.status_code == 422 and bad.json()["code"] == "bad_channel"
    table = {"url": urls(fake.port)["ntfy"]}
    assert (
        client.put(
            f"/api/games/{game.pk}/table-channel", table, content_type="application/json", HTTP_X_SEAT_TOKEN=bob
        ).status_code
        == 403
    )
    owner = client.put(
        f"/api/games/{game.pk}/table-channel", table, content_type="application/json", HTTP_X_SEAT_TOKEN=alice
    )
    assert owner.status_code == 200 and owner.json()["table"].startswith("ntfy")
    assert "alice-topic" not in owner.content.decode()
    gone = client.delete(f"/api/games/{game.pk}/channels/1", HTTP_X_SEAT_TOKEN=alice)
    assert gone.status_code == 200 and gone.json()["channels"] == []
    assert client.get(f"/api/games/{game.pk}/channels", HTTP_X_SEAT_TOKEN=bob).json()["channels"] == []


def test_channels_on_the_seat_page(make_game, fake, client, quiet_limits):
    game = make_game(2)
    alice = addressing.token_for(Seat.objects.get(game=game, number=0))
    here = f"/play/{alice}/channels"
    answer = client.post(here, {"action": "add", "url": urls(fake.port)["slack"], "all": "1"}, follow=True)
    page = answer.content.decode()
    assert "Channel added: slack://" in page and "TIiajkdnlazkcOXrIdevi7" not in page
    assert Channel.objects.get().game_id is None
    refused = client.post(here, {"action": "add", "url": "slack://"}, follow=True).content.decode()
    assert "not complete or not valid" in refused
    client.post(here, {"action": "remove", "number": "1"})
    assert not Channel.objects.exists()


def test_the_process_log_masks_channel_urls():
    """The log masks channel URLs and what Apprise logs of its requests."""
    from pbem.ops import logmask

    assert logmask.mask("sending to discord://1234/abcdef now") == "sending to discord://<masked> now"
    assert "abcdef" not in logmask.mask("POST https://discord.com/api/webhooks/1234/abcdef")
    assert "ABCdef" not in logmask.mask("https://api.telegram.org/bot123:ABCdef-x/sendMessage")


def test_the_log_never_holds_a_channel(make_game, fake):
    game = make_game(2)
    before = game.events.count()
    services.submit(game.pk, 0, f"channel add {urls(fake.port)['json']}")
    assert game.events.count() == before


def test_by_mail_the_answer_names_the_channel_masked_and_the_mail_goes_on(make_game, fake, mailoutbox):
    from tests.mail.conftest import deliver as receive
    from tests.mail.conftest import send_all
    from tests.mail.replies import reply
    from tests.mail.test_replies import received, text_of

    make_game(2)
    send_all()
    url = urls(fake.port)["tgram"]
    message = receive(reply("gmail", received(mailoutbox, "alice@example.org"), f"channel add {url} all"))
    assert message.status == "answered", message.outcome  # nothing in the game changed
    assert "ABCdefGHIjklMNOpqr" not in message.outcome and "tgram://" in message.outcome
    send_all()
    answer = text_of(received(mailoutbox, "alice@example.org", "answer"))
    assert "channel add tgram://" in answer and "ABCdefGHIjklMNOpqr" not in answer
    channel = Channel.objects.get()
    assert channel.game_id is None and channel.url == url and channel.email == "alice@example.org"
    listing = receive(reply("gmail", received(mailoutbox, "alice@example.org"), "channels"))
    assert "1. tgram://" in listing.outcome and "ABCdefGHIjklMNOpqr" not in listing.outcome


@pytest.mark.parametrize(
    "languages,table_says",
    [
        (("fr", "de", "de"), " ist am Zug."),  # most seats read German
        (("fr", "de", "en"), "\xa0: à Alice de jouer."),  # one each: the earliest seat's (the owner's) French
        (("", "", "fr"), "'s move."),  # never chosen is English: two of three
    ],
)
def test_the_table_channel_speaks_the_language_most_of_its_seats_read(make_game, fake, languages, table_says):
    game = make_game(3)
    for number, code in enumerate(languages):
        Seat.objects.filter(game=game, number=number).update(language=code)
    services.submit(game.pk, 0, f"channel table {urls(fake.port)['discord']}")
    deliver(game)
    news.send_pending()
    said = fake.wait_for(1)[0].json()["content"]
    assert said.endswith(table_says), said


def test_the_master_of_seals_reads_the_operators_language(make_game, settings):
    """The desk's mails are in PBEM_MASTER_LANGUAGE, whatever the players read."""
    from pbem.mail import outbound

    game = make_game(2)
    settings.PBEM_MASTER_EMAIL = "master@example.org"
    notice = Notice.objects.create(game=game, kind="overdue", version=game.version, context={"seat": 1})
    assert outbound.render(notice).text.startswith("Master of Seals,")
    settings.PBEM_MASTER_LANGUAGE = "de"
    rendered = outbound.render(notice)
    assert rendered.text.startswith("Siegelbewahrer,") and "hat die Frist in" in rendered.text
    assert rendered.subject.startswith("[Siegelbewahrer]")
    settings.PBEM_MASTER_LANGUAGE = "fr"
    assert outbound.render(notice).text.startswith("Garde des Sceaux,")
