"""One settings module for every environment, driven by environment variables.

Production is the default: DEBUG is off unless DJANGO_DEBUG=1, so a
deployment that forgets a variable fails to start (no DJANGO_SECRET_KEY)
instead of showing tracebacks. Production sets DJANGO_SECRET_KEY,
DJANGO_ALLOWED_HOSTS and DATABASE_URL; the secure defaults below then apply
and `manage.py check --deploy` is clean. Development (`make run`, the
Makefile's other targets and the tests) sets DJANGO_DEBUG=1 and needs nothing
else: SQLite in the project folder.
"""

from datetime import timedelta
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from lib.env import env_bool, env_int, env_list, env_str

BASE_DIR = Path(__file__).resolve().parent.parent

DEBUG = env_bool("DJANGO_DEBUG", False)

# Without DJANGO_SECRET_KEY and with DEBUG off the key stays empty: the site refuses to be served
# (config/startup.py, called by config.wsgi and config.asgi), Django refuses anything that signs, and
# `check --deploy` fails (security.W009); commands that need no key (makemigrations, lint) still run.
SECRET_KEY = env_str("DJANGO_SECRET_KEY") or ("development-only-secret-key-never-use-in-production" if DEBUG else "")

ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", "localhost,127.0.0.1,[::1],testserver")
CSRF_TRUSTED_ORIGINS = env_list("DJANGO_CSRF_TRUSTED_ORIGINS")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "django.contrib.postgres",  # the trigram search indexes' operator classes (lib.indexes)
    "django_countries",
    "django_tables2",
    "django_filters",
    "axes",  # django-axes: sign-in rate limit
    "csp",  # django-csp: its system checks of CONTENT_SECURITY_POLICY
    "accounts",
    "players",
    "events",
    "ratings",
    "api",
    "calculator",
    "corrections",  # appeals, corrections and their public log
    "organize",  # organizers' pages and the results importer
    "public",  # the public pages
    "devtools",  # the demo world (seed_demo) and the benchmark (bench)
    "ninja",  # django-ninja: only so that its Swagger UI is served from its own static files, never a CDN
    # After `ratings`, whose `db_worker` (the library's worker plus recovery) must win over the library's own.
    "django_tasks",
    "django_tasks_db",
]

MIDDLEWARE = [
    "config.health.health_check",  # first: GET /healthz answers before host checks and the HTTPS redirect
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "config.request_checks.control_characters_refused",  # before anything reads the path or the query
    # The visitor's language: their choice (a cookie, public/language_views.py), else their browser's.
    "django.middleware.locale.LocaleMiddleware",
    "config.languages.api_in_english",  # the API's answers in English, whatever the language
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "lib.replicas.ReplicaReads",  # after the session and the user: which database this request reads
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "csp.middleware.CSPMiddleware",  # django-csp: Content-Security-Policy
    "config.security_headers.permissions_policy",
    "axes.middleware.AxesMiddleware",  # last: turns a locked-out sign-in into the lockout page
]

# Signing in: django-axes counts failures per account and address pair and pauses
# that pair for a while (a typo at a venue sharing one address pauses nobody else);
# our backend adds a higher limit per address over all accounts, against guessing
# many accounts (accounts/backends.py). Then Django's own backend checks the password.
# Addresses come through TRUSTED_PROXY_COUNT trusted proxies (lib/client_address.py).
AUTHENTICATION_BACKENDS = [
    "accounts.backends.SignInRateLimit",
    "django.contrib.auth.backends.ModelBackend",
]
LOGIN_URL = "accounts:login"
LOGIN_REDIRECT_URL = "accounts:account"
LOGOUT_REDIRECT_URL = "home"
AXES_FAILURE_LIMIT = env_int("SIGN_IN_FAILURE_LIMIT", 5)
SIGN_IN_ADDRESS_FAILURE_LIMIT = env_int("SIGN_IN_ADDRESS_FAILURE_LIMIT", 50)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("SIGN_IN_LOCKOUT_MINUTES", 15))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_CLIENT_IP_CALLABLE = "lib.client_address.client_address"
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_TEMPLATE = "registration/locked_out.html"
AXES_VERBOSE = False  # no banner on every start; failures and lockouts are still logged
# How many reverse proxies of ours stand in front of the site (lib/client_address.py): 0 means
# none, X-Forwarded-For is ignored and the connection's address is the visitor's.
TRUSTED_PROXY_COUNT = env_int("TRUSTED_PROXY_COUNT", 0)
# Password-reset e-mails an address may ask for, and that one e-mail address may be sent, per hour.
PASSWORD_RESETS_PER_ADDRESS = env_int("PASSWORD_RESETS_PER_ADDRESS", 5)
PASSWORD_RESETS_PER_ACCOUNT = env_int("PASSWORD_RESETS_PER_ACCOUNT", 3)

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "django.template.context_processors.i18n",  # LANGUAGE_CODE, LANGUAGES: <html lang>, the switcher
                "lib.replicas.standbys",  # the standbys' states, for the admin's index (read only there)
            ],
            # The admin's result list, written with less work per cell (templates/admin/change_list.html).
            "libraries": {"quick_admin_list": "lib.admin_result_list"},
        },
    },
]

