"""The web: `views` (lobby, seat page, spectators, audit page), `forms`, `api` (django-ninja),
`middleware`, and the pieces of the pages that are not views: `board` (the board's phone layout),
`chooser` (the step-by-step move chooser), `live` (an open page learns the game moved on).

May import every group below it (ops, doors, mail, play, audit, log); not the desk.
"""
