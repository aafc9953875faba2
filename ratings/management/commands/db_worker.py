"""django-tasks-db's `db_worker`, made to survive what happens to workers in production.

It is the library's worker (same options; INSTALLED_APPS lists `ratings`
before `django_tasks_db` so that this command is the one `manage.py db_worker`
runs) plus four things:

- Recompute runs a stopped worker left "running" are queued again when the
  worker starts and every RECOMPUTE_RECOVER_SECONDS (setting) while it runs
  (`ratings.services.runs.recompute_runs_recover`; each recompute job does it too).
- Housekeeping when the worker starts and every HOUSEKEEPING_SECONDS:
  expired sessions, old finished job rows and sign-in records are deleted
  (`ratings.housekeeping`), so nobody has to schedule it; and every list at
  the last two month ends is written when missing (a new day needs them
  anew), so that no visitor waits for them.
- Today's lists of a day gone by are rebuilt just after midnight (local
  time: the first check after the date changes), when the worker starts,
  and hourly with the housekeeping (cheap when none is stale): a list's
  movement column and the V:EKN points depend on the day, and pages only
  read the lists (`ratings.services.lists.current_lists_refresh_stale`).
- When the database goes away (a restart, a failover, a network cut) the
  library's loop raises; this worker waits and starts the loop again
  instead of exiting, so it needs no restart by hand.
"""

import logging
import os
import threading
import time

from django.conf import settings
from django.db import DatabaseError, InterfaceError, OperationalError, connection
from django.utils import timezone
from django.utils.autoreload import DJANGO_AUTORELOAD_ENV
from django_tasks_db.management.commands import db_worker

from ratings.housekeeping import housekeeping_run
from ratings.models import Category
from ratings.services.downloads import history_files_refresh
from ratings.services.lists import current_lists_refresh_stale
from ratings.services.official import official_lists_publish
from ratings.services.runs import recompute_runs_recover
from ratings.snapshots import snapshots_write_ahead

logger = logging.getLogger("ratings.worker")

RETRY_FIRST, RETRY_MOST = 1.0, 30.0  # seconds to wait for the database, doubling up to the most


def _recover(*, single_worker: bool = False) -> bool:
    """Queue again the runs dead workers left; False when the database could not be reached."""
    try:
        recompute_runs_recover(single_worker=single_worker)
        return True
    except (OperationalError, InterfaceError) as error:
        logger.warning("could not look for stale recompute runs (database unavailable): %s", error)
        return False
    finally:
        if not connection.in_atomic_block:
            connection.close()  # this thread's connection; the next use opens a fresh one


def _housekeep() -> None:
    try:
        report = housekeeping_run()
    except DatabaseError as error:  # the database is away, or another worker's deletion got there first
        logger.warning("housekeeping skipped: %s", error)
        return
    finally:
        if not connection.in_atomic_block:
            connection.close()
    logger.info(
        "housekeeping: %d expired session(s), %d finished job row(s), %d old sign-in record(s),"
        " %d unconfirmed sign-up(s) deleted",
        report.sessions,
        report.job_results,
        report.sign_in_records,
        report.unconfirmed_sign_ups,
    )


def _month_end_lists() -> None:
    """Each list at the last two month ends and at the end of last year, written when missing (a new day or a new
    history needs them again), and last month's official lists published when missing (on the first of the
    month, just after midnight)."""
    try:
        written = snapshots_write_ahead(categories=Category.objects.all())
        published = official_lists_publish()
    except DatabaseError as error:
        logger.warning("month-end lists not written: %s", error)
        return
    finally:
        if not connection.in_atomic_block:
            connection.close()
    if written:
        logger.info("month-end lists: %d written", written)
    if published:
        logger.info("official lists published: %s", ", ".join(str(each) for each in published))


def _history_files() -> None:
    """Each Elo list's history file, written where missing or of an older history (a new site, a lost file)."""
    try:
        written = history_files_refresh()
    except (DatabaseError, OSError) as error:
        logger.warning("history files not written: %s", error)
        return
    finally:
        if not connection.in_atomic_block:
            connection.close()
    if written:
        logger.info("history files written: %s", ", ".join(category.slug for category in written))


def _stale_lists_refresh() -> None:
    """Rebuild today's lists built on an earlier day (one row read per list when none is)."""
    try:
        refreshed = current_lists_refresh_stale()
    except DatabaseError as error:
        logger.warning("lists of an earlier day not rebuilt: %s", error)
        return
    finally:
        if not connection.in_atomic_block:
            connection.close()
    if refreshed:
        logger.info("lists of an earlier day rebuilt: %s", ", ".join(category.slug for category in refreshed))


def _maintain_periodically(stop: threading.Event, recover_every: float, housekeep_every: float) -> None:
    _housekeep()
    _stale_lists_refresh()
    _month_end_lists()
    _history_files()
    day = timezone.localdate()
    housekeeping_due = time.monotonic() + housekeep_every
    while not stop.wait(recover_every):
        _recover()
        if timezone.localdate() != day:
            # Just after midnight: yesterday's lists are rebuilt before visitors of the new day read them.
            day = timezone.localdate()
            _stale_lists_refresh()
            _month_end_lists()
        if time.monotonic() >= housekeeping_due:
            _housekeep()
            _stale_lists_refresh()
            _month_end_lists()
            _history_files()
            housekeeping_due = time.monotonic() + housekeep_every


class Command(db_worker.Command):
    help = db_worker.Command.help + " (recovers stale recompute runs, keeps house; waits out database outages)"

    def configure_logging(self, verbosity: int) -> None:
        super().configure_logging(verbosity)
        # The library quiets its loggers to CRITICAL at -v 0, which would also keep a failed job from the
        # operators' mail and error tracker: errors always get through.
        for name in (db_worker.TASKS_LOGGER, "django_tasks_db"):
            quiet = logging.getLogger(name)
            if quiet.level > logging.ERROR:
                quiet.setLevel(logging.ERROR)

    def handle(self, *args, batch, reload, **options):
        in_reloader_parent = reload and not batch and os.environ.get(DJANGO_AUTORELOAD_ENV) != "true"
        stop = threading.Event()
        if not batch and not in_reloader_parent:
            threading.Thread(
                target=_maintain_periodically,
                args=(stop, settings.RECOMPUTE_RECOVER_SECONDS, settings.HOUSEKEEPING_SECONDS),
                name="recompute-recover-and-housekeeping",
                daemon=True,
            ).start()
        wait = RETRY_FIRST
        try:
            while True:
                # Jobs are taken once the database answers and the runs of dead workers (or of this
                # worker, before the database went away) are queued again. On SQLite a starting
                # worker takes itself for the only one (make run starts one).
                if in_reloader_parent or _recover(single_worker=True):
                    try:
                        return super().handle(*args, batch=batch, reload=reload, **options)
                    except (OperationalError, InterfaceError) as error:
                        logger.warning("database unavailable (%s); starting again in %.0f s", error, wait)
                        connection.close()
                time.sleep(wait)
                wait = min(wait * 2, RETRY_MOST)
        finally:
            stop.set()
