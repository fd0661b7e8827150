"""The platform's tables. Events are the truth; everything else is a cache, a read model, an
inbox or an outbox.

The event table is append-only: a migration installs triggers that make the database itself
refuse UPDATE and DELETE on it (see migrations/0002_append_only.py).
"""

from __future__ import annotations

import secrets

from django.conf import settings
from django.core.validators import MinValueValidator
from django.db import models

from pbem.log import chain


class GameStatus(models.TextChoices):
    OPEN = "open", "open (waiting for players)"
    RUNNING = "running", "running"
    PAUSED = "paused", "paused"
    FINISHED = "finished", "finished"
    ABANDONED = "abandoned", "abandoned"


class AbsencePolicy(models.TextChoices):
    """What happens to a seat that misses deadlines in a row (chosen when the game is made)."""

    STANDIN = "standin", "the stand-in plays it until its player comes back"
    MINIMAL = "minimal", "the rules' minimal action (a pass) at each deadline"
    MASTER = "master", "the Master of Seals decides"


def new_seed_hex() -> str:
    return secrets.token_hex(32)


def current_chain_scheme() -> int:
    """The hash-chain scheme a new game is written with (pbem/CHAIN.md); a game keeps its own.
    A function, read when a game is made, so a test can make a game of an older scheme."""
    return chain.LATEST


class Game(models.Model):
    kind = models.CharField(max_length=40)
    title = models.CharField(max_length=200, blank=True)
    options = models.JSONField(default=dict, blank=True)
    status = models.CharField(max_length=12, choices=GameStatus.choices, default=GameStatus.OPEN)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    # The secret seed of every random outcome; only its SHA-256 is public before the end.
    seed = models.CharField(max_length=64, default=new_seed_hex, editable=False)
    seed_commitment = models.CharField(max_length=64, editable=False)
    reducer_version = models.IntegerField(default=1, editable=False)
    # How the log's hash chain is computed (pbem/CHAIN.md): set when the game is made, never
    # changed; games made before scheme 2 keep scheme 1.
    chain_scheme = models.SmallIntegerField(default=current_chain_scheme, editable=False)
    # Plain integers with validators, not PositiveIntegerField: PostgreSQL re-checks every CHECK
    # constraint of a row on each UPDATE, and this row is updated by every append.
    # How long each awaited seat has for its move (seconds: the desk and the forms speak hours).
    deadline_seconds = models.IntegerField(default=48 * 3600, validators=[MinValueValidator(1)])
    away_allowance_days = models.IntegerField(default=21, validators=[MinValueValidator(0)])
    # The clock the table chose (pbem/log/clocks.py), as its GameCreated event records it; {}: a
    # game made before clocks, or with none chosen: a fixed period of deadline_seconds, as ever.
    clock = models.JSONField(default=dict, blank=True)
    # A seat that misses this many deadlines in a row is handed to `absence_policy`.
    absence_policy = models.CharField(max_length=8, choices=AbsencePolicy.choices, default=AbsencePolicy.STANDIN)
    standin_after = models.IntegerField(default=2, validators=[MinValueValidator(1)])
    masters = models.ManyToManyField(
        settings.AUTH_USER_MODEL,
        blank=True,
        related_name="mastered_games",
        help_text="Masters of Seals who run this game on the desk.",
    )
    # Optimistic concurrency and the hash chain's head: bumped by every append.
    version = models.IntegerField(default=0, editable=False)
    head_hash = models.CharField(max_length=64, default="0" * 64, editable=False)
    # Read model: rebuilt from the log by `rebuild_read_models`, updated with every append.
    round = models.IntegerField(default=0)
    phase = models.CharField(max_length=80, blank=True)
    awaited = models.JSONField(default=list, blank=True)
    deadlines = models.JSONField(default=dict, blank=True)  # {"seat": iso datetime}
    scores = models.JSONField(default=list, blank=True)
    read_model_version = models.IntegerField(default=0)

    class Meta:
        ordering = ["-id"]
        # Every append updates this row, and PostgreSQL opens and locks each of a table's
        # indexes for it (HOT updates included), so only the index the lobby and the timers
        # use: by status. (A games table is small; by kind is a scan.) No varchar_pattern_ops
        # twin either: nothing here searches with LIKE.
        indexes = [models.Index(fields=["status"], name="game_status")]

    def __str__(self) -> str:
        return f"#{self.pk} {self.title or self.kind}"

    @property
    def deadline_text(self) -> str:
        """The time per move as people say it: "48 hours", "90 minutes", "1 minute"."""
        return duration_text(self.deadline_seconds)


