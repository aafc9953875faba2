"""The job workers keep house: expired sessions and old finished job rows go without anyone scheduling it."""

import signal
import time
from datetime import timedelta

import pytest
from django.contrib.sessions.models import Session
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from ratings.housekeeping import housekeeping_run
from tests.ratings.test_reliability_jobs import WAIT_AT_MOST, postgresql_only, workers_killed_on_failure


def a_session(key: str, *, expires_in: timedelta) -> Session:
    return Session.objects.create(session_key=key, session_data="", expire_date=timezone.now() + expires_in)


def a_job_row(status: str, *, finished_days_ago: int | None) -> DBTaskResult:
    finished_at = None if finished_days_ago is None else timezone.now() - timedelta(days=finished_days_ago)
    return DBTaskResult.objects.create(
        status=status,
        task_path="ratings.tasks.recompute_task",
        args_kwargs={"args": [1], "kwargs": {}},
        backend_name="default",
        queue_name="default",
        finished_at=finished_at,
        priority=0,
    )


@pytest.mark.django_db
def test_housekeeping_deletes_expired_sessions_and_old_finished_jobs_and_keeps_the_rest(settings):
    settings.JOB_RESULTS_KEEP_DAYS = 14
    a_session("expired", expires_in=-timedelta(minutes=1))
    a_session("signed-in", expires_in=timedelta(days=3))
    a_job_row("SUCCESSFUL", finished_days_ago=30)
    a_job_row("FAILED", finished_days_ago=15)
    recent = a_job_row("FAILED", finished_days_ago=2)  # still worth reading for the operators
    waiting = a_job_row("READY", finished_days_ago=None)

    report = housekeeping_run()

    assert list(Session.objects.values_list("session_key", flat=True)) == ["signed-in"]
    assert set(DBTaskResult.objects.values_list("id", flat=True)) == {recent.id, waiting.id}
    assert (report.sessions, report.job_results) == (1, 2)


@postgresql_only
@pytest.mark.django_db(transaction=True)
def test_a_starting_worker_keeps_house_without_being_asked():
    a_session("expired", expires_in=-timedelta(minutes=1))
    a_job_row("SUCCESSFUL", finished_days_ago=90)

    with workers_killed_on_failure() as start:
        worker = start()
        deadline = time.monotonic() + WAIT_AT_MOST
        while (Session.objects.exists() or DBTaskResult.objects.exists()) and time.monotonic() < deadline:
            time.sleep(0.2)
        worker.send_signal(signal.SIGTERM)
        worker.communicate(timeout=WAIT_AT_MOST)

    assert not Session.objects.exists() and not DBTaskResult.objects.exists()
