"""Every way in. `inbox` stores what arrived (Message-ID unique) before anything reads it;
`processing` locks a stored message and hands it to its channel's reader (`pbem.mail.replies` for
mail, `pbem.play.submissions` for the web form and the API). The mail doors: `handoff` (the MTA
pipe's fast path into the SMTP listener), `webhook` and `urls` (ESP webhooks, `esps` lists them),
`imap` (the IMAP poll). `open_doors` says which doors are on.

Imports `pbem.mail`, `pbem.play`, `pbem.log` and below.
"""
