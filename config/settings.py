"""Settings from the environment, with embedded defaults.

With nothing set: a SQLite file under data/, Celery tasks run in-process (no broker), outgoing
mail written as files under data/mail/. Set DATABASE_URL, CELERY_BROKER_URL, EMAIL_* to run the
full stack (see docker-compose.yml).
"""

import os
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent
DATA_DIR = Path(os.environ.get("PBEM_DATA_DIR", BASE_DIR / "data"))
DATA_DIR.mkdir(parents=True, exist_ok=True)


def env_bool(name: str, default: bool) -> bool:
    return os.environ.get(name, str(default)).strip().lower() in ("1", "true", "yes", "on")


def env_list(name: str, default: str = "") -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


def env_prefixed(prefix: str) -> dict[str, str]:
    """Every variable whose name starts with `prefix`, keyed by the rest of its name."""
    return {name[len(prefix) :]: value for name, value in os.environ.items() if name.startswith(prefix) and value}


def env_choice(name: str, default: str, choices: tuple[str, ...]) -> str:
    value = os.environ.get(name, default).strip().lower()
    if value not in choices:
        raise ImproperlyConfigured(f"{name}={value!r}: expected one of {', '.join(choices)}")
    return value


DEBUG = env_bool("DEBUG", False)

# --- secrets: none has a default in the repository (pbem/SECURITY.md) -------------------------
# The embedded run (no DATABASE_URL: SQLite under data/) makes a random key on its first start
# and keeps it in data/secret_key; anywhere else, with DEBUG off, SECRET_KEY must be set, or the
# service refuses to start (anyone could compute every seat link from a published key).
# SECRET_KEY_FALLBACKS: the keys rotated out, so seat links and reply addresses signed with them
# keep working (comma-separated, newest first).
PBEM_EMBEDDED = not os.environ.get("DATABASE_URL")


def kept_secret(path: Path) -> str:
    """The key in `path`, made (random, readable by its owner only) if there is none yet.
    Written under another name and linked into place, so two processes starting at once agree."""
    import secrets as _secrets
    import tempfile

    if not path.exists():
        fd, temp = tempfile.mkstemp(dir=path.parent, prefix=".secret_key.")
        with os.fdopen(fd, "w") as handle:
            handle.write(_secrets.token_urlsafe(50))
        try:
            os.link(temp, path)
        except FileExistsError:
            pass  # another process made it first: its key is the one
        finally:
            os.unlink(temp)
    return path.read_text().strip()


SECRET_KEY = os.environ.get("SECRET_KEY", "").strip()
if not SECRET_KEY:
    if not (PBEM_EMBEDDED or DEBUG):
        from django.core.exceptions import ImproperlyConfigured

        raise ImproperlyConfigured(
            "SECRET_KEY is not set. It signs every seat link and reply address: set it to a long random "
            "value (python -c 'import secrets; print(secrets.token_urlsafe(50))'). Only the embedded run "
            "(no DATABASE_URL) makes and keeps one of its own under data/."
        )
    SECRET_KEY = kept_secret(DATA_DIR / "secret_key")
SECRET_KEY_FALLBACKS = env_list("SECRET_KEY_FALLBACKS")
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "localhost,127.0.0.1,[::1],testserver")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "anymail",
    "django_celery_beat",
    "ninja",  # django-ninja's templates and static files: the API docs' Swagger UI is served from here
    "pbem",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # The reader's language (issue 33): the lobby's and the API's from Accept-Language (or the
    # language cookie); a seat page's and a notice's from the seat's own choice (pbem.play.languages).
    "django.middleware.locale.LocaleMiddleware",
    "pbem.web.middleware.games_speak_the_request_language",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

