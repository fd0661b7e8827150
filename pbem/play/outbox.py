"""Hands notices written in a transaction to Celery once that transaction commits.

If the broker is down the rows stay `pending` in the outbox; the periodic sweep
(`pbem.tasks.sweep_outbox`) sends them once it is back, each exactly once.

A broker that accepts connections and never answers must not hold the command that queued the
task: a publish is given PUBLISH_WAIT seconds (it goes on in the background, bounded by the
broker's socket timeouts), and after a publish failed the broker is not tried again for BACK_OFF
seconds. Nothing is lost either way: the outbox and inbound sweeps take what was not queued.
"""

from __future__ import annotations

import logging
import threading
import time
from contextlib import contextmanager

from celery import current_app
from django.conf import settings
from django.db import transaction

log = logging.getLogger(__name__)

PUBLISH_WAIT = 1.0
BACK_OFF = 30.0
_broker = {"down_until": 0.0}


class BrokerAway(Exception):
    """The broker did not take the task in time (or failed recently): the sweep will."""


_together = threading.local()


def fold_seconds() -> float:
    """How long news and confirmations wait before they go out (PBEM_NOTICE_FOLD_SECONDS): a
    notice to the same seat that follows within that time tells the news (its "since your last
    notice" holds it) and carries the confirmation, so they need not go out on their own
    (pbem.mail.sending: superseded_news, fold_answers)."""
    return float(getattr(settings, "PBEM_NOTICE_FOLD_SECONDS", 10))


def dispatch_on_commit(game_id: int | None, later: float = 0) -> None:
    """Queues the sending of the game's notices once the transaction commits; with `later`
    (seconds), once more after that long, for the notices that wait before they go out (news and
    confirmations held back so that a notice following within seconds can tell them, see
    pbem.mail.sending.fold_seconds). The outbox sweep sends whatever a lost task left."""
    if getattr(settings, "PBEM_NOTICE_DISPATCH", "on_commit") != "on_commit":
        return
    games = getattr(_together, "games", None)
    if games is not None:
        # Noted once this part commits (a savepoint that rolls back drops it, and its notices).
        transaction.on_commit(lambda: games.add(game_id))
        if later > 0:
            waits = _together.later
            transaction.on_commit(lambda: waits.append((game_id, later)))
        return
    if later > 0:
        transaction.on_commit(lambda: _dispatch_later(game_id, later))
    transaction.on_commit(lambda: _dispatch(game_id))


@contextmanager
def dispatch_together():
    """The notices written in this block go out by one task once the transaction commits, not
    by one task a game: a group of games timed out together (runner.run_group) queued one task
    and started one publishing thread a game, ten thousand for ten thousand due seats. Enter it
    inside the transaction, outside the savepoints of its parts."""
    if getattr(_together, "games", None) is not None:  # within another such block: its task
        yield
        return
    games: set = set()
    standins: set = set()
    later: list = []  # (game, seconds) of the notices that wait before they go out
    _together.games, _together.standins, _together.later = games, standins, later
    try:
        yield
    finally:
        _together.games = _together.standins = _together.later = None
    # Registered last, so they run after every part's note that survived.
    transaction.on_commit(lambda: _dispatch_games(games, later))
    transaction.on_commit(lambda: _play_standins(standins))


def standins_on_commit(game_id: int) -> None:
    """Queues the moves of the game's stand-ins (and of orders given ahead) once the transaction
    commits (pbem.tasks.play_standins); in a dispatch_together block, one task for the block's
    games (pbem.tasks.play_standins_many): a group of timeouts that seated five thousand
    stand-ins queued five thousand tasks, each playing its game's moves one commit at a time."""
    standins = getattr(_together, "standins", None)
    if standins is not None:
        transaction.on_commit(lambda: standins.add(game_id))
        return
    transaction.on_commit(lambda: queue_task("pbem.tasks.play_standins", game_id))


def _play_standins(games: set) -> None:
    try:
        if len(games) == 1:
            queue_task("pbem.tasks.play_standins", next(iter(games)))
        elif games:
            queue_task("pbem.tasks.play_standins_many", sorted(games))
    except Exception:  # noqa: BLE001 - the group is in: its commit must not be taken for a failure
        log.warning("could not queue the stand-ins' moves of %d games", len(games), exc_info=True)


