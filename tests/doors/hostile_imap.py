"""A hostile IMAP server for the IMAP door's tests: asyncio, on a free port of 127.0.0.1, speaking
just enough IMAP4rev1 for imap-tools (CAPABILITY, LOGIN, SELECT, UID SEARCH/FETCH/STORE, LOGOUT).
It keeps no keywords (no PERMANENTFLAGS \\*), so the door marks messages \\Seen.

Hostile by choice: a message may be empty (a literal of 0 bytes) or NIL, and a message may be
`trickled`: its FETCH answered one byte every `trickle_every` seconds, for ever."""

from __future__ import annotations

import asyncio
import re
import threading


class HostileImap:
    def __init__(self, messages: dict[int, bytes | None], trickle: set[int] = frozenset(), trickle_every=0.2):
        self.messages, self.trickle, self.trickle_every = dict(messages), set(trickle), trickle_every
        self.seen: set[int] = set()
        self.loop = asyncio.new_event_loop()
        self.ready = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()
        self.ready.wait(10)

    def _run(self):
        asyncio.set_event_loop(self.loop)
        self.server = self.loop.run_until_complete(asyncio.start_server(self._client, "127.0.0.1", 0))
        self.port = self.server.sockets[0].getsockname()[1]
        self.ready.set()
        self.loop.run_forever()

    def stop(self):
        """Cancel every client first (a trickle never ends by itself) and close the loop: a loop
        dropped with tasks still pending logs "Task was destroyed but it is pending!" whenever the
        garbage collector meets it, in whichever later test runs then (tests/security's bad-input
        test fails on any ERROR record)."""
        asyncio.run_coroutine_threadsafe(self._shutdown(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        self.loop.close()

    async def _shutdown(self):
        self.server.close()
        clients = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
        for task in clients:
            task.cancel()
        await asyncio.gather(*clients, return_exceptions=True)
        await self.server.wait_closed()

    async def _client(self, reader, writer):
        try:
            writer.write(b"* OK hostile IMAP4rev1 ready\r\n")
            while line := await reader.readline():
                tag, _, rest = line.decode().strip().partition(" ")
                command = rest.upper()
                if command.startswith("CAPABILITY"):
                    writer.write(b"* CAPABILITY IMAP4rev1\r\n")
                elif command.startswith("SELECT") or command.startswith("EXAMINE"):
                    writer.write(f"* {len(self.messages)} EXISTS\r\n* FLAGS (\\Seen)\r\n".encode())
                elif command.startswith("UID SEARCH"):
                    unseen = "UNSEEN" in command
                    uids = [u for u in sorted(self.messages) if (u in self.seen) != unseen]
                    writer.write(("* SEARCH " + " ".join(map(str, uids))).strip().encode() + b"\r\n")
                elif command.startswith("UID FETCH"):
                    for uid in (int(u) for u in re.split(r"[ ,]", rest)[2:] if u.isdigit()):
                        await self._fetch(writer, uid, "HEADER" in command)
                elif command.startswith("UID STORE"):
                    self.seen.update(int(u) for u in rest.split()[2].split(","))
                elif command.startswith("LOGOUT"):
                    writer.write(b"* BYE\r\n" + f"{tag} OK done\r\n".encode())
                    await writer.drain()
                    break
                writer.write(f"{tag} OK done\r\n".encode())
                await writer.drain()
        except (ConnectionError, asyncio.CancelledError):
            pass
        finally:
            writer.close()

    async def _fetch(self, writer, uid: int, headers_only: bool):
        raw = self.messages.get(uid)
        if raw is None:
            writer.write(f"* {uid} FETCH (UID {uid} FLAGS () BODY[] NIL)\r\n".encode())
            return
        if headers_only:
            raw = raw.split(b"\r\n\r\n")[0] + b"\r\n\r\n"
        if uid in self.trickle:  # a literal of a gigabyte, one byte at a time: each read returns in time
            writer.write(f"* {uid} FETCH (UID {uid} FLAGS () BODY[] {{1000000000}}\r\n".encode())
            while True:
                writer.write(b"x")
                await writer.drain()
                await asyncio.sleep(self.trickle_every)
        answer = f"* {uid} FETCH (UID {uid} FLAGS () RFC822.SIZE {len(raw)} BODY[] {{{len(raw)}}}\r\n".encode()
        writer.write(answer + raw + b")\r\n")