DATABASES = {
    "default": dj_database_url.parse(
        os.environ.get("DATABASE_URL", f"sqlite:///{DATA_DIR / 'pbem.sqlite3'}"),
        conn_max_age=int(os.environ.get("DB_CONN_MAX_AGE", "60")),
        # A kept connection is checked (SELECT 1) before a request or task first uses it: after
        # a database restart the next one reconnects instead of failing.
        conn_health_checks=env_bool("DB_CONN_HEALTH_CHECKS", True),
    )
}
if DATABASES["default"]["ENGINE"].endswith("sqlite3"):
    # Wait for a writer instead of failing at once: web, worker and smtpd share the file.
    DATABASES["default"].setdefault("OPTIONS", {})["timeout"] = 20
    DATABASES["default"]["CONN_MAX_AGE"] = 0

if DATABASES["default"]["ENGINE"].endswith("postgresql"):
    # psycopg prepares nothing itself: at each rollback it would deallocate every statement of
    # the session, those pbem.log.prepared keeps (the append, the reply path's rows) included.
    DATABASES["default"].setdefault("OPTIONS", {})["prepare_threshold"] = None

# Least privilege (pbem/ops/dbroles.py): DATABASE_URL is the service's role, which may read and
# append the log but never change it; DATABASE_OWNER_URL, when set, is the role that owns the
# tables, used only by `manage.py migrate` (which then grants the service role its rights).
# Unset: one role does both, as in the embedded run.
DATABASE_OWNER_URL = os.environ.get("DATABASE_OWNER_URL", "")
if DATABASE_OWNER_URL:
    DATABASES["owner"] = dj_database_url.parse(DATABASE_OWNER_URL, conn_max_age=0)
    # The same database under another role: tests make no second test database for it.
    DATABASES["owner"]["TEST"] = {"MIRROR": "default"}

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
]

LANGUAGE_CODE = "en"
# The languages every text a player meets is written in (games.i18n.LANGUAGES says the same for
# the games); the catalogues are pbem/locale/<code>/LC_MESSAGES/django.po, compiled .mo committed
# beside them (tests/test_translations.py checks they are complete and fresh).
LANGUAGES = [("en", "English"), ("de", "Deutsch"), ("fr", "Français")]
LOCALE_PATHS = [BASE_DIR / "pbem" / "locale"]
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = Path(os.environ.get("STATIC_ROOT", BASE_DIR / "staticfiles"))
STATIC_ROOT.mkdir(parents=True, exist_ok=True)  # whitenoise warns about a missing folder otherwise
# Serve the apps' static files without collectstatic too (the embedded run); images collect them.
WHITENOISE_USE_FINDERS = True
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": os.environ.get("STATICFILES_STORAGE", "django.contrib.staticfiles.storage.StaticFilesStorage")
    },
}

# A shared cache (rate limits across gunicorn workers) when CACHE_URL names a Redis; else per process.
CACHES: dict[str, dict[str, Any]] = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
if os.environ.get("CACHE_URL"):
    CACHES = {
        "default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": os.environ["CACHE_URL"]}
    }

# --- mail -----------------------------------------------------------------------------------
# Without a mail server: one .eml file per message under EMAIL_FILE_PATH, named by time, recipient
# and subject (pbem/mail/filebased.py).
EMAIL_BACKEND = os.environ.get("EMAIL_BACKEND", "pbem.mail.filebased.EmailBackend")
EMAIL_FILE_PATH = os.environ.get("EMAIL_FILE_PATH", str(DATA_DIR / "mail"))
EMAIL_HOST = os.environ.get("EMAIL_HOST", "localhost")
EMAIL_PORT = int(os.environ.get("EMAIL_PORT", "25"))
EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", False)  # STARTTLS on a plain connection (port 587)
EMAIL_USE_SSL = env_bool("EMAIL_USE_SSL", False)  # TLS from the first byte (port 465)
if EMAIL_USE_TLS and EMAIL_USE_SSL:
    raise ImproperlyConfigured("EMAIL_USE_TLS and EMAIL_USE_SSL exclude each other: set one (587: TLS, 465: SSL)")
