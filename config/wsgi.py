import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
application = get_wsgi_application()

from pbem.doors import open_doors  # noqa: E402 - needs the apps loaded

open_doors.log_doors()  # a web process says at start which doors are off, and why
