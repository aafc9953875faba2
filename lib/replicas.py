"""Reads from PostgreSQL hot standbys (DATABASE_REPLICA_URLS), writes and everything else on the primary.

What goes to a standby: the reads of a visitor's GET or HEAD of a public page or of the API (REPLICA_PATHS),
of the tables those pages show (REPLICA_APPS), and only while a standby is usable. Everything else reads the
primary: every write and what follows it in a request, the organizers' and admins' pages, sessions, accounts
and sign-in limits (a standby a moment behind must never sign anyone out), the job workers and commands
(no request: no standby).

- A signed-in user who has just changed something (a POST that succeeded) reads the primary for
  REPLICA_PIN_SECONDS: their session says so, and they see their own change at once.
- Each process checks each standby at most every REPLICA_CHECK_SECONDS: one connection (a short connect
  timeout) and its replay lag. A standby that does not answer, or lags more than REPLICA_MAX_LAG_SECONDS,
  is left out until a later check finds it well; with none usable, reads go to the primary.
- A standby that fails in the middle of a request: the request's view runs again on the primary (it is a
  GET: reading twice changes nothing), and the standby is left out.
So a standby that lags, fails or is removed costs speed, never an error.
"""

import contextlib
import logging
import random
import threading
import time
from contextvars import ContextVar
from dataclasses import dataclass

from django.conf import settings
from django.db import DatabaseError, InterfaceError, OperationalError, connections

logger = logging.getLogger("lib.replicas")

# The standby this request reads from, or None for the primary.
_reading_from: ContextVar[str | None] = ContextVar("reading_from", default=None)

# Public pages and the API: the reads a standby serves.
REPLICA_PATHS = ("/rankings/", "/players/", "/teams/", "/events/", "/api/", "/calculator/", "/suggest/")
# The tables those pages read; sessions, accounts, sign-in limits, the job queue stay on the primary.
REPLICA_APPS = {"players", "events", "ratings", "corrections"}
SAFE_METHODS = ("GET", "HEAD")
PIN_KEY = "primary_reads_until"
# Where the request's reads went ("primary" or a standby's alias), in the WSGI environ (request.META is it):
# the server's access log can show it (gunicorn: %({ratings.reads}e)s), as `make scale-check` counts it.
READS_ENVIRON_KEY = "ratings.reads"

# A standby's replay lag in seconds: 0 when it has replayed all it received.
LAG_SQL = (
    "SELECT CASE WHEN pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn() THEN 0 "
    "ELSE COALESCE(EXTRACT(EPOCH FROM now() - pg_last_xact_replay_timestamp()), 0) END"
)


@dataclass
class StandbyState:
    alias: str
    usable: bool
    lag: float | None  # seconds; None when it did not answer
    checked_at: float
    problem: str = ""


_states: dict[str, StandbyState] = {}
_lock = threading.Lock()


def standby_aliases() -> list[str]:
    return list(settings.READ_REPLICAS)


def standby_check(alias: str) -> StandbyState:
    """Connect to the standby and read its lag: what the process then knows of it."""
    try:
        with connections[alias].cursor() as cursor:
            if connections[alias].vendor == "postgresql":
                cursor.execute(LAG_SQL)
                lag = float(cursor.fetchone()[0])
            else:  # a test mirror: the same database
                cursor.execute("SELECT 1")
                lag = 0.0
    except DatabaseError as error:
        _close(alias)
        return StandbyState(alias, False, None, time.monotonic(), f"unavailable: {_said(error)}")
    too_far = lag > settings.REPLICA_MAX_LAG_SECONDS
    problem = f"lags {lag:.1f} s (more than {settings.REPLICA_MAX_LAG_SECONDS} s)" if too_far else ""
    return StandbyState(alias, not too_far, lag, time.monotonic(), problem)


def standby_states(*, fresh: bool = False) -> list[StandbyState]:
    """Every standby as this process knows it, checked again when older than REPLICA_CHECK_SECONDS."""
    now = time.monotonic()
    states = []
    for alias in standby_aliases():
        state = _states.get(alias)
        if fresh or state is None or now - state.checked_at >= settings.REPLICA_CHECK_SECONDS:
            state = standby_check(alias)
            with _lock:
                _states[alias] = state
        states.append(state)
    return states


def standby_failed(alias: str, error: Exception) -> None:
    """Leave the standby out until its next check (a query on it just failed)."""
    logger.warning("standby %s failed during a request, which reads the primary instead: %s", alias, _said(error))
    with _lock:
        _states[alias] = StandbyState(alias, False, None, time.monotonic(), f"failed: {_said(error)}")
    _close(alias)


def _said(error: Exception) -> str:
    """The error on one line (psycopg's run over several), short enough for /healthz."""
    return " ".join(str(error).split())[:200]


def _close(alias: str) -> None:
    """Drop the standby's connection, whatever state it is in: the next check connects afresh."""
    with contextlib.suppress(DatabaseError):
        connections[alias].close()


def standby_for(request) -> str | None:
    """The standby this request may read from, or None for the primary."""
    if not settings.READ_REPLICAS or request.method not in SAFE_METHODS:
        return None
    if not request.path.startswith(REPLICA_PATHS) and request.path != "/":
        return None
    if _pinned_to_primary(request):
        return None
    usable = [state.alias for state in standby_states() if state.usable]
    return random.choice(usable) if usable else None


def _pinned_to_primary(request) -> bool:
    if settings.SESSION_COOKIE_NAME not in request.COOKIES:
        return False  # no session: nothing changed by this visitor, and no session read
    return request.session.get(PIN_KEY, 0) > time.time()


def _pin_after_write(request, response) -> None:
    if request.method in SAFE_METHODS or response.status_code >= 400:
        return
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated:
        request.session[PIN_KEY] = time.time() + settings.REPLICA_PIN_SECONDS


class ReplicaRouter:
    """Reads of the public tables go where the request reads from; all else to the primary."""

    def db_for_read(self, model, **hints):
        alias = _reading_from.get()
        if alias and model._meta.app_label in REPLICA_APPS:
            return alias
        return "default"

    def db_for_write(self, model, **hints):
        # A request that writes (a past date's list written on its first visit) reads the primary from then
        # on: what it wrote, and what made it write, are not on a standby yet.
        _reading_from.set(None)
        return "default"

    def allow_relation(self, first, second, **hints):
        return True  # the standbys hold the primary's rows

    def allow_migrate(self, db, app_label, model_name=None, **hints):
        return db == "default"


class ReplicaReads:
    """Middleware, after the session and the user: choose the request's standby, and fall back when it fails."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        alias = standby_for(request)
        request.META[READS_ENVIRON_KEY] = alias or "primary"
        token = _reading_from.set(alias)
        try:
            response = self.get_response(request)
        finally:
            _reading_from.reset(token)
        _pin_after_write(request, response)
        return response

    def process_exception(self, request, exception):
        alias = _reading_from.get()
        if alias is None or not isinstance(exception, OperationalError | InterfaceError):
            return None
        standby_failed(alias, exception)
        _reading_from.set(None)  # the rest of this request reads the primary
        request.META[READS_ENVIRON_KEY] = f"primary ({alias} failed)"
        match = request.resolver_match
        return match.func(request, *match.args, **match.kwargs)


def standbys(request) -> dict:
    """Context processor: the standbys' states, read only by a template that shows them (the admin's index)."""
    from django.utils.functional import SimpleLazyObject

    return {"database_standbys": SimpleLazyObject(lambda: standby_states(fresh=True))}