EMAIL_TIMEOUT = int(os.environ.get("EMAIL_TIMEOUT", "30"))
PBEM_MAIL_DOMAIN = os.environ.get("PBEM_MAIL_DOMAIN", "pbem.localhost")
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", f"Master of Seals <seals@{PBEM_MAIL_DOMAIN}>")
SERVER_EMAIL = DEFAULT_FROM_EMAIL
# Where the embedded run (scripts/serve.sh) listens, as runserver takes it (host:port or a port);
# without PBEM_BASE_URL the links point there (a wildcard address as this machine's 127.0.0.1).
PBEM_LISTEN = os.environ.get("PBEM_LISTEN", "").strip()


def _listen_url(listen: str) -> str:
    host, _, port = listen.rpartition(":")
    if not port.isdigit():
        raise ImproperlyConfigured(f"PBEM_LISTEN={listen!r}: give host:port or a port, e.g. 127.0.0.1:8000")
    return f"http://{'127.0.0.1' if host in ('', '0.0.0.0', '[::]', '::') else host}:{port}"


PBEM_BASE_URL = (
    os.environ.get("PBEM_BASE_URL") or (_listen_url(PBEM_LISTEN) if PBEM_LISTEN else "http://127.0.0.1:8000")
).rstrip("/")
# The ESP webhook door is off unless its signing key is set (no default: a published key lets
# anyone post mail as any player); basic auth (ANYMAIL_WEBHOOK_SECRET, "user:password") is
# checked too when set. pbem.doors.open_doors says which doors are on, in the log and on /health/.
ANYMAIL = {
    key: value
    for key, value in {
        "MAILGUN_WEBHOOK_SIGNING_KEY": os.environ.get("MAILGUN_WEBHOOK_SIGNING_KEY", "").strip(),
        "WEBHOOK_SECRET": os.environ.get("ANYMAIL_WEBHOOK_SECRET", "").strip(),
    }.items()
    if value
}
# A signed webhook request is accepted once, and only within this many seconds of its timestamp.
PBEM_WEBHOOK_MAX_AGE = int(os.environ.get("PBEM_WEBHOOK_MAX_AGE", "300"))
# Every inbound webhook anymail has is routed (pbem/doors/urls.py); an ESP needs only its settings:
# ANYMAIL_<SETTING> becomes ANYMAIL["<SETTING>"], e.g. ANYMAIL_POSTAL_WEBHOOK_KEY, ANYMAIL_SENDGRID_…
ANYMAIL.update(env_prefixed("ANYMAIL_"))
# Where reports for the site go when a game has no Master of Seals with an address (a stray
# bounce, a notice to the desk): before any superuser's address, and logged when there is none.
PBEM_MASTER_EMAIL = os.environ.get("PBEM_MASTER_EMAIL", "")
# The language of the Master of Seals' mails (en, de or fr): one operator, one language (issue 33).
PBEM_MASTER_LANGUAGE = os.environ.get("PBEM_MASTER_LANGUAGE", "en")

# --- production over https ------------------------------------------------------------------
# An https PBEM_BASE_URL means the site is served over TLS: cookies only over TLS, HSTS, plain
# http redirected. Each can still be set on its own. Behind a proxy that terminates TLS, name the
# header it sets to "https" (e.g. X-Forwarded-Proto) in PBEM_PROXY_SSL_HEADER, or the redirect
# never ends; the proxy must overwrite that header on every request.
PBEM_HTTPS = PBEM_BASE_URL.startswith("https://")
SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = env_bool("PBEM_SECURE_COOKIES", PBEM_HTTPS)
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", PBEM_HTTPS)
SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", str(365 * 24 * 3600 if PBEM_HTTPS else 0)))
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", PBEM_HTTPS)
# The preload directive only permits a browser list to include the site; listing is a separate
# request to that list, never made by pbem.
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", PBEM_HTTPS)
if os.environ.get("PBEM_PROXY_SSL_HEADER"):
    SECURE_PROXY_SSL_HEADER = ("HTTP_" + os.environ["PBEM_PROXY_SSL_HEADER"].upper().replace("-", "_"), "https")
