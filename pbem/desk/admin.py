"""The Master of Seals' desk: games, their log, score sheets, and the desk's actions.

Everything a game *is* lives in its event log, so the desk never edits a game: each action
(start, pause, resume, abandon, extend a deadline, remind, replace a player, correct a score,
rewind a mistaken ruling) calls the service that appends the event, with the acting user and a
reason. Events, notices and inbound messages are read-only here, and the database refuses to
change or delete an event anyway.

Who sees what is decided in `pbem.desk.permissions`: superusers everything, a Master of Seals only
the games that list them in `Game.masters` (every queryset, object view, action, export and
custom URL below goes through it).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime, timedelta
from urllib.parse import quote

from django import forms
from django.contrib import admin, messages
from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django.utils.safestring import mark_safe

from pbem.audit import checks
from pbem.desk import permissions, scoresheets
from pbem.log import eventlog, readmodels
from pbem.models import Channel, Event, Game, GameStatus, InboundMessage, Notice, Seat
from pbem.play import channels, desk, selectors, services
from pbem.registry import all_games, get_game


def pretty_json(value) -> str:
    if value is None:
        return "—"
    return format_html(
        '<pre style="white-space: pre-wrap; margin: 0">{}</pre>',
        json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False, default=str),
    )


# ---------------------------------------------------------------------------------------------
# Access: the same rule for every model on the desk
# ---------------------------------------------------------------------------------------------


class DeskAccess:
    """Read-only by default; visible only to desk users, each object only if its game is theirs."""

    def has_module_permission(self, request):
        return permissions.may_use_desk(request.user)

    def has_view_permission(self, request, obj=None):
        if not permissions.may_use_desk(request.user):
            return False
        return obj is None or permissions.may_manage(request.user, self.game_of(obj))

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    def game_of(self, obj):
        return obj.game_id

    def get_queryset(self, request):
        return super().get_queryset(request).filter(**permissions.game_lookup(request.user))

    def get_actions(self, request):
        actions = super().get_actions(request)
        actions.pop("delete_selected", None)
        return actions


class GameFilter(admin.SimpleListFilter):
    """Filter by game, offering only the games this user may see."""

    title = "game"
    parameter_name = "game"

    def lookups(self, request, model_admin):
        return [(g.pk, str(g)) for g in permissions.games_for(request.user).order_by("-pk")[:300]]

    def queryset(self, request, queryset):
        value = self.value()
        if value is None:
            return queryset
        if not str(value).isdigit():
            return queryset.none()
        return queryset.filter(game_id=int(value))


def _distinct_filter(field_name: str, label: str):
    """A list filter whose choices come from the rows this user may see (not the whole table)."""

    class DistinctFilter(admin.SimpleListFilter):
        title = label
        parameter_name = field_name

        def lookups(self, request, model_admin):
            values = (
                model_admin.get_queryset(request).order_by(field_name).values_list(field_name, flat=True).distinct()
            )
            return [(v, v) for v in values if v]

        def queryset(self, request, queryset):
            value = self.value()
            return queryset if value is None else queryset.filter(**{field_name: value})

    DistinctFilter.__name__ = f"{field_name.title()}Filter"
    return DistinctFilter


def _game_link(game_id) -> str:
    if game_id is None:
        return "—"
    url = reverse("admin:pbem_game_change", args=[game_id])
    return format_html('<a href="{}">#{}</a>', url, game_id)


# ---------------------------------------------------------------------------------------------
# The log: events, notices, inbound messages (read-only)
# ---------------------------------------------------------------------------------------------


def actor_text(obj: Event) -> str:
    if obj.actor_kind == "seat":
        return f"seat {obj.actor_seat + 1}" if obj.actor_seat is not None else "a seat"
    if obj.actor_kind == "admin":
        user = obj.actor_user
        return f"admin {user.get_username()}" if user else "admin"
    return obj.actor_kind


@admin.register(Event)
class EventAdmin(DeskAccess, admin.ModelAdmin):
    list_display = ("seq", "game_ref", "type", "actor", "causation_id", "short_hash", "created_at")
    list_display_links = ("seq", "type")
    list_filter = (GameFilter, _distinct_filter("type", "type"), "actor_kind")
    search_fields = ("type", "causation_id", "hash")
    list_select_related = ("actor_user",)
    list_per_page = 100
    ordering = ("-game_id", "-seq")
    fields = (
        "game_ref",
        "seq",
        "type",
        "actor",
        "created_at",
        "causation",
        "payload_json",
        "visible_to_json",
        "public_json",
        "reveals",
        "rng_json",
        "schema_version",
        "prev_hash",
        "hash",
        "taken_back",
    )
    readonly_fields = fields

    @admin.display(description="game", ordering="game_id")
    def game_ref(self, obj):
        return _game_link(obj.game_id)

    @admin.display(description="actor")
    def actor(self, obj):
        return actor_text(obj)

    @admin.display(description="hash")
    def short_hash(self, obj):
        return obj.hash[:12]

    @admin.display(description="payload")
    def payload_json(self, obj):
        return pretty_json(obj.payload)

    @admin.display(description="visible to")
    def visible_to_json(self, obj):
        return "everyone" if obj.visible_to is None else pretty_json(obj.visible_to)

    @admin.display(description="public form")
    def public_json(self, obj):
        return pretty_json(obj.public)

    @admin.display(description="random draws")
    def rng_json(self, obj):
        return pretty_json(obj.rng)

    @admin.display(description="causation")
    def causation(self, obj):
        if not obj.causation_id:
            return "—"
        # The inbox uses the Message-ID (cut to 200 characters) as the causation id.
        candidates = InboundMessage.objects.filter(game_id=obj.game_id)
        if len(obj.causation_id) >= 200:
            candidates = candidates.filter(message_id__startswith=obj.causation_id)
        else:
            candidates = candidates.filter(message_id=obj.causation_id)
        inbound = candidates.values_list("pk", flat=True).first()
        if inbound is None:
            return obj.causation_id
        url = reverse("admin:pbem_inboundmessage_change", args=[inbound])
        return format_html('<a href="{}">{}</a>', url, obj.causation_id)

    @admin.display(description="taken back", boolean=True)
    def taken_back(self, obj):
        return obj.seq in eventlog.undone_seqs(obj.game_id)


@admin.register(Notice)
class NoticeAdmin(DeskAccess, admin.ModelAdmin):
    list_display = (
        "id",
        "game_ref",
        "seat",
        "kind",
        "status",
        "to_email",
        "version",
        "attempts",
        "created_at",
        "sent_at",
        "short_error",
    )
    list_filter = ("status", GameFilter, _distinct_filter("kind", "kind"))
    search_fields = ("to_email", "subject", "message_id")
    list_select_related = ("seat",)
    fields = (
        "game_ref",
        "seat",
        "kind",
        "status",
        "to_email",
        "subject",
        "version",
        "attempts",
        "message_id",
        "created_at",
        "sent_at",
        "next_attempt_at",
        "last_error",
        "context_json",
    )
    readonly_fields = fields

    @admin.display(description="game", ordering="game_id")
    def game_ref(self, obj):
        return _game_link(obj.game_id)

    @admin.display(description="error")
    def short_error(self, obj):
        return (obj.last_error or "")[:80]

    @admin.display(description="context")
    def context_json(self, obj):
        return pretty_json(obj.context)


class TableChannelForm(forms.ModelForm):
    """A table's shared channel, set on the desk: the URL is written, never shown back (the
    list shows it masked); pbem.play.channels checks it as for a player."""

    url = forms.CharField(widget=forms.PasswordInput(render_value=False), max_length=2000, label="Apprise URL")

    class Meta:
        model = Channel
        fields = ("game", "url")

    def clean_url(self):
        try:
            _plugin, self.kind, self.shown = channels.read(self.cleaned_data["url"])
        except channels.BadChannel as exc:
            raise forms.ValidationError(str(exc)) from None
        return self.cleaned_data["url"].strip()


@admin.register(Channel)
class ChannelAdmin(DeskAccess, admin.ModelAdmin):
    """The channels of the desk's games: the tables' shared ones (set or removed here) and the
    players' own (seen masked, removed by the player)."""

    form = TableChannelForm
    list_display = ("id", "game_ref", "table", "shown", "status", "failures", "last_error", "last_sent_at")
    list_filter = ("table", "status", GameFilter)

    SHOWN = ("game_ref", "table", "shown", "status", "failures", "failing_since", "last_error", "last_sent_at")

    def get_fields(self, request, obj=None):
        return ("game", "url") if obj is None else self.SHOWN  # the URL itself: written, never shown

    def get_readonly_fields(self, request, obj=None):
        return () if obj is None else self.SHOWN

    def has_add_permission(self, request, obj=None):
        return permissions.may_use_desk(request.user)

    def has_delete_permission(self, request, obj=None):
        return obj is not None and obj.table and permissions.may_manage(request.user, obj.game_id)

    @admin.display(description="game", ordering="game_id")
    def game_ref(self, obj):
        return _game_link(obj.game_id) if obj.game_id else "all the player's games"

    def save_model(self, request, obj, form, change):
        if not permissions.may_manage(request.user, obj.game_id):
            raise PermissionDenied
        channels.set_table(obj.game_id, form.cleaned_data["url"])


