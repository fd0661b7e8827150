"""The read model (status, round, phase, awaited seats, scores) rebuilt from the log alone."""

from __future__ import annotations

from datetime import timedelta

from django.db import transaction
from django.utils import timezone

from . import eventlog
from .models import Game
from .services import awaited_seats, game_status, scores_with_corrections


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
            deadlines[str(seat)] = kept or (now + timedelta(hours=game.deadline_hours)).isoformat()
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