# The /health/ probe comes over plain http from inside the container or host: no redirect.
SECURE_REDIRECT_EXEMPT = [r"^health/$"]
# The site's own host and origin are allowed without repeating them in ALLOWED_HOSTS.
_base_url = urlsplit(PBEM_BASE_URL)
if _base_url.hostname and _base_url.hostname not in ALLOWED_HOSTS:
    ALLOWED_HOSTS.append(_base_url.hostname)
if _base_url.netloc and f"{_base_url.scheme}://{_base_url.netloc}" not in CSRF_TRUSTED_ORIGINS:
    CSRF_TRUSTED_ORIGINS.append(f"{_base_url.scheme}://{_base_url.netloc}")

# --- IMAP polling (optional) -------------------------------------------------------------------
PBEM_IMAP_HOST = os.environ.get("PBEM_IMAP_HOST", "")
PBEM_IMAP_PORT = int(os.environ.get("PBEM_IMAP_PORT", "993"))
PBEM_IMAP_USER = os.environ.get("PBEM_IMAP_USER", "")
PBEM_IMAP_PASSWORD = os.environ.get("PBEM_IMAP_PASSWORD", "")
PBEM_IMAP_FOLDER = os.environ.get("PBEM_IMAP_FOLDER", "INBOX")
# ssl: TLS from the first byte (993); starttls: plain, then STARTTLS (143); none: plain text
# (only for a server on this machine).
PBEM_IMAP_SECURITY = env_choice(
    "PBEM_IMAP_SECURITY", "ssl" if PBEM_IMAP_PORT == 993 else "starttls", ("ssl", "starttls", "none")
)

# --- Celery ---------------------------------------------------------------------------------
CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", "")
# Without a broker, tasks run in-process at once: the embedded default.
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", not CELERY_BROKER_URL)
CELERY_TASK_EAGER_PROPAGATES = False
# "localhost": with no host in the URL kombu logs "No hostname was supplied" at every first use.
CELERY_BROKER_URL = CELERY_BROKER_URL or "memory://localhost/"
CELERY_RESULT_BACKEND = os.environ.get("CELERY_RESULT_BACKEND") or None
CELERY_TASK_ACKS_LATE = True
# Every task has a time limit: soft (SoftTimeLimitExceeded raised in the task) and hard (its
# worker process killed and replaced), so nothing (an IMAP server that trickles, a hung socket)
# holds a worker for ever. The IMAP poll cuts its own connection at PBEM_IMAP_POLL_SECONDS first.
CELERY_TASK_SOFT_TIME_LIMIT = int(os.environ.get("PBEM_TASK_SOFT_SECONDS", "100"))
CELERY_TASK_TIME_LIMIT = int(os.environ.get("PBEM_TASK_HARD_SECONDS", "120"))
# Long polls (pbem/web/live.py): at most PBEM_LIVE_WAITS wait at a time site-wide (counted in
# Redis when CACHE_URL names one, across every process; else in the process), beyond which a
# long poll answers 429 at once. Under ASGI (config.asgi, where the proxy sends them) a wait holds
# no thread; one that reached a WSGI worker holds its thread, and at most
# PBEM_LIVE_WAITS_PER_PROCESS such wait at a time in a process (gunicorn.conf.py sets it to half
# its threads). 0: every long poll answers at once.
PBEM_LIVE_WAITS = int(os.environ.get("PBEM_LIVE_WAITS", "1000"))
PBEM_LIVE_WAITS_PER_PROCESS = int(os.environ.get("PBEM_LIVE_WAITS_PER_PROCESS", "4"))
PBEM_IMAP_POLL_SECONDS = float(os.environ.get("PBEM_IMAP_POLL_SECONDS", "80"))
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BEAT_SCHEDULER = "django_celery_beat.schedulers:DatabaseScheduler"
# Celery's Django fixup would close the database connection before and after every task (a new
# connection, 3-5 ms, and every prepared statement prepared again, per reply); connections live
# as a web request's do instead: CONN_MAX_AGE, and dropped after an error (config/celery.py).
CELERY_DB_REUSE_MAX = 1_000_000
CELERY_TIMEZONE = TIME_ZONE

