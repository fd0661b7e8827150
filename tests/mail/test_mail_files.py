"""The embedded run's outgoing mail (pbem/mail/filebased.py): one .eml per message, named so a
newcomer finds the one to Alice about her turn without opening them all."""

from __future__ import annotations

import email
import email.policy

from django.core.mail import EmailMessage, get_connection


def test_each_message_is_its_own_eml_file_named_by_recipient_and_subject(tmp_path, settings):
    settings.EMAIL_BACKEND = "pbem.mail.filebased.EmailBackend"
    settings.EMAIL_FILE_PATH = str(tmp_path / "mail")
    messages = [
        EmailMessage("Your turn in Dice Duel", "play a card", "seals@pbem.localhost", ["alice@example.org"]),
        EmailMessage("Your turn in Dice Duel", "play a card", "seals@pbem.localhost", ["alice@example.org"]),
        EmailMessage("Bob's news: Zauberschwert / ü?", "news", "seals@pbem.localhost", ["bob+x@example.org"]),
    ]
    with get_connection() as connection:  # one connection, as the sender sends a batch
        assert connection.send_messages(messages) == 3
    files = sorted((tmp_path / "mail").iterdir())
    assert len(files) == 3 and all(path.suffix == ".eml" for path in files)
    names = [path.name for path in files]
    assert (
        sum(
            name.endswith("-alice@example.org-Your-turn-in-Dice-Duel.eml")
            or "-alice@example.org-Your-turn-in-Dice-Duel-" in name
            for name in names
        )
        == 2
    )
    assert any(name.endswith("-bob+x@example.org-Bob-s-news-Zauberschwert-u.eml") for name in names), names
    for path in files:  # each file is one whole message a mail client opens
        parsed = email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
        assert parsed["Subject"] and len(parsed.get_all("Message-ID")) == 1
