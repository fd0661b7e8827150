"""gunicorn's settings for pbem, read by `gunicorn config.wsgi` (the pages) and `gunicorn
config.asgi -k uvicorn_worker.UvicornWorker --bind 127.0.0.1:8001 --workers 1` (the long polls)
when started in this folder (or with `-c /path/to/gunicorn.conf.py`). Command-line flags override them.

Access and error logs go to stderr with the same line shape as the application's (time, level,
logger, process); the request line is logged with seat tokens masked: a seat link is a
credential, and an access log is read by more people than the database.
"""

import os
import re

from gunicorn.glogging import Logger

bind = os.environ.get("PBEM_WEB_BIND", "127.0.0.1:8000")
workers = int(os.environ.get("PBEM_WEB_WORKERS", "3"))
# Threads per worker (gthread). The long polls (pbem/web/live.py) are served elsewhere: by
# `gunicorn config.asgi -k uvicorn_worker.UvicornWorker` (this file gives it its access log too),
# to which the proxy routes them, where a wait holds no thread. One that reaches these workers
# anyway (no proxy) holds a thread: at most PBEM_LIVE_WAITS_PER_PROCESS of a worker's threads wait
# at a time (half of them unless set), so pages always find a free one.
threads = int(os.environ.get("PBEM_WEB_THREADS", "8"))
worker_class = "gthread" if threads > 1 else "sync"
os.environ.setdefault("PBEM_LIVE_WAITS_PER_PROCESS", str(threads // 2))
# A request that takes longer than this is a bug or a hung dependency: the worker is replaced.
timeout = int(os.environ.get("PBEM_WEB_TIMEOUT", "30"))
# The addresses of the proxies whose X-Forwarded-* headers gunicorn believes (comma-separated).
forwarded_allow_ips = os.environ.get("PBEM_WEB_FORWARDED_ALLOW_IPS", "127.0.0.1")

accesslog = "-"
errorlog = "-"
access_log_format = '%(h)s "%(r)s" %(s)s %(b)s %(M)sms "%(a)s"'
logconfig_dict = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"line": {"format": "%(asctime)s %(levelname)s %(name)s [%(process)d] %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "line", "stream": "ext://sys.stderr"}},
    "loggers": {
        "gunicorn.error": {"level": "INFO", "handlers": ["console"], "propagate": False},
        "gunicorn.access": {"level": "INFO", "handlers": ["console"], "propagate": False},
    },
}

# A path segment after /play/ or /invite/ is a seat's or an invitation's token.
TOKEN_IN_PATH = re.compile(r"(/(?:play|invite)/)[^/?#\s\"]+")


def mask_tokens(text: str) -> str:
    return TOKEN_IN_PATH.sub(r"\1…", text)


class MaskingLogger(Logger):
    def atoms(self, resp, req, environ, request_time):
        atoms = super().atoms(resp, req, environ, request_time)
        for key in ("r", "U", "f", "{raw_uri}e"):
            if isinstance(atoms.get(key), str):
                atoms[key] = mask_tokens(atoms[key])
        return atoms


logger_class = MaskingLogger