def duration_text(seconds: int) -> str:
    """A duration in the largest whole unit: "48 hours", "5 days", "90 minutes", "1 minute"."""
    if seconds >= 3 * 86400 and seconds % 86400 == 0:
        count, unit = seconds // 86400, "day"
    elif seconds >= 3600 and seconds % 3600 == 0:
        count, unit = seconds // 3600, "hour"
    elif seconds >= 60 and seconds % 60 == 0:
        count, unit = seconds // 60, "minute"
    else:
        count, unit = seconds, "second"
    return f"{count} {unit}{'' if count == 1 else 's'}"


class NoticePreference(models.TextChoices):
    """How a seat hears of the other players' moves (its own turns are always mailed)."""

    TURN = "turn", "once per turn of another player"
    ROUND = "round", "once per round"
    EVERY = "every", "every move"
    DIGEST = "digest", "a daily digest"
    NONE = "none", "nothing"


class PlayerSettings(models.Model):
    """A player's own defaults, by address, for the games they join from now on: how they hear
    of the others' moves, and whether news mails carry the board's picture. Set with
    'notices default …' from any game; a game's seat keeps its own choice."""

    email = models.EmailField(unique=True)  # stored lower-case
    notice_preference = models.CharField(max_length=8, choices=NoticePreference.choices, default=NoticePreference.TURN)
    news_pictures = models.BooleanField(default=False)
    # 'orders forced on default': forced moves played for them in the games they join from now
    # on (pbem.play.orders).
    forced_moves = models.BooleanField(default=False)
    # One notice for all the games awaiting them, answered with lines prefixed by the game
    # ('#12: 3'), instead of one notice per game ('notices combined').
    combined_notices = models.BooleanField(default=False)
    updated_at = models.DateTimeField(auto_now=True)
    # The player's calendar feed (pbem/play/calendar.py) is signed with this generation: bumped
    # when the player asks for a new link ('calendar new', or the seat page), every older feed
    # URL stops working at once.
    calendar_generation = models.PositiveIntegerField(default=1)
    # The player's language ("en", "de", "fr"; blank: not chosen yet) for the games they join from
    # now on: set by 'language …', the seat page, or the first visit's Accept-Language.
    language = models.CharField(max_length=8, blank=True, default="", db_default="")

    def __str__(self) -> str:
        return f"{self.email}: notices {self.notice_preference}"


class Seat(models.Model):
    game = models.ForeignKey(Game, on_delete=models.PROTECT, related_name="seats")
    number = models.PositiveSmallIntegerField()
    name = models.CharField(max_length=100)
    email = models.EmailField()
    colour = models.CharField(max_length=30, blank=True)
    # Bumped when the player is replaced: tokens of older generations stop working at once.
    token_generation = models.PositiveIntegerField(default=1)
    invite_accepted = models.BooleanField(default=True)
    notice_preference = models.CharField(max_length=8, choices=NoticePreference.choices, default=NoticePreference.TURN)
    # News mails carry the board's picture only when the player asked (notices … pictures).
    news_pictures = models.BooleanField(default=False)
    away_until = models.DateTimeField(null=True, blank=True)
    away_days_used = models.PositiveIntegerField(default=0)
    last_notice_version = models.PositiveIntegerField(default=0)
    # The day of the last digest queued for this seat: one a day, by construction (the digest
    # timer sets it under the row's lock in the transaction that queues the digest).
    last_digest_on = models.DateField(null=True, blank=True)
    # The player's time zone (an IANA name): every date and time mailed to this seat is shown in
    # it, always named. Set by the "zone" command.
    time_zone = models.CharField(max_length=64, default="UTC")
    # The language this seat's player reads (pbem.play.languages): every notice, answer and page
    # of the seat is written in it. Blank: not chosen yet (English until the first visit's
    # Accept-Language or 'language …' says otherwise). Presentation only: never in the log.
    language = models.CharField(max_length=8, blank=True, default="", db_default="")
    # Delivery you can see (pbem/mail/channels.py): since when the player's mail has bounced or
    # failed (the first undeliverable notice since it last got through), when the last one did,
    # and whether the table was told (by the sweep). Cleared once a later notice went out and
    # stayed unbounced for channels.QUIET.
    mail_failing_since = models.DateTimeField(null=True, blank=True)
    mail_last_failed_at = models.DateTimeField(null=True, blank=True)
    mail_trouble_told = models.BooleanField(default=False)

    class Meta:
        ordering = ["game", "number"]
        constraints = [models.UniqueConstraint(fields=["game", "number"], name="seat_unique_number")]
        # The digest timer reads only the seats that asked for a digest.
        indexes = [
            models.Index(
                fields=["last_digest_on"], name="seat_digest_due", condition=models.Q(notice_preference="digest")
            )
        ]

    def __str__(self) -> str:
        return f"{self.name} (seat {self.number + 1} of game #{self.game_id})"


