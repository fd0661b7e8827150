"""The settings of a process that only stores a message (`manage.py receive_email`, the pipe
door an MTA starts once a message): config.settings with the apps storing does not use left
out — the admin (whose autodiscovery imports the desk), auth and content types, anymail (its app
imports its checks and the ESP SDKs' helpers), ninja and pydantic, sessions, messages, static
files, the beat's tables.
Everything else (the database, the broker, the limits, the domain) is config.settings' own.

manage.py picks this module for receive_email with the message on stdin when
DJANGO_SETTINGS_MODULE is config.settings or unset (scripts/pbem-pipe passes config.settings), and
hands it to pbem.doors.pipe; a deployment with settings of its own keeps them. The config package
does not import the Celery app on these settings (config/__init__.py): the pipe imports it where
it queues, after storing. Issue 34: the pipe door without the handoff took 2.3-5 s a message, 66x `python -c pass`.
"""

from config.settings import *  # noqa: F403
from config.settings import INSTALLED_APPS

NOT_FOR_STORING = {
    "django.contrib.admin",
    "django.contrib.auth",  # no user is read or written in storing a message (the groups: pbem.apps)
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "anymail",
    "django_celery_beat",
    "ninja",
}
INSTALLED_APPS = [app for app in INSTALLED_APPS if app not in NOT_FOR_STORING]