# Production keeps each process's connection for a minute instead of one per
# request; every request first checks that a kept connection still works, so
# after a database restart or failover the site reconnects by itself.
DATABASES = {
    "default": dj_database_url.parse(
        env_str("DATABASE_URL", f"sqlite:///{BASE_DIR / 'db.sqlite3'}"),
        conn_max_age=env_int("DATABASE_CONN_MAX_AGE", 0 if DEBUG else 60),
        conn_health_checks=True,
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # WAL lets the job worker write while the site reads; the busy timeout
    # makes a writer wait for the other instead of failing at once.
    DATABASES["default"]["OPTIONS"] = {
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        "timeout": 20,
        "transaction_mode": "IMMEDIATE",
    }
else:
    # No JIT: PostgreSQL compiles any statement it expects to be costly, and on
    # a list whose statistics lag a rewrite that is a quarter of a second of
    # compiling for a query that runs in a tenth of it (a rank recount paid it
    # four times). Our queries are index reads and bulk writes, not analytics.
    # Random reads priced as on an SSD with the data in memory (the default, 4,
    # prices a spinning disk): otherwise a name search or a page of a few
    # hundred participants read the whole 58,000-row list instead of an index.
    DATABASES["default"].setdefault("OPTIONS", {})["options"] = "-c jit=off -c random_page_cost=1.1"

# Hot standbys (PostgreSQL streaming replication) serving the public pages' and the API's reads:
# comma-separated URLs, none by default. lib/replicas.py says what goes where and how a standby that lags,
# fails or is removed falls back to the primary; docs/deployment.md how to add one.
DATABASE_REPLICA_URLS = [url.strip() for url in env_str("DATABASE_REPLICA_URLS", "").split(",") if url.strip()]
for number, url in enumerate(DATABASE_REPLICA_URLS):
    standby = dj_database_url.parse(url, conn_max_age=DATABASES["default"]["CONN_MAX_AGE"], conn_health_checks=True)
    # The primary's options, and a short connect timeout: a standby that is gone costs a request 2 s at most,
    # once per check.
    standby["OPTIONS"] = {**DATABASES["default"].get("OPTIONS", {})}
    if standby["ENGINE"] == "django.db.backends.postgresql":
        standby["OPTIONS"]["connect_timeout"] = 2
    standby["TEST"] = {"MIRROR": "default"}  # tests never make a database of their own for it
    DATABASES[f"standby_{number}"] = standby
READ_REPLICAS = [alias for alias in DATABASES if alias.startswith("standby_")]
DATABASE_ROUTERS = ["lib.replicas.ReplicaRouter"]
REPLICA_MAX_LAG_SECONDS = env_int("REPLICA_MAX_LAG_SECONDS", 30)  # a standby further behind is left out
REPLICA_CHECK_SECONDS = env_int("REPLICA_CHECK_SECONDS", 5)  # each process checks each standby this often
REPLICA_PIN_SECONDS = env_int("REPLICA_PIN_SECONDS", 10)  # a user's reads after their own change: the primary

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# The site in English and German: each visitor's choice, else their browser's first language we have,
# else English. The catalogs are locale/<language>/LC_MESSAGES/django.po, compiled by `make install`.
LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("de", "Deutsch")]
LOCALE_PATHS = [BASE_DIR / "locale"]
LANGUAGE_COOKIE_AGE = 365 * 24 * 3600
LANGUAGE_COOKIE_SAMESITE = "Lax"
# One style of dates and numbers per language (config/formats/<language>/formats.py).
FORMAT_MODULE_PATH = ["config.formats"]
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = Path(env_str("DJANGO_STATIC_ROOT", str(BASE_DIR / "staticfiles")))  # collectstatic writes here
STATICFILES_DIRS = [BASE_DIR / "static"]
# Files the site writes for visitors to download (each list's whole history: ratings.services.downloads).
# Several app machines need it shared (a network filesystem), or STORAGES["default"] pointed at object storage.
MEDIA_ROOT = Path(env_str("DJANGO_MEDIA_ROOT", str(BASE_DIR / "media")))
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "django.contrib.staticfiles.storage.StaticFilesStorage"
            if DEBUG
            else "whitenoise.storage.CompressedManifestStaticFilesStorage"
        )
    },
}

