import os

from celery import Celery
from celery.signals import task_postrun, task_prerun

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("pbem")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@task_prerun.connect
@task_postrun.connect
def close_old_connections(sender=None, **kwargs):
    """Around each task, as Django does around each request: a connection older than
    CONN_MAX_AGE, or one an error may have broken, is closed (the next query opens a fresh one);
    any other is kept for the next task (settings: CELERY_DB_REUSE_MAX). Not for a task run
    eagerly, inside the caller's own work and perhaps its transaction."""
    if sender is not None and getattr(sender.request, "is_eager", False):
        return
    from django.db import close_old_connections as close

    close()
