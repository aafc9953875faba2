"""Recompute runs (RecomputeRun): queueing them, claiming and carrying them out in a job, and recovering
the runs of a worker that stopped.

The jobs themselves are ratings.tasks, which imports this module; a run is
handed to the job queue through ratings.jobs, so that this module needs not
import the tasks back.
"""

import logging
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date, timedelta

from django.conf import settings
from django.db import DatabaseError, InterfaceError, OperationalError, connection, transaction
from django.utils import timezone

from ratings.jobs import recompute_job_enqueue
from ratings.models import Category, RecomputeRun, RecomputeStatus, Ruleset
from ratings.services.recompute import category_recompute

logger = logging.getLogger(__name__)


def recompute_enqueue(*, category: Category, since: date | None, reason: str, requested_by=None) -> RecomputeRun | None:
    """Queue a recompute of `category` from `since`; it runs in the job worker after this transaction commits."""
    if category.ruleset == Ruleset.DERIVED:
        return None
    run = RecomputeRun.objects.create(category=category, since=since, reason=reason[:200], requested_by=requested_by)
    transaction.on_commit(lambda: recompute_job_enqueue(run_id=run.pk, partial=since is not None))
    return run


# A worker carrying out a category's runs holds a session-level advisory lock
# on PostgreSQL (keys: this number, the category's id) from the claim until
# the runs are done or failed. PostgreSQL releases it when the worker's
# connection ends, however it ends (SIGKILL, a lost machine, a database
# restart), so "running, and nobody holds its category's lock" means the
# worker is gone: such runs are stale and are queued again (see
# recompute_runs_recover). The recompute itself still takes the category row
# lock (category_recompute); this lock only tells live runs from dead ones.
RUNS_LOCK_SPACE = 0x52_43  # "RC"


def _runs_lock_supported() -> bool:
    return connection.vendor == "postgresql"


# Runs of different lists go side by side, one per worker: a full recompute touches the tables
# every list shares only when it swaps its partitions in, and swaps take turns
# (ratings.category_tables.swaps_take_turns), so none waits for another in a circle. Runs of
# one list wait for each other under the lock above.


@contextmanager
def _category_runs_lock(category_id: int) -> Iterator[None]:
    """Hold the category's runs lock for this connection's session (waits for the holder, if any)."""
    if not _runs_lock_supported():
        yield  # SQLite serialises writers, and make run starts one worker
        return
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_lock(%s, %s)", [RUNS_LOCK_SPACE, category_id])
    try:
        yield
    finally:
        try:
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_unlock(%s, %s)", [RUNS_LOCK_SPACE, category_id])
        except DatabaseError:
            # The connection is gone, and the lock with it; or it is unusable: closing it releases the lock.
            if not connection.in_atomic_block:
                connection.close()


def _category_runs_lock_try(category_id: int) -> bool:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_lock(%s, %s)", [RUNS_LOCK_SPACE, category_id])
        return cursor.fetchone()[0]


def _category_runs_unlock(category_id: int) -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_unlock(%s, %s)", [RUNS_LOCK_SPACE, category_id])


def recompute_run_execute(*, run_id: int) -> RecomputeRun:
    """Carry out a queued run, together with every other run queued for its category (one recompute serves all).

    On PostgreSQL this waits while another worker carries out a recompute of
    the same list (other lists go on meanwhile), and picks up the runs a
    stopped worker left running. When the database fails in a way that passes (a lost connection,
    a restart, a deadlock) the runs are queued again to be retried shortly, up
    to ATTEMPTS_AT_MOST times; any other error marks them failed. Either way
    the previous history stays published.
    """
    run = RecomputeRun.objects.select_related("category").get(pk=run_id)
    with _category_runs_lock(run.category_id):
        # Holding the runs lock, any run of the category still "running" was left by a worker that stopped.
        claimable = [RecomputeStatus.QUEUED]
        if _runs_lock_supported():
            claimable.append(RecomputeStatus.RUNNING)
        with transaction.atomic():
            # Locked rows are being claimed by another worker: leave them to it.
            pending = RecomputeRun.objects.select_for_update(skip_locked=True).filter(
                category_id=run.category_id, status__in=claimable
            )
            claimed_ids = list(pending.values_list("pk", flat=True))
            if run.pk not in claimed_ids:
                run.refresh_from_db()
                return run  # carried out, or being carried out, together with another run
            RecomputeRun.objects.filter(pk__in=claimed_ids).update(
                status=RecomputeStatus.RUNNING, started_at=timezone.now()
            )
        claimed = RecomputeRun.objects.filter(pk__in=claimed_ids)
        sinces = list(claimed.values_list("since", flat=True))
        since = None if None in sinces else min(sinces)
        try:
            result = category_recompute(category=run.category, since=since)
        except _connection_errors() as error:
            _runs_requeue_when_the_database_is_back(run.category_id, error)
            raise
        except Exception as error:
            claimed.update(status=RecomputeStatus.FAILED, finished_at=timezone.now(), error=repr(error)[:2000])
            raise
        claimed.update(
            status=RecomputeStatus.DONE,
            finished_at=timezone.now(),
            computed_since=since,
            matches_rated=result.matches_rated,
            entries_written=result.entries_written,
        )
    run.refresh_from_db()
    return run


