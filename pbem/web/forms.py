"""Forms of the lobby and the seat page. Every form posts with Django's CSRF token."""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable
from email.utils import parseaddr
from typing import Any, cast

from django import forms
from django.core.exceptions import ValidationError
from django.core.validators import RegexValidator, validate_email
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _

from games.base import GameSpec
from games.i18n import game_text
from pbem.models import AbsencePolicy, NoticePreference
from pbem.play.services import PlayerSpec


class SubmissionKeyField(forms.CharField):
    """A random key the page puts in each form it shows: a form sent twice (a double click, a
    browser resending after a timeout) carries the same key and is applied once."""

    widget = forms.HiddenInput

    def __init__(self, **kwargs):
        super().__init__(
            required=False,
            max_length=64,
            validators=[
                RegexValidator(r"^[A-Za-z0-9-]{16,64}$", "This form is out of date; reload the page and send it again.")
            ],
            **kwargs,
        )


def new_submission_key() -> str:
    return uuid.uuid4().hex


class ShowsHiddenErrors(forms.Form):
    """A hidden field's error (an out-of-date form) is shown with the form's own errors: the
    page has nowhere else to show it."""

    def clean(self):
        data = super().clean()
        for field in self.hidden_fields():
            for error in self.errors.get(field.name, []):
                if error not in self.non_field_errors():
                    self.add_error(None, error)
        return data


class KindForm(forms.Form):
    kind = forms.ChoiceField(label=_("Game"))

    def __init__(self, specs: dict[str, GameSpec], *args, **kwargs):
        super().__init__(*args, **kwargs)
        cast(forms.ChoiceField, self.fields["kind"]).choices = [
            (
                name,
                _("%(title)s (%(low)s-%(high)s players)")
                % {"title": spec.title, "low": spec.min_players, "high": spec.max_players},
            )
            for name, spec in specs.items()
        ]


LANGUAGE_SUFFIX = re.compile(r"\s+\[?(en|de|fr)\]?$", re.I)


def parse_invitees(text: str) -> list[PlayerSpec]:
    """One player a line: "Ann <ann@example.org>", "Ann, ann@example.org" or just the address,
    with the language they read at its end when known ("Ann <ann@example.org> de")."""
    players, seen = [], set()
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line:
            continue
        said = LANGUAGE_SUFFIX.search(line)
        language = said.group(1).lower() if said else ""
        line = line[: said.start()] if said else line
        if "<" not in line and "," in line:
            name, _comma, address = line.rpartition(",")
        else:
            name, address = parseaddr(line)
        address, name = address.strip(), name.strip().strip('"')
        try:
            validate_email(address)
        except ValidationError:
            raise ValidationError(
                _("Line %(number)s (%(line)s) has no valid email address.") % {"number": number, "line": line}
            ) from None
        if address.lower() in seen:
            raise ValidationError(_("%(address)s is invited twice.") % {"address": address})
        seen.add(address.lower())
        players.append(PlayerSpec(name[:100] or address.split("@", 1)[0][:100], address, language))
    if not players:
        raise ValidationError(_("Invite at least one player (yourself included)."))
    return players


def deadline_seconds(hours: int | None, minutes: int | None) -> int:
    """The deadline a form or the API gave, in seconds: minutes when given, else hours."""
    return minutes * 60 if minutes else (hours or 48) * 3600


# The choices in the reader's language (the models' labels are the stored English ones; the
# notices' are translated where the mails name them).
NOTICE_CHOICES = [(value, _(label)) for value, label in NoticePreference.choices]
ABSENCE_CHOICES = [
    (AbsencePolicy.STANDIN, _("the stand-in plays it until its player comes back")),
    (AbsencePolicy.MINIMAL, _("the rules' minimal action (a pass) at each deadline")),
    (AbsencePolicy.MASTER, _("the Master of Seals decides")),
]


