"""Pieces of the web pages that are not views: the board's phone layout, the step-by-step move
chooser, live turns. Pure helpers over the game's own markup and pbem.choosing; no game by name."""
