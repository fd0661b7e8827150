"""Headers a relay adds or rewrites on the way: left out of a stored message's content digest, so the
same mail arriving by two routes (a retry through another relay, two MX hosts) digests the same.

Standard library only, nothing imported: read by `inbound` and by the pipe door's store without
Django (`pbem/doors/pipe_store.py`), which must digest a message as `inbound` does.
"""

TRACE_HEADERS = frozenset(
    {
        "received",
        "return-path",
        "delivered-to",
        "x-original-to",
        "envelope-to",
        "x-received",
        "arc-seal",
        "arc-message-signature",
        "arc-authentication-results",
        "authentication-results",
        "received-spf",
        "dkim-signature",
        "x-google-dkim-signature",
        "x-gm-message-state",
        "x-spam-status",
        "x-spam-score",
        "x-spam-flag",
        "x-virus-scanned",
        "x-pbem-truncated",
    }
)