class ActorKind(models.TextChoices):
    SEAT = "seat", "a seat"
    SYSTEM = "system", "the system"
    ADMIN = "admin", "an admin"
    STANDIN = "standin", "the stand-in for a seat"


class Event(models.Model):
    """One entry of a game's log. Never updated, never deleted (the database refuses)."""

    # Every index, constraint and trigger here is paid by every append, so only what earns it:
    # - UNIQUE(game, seq) serves lookups by game and is the last line against a doubled number;
    #   (game, causation_id) serves the duplicate check; neither column has an index of its own.
    # - No foreign-key constraint in the database (the ORM still treats `game` and `actor_user`
    #   as relations and PROTECTs them): the append statement takes the game's id from the game
    #   row it has just bumped, so the game exists by construction, and a trigger refuses to
    #   delete a game that has a log (migration 0006). A deferred FK check cost a lookup per row.
    # - No CHECK constraints (seq >= 0 …): the append numbers events from the game's version.
    game = models.ForeignKey(Game, on_delete=models.PROTECT, related_name="events", db_index=False, db_constraint=False)
    seq = models.IntegerField()
    type = models.CharField(max_length=80)
    payload = models.JSONField()
    public = models.JSONField(null=True, blank=True)  # what other seats see when visible_to restricts
    visible_to = models.JSONField(null=True, blank=True)  # null: everyone; []: no seat; else seat numbers
    reveals = models.BooleanField(default=False)
    rng = models.JSONField(null=True, blank=True)  # draws [[n, outcome], …] made for this batch
    actor_kind = models.CharField(max_length=8, choices=ActorKind.choices)
    actor_seat = models.SmallIntegerField(null=True, blank=True)
    actor_user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, db_index=False, db_constraint=False
    )
    created_at = models.DateTimeField()
    causation_id = models.CharField(max_length=200, blank=True)
    schema_version = models.SmallIntegerField(default=1)
    prev_hash = models.CharField(max_length=64)
    hash = models.CharField(max_length=64)

    class Meta:
        ordering = ["game", "seq"]
        constraints = [models.UniqueConstraint(fields=["game", "seq"], name="event_unique_seq")]
        indexes = [models.Index(fields=["game", "causation_id"], name="event_causation")]

    def __str__(self) -> str:
        return f"#{self.game_id}.{self.seq} {self.type}"


class Snapshot(models.Model):
    """A cache of the state after event `seq`; ignored when made by another reducer version."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="snapshots")
    seq = models.PositiveIntegerField()
    reducer_version = models.IntegerField()
    state = models.JSONField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["game", "seq", "reducer_version"], name="snapshot_unique"),
        ]


class BoardPicture(models.Model):
    """A notice's board picture, made once per (game, version, drawing) and kept (issue 34): the
    log is append-only, so what a seat sees at a version never changes, and every seat whose view
    draws the same SVG, and every later resend, shares it. `drawing` is the SHA-256 of the SVG
    and of the rasteriser's settings (pbem.mail.pictures.drawing_digest): a seat can only be
    given the picture of exactly what it sees. `png` empty: nothing fitted `made_under` bytes."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="pictures")
    version = models.PositiveIntegerField()
    drawing = models.CharField(max_length=64)
    png = models.BinaryField()
    made_under = models.PositiveIntegerField()  # the byte budget it was made for
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["game", "version", "drawing"], name="board_picture_unique"),
        ]


