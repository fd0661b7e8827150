"""A game's log as one JSON document, as a seat (or a spectator, or anyone after the end) may
see it: what `python -m pbem.verify` checks with no server (the format is in pbem/CHAIN.md).

Before the end the document holds what that reader may see and, for each event, the chain's
parts (scheme 2) so the links can be checked; a payload the reader may not see is left out, and
so are every random draw and the seed. After the end it is complete: every payload, every draw,
the seed, and the final state's digest, so the verifier can replay the whole game.
"""

from __future__ import annotations

from django.utils import timezone

from pbem.log import chain, eventlog
from pbem.models import Event, Game
from pbem.play.selectors import FEED_FIELDS, game_over, hashes_public, may_see, seat_names

FORMAT = "pbem-log"
FORMAT_VERSION = 1


def document(game: Game, seat: int | None = None) -> dict:
    """The log of `game` as `seat` (None: a spectator) may see it; complete once the game is over."""
    complete = game_over(game)
    sealer = eventlog.sealer_for(game)
    rows = Event.objects.filter(game_id=game.pk).order_by("seq").values(*FEED_FIELDS)
    shown = hashes_public(game)
    events = [_event(sealer, row, seat, complete, shown) for row in rows.iterator(chunk_size=2000)]
    doc = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "exported_at": timezone.now().isoformat(),
        "game": {
            "id": game.pk,
            "kind": game.kind,
            "title": game.title,
            "options": game.options,
            "reducer_version": game.reducer_version,
            "chain_scheme": game.chain_scheme,
            "seed_commitment": game.seed_commitment,
            "status": game.status,
            "players": seat_names(game),
        },
        "reader": {"seat": None if complete else seat, "complete": complete},
        "head": {"version": game.version, "hash": game.head_hash if shown else None},
        "events": events,
    }
    if complete:
        final = eventlog.load(game, use_snapshots=False).state
        doc["seed"] = game.seed
        doc["final"] = {"state_digest": chain.state_digest(final), "scores": list(game.scores or [])}
    return doc


def _event(sealer: chain.Sealer, row: dict, seat: int | None, complete: bool, shown: bool) -> dict:
    seq, visible_to = row["seq"], row["visible_to"]
    seen = complete or may_see(visible_to, seat)
    item = {
        "seq": seq,
        "type": row["type"],
        "payload": row["payload"] if seen else None,
        "public": row["public"],
        "visible_to": visible_to,
        "reveals": row["reveals"],
        "schema_version": row["schema_version"],
        "actor_kind": row["actor_kind"],
        "actor_seat": row["actor_seat"],
        "created_at": row["created_at"].isoformat(),
        "prev_hash": row["prev_hash"] if shown else None,
        "hash": row["hash"] if shown else None,  # withheld: a scheme-1 game before its end
    }
    if complete:
        item["rng"] = row["rng"]
    if sealer.scheme == 1:
        if complete:  # scheme 1 hashes these too: without them nobody could check a link
            item["causation_id"] = row["causation_id"]
            item["actor_user_id"] = row["actor_user_id"]
        return item
    item["parts"] = sealer.parts(seq, row)
    if seen and not complete:
        item["payload_key"] = sealer.payload_key(seq)
    return item
