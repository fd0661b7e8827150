"""manage.py health: the /health/ report from inside (for the containers that serve no HTTP, and
for the operator: error texts included), or a GET of /health/ with --url. Exit 0 healthy, 1 not."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from urllib.parse import urlsplit

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from pbem.ops import health


class Command(BaseCommand):
    help = "Reports the database, the broker, the timers and the doors; exits 1 when not healthy."

    def add_arguments(self, parser):
        parser.add_argument("--url", help="GET this /health/ URL instead (sent with PBEM_BASE_URL's host)")
        parser.add_argument("--quiet", action="store_true", help="print nothing, only the exit status")

    def handle(self, *args, url=None, quiet=False, **options):
        healthy, body = self._fetch(url) if url else health.report(private=True)
        if not quiet:
            self.stdout.write(json.dumps(body, indent=2))
        if not healthy:
            raise CommandError(
                "not healthy: "
                + ", ".join(part for part in ("database", "broker", "timers") if not body.get(part, {}).get("ok"))
            )

    def _fetch(self, url: str) -> tuple[bool, dict]:
        # The site answers only to its own host names (ALLOWED_HOSTS), not to 127.0.0.1 in general.
        request = urllib.request.Request(url, headers={"Host": urlsplit(settings.PBEM_BASE_URL).netloc})
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                return True, json.load(response)
        except urllib.error.HTTPError as exc:
            if exc.code == 503:
                return False, json.load(exc)
            raise CommandError(f"{url}: HTTP {exc.code}") from exc
        except OSError as exc:
            raise CommandError(f"{url}: {exc}") from exc
