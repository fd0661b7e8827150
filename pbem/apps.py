from django.apps import AppConfig, apps
from django.db.models.signals import post_migrate


class PbemConfig(AppConfig):
    name = "pbem"
    verbose_name = "Play by email"

    def ready(self):
        from pbem.ops import dbroles, logmask, testclock

        logmask.install()  # before anything can log a seat token
        testclock.install()  # only where PBEM_TEST_CLOCK_FILE names a file (the tests)
        # The desk's admin lives in pbem.desk.admin, where the admin's autodiscovery (which looks
        # for pbem.admin) does not look: registered here.
        # A process without the admin (config.settings_store: the pipe door) has no use for it.
        if apps.is_installed("django.contrib.admin"):
            from pbem.desk import admin  # noqa: F401

        # First the service role's privileges (when migrations ran as the owner), so that what
        # the receivers after it write through the service's connection is allowed.
        post_migrate.connect(dbroles.grant_service_role, sender=self, dispatch_uid="pbem_service_role")
        # The Master of Seals group exists as soon as the database does (where there are groups:
        # config.settings_store, which only stores a message, has no auth app).
        if apps.is_installed("django.contrib.auth"):
            from pbem.desk import permissions

            post_migrate.connect(permissions.ensure_group, sender=self, dispatch_uid="pbem_master_group")
