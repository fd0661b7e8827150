"""Verification anyone can repeat: the hash chain (under the game's scheme, pbem/CHAIN.md), the
heads the outbox mailed out, replay against the snapshots, and (once the seed is revealed) every
random outcome re-derived from it. Players repeat it without the server: `export_game` writes the
log, `python -m pbem.verify` checks it."""

from __future__ import annotations

import copy
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field

from django.core.cache import cache
from django.db import connection
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop, ngettext

from games.base import rederive
from pbem.audit import publish
from pbem.log import anchors, chain, eventlog
from pbem.log.said import Said, said
from pbem.models import Event, Game, HeadEntry, Notice, NoticeStatus, Snapshot
from pbem.registry import get_game

ROW_FIELDS = eventlog.EVENT_ROW_FIELDS


SCHEME_TEXT = {
    1: gettext_noop(
        "scheme 1 (SHA-256 over each event's whole content: checkable only with every hidden payload, "
        "so only after the end; games made before scheme 2 keep it)"
    ),
    2: gettext_noop(
        "scheme 2 (public parts hashed, hidden payloads and random draws committed with keys derived "
        "from the secret seed: anyone checks the links now, and every commitment once the seed is revealed)"
    ),
}


def scheme_text(scheme: int) -> str:
    """The chain's scheme in the reader's words (the audit page, the API)."""
    if scheme in SCHEME_TEXT:
        return _(SCHEME_TEXT[scheme])
    return _("scheme %(scheme)s (unknown to this code)") % {"scheme": scheme}


# A problem the checks find: its English text, and its template and values for the audit page.
Problem = Said


@dataclass
class Report:
    game_id: int
    scheme: int = chain.LATEST
    events: int = 0
    heads_checked: int = 0
    snapshots_checked: int = 0
    draws_checked: int = 0
    seed_revealed: bool = False
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    # What the mailed and published heads checked were (_anchors_mark), where they were kept.
    anchors: str = field(default="", repr=False, compare=False)

    @property
    def ok(self) -> bool:
        return not self.problems

    def summary(self) -> str:
        if self.ok:
            seed = f", {self.draws_checked} random outcomes re-derived from the seed" if self.seed_revealed else ""
            mailed = f", {self.heads_checked} mailed heads still in the log" if self.heads_checked else ""
            return (
                f"game #{self.game_id}: ok ({self.events} events, chain intact under scheme {self.scheme}"
                f"{mailed}, {self.snapshots_checked} snapshots equal to replay{seed})"
            )
        return f"game #{self.game_id}: FAILED\n  " + "\n  ".join(self.problems)

    def said(self) -> str:
        """The summary in the reader's words (the audit page); `summary` is verify_games' line.
        The problems are `problems_said`; `problems` stay English (verify_games, the API)."""
        if not self.ok:
            return _("game #%(game)s: FAILED") % {"game": self.game_id}
        parts = [
            ngettext("%(count)d event", "%(count)d events", self.events) % {"count": self.events},
            _("chain intact under scheme %(scheme)s") % {"scheme": self.scheme},
        ]
        if self.heads_checked:
            parts.append(
                ngettext(
                    "%(count)d mailed head still in the log",
                    "%(count)d mailed heads still in the log",
                    self.heads_checked,
                )
                % {"count": self.heads_checked}
            )
        parts.append(
            ngettext(
                "%(count)d snapshot equal to replay", "%(count)d snapshots equal to replay", self.snapshots_checked
            )
            % {"count": self.snapshots_checked}
        )
        if self.seed_revealed:
            parts.append(
                ngettext(
                    "%(count)d random outcome re-derived from the seed",
                    "%(count)d random outcomes re-derived from the seed",
                    self.draws_checked,
                )
                % {"count": self.draws_checked}
            )
        return _("game #%(game)s: ok (%(facts)s)") % {"game": self.game_id, "facts": ", ".join(parts)}

    def problems_said(self) -> list[str]:
        """The problems in the reader's words (the audit page): each is `Said` (a plain text,
        from a report kept before, as it is)."""
        return [str(said(p)) for p in self.problems]


# How long the audit page keeps a verification of one version (a new event is a new version,
# hence a new key: the log is append-only, so what held at a version holds until the next).
CACHE_SECONDS = 24 * 3600