class NoticeStatus(models.TextChoices):
    PENDING = "pending", "pending"
    SENDING = "sending", "sending"
    SENT = "sent", "sent"
    FAILED = "failed", "failed"
    BOUNCED = "bounced", "bounced"
    SKIPPED = "skipped", "skipped"


class Notice(models.Model):
    """The outbox: a mail to send, written in the same transaction as the events behind it.

    The text is rendered when it is sent, from the log as it stood at `version`, so writing a
    notice costs one row and sending it twice is prevented by claiming it (status) first.

    Most notices are written by an append, so the row carries only the indexes the sender and
    the desk need (by game, by status) and a partial one a fresh notice skips (dedupe key);
    like the event, no database FK or CHECK constraints (the append writes game and seat ids it
    has just read from those rows).
    """

    game = models.ForeignKey(
        Game, on_delete=models.PROTECT, related_name="notices", null=True, blank=True, db_constraint=False
    )
    seat = models.ForeignKey(
        Seat,
        on_delete=models.PROTECT,
        related_name="notices",
        null=True,
        blank=True,
        db_constraint=False,
        db_index=False,
    )
    kind = models.CharField(max_length=20)  # turn, news, final, confirmation, refusal, reminder, …
    version = models.IntegerField(default=0)  # the game's version the notice speaks of
    to_email = models.EmailField(blank=True)
    context = models.JSONField(default=dict, blank=True)  # what the template needs beyond the log
    status = models.CharField(max_length=8, choices=NoticeStatus.choices, default=NoticeStatus.PENDING)
    attempts = models.SmallIntegerField(default=0)
    message_id = models.CharField(max_length=250, blank=True)
    subject = models.CharField(max_length=300, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    sent_at = models.DateTimeField(null=True, blank=True)
    next_attempt_at = models.DateTimeField(null=True, blank=True)
    last_error = models.TextField(blank=True)
    # The chain head the sent mail quoted, "VERSION:HASH" (written when it is sent): an anchor
    # outside the log, so `verify_games` can tell when a head that went out is no longer in it.
    # A database default: the append's own INSERT of notice rows need not name the column.
    chain_head = models.CharField(max_length=80, blank=True, default="", db_default="")
    # For notices the timers write (reminders, digests): one per key, even when two beat
    # processes race (unique; NULL for every other notice).
    dedupe_key = models.CharField(max_length=200, null=True, blank=True)

    class Meta:
        ordering = ["-id"]
        indexes = [
            models.Index(fields=["status"], name="notice_status"),
            # The answers' loop guard counts one address's answers of the last hour.
            models.Index(fields=["to_email", "kind", "created_at"], name="notice_to_kind_time"),
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["dedupe_key"], name="notice_unique_dedupe_key", condition=models.Q(dedupe_key__isnull=False)
            ),
        ]


# Notices that tell a seat it is its move: its deadline must not run out before one reaches it.
TURN_NOTICE_KINDS = ("turn", "welcome")


class InboundStatus(models.TextChoices):
    RECEIVED = "received", "received"
    APPLIED = "applied", "applied"
    REFUSED = "refused", "refused"
    IGNORED = "ignored", "ignored (automatic mail)"
    ANSWERED = "answered", "answered (no change)"


# The channels whose submissions are typed on the site (the web form, the API) rather than mailed.
WEB_CHANNELS = ("web", "api")