# --- the platform ---------------------------------------------------------------------------
PBEM_SNAPSHOT_EVERY = int(os.environ.get("PBEM_SNAPSHOT_EVERY", "100"))
# Extra game modules besides the packages under games/ (the test suite adds its own toy game).
PBEM_EXTRA_GAMES = env_list("PBEM_EXTRA_GAMES")
PBEM_DEFAULT_DEADLINE_HOURS = int(os.environ.get("PBEM_DEFAULT_DEADLINE_HOURS", "48"))
# Tests only: a file holding seconds to add to the time (pbem/ops/testclock.py); empty: real time.
PBEM_TEST_CLOCK_FILE = os.environ.get("PBEM_TEST_CLOCK_FILE", "")

LOGGING: dict[str, Any] = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "WARNING")},
}
# Every line says when, how grave and from where (the same shape as gunicorn.conf.py's lines).
LOGGING["formatters"] = {"line": {"format": "%(asctime)s %(levelname)s %(name)s [%(process)d] %(message)s"}}
LOGGING["handlers"]["console"]["formatter"] = "line"
# "on_commit": queue notices for sending when the transaction commits; "none": leave them in the
# outbox for the periodic sweep (the benchmark measures the command service alone that way).
PBEM_NOTICE_DISPATCH = os.environ.get("PBEM_NOTICE_DISPATCH", "on_commit")
# News and confirmations wait this many seconds before they go out: a notice to the same seat
# that follows within them (the player's turn, after stand-ins moved at once) tells them, and
# they are not sent on their own (pbem.mail.sending.superseded_news, fold_answers). 0: at once.
PBEM_NOTICE_FOLD_SECONDS = float(os.environ.get("PBEM_NOTICE_FOLD_SECONDS", "10"))
# How long the one-tap move links in a notice work (pbem.play.taps), in hours.
PBEM_TAP_LINK_HOURS = int(os.environ.get("PBEM_TAP_LINK_HOURS", str(14 * 24)))

