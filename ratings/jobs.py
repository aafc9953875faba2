"""The job queue as the ratings services see it: they ask here for a recompute job, and ratings.tasks does it.

ratings.tasks defines the job and imports the services that carry it out
(ratings.services.runs); those services queue the job again (a run retried
after the database failed, the runs of a stopped worker). Asking through
this module keeps the dependency one way: tasks -> services -> jobs, with
tasks answering `recompute_job_wanted` (connected when the app is ready:
ratings.apps). Nobody answering is an error, not a run that never runs.
"""

from datetime import datetime

from django.core.exceptions import ImproperlyConfigured
from django.dispatch import Signal

# Sent with `run_id` (a RecomputeRun's id), `run_after` (a datetime, or None: as soon as a worker is free)
# and `partial` (the runs recompute from a date: someone waits to see a correction; they go first).
recompute_job_wanted = Signal()


def recompute_job_enqueue(*, run_id: int, run_after: datetime | None = None, partial: bool = False) -> None:
    """Queue the job that carries out the run (with every other run queued for its category)."""
    if not recompute_job_wanted.send(sender=None, run_id=run_id, run_after=run_after, partial=partial):
        raise ImproperlyConfigured("nobody answers ratings.jobs.recompute_job_wanted: is ratings.tasks connected?")


# Sent with no arguments: past dates' lists were written for a visitor; their statistics and vacuum are wanted.
snapshot_tidy_wanted = Signal()


def snapshot_tidy_enqueue() -> None:
    """Queue the job that tidies the past dates' rows (ratings.snapshots.snapshot_rows_tidy) after a page."""
    if not snapshot_tidy_wanted.send(sender=None):
        raise ImproperlyConfigured("nobody answers ratings.jobs.snapshot_tidy_wanted: is ratings.tasks connected?")
