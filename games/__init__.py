"""The games pbem hosts. Each subpackage is pure Python and exposes `GAME`, a `games.base.GameSpec`.

The platform finds them by scanning this package (see pbem.registry); nothing in pbem names a game.
"""