# Uploads: results files are small. Form fields are capped by Django itself; the
# results upload refuses a larger request before reading it, and a larger file.
UPLOAD_MAX_BYTES = env_int("UPLOAD_MAX_BYTES", 5 * 1024 * 1024)
DATA_UPLOAD_MAX_MEMORY_SIZE = UPLOAD_MAX_BYTES
FILE_UPLOAD_MAX_MEMORY_SIZE = UPLOAD_MAX_BYTES
# Past dates whose lists are not written yet cost 1-5 s each at a million matches: one client (an
# address, lib/client_address.py) asks for this many new ones per window; then a 429 says when to try again.
PAST_DATES_NEW_PER_CLIENT = env_int("PAST_DATES_NEW_PER_CLIENT", 10)
PAST_DATES_WINDOW_SECONDS = env_int("PAST_DATES_WINDOW_SECONDS", 600)
# What one bundle of `import_results` (a folder, or a zip's members) may hold unpacked. Files are read as
# streams, so this bounds the time an import takes, not its memory.
IMPORT_MAX_BYTES = env_int("IMPORT_MAX_BYTES", 2 * 1024**3)

TASKS = {
    "default": {
        "BACKEND": env_str("TASKS_BACKEND", "django_tasks_db.DatabaseBackend"),
        "QUEUES": ["default"],
    }
}
# Recompute jobs (docs/reliability.md): a job whose database connection failed is
# retried after this many seconds; workers look for runs a stopped worker left
# "running" at start and every RECOMPUTE_RECOVER_SECONDS.
RECOMPUTE_RETRY_SECONDS = env_int("RECOMPUTE_RETRY_SECONDS", 10)
RECOMPUTE_RECOVER_SECONDS = env_int("RECOMPUTE_RECOVER_SECONDS", 60)
# `recompute_ratings` of several lists runs one process per core, while the largest lists running at once are
# estimated to hold at most this much memory together (ratings.services.every_list.default_workers).
RECOMPUTE_MEMORY_MB = env_int("RECOMPUTE_MEMORY_MB", 1536)
# Workers delete expired sessions, finished job rows older than JOB_RESULTS_KEEP_DAYS and
# stale sign-in records when they start and every HOUSEKEEPING_SECONDS (ratings/housekeeping.py).
HOUSEKEEPING_SECONDS = env_int("HOUSEKEEPING_SECONDS", 3600)
JOB_RESULTS_KEEP_DAYS = env_int("JOB_RESULTS_KEEP_DAYS", 14)

# E-mail (password resets, error reports): through the SMTP server EMAIL_HOST when
# it is set, else printed on the console (development).
EMAIL_HOST = env_str("EMAIL_HOST")
EMAIL_PORT = env_int("EMAIL_PORT", 587)
EMAIL_HOST_USER = env_str("EMAIL_HOST_USER")
EMAIL_HOST_PASSWORD = env_str("EMAIL_HOST_PASSWORD")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", True)  # STARTTLS, as on port 587
EMAIL_USE_SSL = env_bool("EMAIL_USE_SSL", False)  # TLS from the start, as on port 465 (then EMAIL_USE_TLS=0)
if EMAIL_USE_TLS and EMAIL_USE_SSL:
    raise ImproperlyConfigured("EMAIL_USE_TLS and EMAIL_USE_SSL exclude each other: set EMAIL_USE_TLS=0 for port 465")
EMAIL_TIMEOUT = env_int("EMAIL_TIMEOUT", 10)  # seconds: a dead mail server must not hold a page or a worker
EMAIL_BACKEND = env_str(
    "EMAIL_BACKEND",
    "django.core.mail.backends.smtp.EmailBackend" if EMAIL_HOST else "django.core.mail.backends.console.EmailBackend",
)
DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL", "ratings@localhost")
SERVER_EMAIL = env_str("SERVER_EMAIL", DEFAULT_FROM_EMAIL)  # the sender of error reports

# Errors reach the operators: with DEBUG off every logged error (a page's server error,
# a failed recompute job) is mailed to DJANGO_ADMINS, and sent to Sentry (or any
# tracker speaking its protocol) when SENTRY_DSN is set.
ADMINS = [("", address) for address in env_list("DJANGO_ADMINS")]
SENTRY_DSN = env_str("SENTRY_DSN")
if SENTRY_DSN:
    import sentry_sdk

    sentry_sdk.init(
        dsn=SENTRY_DSN,
        environment=env_str("SENTRY_ENVIRONMENT", "development" if DEBUG else "production"),
        send_default_pii=False,  # no addresses, cookies or user names leave the site
        traces_sample_rate=0.0,  # errors only
    )

