"""The desk sets a table's shared channel: the URL written, checked, and never shown back."""

from __future__ import annotations

from pbem.models import Channel


def test_a_master_sets_the_table_channel_of_their_game_only(client, master, game, foreign_game, settings):
    client.force_login(master)
    url = "ntfys://ntfy.example.org/morgans-secret-topic"
    answer = client.post("/admin/pbem/channel/add/", {"game": game.pk, "url": url})
    assert answer.status_code == 302, answer.content.decode()[:2000]
    channel = Channel.objects.get()
    assert (channel.game_id, channel.table, channel.url) == (game.pk, True, url)
    listed = client.get("/admin/pbem/channel/").content.decode()
    assert "ntfys://ntfy.example.org/m…c" in listed and "morgans-secret-topic" not in listed
    assert "morgans-secret-topic" not in client.get(f"/admin/pbem/channel/{channel.pk}/change/").content.decode()
    refused = client.post("/admin/pbem/channel/add/", {"game": foreign_game.pk, "url": url})
    assert refused.status_code in (200, 403) and Channel.objects.filter(game=foreign_game).count() == 0
    bad = client.post("/admin/pbem/channel/add/", {"game": game.pk, "url": "gopher://x"})
    assert bad.status_code == 200 and "not a channel address" in bad.content.decode()