def verify(game: Game, heads: Sequence[tuple[int, str]] = (), cached: bool = False) -> Report:
    """Everything the server can check about `game`; `heads`: (version, hash) pairs someone holds
    (from a notice), each of which the log must still contain.

    `cached` (the audit page): the walk over the log (chain, replay, snapshots, read model,
    seed) is kept per version, head and read model, and reused until the game moves on; so is
    the check of the heads the notices mailed and the feed published, while the set of them
    stays the same (_anchors_kept); heads given are checked afresh every time. `verify_games`
    never uses it."""
    key = _cache_key(game) if cached else None
    walked = cache.get(key) if key else None
    if walked is None:
        walked = _walk(game)
        if key:
            cache.set(key, walked, CACHE_SECONDS)
    report = copy.deepcopy(walked)
    _check_given(game, heads, report)
    if key:
        _anchors_kept(game, key, report)
    else:
        _check_anchors(game, report)
    return report


def _cache_key(game: Game) -> str:
    model = chain.canonical(
        {
            "awaited": game.awaited,
            "scores": game.scores,
            "rm": game.read_model_version,
            "reducer": game.reducer_version,
            "scheme": game.chain_scheme,
        }
    )
    digest = hashlib.sha256(model.encode()).hexdigest()[:16]
    return f"pbem:audit:{game.pk}:{game.version}:{game.head_hash}:{digest}"


def _walk(game: Game) -> Report:
    report = Report(game.pk, scheme=game.chain_scheme)
    seal = eventlog.sealer_for(game).hash
    spec = get_game(game.kind)
    snapshots = {
        seq: state
        for seq, state in Snapshot.objects.filter(game=game, reducer_version=spec.version).values_list("seq", "state")
    }
    undone = eventlog.undone_seqs(game.pk)
    state = eventlog.new_state()
    prev, expected_seq, seed = eventlog.GENESIS, 1, None
    random_rows = []
    rows = Event.objects.filter(game=game).order_by("seq").values(*ROW_FIELDS)
    for row in rows.iterator(chunk_size=2000):
        seq = row["seq"]
        if seq != expected_seq:
            report.problems.append(
                Problem(gettext_noop("event numbers jump from %(last)s to %(seq)s"), last=expected_seq - 1, seq=seq)
            )
        expected_seq = seq + 1
        if row["prev_hash"] != prev:
            report.problems.append(
                Problem(
                    gettext_noop("event %(seq)s: previous hash does not match event %(before)s"),
                    seq=seq,
                    before=seq - 1,
                )
            )
        digest = seal(seq, row, row["prev_hash"])
        if digest != row["hash"]:
            report.problems.append(
                Problem(gettext_noop("event %(seq)s: content does not match its hash (altered?)"), seq=seq)
            )
        prev = row["hash"]
        if row["type"] == "pbem.SeedRevealed":
            seed = row["payload"]["seed"]
        if row["rng"]:
            random_rows.append((seq, row["rng"]))
        if seq not in undone:
            try:
                payload = eventlog.upcast(spec, row["type"], row["payload"], row["schema_version"])
                state = eventlog.apply(
                    spec, state, row["type"], payload, row["visible_to"], row["public"], row["reveals"], seq
                )
            except Exception as exc:  # noqa: BLE001 - any failure to replay is a finding
                report.problems.append(
                    Problem(gettext_noop("event %(seq)s: replay failed: %(error)s"), seq=seq, error=repr(exc))
                )
                break
        if seq in snapshots:
            report.snapshots_checked += 1
            if eventlog.canonical(snapshots[seq]) != eventlog.canonical(state):
                report.problems.append(
                    Problem(gettext_noop("snapshot at event %(seq)s differs from replay from scratch"), seq=seq)
                )
        report.events += 1
    _check_the_end(game, prev, report)
    if not report.problems:
        _compare_read_model(game, spec, state, report)
    if seed is not None:
        _check_the_draws(game, seed, random_rows, report)
    return report


def _check_the_end(game: Game, last_hash: str, report: Report) -> None:
    """The game row's count of events and chain head against the log walked."""
    if report.events != game.version:
        report.problems.append(
            Problem(
                gettext_noop("the game says %(version)s events, the log holds %(events)s"),
                version=game.version,
                events=report.events,
            )
        )
    if report.events and last_hash != game.head_hash:
        report.problems.append(
            Problem(gettext_noop("the game's recorded chain head differs from the last event's hash"))
        )


def _check_the_draws(game: Game, seed: str, random_rows: list, report: Report) -> None:
    """Once the seed is revealed: it matches the commitment, and every random outcome follows from it."""
    report.seed_revealed = True
    if hashlib.sha256(bytes.fromhex(seed)).hexdigest() != game.seed_commitment:
        report.problems.append(
            Problem(gettext_noop("the revealed seed does not match the commitment published at the start"))
        )
    for seq, draws in random_rows:
        report.draws_checked += len(draws)
        if not rederive(bytes.fromhex(seed), seq, draws):
            report.problems.append(
                Problem(gettext_noop("event %(seq)s: its random outcomes do not follow from the seed"), seq=seq)
            )