class InboundMessage(models.Model):
    """A reply or a web/API submission, stored before it is processed (Message-ID unique)."""

    message_id = models.CharField(max_length=250, unique=True)
    channel = models.CharField(max_length=12)  # pipe, maildir, smtp, webhook, imap, web, api
    raw = models.BinaryField()
    received_at = models.DateTimeField(auto_now_add=True)
    status = models.CharField(
        max_length=10, choices=InboundStatus.choices, default=InboundStatus.RECEIVED, db_index=True
    )
    outcome = models.TextField(blank=True)
    game = models.ForeignKey(Game, null=True, blank=True, on_delete=models.PROTECT, related_name="inbound")
    seat = models.ForeignKey(Seat, null=True, blank=True, on_delete=models.PROTECT, related_name="inbound")
    sender = models.CharField(max_length=250, blank=True)
    processed_at = models.DateTimeField(null=True, blank=True)
    result_version = models.PositiveIntegerField(null=True, blank=True)
    # Machine-readable result: applied, answered, duplicate, or the refusal's code (illegal, stale,
    # not_your_turn, forged, …) so a page or a test can tell refusals apart without reading prose.
    error_code = models.CharField(max_length=20, blank=True)
    # The envelope recipients (SMTP RCPT TO, an ESP's recipient field, the MTA pipe's argument):
    # the reply address with its token may be there and nowhere in the headers.
    envelope_to = models.JSONField(default=list, blank=True)

    class Meta:
        ordering = ["-id"]


class Heartbeat(models.Model):
    """When a background part of the service last did its work, for /health/: each timer's last
    run ("timer:<task>") and the SMTP listener's last sign of life ("door:smtp"). One row each,
    overwritten: it is a gauge, not a record (the log of what happened lives in the events)."""

    name = models.CharField(max_length=80, primary_key=True)
    at = models.DateTimeField()
    ok = models.BooleanField(default=True)
    detail = models.CharField(max_length=300, blank=True)


class Outage(models.Model):
    """A time the service itself could not keep its clocks (the deadline timers did not run):
    found by the next sweep from the timers' heartbeat (pbem/ops/outages.py). Every deadline
    running through it is extended by its length, once: `forgiven_at` is set when every game has
    its `pbem.OutageForgiven` event (each naming this row, so a game is never extended twice)."""

    started_at = models.DateTimeField(unique=True)  # one outage per last heartbeat before it
    ended_at = models.DateTimeField()
    reason = models.CharField(max_length=300)
    forgiven_at = models.DateTimeField(null=True, blank=True)

    @property
    def seconds(self) -> int:
        return int((self.ended_at - self.started_at).total_seconds())


class DeadlineTimer(models.Model):
    """The timers' work list: one row per awaited seat of a running game, indexed by when the
    timers next have something to do for it, so a sweep reads only what is due.

    The database keeps it in step with the game row's read model (`deadlines`, `awaited`,
    `status`, `deadline_seconds`) by a trigger (migrations/_timer_triggers.py), whatever wrote the
    row: the append, the desk, `rebuild_read_models`. A seat's row is replaced when its deadline
    changes and removed when it is no longer awaited. `deadline` is the ISO text of the game's
    `deadlines` entry ("" while the seat is held after a bounce); `due_at` starts at the
    beginning of the period and the sweep moves it on (the next reminder mark, the deadline, the
    end of a hold), or clears it once nothing is left to do for that deadline. `reminded_at` is
    the mark of the last reminder queued and `reported` says the Master of Seals was told, so
    each is done once by construction (the row is claimed under a lease, changed under its
    lock). Not a record: the log keeps what happened."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="+", db_constraint=False, db_index=False)
    seat = models.SmallIntegerField()
    deadline = models.CharField(max_length=40, blank=True)
    period = models.IntegerField()
    due_at = models.DateTimeField(null=True, blank=True)
    reminded_at = models.DateTimeField(null=True, blank=True)
    reported = models.BooleanField(default=False)
    # A sweep's claim: its token, until `due_at` (then the lease has run out and any sweep may
    # take the row again).
    lease = models.CharField(max_length=32, blank=True, default="")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["game", "seat"], name="deadlinetimer_unique_seat")]
        indexes = [models.Index(fields=["due_at"], name="deadlinetimer_due", condition=models.Q(due_at__isnull=False))]


class HeadEntry(models.Model):
    """One entry of the public heads feed (/heads.json): a game's chain head at a time, chained
    to the entry before it (pbem/audit/heads_feed.py, pbem/CHAIN.md). Appended by the timers
    (pbem.audit.publish), never changed: the database refuses an UPDATE or a DELETE, and a
    mirror that kept any entry's hash sees a rewrite of everything up to it."""

    n = models.BigIntegerField(primary_key=True)  # 1, 2, 3 … without a gap
    game = models.ForeignKey(Game, on_delete=models.PROTECT, related_name="+", db_index=False, db_constraint=False)
    version = models.IntegerField()
    head_hash = models.CharField(max_length=64)
    published_at = models.DateTimeField()
    prev = models.CharField(max_length=64)  # the previous entry's `entry` (64 zeros before the first)
    entry = models.CharField(max_length=64)

    class Meta:
        ordering = ["n"]
        indexes = [models.Index(fields=["game", "-version"], name="headentry_game_version")]


