"""Verification anyone can repeat: `export` writes a game's log as a seat may see it, `verify`
checks such a file on a player's machine (`python3 -m pbem.verify`, standard library only),
`checks` runs the same checks on the server (verify_games, the audit page) against the mailed
heads and the snapshots.

Imports `pbem.play` (what a seat may see), `pbem.log` and below; never mail, doors or above. This package's `__init__` and `verify` import no Django.
"""