@admin.register(InboundMessage)
class InboundMessageAdmin(DeskAccess, admin.ModelAdmin):
    list_display = ("id", "received_at", "channel", "sender", "game_ref", "seat", "status", "code", "short_outcome")
    list_filter = ("status", "channel", GameFilter)
    search_fields = ("sender", "message_id", "outcome")
    list_select_related = ("seat",)
    fields = (
        "message_id",
        "channel",
        "received_at",
        "sender",
        "game_ref",
        "seat",
        "status",
        "code",
        "outcome",
        "processed_at",
        "result_version",
        "caused",
        "raw_text",
    )
    readonly_fields = fields

    @admin.display(description="events it caused")
    def caused(self, obj):
        if obj.game_id is None:
            return "—"
        count = Event.objects.filter(game_id=obj.game_id, causation_id=obj.message_id[:200]).count()
        if not count:
            return "none"
        url = reverse("admin:pbem_event_changelist") + f"?game={obj.game_id}&q={quote(obj.message_id[:200])}"
        return format_html('<a href="{}">{} event(s)</a>', url, count)

    @admin.display(description="game", ordering="game_id")
    def game_ref(self, obj):
        return _game_link(obj.game_id)

    @admin.display(description="code")
    def code(self, obj):
        return getattr(obj, "error_code", "") or ""

    @admin.display(description="outcome")
    def short_outcome(self, obj):
        return (obj.outcome or "")[:100]

    @admin.display(description="message as received")
    def raw_text(self, obj):
        raw = bytes(obj.raw or b"")
        return format_html('<pre style="white-space: pre-wrap">{}</pre>', raw[:200_000].decode("utf-8", "replace"))


