"""The event log: the append (events, read model and outbox rows in one statement), loading a
state (snapshot + events), the hash chain and its scheme, the fold, the prepared row statements,
the heads kept outside the database (anchors) and the read models.

Imports only `pbem.models`, `pbem.registry` and the games. `chain` and `fold` use nothing but the
standard library: the offline verifier (`pbem.audit.verify`) runs them on a player's machine.
"""
