"""Mail's own language: reading a reply (`inbound` parses a raw message, `replies` turns it into a
seat's lines or a refusal) and the notices going out (`outbound` composes them, `pictures` draws
the board for them, `sending` sends what the outbox holds, `channels` tells the notices that went
out, and the mail that bounced, on the players' and tables' other channels). The doors that receive mail are in
`pbem.doors`.

Imports `pbem.play`, `pbem.log` and below.
"""
