"""The one write path: every channel's submission, the desk's actions and the timers end in
`runner.run` (load, check, decide with the game's rng, append). `services` creates games and
applies seats' commands, `commands` the platform's own (help, say, undo, away, …), `desk` the
Master of Seals' actions, `deadlines` the timers, `standins` the stand-in players. `selectors`
is what a seat or spectator may see, `choosing` the menu of moves, `addressing` and `signing`
the seat tokens, `languages` each player's language, `submissions` a reader's submission
applied and answered, `outbox` the notices handed to Celery once their transaction commits,
`channels` a player's (and a table's) other channels: the Apprise URLs that may be set, checked
and shown masked.

Imports `pbem.log` and below; never the audit, mail, doors, web or the desk.
"""
