"""A text the platform says in English and in the reader's language (issue 33).

`Said` is a str: its English text, what `verify_games`, the API and every string test read
unchanged. It also carries its template, marked for the catalogue (`gettext_noop`), and its
values, so that a page says it in its reader's language with `said()`: a verification problem
(pbem/audit/checks.py), a head's verdict (pbem/log/anchors.py). A value that is itself `Said` is
said in the same language. Pickled as template and values, it survives the cache.
"""

from __future__ import annotations

from django.utils.translation import gettext


class Said(str):
    template: str
    values: dict

    def __new__(cls, template: str, **values) -> Said:
        text = super().__new__(cls, template % values if values else template)
        text.template, text.values = template, values
        return text

    def __reduce__(self):
        return (_said, (self.template, self.values))

    def said(self) -> str:
        """The text in the active language (Django's: the page's reader)."""
        if not self.values:
            return gettext(self.template)
        return gettext(self.template) % {k: said(v) for k, v in self.values.items()}


def _said(template: str, values: dict) -> Said:
    return Said(template, **values)


def said(text) -> object:
    """`text` in the reader's language if it is `Said`; anything else as it is."""
    return text.said() if isinstance(text, Said) else text
