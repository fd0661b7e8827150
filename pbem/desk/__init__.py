"""The Master of Seals' desk: `admin` (the Django admin: games, score sheets, lifecycle, audited
corrections), `scoresheets`, `permissions` (the Master of Seals group).

May import every group below it (ops, doors, mail, play, audit, log); not the web.
"""
