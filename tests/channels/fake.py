"""A local fake of a chat or push service's HTTP endpoint (127.0.0.1, a free port): it keeps
every request and answers each with `status` and a JSON body that has what each service's
client reads back (Telegram's "ok", Matrix's access token, room and event ids, Slack's "ok")."""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from tests.waiting import wait_until

ANSWER = {
    "ok": True,
    "result": {"message_id": 1, "chat": {"id": 1}},
    "access_token": "fake-access-token",
    "user_id": "@pbem:127.0.0.1",
    "home_server": "127.0.0.1",
    "device_id": "FAKE",
    "room_id": "!room:127.0.0.1",
    "event_id": "$event",
    "joined_rooms": [],
    "id": "fake",
}


@dataclass
class Request:
    method: str
    path: str
    headers: dict
    body: bytes

    def json(self):
        return json.loads(self.body or b"null")

    @property
    def text(self) -> str:
        return self.body.decode("utf-8", "replace")


class FakeService:
    def __init__(self) -> None:
        self.requests: list[Request] = []
        self.status = 200
        self.failing = 0  # the next this many requests are answered 500, whatever `status` says
        self.redirect_to = ""  # when set, every request is answered 302 to it
        self.hang = threading.Event()  # while clear and `hanging`, requests get no answer
        self.hanging = False
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def _any(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                fake.requests.append(Request(self.command, self.path, dict(self.headers), body))
                if fake.hanging:
                    fake.hang.wait(30)
                    return
                # Slack's incoming webhooks answer a plain "ok".
                if fake.redirect_to:
                    self.send_response(302)
                    self.send_header("Location", fake.redirect_to)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                status = fake.status
                if fake.failing > 0:
                    fake.failing -= 1
                    status = 500
                slack = self.path.startswith("/services/")
                data = b"ok" if slack else json.dumps(ANSWER).encode()
                self.send_response(status)
                self.send_header("Content-Type", "text/plain" if slack else "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = do_PUT = _any

            def log_message(self, *args) -> None:  # the test's output stays quiet
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.base = f"http://127.0.0.1:{self.port}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def wait_for(self, count: int, timeout: float = 40.0) -> list[Request]:
        """The requests, once there are at least `count` (fails after `timeout` seconds)."""
        wait_until(lambda: len(self.requests) >= count, timeout, f"{count} requests to the fake service")
        return list(self.requests)

    def stop(self) -> None:
        self.hang.set()
        self.server.shutdown()
        self.server.server_close()
