"""The read model (status, round, phase, awaited seats, scores): how a state reads on the game row,
and the row rebuilt from the log alone."""

from __future__ import annotations

from datetime import timedelta

from django.db import transaction
from django.utils import timezone

from pbem.log import eventlog, fold
from pbem.log.fold import scores_with_corrections  # noqa: F401 - pure, shared with the offline verifier
from pbem.models import Game, GameStatus


def awaited_seats(spec, state) -> list[int]:
    meta = state["meta"]
    if state["game"] is None or meta["ended"] or meta["abandoned"] or meta["paused"] or not meta["started"]:
        return []
    return list(spec.waiting_for(state["game"]))


def game_status(state) -> str:
    return GameStatus(fold.status_of(state["meta"]))


def rebuild(game: Game) -> dict:
    """Recomputes the game's read model from its events and stores it; returns the new values."""
    with transaction.atomic():
        game = Game.objects.select_for_update().get(pk=game.pk)
        loaded = eventlog.load(game, use_snapshots=False)
        spec, state = loaded.spec, loaded.state
        summary = spec.summary(state["game"]) if state["game"] is not None else {}
        awaited = awaited_seats(spec, state)
        now = timezone.now()
        deadlines = {}
        for seat in awaited:
            kept = (game.deadlines or {}).get(str(seat))
            deadlines[str(seat)] = kept or (now + timedelta(seconds=game.deadline_seconds)).isoformat()
        values = {
            "status": game_status(state),
            "round": int(summary.get("round") or 0),
            "phase": str(summary.get("phase") or "")[:80],
            "awaited": awaited,
            "deadlines": deadlines,
            "scores": scores_with_corrections(spec, state),
            "read_model_version": loaded.version,
        }
        Game.objects.filter(pk=game.pk).update(**values)
    eventlog.cache_take(game.pk)  # the cached copy may predate the rebuild
    return values