def _dispatch_games(games: set, later: list) -> None:
    """One task: the game's own for one game, all pending notices for more (nothing for none);
    and one for the notices that wait, after the longest wait (it sends every one then due): a
    group's ten thousand news had queued one delayed task each."""
    if later:
        waited = {game for game, _seconds in later}
        _dispatch_later(next(iter(waited)) if len(waited) == 1 else None, max(seconds for _g, seconds in later))
    if len(games) == 1:
        _dispatch(next(iter(games)))
    elif games:
        _dispatch(None)


def _dispatch(game_id: int | None) -> None:
    try:
        queue_task("pbem.tasks.send_pending_notices", game_id)
    except Exception:  # broker down: the outbox keeps the rows; the sweep sends them later
        log.warning("could not queue notices for game %s; the outbox sweep will send them", game_id, exc_info=True)


def _dispatch_later(game_id: int | None, seconds: float) -> None:
    if current_app.conf.task_always_eager:
        return  # in-process: nothing can wait; the timers' outbox sweep sends it when due
    try:
        _publish("pbem.tasks.send_pending_notices", (game_id,), {"countdown": seconds + 1})
    except Exception:  # broker down: the sweep sends it
        log.warning("could not queue the later sending for game %s; the outbox sweep will", game_id, exc_info=True)


def _task(name: str):
    task = current_app.tasks.get(name)
    if task is None:  # a process that is no worker: the app's autodiscovery has not run yet
        current_app.loader.import_default_modules()
        task = current_app.tasks[name]
    return task


def queue_task(name: str, *args) -> None:
    """Queues the Celery task `name` (run at once in-process without a broker).

    By name, through the app's registry, not by importing `pbem.tasks`: the tasks are the top of
    the platform (they call everything), and the write path below them must not import them.
    Published by name (Celery's send_task): a process that only stores (the pipe door, the
    listener) need not import the task modules, which Celery's Django fixup does only after
    running Django's system checks (the URL config, the ESP SDKs: seconds for one message)."""
    if current_app.conf.task_always_eager:
        _task(name).delay(*args)
        return
    _publish(name, args)


def queue_task_later(name: str, seconds: float, *args) -> None:
    """Queues the task `name` to run in `seconds` (a retry's backoff). In-process, or with the
    broker away, nothing is queued: the outbox sweep takes what is due."""
    if current_app.conf.task_always_eager:
        return
    try:
        _publish(name, args, {"countdown": seconds})
    except Exception:  # noqa: BLE001 - the sweep sends it when it is due
        log.info("could not queue %s for later; the sweep will", name, exc_info=True)


def warm_up(name: str) -> None:
    """Makes the first queueing of the task `name` as quick as the next ones: its module loaded,
    and with a broker, a connection from the producer pool opened (it goes back to the pool). A
    process that queues all day (the SMTP listener) calls this when it starts, so the first mail
    after a start does not pay for them (0.9 s of a 0.1 s handoff). A broker that is away is
    logged and left: queueing copes with it (see _publish)."""
    _task(name)
    if current_app.conf.task_always_eager:
        return
    try:
        with current_app.producer_pool.acquire(block=True, timeout=PUBLISH_WAIT) as producer:
            if producer.connection is not None:
                producer.connection.ensure_connection(max_retries=1)
    except Exception:  # noqa: BLE001 - any broker trouble: the first publish tries again
        log.warning("could not connect to the broker at start; queueing will try again", exc_info=True)


def _publish(name: str, args, options: dict | None = None) -> None:
    if time.monotonic() < _broker["down_until"]:
        raise BrokerAway("the broker failed less than a minute ago; not tried again yet")
    done, failed = threading.Event(), []

    def publish():
        try:
            current_app.send_task(name, args, **(options or {}))
        except Exception as exc:  # noqa: BLE001 - reported to the caller, or logged if it gave up
            failed.append(exc)
            _broker["down_until"] = time.monotonic() + BACK_OFF
        finally:
            done.set()

    threading.Thread(target=publish, name="pbem-publish", daemon=True).start()
    if not done.wait(PUBLISH_WAIT):
        # Not marked down yet: a slow first connection may still get through, and the task is
        # queued after all (what it sends, the sweep no longer finds). A publish that fails marks
        # the broker down, in the thread.
        raise BrokerAway(f"the broker did not take the task within {PUBLISH_WAIT:g} s")
    if failed:
        raise failed[0]