# --- play by email: inbound limits, reminders, the beat schedule (pbem.mail, pbem.tasks) ----------
# A reply larger than this is answered "too large" and kept as its headers only; the SMTP
# listener refuses anything over the hard limit at DATA.
PBEM_INBOUND_MAX_BYTES = int(os.environ.get("PBEM_INBOUND_MAX_BYTES", str(1024 * 1024)))
PBEM_INBOUND_HARD_LIMIT = int(os.environ.get("PBEM_INBOUND_HARD_LIMIT", str(32 * 1024 * 1024)))
# Reminders before a deadline: at half-time, and this many hours before it.
PBEM_REMINDER_HALF_TIME = env_bool("PBEM_REMINDER_HALF_TIME", True)
PBEM_REMINDER_HOURS_BEFORE = [int(h) for h in env_list("PBEM_REMINDER_HOURS_BEFORE", "6")]
PBEM_DIGEST_HOUR = int(os.environ.get("PBEM_DIGEST_HOUR", "7"))  # UTC hour of the daily digest
# Publishing to a broker that is down must fail fast: the outbox keeps the notice and the sweep
# sends it later, so a command never waits on Redis.
# A broker that accepts connections and never answers must not hold a command either: every
# socket operation times out after a second, and a publish is not retried (pbem/SECURITY.md).
CELERY_TASK_PUBLISH_RETRY = False
CELERY_BROKER_CONNECTION_TIMEOUT = float(os.environ.get("CELERY_BROKER_CONNECTION_TIMEOUT", "1"))
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "socket_timeout": CELERY_BROKER_CONNECTION_TIMEOUT,
    "socket_connect_timeout": CELERY_BROKER_CONNECTION_TIMEOUT,
}
# The timers, run by Celery beat (or in-process by `manage.py timers` on the embedded run); the
# intervals in seconds can be set (a test of the timers runs them at a second).
CELERY_BEAT_SCHEDULE = {
    "pbem-sweep-outbox": {
        "task": "pbem.tasks.sweep_outbox",
        "schedule": float(os.environ.get("PBEM_OUTBOX_SWEEP_EVERY", "30")),
    },
    "pbem-sweep-inbound": {
        "task": "pbem.tasks.sweep_inbound",
        "schedule": float(os.environ.get("PBEM_INBOUND_SWEEP_EVERY", "60")),
    },
    "pbem-deadlines": {
        "task": "pbem.tasks.run_deadlines",
        "schedule": float(os.environ.get("PBEM_DEADLINES_EVERY", "60")),
    },
    "pbem-digests": {"task": "pbem.tasks.send_digests", "schedule": 3600.0},
    "pbem-poll-imap": {"task": "pbem.tasks.poll_imap", "schedule": float(os.environ.get("PBEM_IMAP_EVERY", "60"))},
    "pbem-prune": {"task": "pbem.tasks.prune", "schedule": float(os.environ.get("PBEM_PRUNE_EVERY", "3600"))},
    # The public heads feed (/heads.json): each game's new chain head, appended (pbem/CHAIN.md).
    "pbem-heads": {"task": "pbem.tasks.publish_heads", "schedule": float(os.environ.get("PBEM_HEADS_EVERY", "60"))},
}
# How long done notices and processed inbound mail are kept before the prune timer deletes them
# (pbem/ops/pruning.py: the newest mailed chain head of each game is always kept).
PBEM_NOTICE_KEEP_DAYS = int(os.environ.get("PBEM_NOTICE_KEEP_DAYS", "90"))
PBEM_INBOUND_KEEP_DAYS = int(os.environ.get("PBEM_INBOUND_KEEP_DAYS", "30"))
# The queue tasks go to (a test suite sharing one Redis gives its worker a queue of its own).
CELERY_TASK_DEFAULT_QUEUE = os.environ.get("CELERY_TASK_DEFAULT_QUEUE", "celery")
# At most this many answers an hour to one address (a loop guard besides RFC 3834).
PBEM_MAIL_ANSWERS_PER_HOUR = int(os.environ.get("PBEM_MAIL_ANSWERS_PER_HOUR", "30"))
# Mail to a seat's reply address from another address is never answered to its sender; the
# seat's owner is told at most this many times in this many seconds ("count,seconds"), and the
# site tells at most PBEM_STRANGER_NOTES_PER_HOUR owners an hour in all (pbem/mail/replies.py).
PBEM_STRANGER_NOTES_PER_SEAT = tuple(
    int(n) for n in os.environ.get("PBEM_STRANGER_NOTES_PER_SEAT", "1,86400").split(",")
)
PBEM_STRANGER_NOTES_PER_HOUR = int(os.environ.get("PBEM_STRANGER_NOTES_PER_HOUR", "20"))