class NewGameForm(ShowsHiddenErrors):
    title = forms.CharField(
        max_length=200, required=False, label=_("Title"), help_text=_("optional; the game's name by default")
    )
    invitees = forms.CharField(
        label=_("Invitees"),
        widget=forms.Textarea(attrs={"rows": 4, "placeholder": "Alice <alice@example.org>\nBob <bob@example.org>"}),
        help_text=_(
            "One player a line, in seating order, yourself first: Name <address>, and the language they read "
            "if you know it (en, de, fr: 'Anna <anna@example.org> de'). You get your invitation "
            "first; the others are invited once you accept it."
        ),
    )
    deadline_hours = forms.IntegerField(
        min_value=1,
        max_value=24 * 60,
        initial=48,
        label=_("Deadline (hours)"),
        help_text=_("how long each player has for a move"),
    )
    deadline_minutes = forms.IntegerField(
        min_value=1,
        max_value=24 * 60 * 60,
        required=False,
        label=_("or in minutes"),
        help_text=_("instead of hours, e.g. 5 to watch a deadline pass"),
    )
    notices = forms.ChoiceField(
        choices=NOTICE_CHOICES,
        initial=NoticePreference.TURN,
        label=_("Players hear of others' moves"),
        help_text=_("for players who have not chosen for themselves; each can change it with 'notices'"),
    )
    submission_key = SubmissionKeyField()
    absence = forms.ChoiceField(
        choices=ABSENCE_CHOICES,
        initial=AbsencePolicy.STANDIN,
        required=False,
        widget=forms.RadioSelect,
        label=_("A player who misses deadlines in a row"),
        help_text=_("the player takes the seat back with one reply: 'back'"),
    )
    standin_after = forms.IntegerField(
        min_value=1, max_value=20, initial=2, required=False, label=_("…after this many missed deadlines")
    )

    clock = forms.ChoiceField(
        choices=[
            ("fixed", _("a fixed time for each move (the deadline above)")),
            ("bank", _("a time bank: a reserve, more after each move, up to a cap")),
            ("grace", _("a grace for each move, then the time bank runs")),
        ],
        initial="fixed",
        required=False,
        widget=forms.RadioSelect,
        label=_("Clock"),
        help_text=_("the four numbers below count for a time bank or a grace only"),
    )
    bank_days = forms.IntegerField(
        min_value=1, max_value=60, initial=3, required=False, label=_("Bank at the start (days)")
    )
    increment_days = forms.IntegerField(
        min_value=0, max_value=30, initial=1, required=False, label=_("Added after each move (days)")
    )
    cap_days = forms.IntegerField(
        min_value=1, max_value=120, initial=7, required=False, label=_("The bank holds at most (days)")
    )
    grace_hours = forms.IntegerField(
        min_value=1, max_value=24 * 14, initial=24, required=False, label=_("Grace for each move (hours)")
    )

    vacation_per_month = forms.IntegerField(
        min_value=0,
        max_value=31,
        initial=0,
        required=False,
        label=_("Vacation earned per month of play (days; 0: none)"),
        help_text=_("taken with 'away until DATE'; switches on by itself before a timeout while days remain"),
    )
    vacation_max = forms.IntegerField(
        min_value=0, max_value=90, initial=14, required=False, label=_("Vacation held at most (days)")
    )
    vacation_absences = forms.IntegerField(
        min_value=0, max_value=50, initial=4, required=False, label=_("Absences a player may take in a game")
    )
    vacation_longest = forms.IntegerField(
        min_value=1, max_value=90, initial=7, required=False, label=_("Longest absence (days)")
    )

    # The table's rules beyond the game's own, folded away on the page under these legends (each
    # field has a default that serves): the form is then a phone's screen or two long, not five.
    MORE = (
        (_("Notices"), ("notices",)),
        (_("Absent players"), ("absence", "standin_after")),
        (_("Time for moves"), ("clock", "bank_days", "increment_days", "cap_days", "grace_hours")),
        (_("Vacations"), ("vacation_per_month", "vacation_max", "vacation_absences", "vacation_longest")),
    )

    def main_fields(self) -> list:
        """The fields always in sight: title, invitees, deadline and the game's own options."""
        folded = {name for _legend, names in self.MORE for name in names}
        return [field for field in self.visible_fields() if field.name not in folded]

    def more_sections(self) -> list[dict]:
        return [{"legend": legend, "fields": [self[name] for name in names]} for legend, names in self.MORE]

    def refused_fields(self) -> list:
        return [field for field in self.visible_fields() if field.errors]

    def more_has_errors(self) -> bool:
        """A refused value in a folded field: the fold opens, so the player sees why."""
        return any(self.errors.get(name) for _legend, names in self.MORE for name in names)

    def clean_absence(self):
        return self.cleaned_data.get("absence") or AbsencePolicy.STANDIN

    def game_clock(self) -> dict | None:
        """The clock asked for (pbem/log/clocks.py), None for the fixed deadline as before clocks."""
        kind = self.cleaned_data.get("clock") or "fixed"
        vacation = self._vacation()
        if kind == "fixed":
            # The fixed period is the deadline above (clocks.parse fills it in).
            return {"kind": "fixed", "vacation": vacation} if vacation else None
        day, data = 86400, self.cleaned_data
        clock = {
            "kind": kind,
            "initial": (data.get("bank_days") or 3) * day,
            "increment": (1 if data.get("increment_days") is None else int(data["increment_days"])) * day,
            "cap": (data.get("cap_days") or 7) * day,
        }
        if kind == "grace":
            clock["grace"] = (data.get("grace_hours") or 24) * 3600
        if vacation:
            clock["vacation"] = vacation
        return clock

    def _vacation(self) -> dict | None:
        """The table's vacations (pbem/log/clocks.py), None when it earns none."""
        data = self.cleaned_data
        if not data.get("vacation_per_month"):
            return None
        per_month = int(data["vacation_per_month"])
        return {
            "per_month": per_month,
            "max": max(per_month, data.get("vacation_max") or 14),
            "absences": 4 if data.get("vacation_absences") is None else int(data["vacation_absences"]),
            "longest": data.get("vacation_longest") or 7,
        }

    def clean_standin_after(self):
        return self.cleaned_data.get("standin_after") or 2

    def __init__(self, spec: GameSpec, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.spec = spec
        for option in spec.options:
            self.fields[f"opt_{option.name}"] = _option_field(spec.name, option)

    def clean_invitees(self):
        players = parse_invitees(self.cleaned_data["invitees"])
        spec = self.spec
        if not spec.min_players <= len(players) <= spec.max_players:
            raise ValidationError(
                f"{spec.title} is for {spec.min_players} to {spec.max_players} players; you invited {len(players)}."
            )
        return players

    def game_options(self) -> dict:
        return {o.name: self.cleaned_data[f"opt_{o.name}"] for o in self.spec.options}


def _option_field(game: str, option) -> forms.Field:
    """The field of one of the game's options, its label, help and choices in the reader's
    language (the game's catalogue, games.i18n.game_text)."""
    common = {
        "label": game_text(game, option.title),
        "help_text": game_text(game, option.help) if option.help else "",
        "initial": option.default,
    }
    if isinstance(option.default, bool):
        return forms.BooleanField(required=False, **common)
    if option.choices is not None:
        coerce: Callable[[Any], Any] = type(option.default)
        names = option.choice_labels or tuple(str(c) for c in option.choices)
        choices = [(c, game_text(game, name)) for c, name in zip(option.choices, names, strict=True)]
        return forms.TypedChoiceField(choices=choices, coerce=coerce, **common)
    if isinstance(option.default, int):
        return forms.IntegerField(min_value=option.minimum, max_value=option.maximum, **common)
    return forms.CharField(max_length=200, **common)


class PracticeForm(forms.Form):
    """A game against stand-ins: only its one player is invited (to their own address)."""

    name = forms.CharField(max_length=100, label=_("Your name"))
    email = forms.EmailField(label=_("Your address"), help_text=_("the invitation and every notice go there"))
    opponents = forms.IntegerField(min_value=1, max_value=5, initial=2, label=_("Stand-ins to play against"))
    submission_key = SubmissionKeyField()

    def __init__(self, spec: GameSpec, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.spec = spec
        field = cast(forms.IntegerField, self.fields["opponents"])
        field.min_value, field.max_value = max(1, spec.min_players - 1), spec.max_players - 1
        field.initial = max(field.min_value, min(2, field.max_value))
        field.validators = []
        field.widget.attrs.update(min=field.min_value, max=field.max_value)

    def clean_opponents(self):
        count = self.cleaned_data["opponents"]
        low, high = self.fields["opponents"].min_value, self.fields["opponents"].max_value
        if not low <= count <= high:
            raise ValidationError(f"{self.spec.title} takes {low} to {high} stand-ins beside you.")
        return count

    def players(self) -> list[PlayerSpec]:
        you = PlayerSpec(self.cleaned_data["name"].strip(), self.cleaned_data["email"].strip(), get_language() or "")
        return [you] + [PlayerSpec(f"Stand-in {n}", "") for n in range(1, self.cleaned_data["opponents"] + 1)]


class MoveChoiceField(forms.ChoiceField):
    """Offers the legal moves, but lets any line through: the pipeline judges it. A choice made
    on a page the game has since moved past then gets the pipeline's own answer ("the game has
    moved on") instead of a bare "not a valid choice"."""

    def valid_value(self, value):
        return len(str(value)) <= 500


class CommandForm(ShowsHiddenErrors):
    """The seat's move: one picked from the chooser, or lines typed as in a mail. When both come
    and say different things, neither is sent: the player is asked which they meant."""

    choice = MoveChoiceField(required=False, label=_("Choose a move"))
    text = forms.CharField(
        required=False,
        max_length=10000,
        label=_("Or type commands (one a line, as in a mail)"),
        widget=forms.Textarea(
            attrs={"rows": 3, "autocapitalize": "none", "autocomplete": "off", "spellcheck": "false"}
        ),
    )
    expected_version = forms.IntegerField(widget=forms.HiddenInput, min_value=0)
    submission_key = SubmissionKeyField()

    def __init__(self, legal: list[str], *args, **kwargs):
        super().__init__(*args, **kwargs)
        cast(MoveChoiceField, self.fields["choice"]).choices = [(text, text) for text in legal]

    def clean(self):
        data = super().clean()
        typed, picked = (data.get("text") or "").strip(), (data.get("choice") or "").strip()
        if not typed and not picked:
            raise ValidationError(_("Choose a move or type a command."))
        if typed and picked and " ".join(typed.split()) != " ".join(picked.split()):
            raise ValidationError(
                _(
                    "You picked “%(picked)s” but typed “%(typed)s”: nothing was sent. "
                    "Clear the typed commands to send the move you picked, or send the typed "
                    "ones on their own."
                )
                % {"picked": picked, "typed": typed[:200]}
            )
        return data

    def command_text(self) -> str:
        return (self.cleaned_data.get("text") or "").strip() or self.cleaned_data["choice"].strip()


class SayForm(ShowsHiddenErrors):
    """Table talk. No expected version: talk is never stale, whatever happened on the board."""

    message = forms.CharField(
        max_length=2000,
        label=_("Table talk (everyone reads it)"),
        widget=forms.TextInput(attrs={"autocomplete": "off"}),
    )
    submission_key = SubmissionKeyField()

    def command_text(self) -> str:
        # One line: table talk is the 'say' command, and a line break would start another command.
        return "say " + " ".join(self.cleaned_data["message"].split())


class HeadForm(forms.Form):
    """A head kept from a notice (VERSION:HASH), or the whole notice pasted, to check against the log."""

    head = forms.CharField(
        label=_("A head from a notice (VERSION:HASH), or the whole notice"),
        max_length=200_000,
        widget=forms.Textarea(attrs={"rows": 4, "cols": 80}),
        strip=True,
    )
