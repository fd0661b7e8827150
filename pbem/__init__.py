"""pbem: the platform, the only Django app. All I/O lives here; the games (`games/`) are pure.

Grouped by role; a group imports only the groups below it (tests/test_layers.py holds the house
to that, with import-linter's layers contract):

    tasks, urls, management   the entry points: Celery tasks (queued by name), routes, commands
    web | desk                 pages, forms, the API | the Master of Seals' desk (the admin)
    ops                        health, timers without beat, pruning, database roles, log masking,
                               rate limits
    doors                      every way in: the inbox, processing, the mail doors (MTA hand-off,
                               ESP webhooks, IMAP), which doors are open
    mail | audit               reading replies, writing and sending notices | export and
                               verification
    play                       the one write path; what a seat may see (selectors)
    log                        the event log: append, load, the chain, the fold, read models

`models` and `registry` (the games found under games/) are shared by every group.
"""