# ---------------------------------------------------------------------------------------------
# The desk's actions: a form with a reason each, then the service that appends the event
# ---------------------------------------------------------------------------------------------


class ReasonForm(forms.Form):
    reason = forms.CharField(
        max_length=500,
        widget=forms.Textarea(attrs={"rows": 2, "cols": 60}),
        help_text="Recorded with the event; the players see it in the game's history.",
    )
    # The game's version when the form was shown: a second click, or an action decided on a page
    # the game has since moved past, is refused instead of being recorded twice or blindly.
    seen_version = forms.IntegerField(widget=forms.HiddenInput, min_value=0)

    def __init__(self, *args, game: Game, **kwargs):
        self.game = game
        super().__init__(*args, **kwargs)
        self.fields["seen_version"].initial = game.version

    def clean_seen_version(self):
        seen = self.cleaned_data["seen_version"]
        now = Game.objects.values_list("version", flat=True).get(pk=self.game.pk)
        if seen != now:
            raise forms.ValidationError(
                f"The game has moved on since this form was opened (event #{seen} then, #{now} now). "
                "Look at the game again, then repeat the action if it still applies."
            )
        return seen

    def clean_reason(self):
        reason = self.cleaned_data["reason"].strip()
        if not reason:
            raise forms.ValidationError("Give a reason: every action on the desk is recorded with one.")
        return reason

    def seat_choices(self, only=None):
        seats = Seat.objects.filter(game=self.game).order_by("number")
        return [(s.number, f"{s.number + 1}: {s.name}") for s in seats if only is None or s.number in only]