DJANGO_TABLES2_TEMPLATE = "players/table.html"  # the site's own table markup and styles

# What is cached (a player's timeline, where a list's players come from) is keyed
# by the category's history version, so a cache is never wrong, only cold. One
# process's memory by default, bounded; several machines share one cache with
# CACHE_BACKEND=django.core.cache.backends.redis.RedisCache and
# CACHE_LOCATION=redis://host:6379/1, or the database cache (docs/deployment.md).
CACHE_BACKEND = env_str("CACHE_BACKEND", "django.core.cache.backends.locmem.LocMemCache")
CACHES = {
    "default": {
        "BACKEND": CACHE_BACKEND,
        "LOCATION": env_str("CACHE_LOCATION", "ratings"),
        "TIMEOUT": 3600,
        "KEY_PREFIX": env_str("CACHE_KEY_PREFIX", ""),  # sites sharing one Redis need different prefixes
    }
}
if not CACHE_BACKEND.endswith(("RedisCache", "PyMemcacheCache", "PyLibMCCache")):
    CACHES["default"]["OPTIONS"] = {"MAX_ENTRIES": env_int("CACHE_MAX_ENTRIES", 200)}

# Public pages read anonymously (home, rankings, player and team pages) carry an ETag made of the
# lists' versions, the URL, the day and the deployed code, and say `Cache-Control: public,
# max-age=PUBLIC_PAGE_MAX_AGE, s-maxage=PUBLIC_PAGE_SHARED_MAX_AGE`: a browser keeps one that long,
# a CDN or reverse proxy the shared age, then either asks again and gets a 304 until the next
# recompute (public/conditional.py, docs/deployment.md). Signed-in visitors' pages are private.
PUBLIC_PAGE_MAX_AGE = env_int("PUBLIC_PAGE_MAX_AGE", 60)
PUBLIC_PAGE_SHARED_MAX_AGE = env_int("PUBLIC_PAGE_SHARED_MAX_AGE", 300)
# The site keeps such a page itself, under its ETag, for as long (in the cache above): the largest page kept.
PUBLIC_PAGE_KEPT_MAX_BYTES = env_int("PUBLIC_PAGE_KEPT_MAX_BYTES", 512 * 1024)
# The deployed code's name in those ETags (e.g. the release's commit), so that a deploy that changes a
# template is not answered with 304s for the old page; empty: a digest of the code, templates and static files.
SITE_VERSION = env_str("SITE_VERSION")

SESSION_COOKIE_HTTPONLY = True
CSRF_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"  # sent on links into the site, never on another site's forms or fetches
CSRF_COOKIE_SAMESITE = "Lax"
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"

# Content-Security-Policy (django-csp). Pages load scripts, styles and images from
# the site alone and have no inline script, so a script injected into a page
# would not run. Images also as data: URIs (the API's Swagger UI draws its
# icons so). Nothing may frame a page, and forms post only to the site.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "img-src": ["'self'", "data:"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    }
}
# Browser features no page of the site uses (config/security_headers.py).
PERMISSIONS_POLICY_DENIED = [
    "accelerometer", "autoplay", "camera", "display-capture", "encrypted-media", "fullscreen", "geolocation",
    "gyroscope", "magnetometer", "microphone", "midi", "payment", "picture-in-picture", "publickey-credentials-get",
    "screen-wake-lock", "serial", "usb", "xr-spatial-tracking",
]  # fmt: skip

if not DEBUG:
    SECURE_SSL_REDIRECT = env_bool("DJANGO_SECURE_SSL_REDIRECT", True)
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_HSTS_SECONDS = env_int("DJANGO_HSTS_SECONDS", 31536000)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    LANGUAGE_COOKIE_SECURE = True

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"require_debug_false": {"()": "django.utils.log.RequireDebugFalse"}},
    "handlers": {
        "console": {"class": "logging.StreamHandler"},
        "mail_admins": {
            "class": "django.utils.log.AdminEmailHandler",
            "level": "ERROR",
            "filters": ["require_debug_false"],
        },
    },
    "root": {"handlers": ["console", "mail_admins"], "level": env_str("LOG_LEVEL", "INFO")},
    "loggers": {
        "django.db.backends": {"level": "INFO"},
        # Django's own configuration gives "django" a console and a mail handler of its own;
        # its records reach the root's instead, so each error is printed and mailed once.
        "django": {"handlers": [], "level": "INFO", "propagate": True},
    },
}
