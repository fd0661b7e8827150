import os

# The Celery app comes with the config package (Django's and Celery's way: whatever queues a task
# queues it to this app), except in a process that only stores a message (config.settings_store,
# the pipe door: pbem/doors/pipe.py), which imports config.celery where it queues, after storing.
if os.environ.get("DJANGO_SETTINGS_MODULE") != "config.settings_store":
    from config.celery import app as celery_app

    __all__ = ("celery_app",)