# --- safe on the internet: proxies, limits, timeouts (pbem/SECURITY.md) ------------------------
# The reverse proxies in front of the web app (addresses or networks, comma-separated): only
# from them is X-Forwarded-For believed, to find the client a rate limit counts against.
PBEM_TRUSTED_PROXIES = env_list("PBEM_TRUSTED_PROXIES")
# Mails read from one seat per window (count, seconds); the first refusal is answered, no more.
PBEM_RATE_MAIL_COMMANDS = (int(os.environ.get("PBEM_MAIL_COMMANDS_PER_10_MINUTES", "20")), 600)
# Who may create games: anyone, but the first player listed is the creator, and only they are
# mailed until they accept (which proves the address is theirs); then the others are invited.
PBEM_GAMES_PER_CREATOR_PER_DAY = int(os.environ.get("PBEM_GAMES_PER_CREATOR_PER_DAY", "5"))
PBEM_INVITATIONS_PER_DAY = int(os.environ.get("PBEM_INVITATIONS_PER_DAY", "500"))  # the whole site
# Where mail cannot leave this machine (the embedded run's file backend), the lobby shows the
# creator's invitation link at once: there is no stranger to protect.
PBEM_SHOW_CREATOR_LINK = PBEM_EMBEDDED and EMAIL_BACKEND.rsplit(".", 2)[-2] in ("filebased", "console", "locmem")
# An API request body larger than this is answered 413 before it is read.
PBEM_API_MAX_BODY_BYTES = int(os.environ.get("PBEM_API_MAX_BODY_BYTES", str(256 * 1024)))
# The MTA pipe (`receive_email`) gives up after this many seconds and exits 75, so the MTA keeps
# the mail and retries, instead of killing the command and bouncing the mail.
PBEM_PIPE_TIMEOUT = int(os.environ.get("PBEM_PIPE_TIMEOUT", "60"))
# host:port of the SMTP listener the MTA pipe hands each message to (scripts/pbem-pipe reads it
# from the settings file; pbem/doors/handoff.py): none, the pipe stores the message itself.
PBEM_PIPE_HANDOFF = os.environ.get("PBEM_PIPE_HANDOFF", "")
PBEM_SMTP_STORE_TIMEOUT = int(os.environ.get("PBEM_SMTP_STORE_TIMEOUT", "30"))  # else 451
# PostgreSQL: a database that does not answer is given up after PBEM_DB_CONNECT_TIMEOUT seconds,
# a statement after PBEM_DB_STATEMENT_TIMEOUT seconds (0: no limit, e.g. for a long migration).
if DATABASES["default"]["ENGINE"].endswith("postgresql"):
    _db_options: dict[str, Any] = DATABASES["default"].setdefault("OPTIONS", {})
    _db_options.setdefault("connect_timeout", int(os.environ.get("PBEM_DB_CONNECT_TIMEOUT", "5")))
    _db_options.setdefault(
        "options", f"-c statement_timeout={int(os.environ.get('PBEM_DB_STATEMENT_TIMEOUT', '30')) * 1000}"
    )
if CACHES["default"]["BACKEND"].endswith("RedisCache"):  # the rate limits' counters
    CACHES["default"]["OPTIONS"] = {"socket_timeout": 1.0, "socket_connect_timeout": 1.0}
MIDDLEWARE.insert(MIDDLEWARE.index("django.middleware.common.CommonMiddleware"), "pbem.web.middleware.api_body_limit")
# A player's other channels (pbem/play/channels.py, pbem/mail/channels.py): the Apprise URL
# schemes accepted, how long a service may take to answer (seconds), and whether a channel may
# reach a host that is not on the public internet (loopback, private, link-local: the SSRF
# guard; on only for tests and a private installation that means it).
PBEM_CHANNEL_SCHEMES = env_list("PBEM_CHANNEL_SCHEMES", "discord,tgram,matrix,matrixs,slack,ntfy,ntfys,json,jsons")
PBEM_CHANNEL_TIMEOUT = float(os.environ.get("PBEM_CHANNEL_TIMEOUT", "10"))
# A failed channel message is tried again after this many seconds, then twice as long each time.
PBEM_CHANNEL_RETRY_SECONDS = float(os.environ.get("PBEM_CHANNEL_RETRY_SECONDS", "30"))
PBEM_CHANNELS_ALLOW_PRIVATE = env_bool("PBEM_CHANNELS_ALLOW_PRIVATE", False)
