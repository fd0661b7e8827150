"""A second process of the service for tests: its own interpreter, its own in-process caches,
the same database (as a second gunicorn worker, the Celery worker or beat would be).

Reads one JSON line at a time, {"code": "..."}, runs the code with the platform's modules at
hand, and answers one JSON line {"result": ...} (the code sets `result`) or {"error": "..."}.
Started by `tests.processes.Peer`.
"""

from __future__ import annotations

import json
import os
import sys
import traceback

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tests.settings")

import django  # noqa: E402

django.setup()

from datetime import UTC, datetime, timedelta  # noqa: E402

from pbem.log import eventlog  # noqa: E402
from pbem.models import Game  # noqa: E402
from pbem.play import deadlines, desk, services  # noqa: E402


def main() -> None:
    namespace = {
        "deadlines": deadlines,
        "desk": desk,
        "eventlog": eventlog,
        "services": services,
        "Game": Game,
        "datetime": datetime,
        "timedelta": timedelta,
        "UTC": UTC,
    }
    print(json.dumps({"ready": os.getpid()}), flush=True)
    for line in sys.stdin:
        request = json.loads(line)
        namespace["result"] = None
        try:
            exec(request["code"], namespace)  # noqa: S102 - a test's own code
            answer = {"result": namespace["result"]}
        except Exception:  # noqa: BLE001 - reported to the test
            answer = {"error": traceback.format_exc()}
        print(json.dumps(answer, default=str), flush=True)


if __name__ == "__main__":
    main()
