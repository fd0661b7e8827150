from django.apps import AppConfig
from django.db.models.signals import post_migrate


class PbemConfig(AppConfig):
    name = "pbem"
    verbose_name = "Play by email"

    def ready(self):
        from . import logmask, permissions

        logmask.install()  # before anything can log a seat token

        # The Master of Seals group exists as soon as the database does.
        post_migrate.connect(permissions.ensure_group, sender=self, dispatch_uid="pbem_master_group")
