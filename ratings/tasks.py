"""The jobs of the ratings app, run by the job workers (django-tasks; `manage.py db_worker`).

This module imports the services that carry the jobs out; the services ask
for a job through ratings.jobs, which `recompute_job_queue` answers (connected
in ratings.apps), so that they need not import this module back.
"""

import logging
from datetime import date, datetime

from django.core.cache import cache
from django_tasks import task

from ratings.models import Category, RecomputeStatus, Ruleset
from ratings.services.downloads import history_file_write
from ratings.services.lists import participant_lists_refresh
from ratings.services.recompute import lists_vacuum
from ratings.services.runs import recompute_run_execute, recompute_runs_recover
from ratings.snapshots import snapshot_rows_tidy, snapshots_write_ahead

logger = logging.getLogger("ratings.worker")


# Job priorities (the workers take the highest first): a recompute from a date (a correction, an event
# reported late: someone is waiting to see it) before a full one, and both before the chores that follow
# a publication.
PARTIAL_RECOMPUTE_PRIORITY, FULL_RECOMPUTE_PRIORITY, AFTER_PUBLICATION_PRIORITY = 10, 0, -10


@task()
def recompute_task(run_id: int) -> dict:
    # Runs a stopped worker left behind are queued again first (cheap when there are none).
    recompute_runs_recover()
    run = recompute_run_execute(run_id=run_id)
    if run.status == RecomputeStatus.DONE:
        published_list_extras_task.enqueue(run.category_id)
    return {"run": run.pk, "status": run.status, "matches_rated": run.matches_rated}


@task(priority=AFTER_PUBLICATION_PRIORITY)
def published_list_extras_task(category_id: int) -> None:
    """What a list's publication makes stale, written after it so that no visitor waits: the list and those
    derived from it at the last two month ends and at the end of last year, and the list's whole history to
    download; first, the pages of those lists that a recompute from a date rewrote, marked all visible again
    (lists_vacuum).

    A job of its own, after any recompute waiting: a correction queued meanwhile is published first (at a
    million matches these take seconds, and much longer under load).
    """
    category = Category.objects.get(pk=category_id)
    derived = [
        each for each in Category.objects.filter(ruleset=Ruleset.DERIVED) if category.slug in each.component_list
    ]
    lists_vacuum(categories=[category, *derived])  # rewritten in part by a recompute from a date
    snapshots_write_ahead(categories=[category, *derived])
    try:  # the history just published (history_file_write skips a file already of the current history)
        history_file_write(category=category)
    except OSError as error:  # storage full or away: the run is published all the same; the workers retry hourly
        logger.warning("history file of %s not written: %s", category.slug, error)


@task()
def participant_lists_refresh_task(participant_id: int, past_dates_too: bool = False, since: str = "") -> list[str]:
    """Today's lists move a participant whose details changed (corrections.services.detail_request_accept) or
    who is suspended or no longer (corrections.services.suspension_save: `past_dates_too`).

    A job, not part of the admin's request: each list holding the participant is re-ranked where the
    participant was and is now (about a second a list at a million matches).
    """
    refreshed = participant_lists_refresh(
        participant_id=participant_id, past_dates_too=past_dates_too, since=date.fromisoformat(since) if since else None
    )
    return [category.slug for category in refreshed]


SNAPSHOT_TIDY_QUEUED = "ratings:snapshot-tidy-queued"


@task(priority=AFTER_PUBLICATION_PRIORITY)  # after the recomputes waiting: it only makes the next past dates quicker
def snapshot_tidy_task() -> None:
    cache.delete(SNAPSHOT_TIDY_QUEUED)  # pages asking from now on queue the next one
    snapshot_rows_tidy()


def snapshot_tidy_queue(**kwargs) -> None:
    """Receiver of ratings.jobs.snapshot_tidy_wanted: queue snapshot_tidy_task, unless one is waiting already
    (a page of new past dates per visitor would otherwise queue one each; the mark expires should that job
    be lost)."""
    if cache.add(SNAPSHOT_TIDY_QUEUED, True, timeout=600):
        snapshot_tidy_task.enqueue()


def recompute_job_queue(*, run_id: int, run_after: datetime | None, partial: bool = False, **kwargs) -> None:
    """Receiver of ratings.jobs.recompute_job_wanted: queue recompute_task for the run, a partial one first."""
    priority = PARTIAL_RECOMPUTE_PRIORITY if partial else FULL_RECOMPUTE_PRIORITY
    recompute_task.using(priority=priority, run_after=run_after).enqueue(run_id)