def _connection_errors() -> tuple[type[Exception], ...]:
    """Errors that pass (a lost connection, a deadlock), as Django raises them and as the driver does (COPY)."""
    driver = connection.Database
    return (OperationalError, InterfaceError, driver.OperationalError, driver.InterfaceError)


REQUEUE_WAITS = (0, 1, 2, 4, 8)  # seconds between attempts to queue runs again while the database restarts


def _runs_requeue_when_the_database_is_back(category_id: int, error: Exception) -> None:
    """After an error that passes, queue the category's runs again, trying for a few seconds (a restart).

    Still unreachable after that? Then the runs stay "running" until recompute_runs_recover finds them.
    """
    for wait in REQUEUE_WAITS:
        time.sleep(wait)
        try:
            _category_runs_requeue(
                category_id,
                why=f"the database failed, which may pass ({error!r:.200})",
                delay=timedelta(seconds=settings.RECOMPUTE_RETRY_SECONDS),
            )
            return
        except DatabaseError:
            if not connection.in_atomic_block:
                connection.close()  # the next attempt connects afresh


ATTEMPTS_AT_MOST = 5  # a run whose worker stops this many times (killed for memory, say) is marked failed
REQUEUED = "queued again"  # the note's words, counted in `error` to know how many attempts were made


def recompute_runs_recover(*, single_worker: bool = False) -> list[RecomputeRun]:
    """Queue again the runs a stopped worker left "running"; the published history is untouched.

    A recompute is one transaction, so a worker that stops halfway leaves the
    previous history published; only its runs' status is left behind. On
    PostgreSQL a run is stale when it is running and nobody holds its
    category's runs lock. SQLite has no such lock: there, `single_worker`
    (the worker starting, with make run's one worker per database) says every
    running run is stale. Returns the runs queued again (or failed, after
    ATTEMPTS_AT_MOST attempts); one job per category carries them out.
    """
    if not _runs_lock_supported() and not single_worker:
        return []
    running = RecomputeRun.objects.filter(status=RecomputeStatus.RUNNING)
    requeued = []
    for category_id in sorted(set(running.values_list("category_id", flat=True))):
        requeued += _category_runs_requeue(category_id, why="its worker stopped, or lost the database, during the run")
    return requeued


def _category_runs_requeue(category_id: int, *, why: str, delay: timedelta | None = None) -> list[RecomputeRun]:
    """Queue again the category's running runs, unless (on PostgreSQL) a live worker holds their lock."""
    if not _runs_lock_supported():
        return _running_runs_requeue(category_id, why=why, delay=delay)
    if not _category_runs_lock_try(category_id):
        return []  # a live worker is carrying them out
    try:
        return _running_runs_requeue(category_id, why=why, delay=delay)
    finally:
        _category_runs_unlock(category_id)


@transaction.atomic
def _running_runs_requeue(category_id: int, *, why: str, delay: timedelta | None) -> list[RecomputeRun]:
    runs = list(
        RecomputeRun.objects.select_for_update(skip_locked=True)
        .filter(category_id=category_id, status=RecomputeStatus.RUNNING)
        .order_by("pk")
    )
    now = timezone.now()
    for run in runs:
        attempt = run.error.count(REQUEUED) + 1
        if attempt >= ATTEMPTS_AT_MOST:
            note = f"{now:%Y-%m-%d %H:%M:%S} UTC: {why}; failed after {attempt} attempts."
            run.status, run.finished_at = RecomputeStatus.FAILED, now
        else:
            note = f"{now:%Y-%m-%d %H:%M:%S} UTC: {why}; {REQUEUED} (attempt {attempt} of {ATTEMPTS_AT_MOST})."
            run.status, run.started_at = RecomputeStatus.QUEUED, None
        run.error = f"{run.error}\n{note}".strip()[-2000:]
    RecomputeRun.objects.bulk_update(runs, ["status", "started_at", "finished_at", "error"])
    if runs:
        logger.warning("recompute runs of category %s: %s: %s", category_id, why, runs)
    queued = [run for run in runs if run.status == RecomputeStatus.QUEUED]
    if queued:
        run_after = timezone.now() + delay if delay else None
        partial = all(run.since is not None for run in queued)
        transaction.on_commit(lambda: recompute_job_enqueue(run_id=queued[0].pk, run_after=run_after, partial=partial))
    return runs
