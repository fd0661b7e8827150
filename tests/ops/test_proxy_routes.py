"""deploy/nginx/pbem.conf.template as nginx runs it (private instance, free ports): the long polls
go to the ASGI process and nothing else does, and a seat token never reaches its access log.
Two small HTTP servers stand in for the pages' and the long polls' processes, each answering
with its own name."""

from __future__ import annotations

import shutil
import subprocess
import threading
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tests.mail.conftest import free_port
from tests.waiting import wait_until

ROOT = Path(__file__).resolve().parents[2]
NGINX = shutil.which("nginx") or shutil.which("nginx", path="/usr/sbin:/usr/local/sbin")
TOKEN = "7-1-abcdefghijklmnop"

pytestmark = pytest.mark.skipif(NGINX is None, reason="nginx is not installed (.ci/run installs nginx-light)")


def stand_in(name: str) -> ThreadingHTTPServer:
    class Answer(BaseHTTPRequestHandler):
        def do_GET(self):
            body = f"{name} {self.headers.get('X-Forwarded-For', '')}".encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Answer)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


@pytest.fixture
def proxy(tmp_path):
    pages, live = stand_in("pages"), stand_in("live")
    port = free_port()
    site = (ROOT / "deploy" / "nginx" / "pbem.conf.template").read_text()
    site = site.replace("${PBEM_PAGES_UPSTREAM}", f"127.0.0.1:{pages.server_port}")
    site = site.replace("${PBEM_LIVE_UPSTREAM}", f"127.0.0.1:{live.server_port}")
    site = site.replace("${PBEM_PROXY_LISTEN}", f"127.0.0.1:{port}").replace("/var/log/nginx/", f"{tmp_path}/")
    (tmp_path / "pbem.conf").write_text(site)
    temp = " ".join(
        f"{kind}_temp_path {tmp_path}/{kind};" for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    (tmp_path / "nginx.conf").write_text(
        f"worker_processes 1; pid {tmp_path}/nginx.pid; error_log {tmp_path}/main-error.log;\n"
        f"events {{ worker_connections 64; }}\nhttp {{ access_log off; {temp} include {tmp_path}/pbem.conf; }}\n"
    )
    nginx = subprocess.Popen([NGINX, "-c", str(tmp_path / "nginx.conf"), "-p", str(tmp_path), "-g", "daemon off;"])
    base = f"http://127.0.0.1:{port}"

    def answers():
        assert nginx.poll() is None, (tmp_path / "main-error.log").read_text()
        try:
            return fetch(base + "/")
        except OSError:
            return None

    try:
        wait_until(answers, 30, "nginx to answer")
        yield base, tmp_path
    finally:
        nginx.terminate()
        nginx.wait(30)
        pages.shutdown()
        live.shutdown()


def fetch(url: str) -> str:
    with urllib.request.urlopen(url, timeout=30) as response:
        return response.read().decode()


def test_the_proxy_sends_the_long_polls_to_the_asgi_process_and_nothing_else(proxy):
    base, _ = proxy
    routes = {
        "/": "pages",
        "/api/games/5/seat": "pages",
        "/api/games/5/seat?timeout=0": "pages",
        "/api/games/5/seat?wait_version=3&timeout=25": "live",
        "/api/games/5/seat?timeout=25&wait_version=3": "live",
        "/api/games/5/seat/legal?wait_version=3": "pages",
        "/api/games/5/seats?wait_version=3": "pages",
        f"/play/{TOKEN}/": "pages",
        f"/play/{TOKEN}/wait?version=3&timeout=0": "live",
        f"/play/{TOKEN}/waiting?version=3": "pages",
    }
    seen = {path: fetch(base + path).split()[0] for path in routes}
    assert seen == routes
    assert fetch(base + "/").split()[1] == "127.0.0.1"  # the client's address, for the rate limits


def test_the_proxys_access_log_masks_the_seat_token(proxy):
    base, folder = proxy
    fetch(f"{base}/play/{TOKEN}/wait?version=3&timeout=0")
    fetch(f"{base}/invite/{TOKEN}/")
    wait_until(lambda: (folder / "access.log").exists() and (folder / "access.log").read_text().count("\n") >= 3)
    text = "".join(path.read_text() for path in folder.glob("*.log"))
    assert "/play/<masked>/wait?version=3&timeout=0" in text and "/invite/<masked>/" in text
    assert "abcdefghijklmnop" not in text