class ChannelStatus(models.TextChoices):
    ACTIVE = "active", "active"
    PAUSED = "paused", "paused (kept failing)"


class Channel(models.Model):
    """Another way to tell a player it is their move (pbem/mail/channels.py): a chat or push
    service reached through Apprise, one URL each (discord://…, tgram://…, ntfy://…). A
    player's own (by address: `email`), for one game (`game`) or for all their games (no game);
    or a table's shared channel (`table`, with its game and no address), which gets only the
    table's public news. The mail stays the authority: a channel carries a short text and, for
    the player's own, the seat's link.

    `url` holds the service's secret (a webhook token, a bot token): it is never logged, never
    shown back in full (`shown` is Apprise's privacy form of it), never in a public feed, never
    in the game's log."""

    email = models.EmailField(blank=True)  # the player's, lower-case; blank for a table's channel
    game = models.ForeignKey(Game, null=True, blank=True, on_delete=models.CASCADE, related_name="channels")
    table = models.BooleanField(default=False)
    url = models.TextField()
    kind = models.CharField(max_length=20)  # the URL's scheme: discord, tgram, matrixs, slack, ntfys, jsons, …
    shown = models.CharField(max_length=300)  # the URL with its secrets masked
    status = models.CharField(max_length=8, choices=ChannelStatus.choices, default=ChannelStatus.ACTIVE)
    # Messages in a row that failed after all their retries (a success sets it back to 0); at
    # channels.PAUSE_AFTER the channel is paused. The player is told by mail at the first and
    # at the pause.
    failures = models.SmallIntegerField(default=0)
    failing_since = models.DateTimeField(null=True, blank=True)
    last_error = models.CharField(max_length=300, blank=True)  # masked: no URL, no token
    last_sent_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        indexes = [models.Index(fields=["email"], name="channel_email")]

    def __str__(self) -> str:
        return f"{self.kind} channel #{self.pk}"


class ChannelMessage(models.Model):
    """A channel's outbox: one short message to send through one channel, claimed once like a
    notice (pending -> sending -> sent | failed), retried with a growing delay."""

    channel = models.ForeignKey(Channel, on_delete=models.CASCADE, related_name="messages")
    # The notice it echoes, or that bounced (none for the table's news and the channel's own).
    notice = models.ForeignKey(
        Notice, null=True, blank=True, on_delete=models.SET_NULL, related_name="+", db_constraint=False
    )
    seat = models.ForeignKey(Seat, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    kind = models.CharField(max_length=20)  # turn, reminder, final, bounced, table, trouble
    title = models.CharField(max_length=200)
    body = models.TextField()
    status = models.CharField(max_length=8, choices=NoticeStatus.choices, default=NoticeStatus.PENDING)
    attempts = models.SmallIntegerField(default=0)
    next_attempt_at = models.DateTimeField(null=True, blank=True)
    last_error = models.CharField(max_length=300, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    sent_at = models.DateTimeField(null=True, blank=True)
    # One message per key (a turn told once per channel, a table's news once), even when two
    # senders race.
    dedupe_key = models.CharField(max_length=200, null=True, blank=True)

    class Meta:
        ordering = ["id"]
        indexes = [models.Index(fields=["status", "next_attempt_at"], name="channelmessage_due")]
        constraints = [
            models.UniqueConstraint(
                fields=["dedupe_key"], name="channelmessage_unique_key", condition=models.Q(dedupe_key__isnull=False)
            ),
        ]
