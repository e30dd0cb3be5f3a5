"""Settings, read from the environment; the defaults run out of the box on SQLite.

- ``JAXJUDGE_SECRET_KEY`` (or ``JAXJUDGE_SECRET_KEY_FILE``): without either, a random key is
  made once and kept in ``.cache/secret_key`` of the checkout.
- ``JAXJUDGE_DEBUG``: off by default; turn it on for development only.
- ``DATABASE_URL``: e.g. ``postgres://user:pass@host:5432/jaxjudge``; default SQLite in the checkout.
- ``JAXJUDGE_ALLOWED_HOSTS``: comma-separated.
- ``JAXJUDGE_BEHIND_TLS_PROXY``: the site is served over HTTPS by a proxy that terminates TLS
  and sets ``X-Forwarded-Proto``: requests it marks ``https`` are secure, and the session and
  CSRF cookies are sent over HTTPS only. ``JAXJUDGE_CSRF_TRUSTED_ORIGINS``: comma-separated
  origins (``https://judge.example.edu``) whose forms may be posted.
- ``JAXJUDGE_MAX_CODE_BYTES``, ``JAXJUDGE_RATE_LIMIT_PER_MINUTE``, ``JAXJUDGE_MAX_PENDING``:
  the size cap on a submission and the per-user limits on Run and Submit.
- ``JAXJUDGE_ALLOW_UNENFORCED_LIMITS``: let a worker grade where sandboxes cannot get cgroups
  (no process cap; memory capped by an address-space limit only). Off: such a worker refuses to start.
- ``JAXJUDGE_STALLED_AFTER_S``: a grading whose worker has been silent this long is given to
  another worker.
- Email (a roster's invitations and activation links): ``JAXJUDGE_EMAIL_HOST`` set sends by
  SMTP, with ``JAXJUDGE_EMAIL_PORT`` (587), ``JAXJUDGE_EMAIL_USER``, ``JAXJUDGE_EMAIL_PASSWORD``
  (or ``_FILE``), ``JAXJUDGE_EMAIL_TLS`` (STARTTLS, on) or ``JAXJUDGE_EMAIL_SSL`` (off) and
  ``JAXJUDGE_EMAIL_TIMEOUT_S`` (10). Without a host, ``JAXJUDGE_EMAIL_FILE_PATH`` writes each
  email to a file in that folder; without either (``make run``'s default) they are printed on
  the console, by the worker that sends them. ``JAXJUDGE_EMAIL_FROM``: the sender address.
"""

from __future__ import annotations

import os
import secrets
import tempfile
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    if value.lower() in ("1", "true", "yes", "on"):
        return True
    if value.lower() in ("0", "false", "no", "off"):
        return False
    raise ImproperlyConfigured(f"{name} must be a boolean (1/0, true/false), got {value!r}")


def env_secret(name: str) -> str | None:
    """A secret from NAME, or from the file that NAME_FILE points to."""
    path = os.environ.get(f"{name}_FILE")
    if path:
        return Path(path).read_text().strip()
    return os.environ.get(name)


def env_int(name: str, default: int) -> int:
    value = os.environ.get(name)
    if value is None:
        return default
    try:
        return int(value)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be an integer, got {value!r}") from None


def env_list(name: str, default: str = "") -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


def local_secret_key() -> str:
    """A key made once per checkout, so that the embedded default needs no configuration."""
    path = BASE_DIR / ".cache" / "secret_key"
    if not path.exists():
        # Written aside, then linked into place: processes starting together agree on one key.
        path.parent.mkdir(parents=True, exist_ok=True)
        draft = path.with_name(f".secret_key.{os.getpid()}")
        draft.touch(mode=0o600)
        draft.write_text(secrets.token_urlsafe(50))
        try:
            os.link(draft, path)
        except FileExistsError:
            pass
        finally:
            draft.unlink()
    return path.read_text().strip()


DEBUG = env_bool("JAXJUDGE_DEBUG", False)
SECRET_KEY = env_secret("JAXJUDGE_SECRET_KEY") or local_secret_key()
ALLOWED_HOSTS = env_list("JAXJUDGE_ALLOWED_HOSTS", "127.0.0.1,localhost")
CSRF_TRUSTED_ORIGINS = env_list("JAXJUDGE_CSRF_TRUSTED_ORIGINS")
for origin in CSRF_TRUSTED_ORIGINS:
    if not origin.startswith(("https://", "http://")):
        raise ImproperlyConfigured(
            f"JAXJUDGE_CSRF_TRUSTED_ORIGINS: {origin!r} must be an origin with its scheme, like https://{origin}"
        )
if env_bool("JAXJUDGE_BEHIND_TLS_PROXY", False):
    # Only right when the proxy is the sole way in and sets (or strips) this header itself.
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django_tasks",
    "django_tasks_db",
    "webapp.catalog",
    "webapp.submissions",
    "webapp.accounts",
    "webapp.courses",
    "lti_tool",
    "webapp.lti",
]

