#!/usr/bin/env python
import os
import sys

if __name__ == "__main__":
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    if (
        sys.argv[1:2] == ["receive_email"]
        and os.environ["DJANGO_SETTINGS_MODULE"] == "config.settings"
        and not os.environ.get("PBEM_PIPE_IN_PROCESS")
    ):
        # An MTA starts it once a message: stored on config.settings_store (the apps that storing
        # does not use left out) without the management framework or Celery (issue 34). Its other
        # forms (--maildir, --help) are the management command's.
        from pbem.doors import pipe

        if pipe.recipients_of(sys.argv[2:]) is not None:
            import gc

            gc.disable()  # a process of a second: the collector's passes over its imports were a tenth of it
            os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings_store"
            command = [sys.executable, os.path.abspath(__file__), *sys.argv[1:]]
            sys.exit(pipe.main(sys.argv[2:], celery_app="config.celery", command=command))
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)
