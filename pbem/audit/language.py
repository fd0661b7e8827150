"""The offline verifier's words in the reader's language (issue 33), with no Django.

`python -m pbem.verify` runs on a player's machine with nothing but Python installed, so it
cannot ask Django for a translation. Its texts are the platform's all the same: marked `_("…")`
(or `gettext_noop("…")` for a text kept aside and said later), makemessages finds them in
pbem/locale/<lang>/LC_MESSAGES/django.po beside every other string, and they are read from the
compiled django.mo by the standard library's gettext, through games/i18n.py's Catalogue, in the
language of `games.i18n.using(language)` around the call (English by default). Texts keep
str.format fields ("event {seq}: …"), so a translation may order them as its language needs.
"""

from __future__ import annotations

from pathlib import Path

from games.i18n import Catalogue

# The platform's catalogue (pbem/locale), read without Django.
CATALOGUE = Catalogue("django", Path(__file__).resolve().parent.parent / "locale")
_ = CATALOGUE.gettext
LANGUAGE_CHOICES = ("en", "de", "fr")


def gettext_noop(message: str) -> str:
    """Marks a text for the catalogue (makemessages knows the name) and leaves it English here:
    it is said where it is used, `_(TEXT)`."""
    return message
