"""Test settings: the production settings plus the platform's toy game and quick hashing.

DATABASE_URL and CELERY_BROKER_URL still come from the environment: `.ci/run` points the suite
at the real PostgreSQL and Redis.
"""

import os

os.environ.setdefault("PBEM_DATA_DIR", os.path.join(os.path.dirname(__file__), "..", "var", "test-data"))

from config.settings import *  # noqa: E402,F403

PBEM_EXTRA_GAMES = ["tests.toygame"]
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
PBEM_SNAPSHOT_EVERY = 10