class ResendForm(ReasonForm):
    seat = forms.TypedChoiceField(coerce=int, help_text="Players who have not accepted yet.")
    field_order = ["seat", "reason"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        waiting = list(Seat.objects.filter(game=self.game, invite_accepted=False).values_list("number", flat=True))
        self.fields["seat"].choices = self.seat_choices(only=waiting)


class StandInForm(ReasonForm):
    seat = forms.TypedChoiceField(coerce=int, help_text="Its player can take it back with one reply: 'back'.")
    field_order = ["seat", "reason"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["seat"].choices = self.seat_choices()


class AbandonForm(ReasonForm):
    confirm = forms.BooleanField(label="Yes, end this game unfinished (the seed is revealed; this cannot be undone)")


class ExtendForm(ReasonForm):
    seat = forms.TypedChoiceField(coerce=int)
    until = forms.DateTimeField(help_text="The new deadline (UTC), e.g. 2026-12-24 18:00.")
    field_order = ["seat", "until", "reason"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["seat"].choices = self.seat_choices(only=self.game.awaited or [])
        latest = max((datetime.fromisoformat(d) for d in (self.game.deadlines or {}).values()), default=timezone.now())
        self.fields["until"].initial = (latest + timedelta(days=1)).strftime("%Y-%m-%d %H:%M")

    def clean_until(self):
        until = self.cleaned_data["until"]
        if until <= timezone.now():
            raise forms.ValidationError("The new deadline must be in the future.")
        return until


class ReplaceForm(ReasonForm):
    seat = forms.TypedChoiceField(coerce=int)
    name = forms.CharField(max_length=100)
    email = forms.EmailField()
    field_order = ["seat", "name", "email", "reason"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["seat"].choices = self.seat_choices()


class CorrectForm(ReasonForm):
    seat = forms.TypedChoiceField(coerce=int)
    points = forms.IntegerField(help_text="Added to the seat's score; negative to take points away.")
    field_order = ["seat", "points", "reason"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["seat"].choices = self.seat_choices()

    def clean_points(self):
        points = self.cleaned_data["points"]
        if points == 0:
            raise forms.ValidationError("A correction of 0 points changes nothing.")
        return points


class RewindForm(ReasonForm):
    to_seq = forms.TypedChoiceField(
        coerce=int,
        label="Keep the log up to and including",
        help_text="Every game event after this one is taken back by one new event "
        "(nothing is deleted); play resumes from there.",
    )
    field_order = ["to_seq", "reason"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # Never before the end of the deal: taking back the setup would leave a game without a board.
        floor = setup_end(self.game)
        items = selectors.feed(self.game, None, after=max(floor - 1, self.game.version - 60))
        self.fields["to_seq"].choices = [(i.seq, f"#{i.seq} {i.text}"[:140]) for i in reversed(items) if not i.undone]


def setup_end(game: Game) -> int:
    """The number of the last event of the game's deal (written with pbem.GameStarted)."""
    started = Event.objects.filter(game=game, type="pbem.GameStarted").values("seq", "created_at").first()
    if started is None:
        return game.version + 1
    batch = Event.objects.filter(game=game, seq__gte=started["seq"], created_at=started["created_at"])
    return max(batch.values_list("seq", flat=True))


@dataclass(frozen=True)
class DeskAction:
    name: str
    title: str
    form: type
    statuses: tuple  # game statuses in which the desk offers it (the service has the last word)
    needs_awaited: bool = False

    def offered(self, game: Game) -> bool:
        return game.status in self.statuses and (not self.needs_awaited or bool(game.awaited))


LIVE = (GameStatus.RUNNING, GameStatus.PAUSED)
NOT_OVER = (GameStatus.OPEN, GameStatus.RUNNING, GameStatus.PAUSED)
ANY = tuple(GameStatus.values)

ACTIONS = {
    a.name: a
    for a in (
        DeskAction("start", "Start the game", ReasonForm, (GameStatus.OPEN,)),
        DeskAction("resend", "Resend an invitation", ResendForm, (GameStatus.OPEN,)),
        DeskAction("pause", "Pause", ReasonForm, (GameStatus.RUNNING,)),
        DeskAction("resume", "Resume", ReasonForm, (GameStatus.PAUSED,)),
        DeskAction("extend", "Extend a deadline", ExtendForm, (GameStatus.RUNNING,), needs_awaited=True),
        DeskAction("remind", "Send a reminder now", ReasonForm, (GameStatus.RUNNING,), needs_awaited=True),
        DeskAction("replace", "Replace a player", ReplaceForm, NOT_OVER),
        DeskAction("standin", "Let the stand-in play a seat", StandInForm, LIVE),
        DeskAction("correct", "Correct a score", CorrectForm, ANY),
        DeskAction("rewind", "Correct a mistaken ruling (rewind)", RewindForm, LIVE),
        DeskAction("abandon", "Abandon the game", AbandonForm, NOT_OVER),
        DeskAction("rebuild", "Rebuild the read model", ReasonForm, ANY),
    )
}


def perform(action: str, game: Game, data: dict, actor: services.Actor) -> str:
    """Runs one desk action through the service layer; returns what happened, in words."""
    reason = data["reason"]
    if action == "start":
        services.start_game(game.pk, actor, reason=reason)
        return "The game has started."
    if action == "resend":
        desk.resend_invitation(game.pk, data["seat"], actor, reason)
        return f"Another invitation goes out to seat {data['seat'] + 1}."
    if action == "pause":
        desk.pause_game(game.pk, actor, reason)
        return "The game is paused."
    if action == "resume":
        desk.resume_game(game.pk, actor, reason)
        return "The game is running again."
    if action == "abandon":
        desk.abandon_game(game.pk, actor, reason)
        return "The game was abandoned; its seed is revealed."
    if action == "extend":
        desk.extend_deadline(game.pk, data["seat"], data["until"], actor, reason)
        return f"The deadline of seat {data['seat'] + 1} is now {data['until']:%Y-%m-%d %H:%M} UTC."
    if action == "remind":
        desk.remind_now(game.pk, actor, reason)
        return "A reminder goes out to every awaited player."
    if action == "replace":
        desk.replace_player(game.pk, data["seat"], data["name"], data["email"], actor, reason)
        return f"{data['name']} now holds seat {data['seat'] + 1}; the old seat links and addresses are revoked."
    if action == "standin":
        desk.seat_standin(game.pk, data["seat"], actor, reason)
        return f"The stand-in plays seat {data['seat'] + 1} until its player replies 'back'."
    if action == "correct":
        desk.correct_score(game.pk, data["seat"], data["points"], actor, reason)
        return f"Seat {data['seat'] + 1}: {data['points']:+d} points, recorded with its reason."
    if action == "rewind":
        desk.rewind(game.pk, data["to_seq"], actor, reason)
        return f"Every game event after #{data['to_seq']} is taken back; play resumes from there."
    if action == "rebuild":
        before = dict(Game.objects.values("status", "round", "phase", "awaited", "scores").get(pk=game.pk))
        after = readmodels.rebuild(game)
        changed = sorted(k for k in before if before[k] != after[k])
        return "Read model rebuilt from the log" + (
            f"; corrected: {', '.join(changed)}." if changed else "; it was already right."
        )
    raise Http404("no such action")


# ---------------------------------------------------------------------------------------------
# Games
# ---------------------------------------------------------------------------------------------


class KindFilter(admin.SimpleListFilter):
    title = "game"
    parameter_name = "kind"

    def lookups(self, request, model_admin):
        return [(name, spec.title) for name, spec in all_games().items()]

    def queryset(self, request, queryset):
        return queryset if self.value() is None else queryset.filter(kind=self.value())


class OverdueFilter(admin.SimpleListFilter):
    title = "deadlines"
    parameter_name = "overdue"

    def lookups(self, request, model_admin):
        return [("yes", "a deadline has passed")]

    def queryset(self, request, queryset):
        if self.value() != "yes":
            return queryset
        now = timezone.now()
        late = [
            g.pk
            for g in queryset.filter(status=GameStatus.RUNNING).only("pk", "deadlines")
            if any(datetime.fromisoformat(d) <= now for d in (g.deadlines or {}).values())
        ]
        return queryset.filter(pk__in=late)


class SeatInline(DeskAccess, admin.TabularInline):
    model = Seat
    extra = 0
    can_delete = False
    fields = (
        "number_1",
        "name",
        "email",
        "colour",
        "notice_preference",
        "invite_accepted",
        "away_until",
        "away_days_used",
        "token_generation",
        "deadline",
    )
    readonly_fields = fields

    def game_of(self, obj):
        return obj  # an inline is asked about its parent: the game itself

    @admin.display(description="seat")
    def number_1(self, obj):
        return obj.number + 1

    @admin.display(description="awaited until")
    def deadline(self, obj):
        if obj.number not in (obj.game.awaited or []):
            return "—"
        return (obj.game.deadlines or {}).get(str(obj.number), "awaited, no deadline")[:16].replace("T", " ")


class GameForm(forms.ModelForm):
    """Only `masters` is editable. The desk shows a running game's hidden information (every
    payload, every draw), so a player may not be a Master of Seals of their own game."""

    class Meta:
        model = Game
        fields = ("masters",)

    def clean_masters(self):
        masters = self.cleaned_data["masters"]
        emails = {e.lower() for e in self.instance.seats.values_list("email", flat=True)}
        playing = [u.get_username() for u in masters if u.email and u.email.lower() in emails]
        if playing:
            raise forms.ValidationError(
                f"{', '.join(playing)} plays in this game and would see the other players' hidden "
                "information on the desk: choose a Master of Seals who is not at the table."
            )
        return masters


def masters_hint(anyone: bool) -> str:
    """The masters picker's help: who can be chosen, and how someone comes to be."""
    where = (
        f"Listed here: active staff users in the group “{permissions.MASTER_GROUP}”. To add one: "
        "Users → the user → tick “Staff status” and choose that group under Groups. Superusers see "
        "every game without being listed."
    )
    return where if anyone else f"Nobody can be chosen yet. {where}"


@admin.register(Game)
class GameAdmin(admin.ModelAdmin):
    form = GameForm
    list_display = (
        "id",
        "title",
        "kind",
        "variants",
        "status",
        "round",
        "phase",
        "awaited_until",
        "version",
        "sheet_links",
    )
    list_display_links = ("id", "title")
    list_filter = ("status", KindFilter, OverdueFilter)
    search_fields = ("title", "kind", "seats__name", "seats__email")
    inlines = [SeatInline]
    actions = ["verify_selected"]
    readonly_fields = (
        "kind",
        "title",
        "variants",
        "status",
        "round",
        "phase",
        "awaited_until",
        "score_list",
        "version",
        "head_hash",
        "read_model_version",
        "seed_commitment",
        "reducer_version",
        "chain_scheme",
        "deadline_seconds",
        "away_allowance_days",
        "created_at",
        "updated_at",
    )
    fieldsets = (
        (None, {"fields": ("kind", "title", "variants", "status", "round", "phase", "awaited_until", "score_list")}),
        ("Rules of the table", {"fields": ("deadline_seconds", "away_allowance_days")}),
        ("Masters of Seals", {"fields": ("masters",)}),
        (
            "Log",
            {
                "fields": (
                    "version",
                    "head_hash",
                    "read_model_version",
                    "seed_commitment",
                    "reducer_version",
                    "chain_scheme",
                    "created_at",
                    "updated_at",
                )
            },
        ),
    )
    filter_horizontal = ("masters",)

    # --- who may see and do what -----------------------------------------------------------

    def get_queryset(self, request):
        qs = super().get_queryset(request).prefetch_related("seats")
        if not permissions.may_use_desk(request.user):
            return qs.none()
        return qs if request.user.is_superuser else qs.filter(masters=request.user)

    def has_module_permission(self, request):
        return permissions.may_use_desk(request.user)

    def has_view_permission(self, request, obj=None):
        if not permissions.may_use_desk(request.user):
            return False
        return obj is None or permissions.may_manage(request.user, obj)

    def has_add_permission(self, request):
        return False  # games are created by the service (lobby, API, `manage.py create_game`)

    def has_change_permission(self, request, obj=None):
        # Only assigning Masters of Seals is an edit; everything else goes through the desk's actions.
        return self.has_view_permission(request, obj) and request.user.is_superuser

    def has_delete_permission(self, request, obj=None):
        return False

    def get_actions(self, request):
        actions = super().get_actions(request)
        actions.pop("delete_selected", None)
        return actions

    def get_readonly_fields(self, request, obj=None):
        if request.user.is_superuser:
            return self.readonly_fields
        return (*self.readonly_fields, "masters")

    def formfield_for_manytomany(self, db_field, request, **kwargs):
        if db_field.name == "masters":
            group = permissions.master_group()
            kwargs["queryset"] = get_user_model().objects.filter(groups=group, is_staff=True, is_active=True)
            kwargs["help_text"] = masters_hint(kwargs["queryset"].exists())
        return super().formfield_for_manytomany(db_field, request, **kwargs)

    def save_model(self, request, obj, form, change):
        # Never write the game row from a form: its version, chain head and read model belong to
        # the event store, and a stale copy saved here would roll them back. Only `masters` (a
        # separate table) is saved, by save_related.
        if not change:
            raise PermissionDenied

    def get_search_results(self, request, queryset, search_term):
        results, may_have_duplicates = super().get_search_results(request, queryset, search_term)
        term = search_term.strip().lstrip("#")
        if term.isdigit():
            results = results | queryset.filter(pk=int(term))
        return results, may_have_duplicates

    def _game(self, request, object_id) -> Game:
        """The game behind a custom URL, if this user may manage it; 404 otherwise (a game that
        is not theirs looks exactly like one that does not exist)."""
        if not permissions.may_use_desk(request.user):
            raise PermissionDenied
        if not str(object_id).isdigit():
            raise Http404
        game = self.get_queryset(request).filter(pk=int(object_id)).first()
        if game is None:
            raise Http404("No such game on your desk.")
        return game

    # --- columns ------------------------------------------------------------------------------

    @admin.display(description="variants")
    def variants(self, obj):
        return ", ".join(f"{k}={v}" for k, v in sorted((obj.options or {}).items())) or "—"

    @admin.display(description="awaited, until")
    def awaited_until(self, obj):
        if not obj.awaited:
            return "—"
        names = {seat.number: seat.name for seat in obj.seats.all()}
        now = timezone.now()
        items = []
        for seat in obj.awaited:
            deadline = (obj.deadlines or {}).get(str(seat))
            late = deadline is not None and datetime.fromisoformat(deadline) <= now
            when = deadline[:16].replace("T", " ") if deadline else "no deadline"
            items.append((names.get(seat, f"seat {seat + 1}"), when, " (late)" if late else ""))
        return format_html_join(mark_safe("<br>"), "{} until {}{}", items)

    @admin.display(description="score sheet")
    def sheet_links(self, obj):
        return format_html(
            '<a href="{}">sheet</a> · <a href="{}">CSV</a>',
            reverse("admin:pbem_game_sheet", args=[obj.pk]),
            reverse("admin:pbem_game_sheet_csv", args=[obj.pk]),
        )

    @admin.display(description="scores")
    def score_list(self, obj):
        names = {seat.number: seat.name for seat in obj.seats.all()}
        return ", ".join(f"{names.get(i, i)} {s}" for i, s in enumerate(obj.scores or [])) or "—"

    # --- bulk action: verify ------------------------------------------------------------------

    @admin.action(description="Verify the selected games (hash chain, replay, seed)")
    def verify_selected(self, request, queryset):
        reports = [checks.verify(game) for game in queryset.order_by("pk")]
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "reports": reports,
            "title": "Verification",
        }
        return TemplateResponse(request, "admin/pbem/game/verify_many.html", context)

    # --- the desk's own pages ----------------------------------------------------------------------

    def get_urls(self):
        wrap = self.admin_site.admin_view
        return [
            path("<path:object_id>/desk/<slug:action>/", wrap(self.action_view), name="pbem_game_desk"),
            path("<path:object_id>/sheet/", wrap(self.sheet_view), name="pbem_game_sheet"),
            path("<path:object_id>/sheet.csv", wrap(self.sheet_csv_view), name="pbem_game_sheet_csv"),
            path("<path:object_id>/verify/", wrap(self.verify_view), name="pbem_game_verify"),
            *super().get_urls(),
        ]

    def _context(self, request, game: Game, title: str, **extra) -> dict:
        return {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "game": game,
            "original": game,
            "title": title,
            "has_view_permission": True,
            **extra,
        }

    def change_view(self, request, object_id, form_url="", extra_context=None):
        extra = dict(extra_context or {})
        game = self.get_queryset(request).filter(pk=object_id).first() if str(object_id).isdigit() else None
        if game is not None:
            extra["desk_actions"] = [a for a in ACTIONS.values() if a.offered(game)]
            extra["history"] = selectors.feed(game, None, after=max(0, game.version - 15))
        return super().change_view(request, object_id, form_url, extra_context=extra)

    def action_view(self, request, object_id, action):
        game = self._game(request, object_id)
        desk_action = ACTIONS.get(action)
        if desk_action is None:
            raise Http404("No such action.")
        form = desk_action.form(request.POST if request.method == "POST" else None, game=game)
        if request.method == "POST" and form.is_valid():
            actor = services.Actor("admin", user_id=request.user.pk)
            try:
                done = perform(action, game, form.cleaned_data, actor)
            except services.ServiceError as exc:
                form.add_error(None, str(exc))
            else:
                self.log_change(request, game, f"{desk_action.title}: {form.cleaned_data['reason']}")
                messages.success(request, done)
                return HttpResponseRedirect(reverse("admin:pbem_game_change", args=[game.pk]))
        return TemplateResponse(
            request,
            "admin/pbem/game/desk_action.html",
            self._context(request, game, f"{desk_action.title}: {game}", form=form, action=desk_action),
        )

    def sheet_view(self, request, object_id):
        game = self._game(request, object_id)
        sheet = scoresheets.build(game)
        return TemplateResponse(
            request, "admin/pbem/game/sheet.html", self._context(request, game, f"Score sheet: {game}", sheet=sheet)
        )

    def sheet_csv_view(self, request, object_id):
        game = self._game(request, object_id)
        response = HttpResponse(scoresheets.to_csv(scoresheets.build(game)), content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="game-{game.pk}-score-sheet.csv"'
        return response

    def verify_view(self, request, object_id):
        game = self._game(request, object_id)
        report = checks.verify(game)
        draws = checks.draws_table(game) if report.seed_revealed else []
        return TemplateResponse(
            request,
            "admin/pbem/game/verify.html",
            self._context(request, game, f"Verification: {game}", report=report, draws=draws, spec=get_game(game.kind)),
        )


# ---------------------------------------------------------------------------------------------
# The timers' schedule (Celery beat's tables): shown to superusers, never edited here
# ---------------------------------------------------------------------------------------------

TIMERS_SENTENCE = (
    "The service's timers, as Celery beat runs them (deadlines, the outbox and inbound sweeps, "
    "digests, the IMAP poll, pruning, the heads feed). Beat writes them here from the settings "
    "(CELERY_BEAT_SCHEDULE, the PBEM_*_EVERY variables) each time it starts: to change one, change "
    "the setting and restart beat. Shown, not edited: a row changed here would stop or skew a timer."
)


class TimersReadOnly:
    """Celery beat's own admin for one of its tables, for superusers only and read-only: no add,
    change, delete or action (its "run" and "disable" actions included)."""

    actions = None

    def _superuser(self, request) -> bool:
        return bool(request.user.is_active and request.user.is_staff and request.user.is_superuser)

    def has_module_permission(self, request):
        return self._superuser(request)

    def has_view_permission(self, request, obj=None):
        return self._superuser(request)

    def has_add_permission(self, request, *args):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    def changelist_view(self, request, extra_context=None):
        return super().changelist_view(request, {**(extra_context or {}), "subtitle": TIMERS_SENTENCE})

    def changeform_view(self, request, object_id=None, form_url="", extra_context=None):
        extra = {**(extra_context or {}), "subtitle": TIMERS_SENTENCE}
        return super().changeform_view(request, object_id, form_url, extra)


def _timers_read_only() -> None:
    import django_celery_beat.admin  # noqa: F401 - registers beat's admins first, whatever the app order
    from django_celery_beat import models as beat

    for model in (
        beat.PeriodicTask,
        beat.IntervalSchedule,
        beat.CrontabSchedule,
        beat.SolarSchedule,
        beat.ClockedSchedule,
    ):
        if not admin.site.is_registered(model):
            continue
        original = type(admin.site._registry[model])
        admin.site.unregister(model)
        admin.site.register(model, type(f"ReadOnly{original.__name__}", (TimersReadOnly, original), {}))


_timers_read_only()