MIDDLEWARE = [
    "webapp.timing.ServerTimingMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # Pages and JSON compressed (static files come compressed already, from whitenoise above).
    # Django pads each gzip stream with random bytes against BREACH-style length guessing.
    "django.middleware.gzip.GZipMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "webapp.accounts.clock.ReaderTimeZoneMiddleware",  # after the user is known
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "webapp.urls"
WSGI_APPLICATION = "webapp.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "webapp" / "templates"],
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
    "default": dj_database_url.config(
        default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}",
        conn_max_age=60,
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # The web server and the workers write at the same time: WAL lets readers go on while a
    # worker writes, and IMMEDIATE transactions wait for the lock instead of failing midway.
    DATABASES["default"]["OPTIONS"] = {
        "transaction_mode": "IMMEDIATE",
        "timeout": 20,
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    }
    # Tests start real workers as other processes: they need a file they can open (one per
    # test run, so that two runs never share it).
    DATABASES["default"]["TEST"] = {"NAME": str(Path(tempfile.gettempdir()) / f"jaxjudge-test-{os.getpid()}.sqlite3")}

# Gradings go through the Django Tasks API, stored in the database; a GPU problem's gradings
# go to their own queue, which only workers on GPU machines take.
TASKS = {
    "default": {
        "BACKEND": "django_tasks_db.DatabaseBackend",
        # default and gpu: gradings (``manage.py worker``); courses: a course's own background
        # work (roster enrolments, LTI roster syncs and score sends), on a worker of its own
        # (``manage.py db_worker --queue-name courses``), so that it never waits behind, or
        # holds up, a student's grading.
        "QUEUES": ["default", "gpu", "courses"],
    }
}

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "catalog:list"
LOGOUT_REDIRECT_URL = "catalog:list"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "webapp" / "static"]
# Collected (make setup, the image, webapp.serve when stale: see webapp.static_files) under
# names with a hash of their content, compressed beside themselves; whitenoise serves them.
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "webapp.static_files.StaticFiles"},
}

MAX_CODE_BYTES = env_int("JAXJUDGE_MAX_CODE_BYTES", 64 * 1024)
RATE_LIMIT_PER_MINUTE = env_int("JAXJUDGE_RATE_LIMIT_PER_MINUTE", 12)
MAX_PENDING = env_int("JAXJUDGE_MAX_PENDING", 2)
STALLED_AFTER_S = env_int("JAXJUDGE_STALLED_AFTER_S", 30)
ALLOW_UNENFORCED_LIMITS = env_bool("JAXJUDGE_ALLOW_UNENFORCED_LIMITS", False)
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Email: SMTP where a host is given (compose), else a folder of files, else the console.
EMAIL_HOST = os.environ.get("JAXJUDGE_EMAIL_HOST", "")
EMAIL_FILE_PATH = os.environ.get("JAXJUDGE_EMAIL_FILE_PATH", "")
if EMAIL_HOST:
    EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    EMAIL_PORT = env_int("JAXJUDGE_EMAIL_PORT", 587)
    EMAIL_HOST_USER = os.environ.get("JAXJUDGE_EMAIL_USER", "")
    EMAIL_HOST_PASSWORD = env_secret("JAXJUDGE_EMAIL_PASSWORD") or ""
    EMAIL_USE_TLS = env_bool("JAXJUDGE_EMAIL_TLS", True)
    EMAIL_USE_SSL = env_bool("JAXJUDGE_EMAIL_SSL", False)
    if EMAIL_USE_TLS and EMAIL_USE_SSL:
        raise ImproperlyConfigured(
            "JAXJUDGE_EMAIL_TLS and JAXJUDGE_EMAIL_SSL: choose one (STARTTLS or TLS from the start)"
        )
    EMAIL_TIMEOUT = env_int("JAXJUDGE_EMAIL_TIMEOUT_S", 10)
elif EMAIL_FILE_PATH:
    EMAIL_BACKEND = "django.core.mail.backends.filebased.EmailBackend"
else:
    EMAIL_BACKEND = "django.core.mail.backends.console.EmailBackend"
DEFAULT_FROM_EMAIL = os.environ.get("JAXJUDGE_EMAIL_FROM", "jaxjudge <noreply@localhost>")

# LTI 1.3 (webapp/lti): how long the tool waits on a platform's keys, token, roster and grade
# endpoints, so that a slow platform holds up neither a launch nor a worker for long.
# django-lti's LtiLaunchMiddleware is left out: it looks every request's launch up in the
# per-process cache, while webapp.lti keeps launches in the database that all processes share.
LTI_HTTP_TIMEOUT_S = env_int("JAXJUDGE_LTI_HTTP_TIMEOUT_S", 10)
