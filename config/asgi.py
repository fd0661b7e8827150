"""The ASGI entry point: the process that serves the long polls (pbem/web/live.py), where a
waiting client holds no thread. Production runs it with gunicorn's uvicorn worker

    gunicorn config.asgi -k uvicorn_worker.UvicornWorker --bind 127.0.0.1:8001 --workers 1

and the proxy sends it the waits alone (`GET /api/games/N/seat?wait_version=…`,
`GET /play/TOKEN/wait`: deploy/nginx/pbem.conf.template); the pages stay on the gthread workers
of `gunicorn config.wsgi`. It can serve every other URL too, but nothing routes them here.

Two things keep a wait from holding a thread here:
- every middleware is one that can run async (Django's own are; whitenoise's is not, and would
  make Django hand each request a thread it holds for the whole wait: this process serves no
  static files, so it is left out);
- Django's synchronous work (middleware hooks, the views' queries) runs in one thread of the
  process, shared by all requests (asgiref's ThreadSensitiveContext with that executor), rather
  than in a thread of each request's own that would sit idle while the request waits. One
  thread, one database connection, however many wait.
"""

import os
from concurrent.futures import ThreadPoolExecutor

import django
from asgiref.sync import ThreadSensitiveContext

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django.setup(set_prefix=False)

from django.conf import settings  # noqa: E402
from django.core.handlers.asgi import ASGIHandler  # noqa: E402

settings.MIDDLEWARE = [name for name in settings.MIDDLEWARE if not name.startswith("whitenoise.")]
django_application = ASGIHandler()
sync_thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="pbem-sync")


async def application(scope, receive, send):
    if scope["type"] != "http":
        return await django_application(scope, receive, send)  # Django refuses it, in its words
    async with ThreadSensitiveContext(executor=sync_thread):
        await django_application(scope, receive, send)
