"""elixirus's catalogue (locale/<lang>/LC_MESSAGES/elixirus.po): `_` for a text said now,
`N_` for a table's text translated where it is said, `pgettext("command", …)` for a grammar's
word, `ngettext` for a count. See games/i18n.py."""

from __future__ import annotations

from pathlib import Path

from games.i18n import N_, Catalogue

CATALOGUE = Catalogue("elixirus", Path(__file__).parent / "locale")
_ = CATALOGUE.gettext
ngettext = CATALOGUE.ngettext
pgettext = CATALOGUE.pgettext

__all__ = ["CATALOGUE", "N_", "_", "ngettext", "pgettext"]
