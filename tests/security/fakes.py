"""Stand-ins for dependencies that misbehave: a server that accepts connections and never
answers (a hung Redis, a hung PostgreSQL)."""

from __future__ import annotations

import socket
import threading


class SilentServer:
    """Accepts every connection on 127.0.0.1 and never sends a byte back."""

    def __init__(self):
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(50)
        self.port = self.listener.getsockname()[1]
        self.connections: list[socket.socket] = []
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def _accept(self) -> None:
        self.listener.settimeout(0.2)
        while not self.stopped.is_set():
            try:
                conn, _addr = self.listener.accept()
            except OSError:
                continue
            self.connections.append(conn)  # kept open, never read from, never written to

    def close(self) -> None:
        self.stopped.set()
        self.thread.join(2)
        for conn in self.connections:
            conn.close()
        self.listener.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
