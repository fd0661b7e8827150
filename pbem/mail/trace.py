"""What storing a raw message needs of mail, shared by `inbound` and the pipe door's store without
Django (`pbem/doors/pipe_store.py`), which must store a message as `inbound` does: the headers a
relay adds or rewrites on the way (left out of a stored message's content digest, so the same
mail arriving by two routes digests the same) and what is kept of an oversized message.
Imports nothing: the pipe's store loads no more than it needs.
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


def truncated(raw: bytes) -> bytes:
    """The headers of an oversized message, marked with its size: all we keep of it."""
    for sep in (b"\r\n\r\n", b"\n\n"):
        if sep in raw[:200_000]:
            head = raw.split(sep, 1)[0]
            break
    else:
        head = raw[:64_000]
    newline = b"\r\n" if b"\r\n" in head else b"\n"
    kept, dropping = [], False
    for line in head.splitlines():
        if line[:1] in (b" ", b"\t"):  # a folded continuation of the header above
            if not dropping:
                kept.append(line)
            continue
        dropping = line.lower().startswith((b"content-type", b"content-transfer-encoding", b"mime-version"))
        if not dropping:
            kept.append(line)
    head = b"".join(line + newline for line in kept)
    return head + b"X-Pbem-Truncated: " + str(len(raw)).encode() + newline + newline
