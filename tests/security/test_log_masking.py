"""Tokens in logs: a seat token is a full credential, and the log at its default level used to
carry it ("Too Many Requests: /play/7-1-…/"). Every log record is masked as it is made."""

from __future__ import annotations

import io
import logging

import pytest

from pbem.mail import outbound
from pbem.ops import logmask
from pbem.play import addressing

pytestmark = pytest.mark.django_db


@pytest.fixture
def log_text():
    """What the service's log shows at its default level, through a handler like the console's."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logging.Formatter("%(levelname)s %(name)s %(message)s"))
    logging.getLogger().addHandler(handler)
    yield stream
    logging.getLogger().removeHandler(handler)


def test_seat_tokens_in_paths_addresses_and_messages_never_reach_the_log(client, duel, settings, log_text):
    game, seats, tokens = duel
    settings.PBEM_RATE_SUBMIT = (1, 60)
    client.post(f"/play/{tokens[0]}/", {"text": "help", "expected_version": game.version})
    assert client.post(f"/play/{tokens[0]}/", {"text": "help", "expected_version": game.version}).status_code == 429
    assert client.get(f"/play/{tokens[1]}/nowhere/").status_code == 404
    logging.getLogger("pbem.test").warning("mail for %s could not be read", addressing.reply_address(seats[1]))
    try:
        raise ValueError(f"a failure quoting {tokens[0]} and {outbound.bounce_address(seats[0].notices.first())}")
    except ValueError:
        logging.getLogger("pbem.test").exception("something failed")
    text = log_text.getvalue()
    assert "Too Many Requests" in text and "Not Found" in text and "ValueError" in text  # it did log
    for token in tokens:
        assert token not in text.lower()
    assert f"{seats[0].pk}-1-<masked>" in text and "bounces+n" in text


def test_the_mask_keeps_the_seat_id_and_hides_every_signed_part():
    text = "GET /play/12-3-abcdefghijklmnop/ play+7-1-ABCDEFGHIJKLMNOP@x bounces+n99-abcdefgh@x [12-abcdef]"
    assert logmask.mask(text) == ("GET /play/12-3-<masked>/ play+7-1-<masked>@x bounces+n99-<masked>@x [12-<masked>]")
