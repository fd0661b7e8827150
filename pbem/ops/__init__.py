"""Operations: `health` (the /health/ page and command), `timers` (the beat schedule run in-process
on the embedded run), `pruning`, `dbroles` (the service role's privileges), `logmask` (no token
in a log line), `ratelimit`.

Imports the doors, mail, play, log and below.
"""