def _check_given(game: Game, heads, report: Report) -> None:
    """Heads someone holds and gives (from a notice): each must still be in the log."""
    for check in anchors.check_heads(game, list(heads)) if heads else ():
        if not check.contained:
            report.problems.append(check.message)


def _check_anchors(game: Game, report: Report) -> None:
    """Heads held outside the database: every one the outbox mailed out, and every one the public
    heads feed published (its mirrors hold them); one query for each kind."""
    for mailed in anchors.mailed_heads(game):
        report.heads_checked += 1
        if not mailed.check.contained:
            report.problems.append(
                Problem(gettext_noop("%(notice)s: %(verdict)s"), notice=mailed.describe(), verdict=mailed.check.message)
            )
    published = publish.published_heads(game.pk)
    for check in anchors.check_heads(game, published) if published else ():
        report.heads_checked += 1
        if not check.contained:
            report.problems.append(
                Problem(gettext_noop("the public heads feed's head: %(verdict)s"), verdict=check.message)
            )


def _anchors_kept(game: Game, key: str, report: Report) -> None:
    """_check_anchors, kept beside the walk of the version (`key`) for as long as the set of
    anchors is the one checked: the sent notices quoting a head (their count, greatest and summed
    ids: a notice sent, bounced or pruned changes them) and the feed's entries (append-only: their
    count and greatest number). Checked afresh, the game's every mailed head is a row to read and
    a head to parse: the audit page's cost grew with the log (2.6-4.5x at 1,000 events)."""
    mark = _anchors_mark(game)
    anchors_key = f"{key}:anchors:{mark}"
    kept = cache.get(anchors_key)
    if kept is None:
        part = Report(game.pk)
        _check_anchors(game, part)
        kept = (part.heads_checked, part.problems)
        cache.set(anchors_key, kept, CACHE_SECONDS)
    report.heads_checked += kept[0]
    report.problems.extend(kept[1])
    report.anchors = mark


def _anchors_mark(game: Game) -> str:
    """What changes when a notice quoting a head is sent (or leaves the sent ones) or the feed
    publishes one of this game's heads: one statement, two aggregates over indexed rows."""
    notices, entries = Notice._meta.db_table, HeadEntry._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT count(*), coalesce(max(id), 0), coalesce(sum(id), 0), "
            f"(SELECT count(*) FROM {entries} WHERE game_id = %s), "
            f"(SELECT coalesce(max(n), 0) FROM {entries} WHERE game_id = %s) "
            f"FROM {notices} WHERE game_id = %s AND status = %s AND chain_head <> ''",
            [game.pk, game.pk, game.pk, NoticeStatus.SENT],
        )
        return ":".join(str(value) for value in cursor.fetchone())


def _compare_read_model(game: Game, spec, state: dict, report: Report) -> None:
    """The read model was written by the code that applied each move: if today's code replays
    the log to other awaited seats or scores, this game would play on differently."""
    from pbem.log.readmodels import awaited_seats, scores_with_corrections

    if game.read_model_version != game.version:
        return  # not yet rebuilt since the last append (e.g. after an outage): nothing to compare
    replayed = {"awaited": awaited_seats(spec, state), "scores": scores_with_corrections(spec, state)}
    stored = {"awaited": list(game.awaited or []), "scores": list(game.scores or [])}
    for key in replayed:
        if replayed[key] != stored[key]:
            report.problems.append(
                Problem(
                    gettext_noop(
                        "replay with today's code gives %(key)s %(replayed)s, the game recorded %(stored)s (reducer changed?)"
                    ),
                    key=key,
                    replayed=replayed[key],
                    stored=stored[key],
                )
            )
    if game.reducer_version != spec.version:
        report.notes.append(f"started with reducer version {game.reducer_version}, code is at {spec.version}")


def chain_problems_of(report: Report) -> list[str]:
    """The findings about the hash chain itself (`verify` words them this way)."""
    return [p for p in report.problems if "hash" in p or "numbers jump" in p or "altered" in p]


def draws_table(game: Game) -> list[dict]:
    """Every recorded random outcome with its re-derivation (only meaningful after the end)."""
    seed = Event.objects.filter(game=game, type="pbem.SeedRevealed").values_list("payload", flat=True).first()
    out = []
    for seq, draws in Event.objects.filter(game=game, rng__isnull=False).order_by("seq").values_list("seq", "rng"):
        if not draws:
            continue
        ok = rederive(bytes.fromhex(seed["seed"]), seq, draws) if seed else None
        out.append({"seq": seq, "draws": draws, "rederived": ok})
    return out
