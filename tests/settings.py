"""Test settings: the production settings plus the platform's toy game and quick hashing.

DATABASE_URL and CELERY_BROKER_URL still come from the environment: `.ci/run` points the suite
at the real PostgreSQL and Redis. The secrets are random for each run (none is written in the
repository), and set in the environment so the service processes a test starts share them.
"""

import os
import secrets

os.environ.setdefault("PBEM_DATA_DIR", os.path.join(os.path.dirname(__file__), "..", "var", "test-data"))
os.environ.setdefault("SECRET_KEY", secrets.token_urlsafe(50))
os.environ.setdefault("MAILGUN_WEBHOOK_SIGNING_KEY", secrets.token_hex(16))
os.environ.setdefault("ANYMAIL_WEBHOOK_SECRET", f"mailgun:{secrets.token_hex(12)}")
# Notices go out at once in tests (and in the processes they start); the tests of folding news
# and confirmations into the next notice set their own wait.
os.environ.setdefault("PBEM_NOTICE_FOLD_SECONDS", "0")

from config.settings import *  # noqa: E402,F403

PBEM_EXTRA_GAMES = ["tests.toygame"]
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
PBEM_SNAPSHOT_EVERY = 10
PBEM_SHOW_CREATOR_LINK = False  # the tests of the lobby say when they want it
# The workers tests start answer no remote control (`celery inspect`, broadcasts): its pidbox
# binding would outlive them in the test broker (kombu's `_kombu.binding_deadlines`, no TTL).
CELERY_WORKER_ENABLE_REMOTE_CONTROL = False
# The channels' fakes listen on 127.0.0.1 (tests/test_channels.py turns the SSRF guard back on).
PBEM_CHANNELS_ALLOW_PRIVATE = True
