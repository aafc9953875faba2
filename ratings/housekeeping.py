"""Rows that only pile up, deleted by the job workers without anyone scheduling it.

Expired sessions (Django keeps them until `clearsessions` runs), finished job
rows of the job library (one per recompute, with its traceback when it
failed), sign-in failure and throttle records that can no longer lock
anybody out, and sign-ups never confirmed (accounts.services.
unconfirmed_sign_ups_prune). Each worker runs this when it starts and every
HOUSEKEEPING_SECONDS; workers on several machines may run it at once, which
is harmless: each deletion is one statement and deleting twice deletes
nothing.

Recompute runs (`RecomputeRun`) are kept: they are the lists' history of
what was recomputed, why and by whom, which admins and organizers read.
"""

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.contrib.sessions.models import Session
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from accounts.services import sign_in_records_prune, unconfirmed_sign_ups_prune


@dataclass(frozen=True, slots=True)
class HousekeepingReport:
    sessions: int
    job_results: int
    sign_in_records: int
    unconfirmed_sign_ups: int


def housekeeping_run(*, now: datetime | None = None) -> HousekeepingReport:
    now = now or timezone.now()
    sessions = 0
    if settings.SESSION_ENGINE in ("django.contrib.sessions.backends.db", "django.contrib.sessions.backends.cached_db"):
        sessions, _ = Session.objects.filter(expire_date__lt=now).delete()
    job_results, _ = (
        DBTaskResult.objects.finished()
        .filter(finished_at__lt=now - timedelta(days=settings.JOB_RESULTS_KEEP_DAYS))
        .delete()
    )
    return HousekeepingReport(
        sessions=sessions,
        job_results=job_results,
        sign_in_records=sign_in_records_prune(now=now),
        unconfirmed_sign_ups=unconfirmed_sign_ups_prune(now=now),
    )
