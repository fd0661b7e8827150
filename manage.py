#!/usr/bin/env python
import os
import sys

if __name__ == "__main__":
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    if sys.argv[1:2] == ["receive_email"] and os.environ["DJANGO_SETTINGS_MODULE"] == "config.settings":
        # An MTA starts it once a message: the apps that storing does not use left out (issue 34).
        os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings_store"
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)
