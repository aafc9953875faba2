"""Recompute jobs under faults: a worker killed mid-recompute, a database connection cut, two jobs of one list.

A recompute is one transaction, so whatever happens to its worker the
published ratings stay the previous version; the run is then carried out
again and ends as a clean full recompute would. The tests marked PostgreSQL
start real `manage.py db_worker` processes against the test database and
stop them in the middle of a recompute: a row lock held by the test on the
event being rated keeps the worker inside its transaction until the test
lets it go, so "the middle" is a state the test waits for, not a moment in time.
"""

import os
import subprocess
import sys
import time
from contextlib import contextmanager
from datetime import date, timedelta
from pathlib import Path
from urllib.parse import quote

import pytest
from django.core.management import call_command
from django.db import OperationalError, connection, transaction
from django_tasks_db.models import DBTaskResult

from devtools.demo import demo_bundle_write
from events.models import Event, EventStatus, Match
from organize.importer import results_import
from players.models import Player
from ratings import category_tables
from ratings.models import Category, CurrentRating, RatingEntry, RecomputeRun, RecomputeStatus
from ratings.services import runs
from ratings.services.recompute import ENTRY_FIELDS, category_recompute
from ratings.services.runs import recompute_enqueue, recompute_runs_recover

ROOT = Path(__file__).resolve().parents[2]
ON_POSTGRESQL = connection.vendor == "postgresql"
postgresql_only = pytest.mark.skipif(not ON_POSTGRESQL, reason="real workers and locks need PostgreSQL")
sqlite_only = pytest.mark.skipif(ON_POSTGRESQL, reason="what SQLite does without the runs lock")

WAIT_AT_MOST = 180  # seconds: a guard against a hung test, never a measurement


# the world ----------------------------------------------------------------------------------------------------------


def a_rated_world(tmp_path) -> Category:
    """A few hundred players and events over two years, imported and rated at once."""
    demo_bundle_write(tmp_path, players=200, events=30, seed=7, start=date(2022, 1, 1), end=date(2023, 12, 31))
    results_import(source=tmp_path)
    for category in Category.objects.all():
        category_recompute(category=category)
    return Category.objects.get(slug="constructed")


def an_event_reported_in_the_past(day: date, name: str = "Late report", *, queued: bool = True) -> Event:
    """A submitted constructed event with one round between players already rated, and (unless not `queued`) the
    recompute it queues in the same transaction (as the services that change results have one queued)."""
    players = list(Player.objects.order_by("pk").values_list("participant_id", flat=True)[:16])
    with transaction.atomic():
        event = Event.objects.create(
            name=name, date=day, format="standard", team_size=1, k=32, player_count=16, status=EventStatus.SUBMITTED
        )
        for first, second in zip(players[::2], players[1::2], strict=True):
            Match.objects.create(event=event, round=1, participant1_id=first, participant2_id=second, games1=2)
        if queued:
            recompute_enqueue(category=Category.objects.get(slug="constructed"), since=day, reason=f"{name} reported")
    return event


def history(category: Category) -> list[tuple]:
    """The published history, every column but the row id."""
    fields = [field for field in ENTRY_FIELDS if field != "category"]
    return list(RatingEntry.objects.filter(category=category).order_by("seq").values_list(*fields))


def todays_list(category: Category) -> list[tuple]:
    return list(
        CurrentRating.objects.filter(category=category).order_by("participant").values_list("participant", "rating")
    )


def the_run_of(event: Event) -> RecomputeRun:
    return RecomputeRun.objects.get(category__slug="constructed", since=event.date)


def a_clean_full_recompute_gives(category: Category) -> list[tuple]:
    category_recompute(category=category)
    return history(category)


# workers and sessions -----------------------------------------------------------------------------------------------


def database_url() -> str:
    """The test database, for the worker processes."""
    db = connection.settings_dict
    credentials = quote(db["USER"] or "") + (":" + quote(db["PASSWORD"]) if db["PASSWORD"] else "")
    return f"postgres://{credentials}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"


def worker_command(*options: str) -> list[str]:
    return [
        sys.executable,
        "manage.py",
        "db_worker",
        "--no-reload",
        "--no-startup-delay",
        "--interval",
        "0.1",
        *options,
    ]


def worker_env() -> dict[str, str]:
    return {**os.environ, "DATABASE_URL": database_url(), "RECOMPUTE_RETRY_SECONDS": "0"}


def a_worker(*options: str) -> subprocess.Popen:
    return subprocess.Popen(
        worker_command(*options),
        cwd=ROOT,
        env=worker_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


@contextmanager
def workers_killed_on_failure():
    """Yields a function starting workers (as `a_worker`); if the block fails, none of them is left running."""
    started: list[subprocess.Popen] = []

    def start(*options: str) -> subprocess.Popen:
        started.append(a_worker(*options))
        return started[-1]

    try:
        yield start
    except BaseException:
        for worker in started:
            worker.kill()
        raise


def worker_batch() -> subprocess.CompletedProcess:
    """A worker that carries out every ready job, then exits."""
    return subprocess.run(
        worker_command("--batch"), cwd=ROOT, env=worker_env(), capture_output=True, text=True, timeout=WAIT_AT_MOST
    )


def finished(process: subprocess.Popen) -> str:
    output, _ = process.communicate(timeout=WAIT_AT_MOST)
    assert process.returncode == 0, output
    return output


@contextmanager
def another_session():
    """A second connection to the test database, as another machine would have."""
    raw = connection.get_new_connection(connection.get_connection_params())
    try:
        yield raw
    finally:
        raw.close()


@contextmanager
def event_row_locked(event: Event):
    """Hold the event's row: a recompute rating it waits, inside its transaction, until the block ends."""
    with another_session() as session:
        session.execute("SELECT id FROM events_event WHERE id = %s FOR UPDATE", [event.pk])
        yield
        session.rollback()


def wait_until(condition, what: str):
    deadline = time.monotonic() + WAIT_AT_MOST
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up waiting for {what}")
        time.sleep(0.1)


def sessions_waiting_for_a_lock() -> list[int]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"
        )
        return [pid for (pid,) in cursor.fetchall()]


def runs_lock_held(category: Category) -> bool:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND classid = %s AND objid = %s AND granted",
            [runs.RUNS_LOCK_SPACE, category.pk],
        )
        return cursor.fetchone()[0] > 0


def category_row_locked(category: Category) -> bool:
    with another_session() as session:
        rows = session.execute(
            "SELECT id FROM ratings_category WHERE id = %s FOR UPDATE SKIP LOCKED", [category.pk]
        ).fetchall()
        session.rollback()
        return not rows


# a worker killed in the middle of a recompute ----------------------------------------------------------------------


@postgresql_only
def test_a_worker_killed_mid_recompute_leaves_the_previous_ratings_and_the_next_worker_completes_the_run(
    transactional_db, tmp_path
):
    constructed = a_rated_world(tmp_path)
    published, listed = history(constructed), todays_list(constructed)
    event = an_event_reported_in_the_past(date(2022, 6, 4))
    run = the_run_of(event)

    with event_row_locked(event):
        worker = a_worker("--batch")
        try:
            wait_until(lambda: sessions_waiting_for_a_lock(), "the worker to be in the middle of the recompute")
            assert category_row_locked(constructed)
            run.refresh_from_db()
            assert run.status == RecomputeStatus.RUNNING
        finally:
            worker.kill()  # SIGKILL: no clean-up of any kind
            worker.wait()
        assert history(constructed) == published
    wait_until(lambda: not runs_lock_held(constructed), "PostgreSQL to end the killed worker's session")

    assert history(constructed) == published
    assert todays_list(constructed) == listed
    event.refresh_from_db()
    assert event.status == EventStatus.SUBMITTED
    run.refresh_from_db()
    assert run.status == RecomputeStatus.RUNNING  # left behind by the killed worker

    result = worker_batch()

    assert result.returncode == 0, result.stdout + result.stderr
    run.refresh_from_db()
    assert run.status == RecomputeStatus.DONE
    assert "its worker stopped, or lost the database, during the run; queued again (attempt 1 of 5)" in run.error
    event.refresh_from_db()
    assert event.status == EventStatus.RATED
    recovered = history(constructed)
    assert recovered != published
    assert recovered == a_clean_full_recompute_gives(constructed)


@postgresql_only
def test_a_worker_whose_database_connection_is_cut_mid_recompute_retries_the_run_itself(transactional_db, tmp_path):
    constructed = a_rated_world(tmp_path)
    published = history(constructed)
    event = an_event_reported_in_the_past(date(2023, 2, 11))
    run = the_run_of(event)

    with event_row_locked(event), workers_killed_on_failure() as start:
        worker = start("--batch")
        wait_until(lambda: sessions_waiting_for_a_lock(), "the worker to be in the middle of the recompute")
        (pid,) = sessions_waiting_for_a_lock()
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_terminate_backend(%s)", [pid])  # what a database restart does to it
    output = finished(worker)  # the same process: it neither exited nor needed a restart

    assert history(constructed) != published
    run.refresh_from_db()
    assert run.status == RecomputeStatus.DONE, output
    assert "the database failed, which may pass" in run.error
    event.refresh_from_db()
    assert event.status == EventStatus.RATED
    assert history(constructed) == a_clean_full_recompute_gives(constructed)


@postgresql_only
def test_a_second_job_for_the_same_list_waits_for_the_first_and_never_interleaves(transactional_db, tmp_path):
    constructed = a_rated_world(tmp_path)
    first_event = an_event_reported_in_the_past(date(2022, 9, 3), "First late report")
    first_run = the_run_of(first_event)

    with event_row_locked(first_event), workers_killed_on_failure() as start:
        first = start("--batch")
        wait_until(lambda: len(sessions_waiting_for_a_lock()) == 1, "the first worker to be mid-recompute")
        second_event = an_event_reported_in_the_past(date(2022, 3, 5), "Second late report")
        second_run = the_run_of(second_event)
        second = start("--batch")
        wait_until(lambda: len(sessions_waiting_for_a_lock()) == 2, "the second worker to wait for the first")
        second_run.refresh_from_db()
        assert second_run.status == RecomputeStatus.QUEUED  # waiting, not running beside the first
        first_run.refresh_from_db()
        assert first_run.status == RecomputeStatus.RUNNING
    finished(first)
    finished(second)

    first_run.refresh_from_db()
    second_run.refresh_from_db()
    assert (first_run.status, second_run.status) == (RecomputeStatus.DONE, RecomputeStatus.DONE)
    assert second_run.started_at >= first_run.finished_at
    assert Event.objects.filter(pk__in=[first_event.pk, second_event.pk], status=EventStatus.RATED).count() == 2
    assert history(constructed) == a_clean_full_recompute_gives(constructed)


@postgresql_only
def test_recomputes_of_two_lists_run_side_by_side_never_deadlocking(transactional_db, tmp_path):
    """Full recomputes replace partitions of tables all lists share; each touches them only to swap its own in,
    so a second list's recompute is carried out while the first is held mid-recompute, and both publish."""
    constructed = a_rated_world(tmp_path)
    limited = Category.objects.get(slug="limited")
    # The full recompute rates this submitted event, whose row the test holds: it waits there, mid-recompute.
    event = an_event_reported_in_the_past(date(2022, 9, 3), queued=False)
    constructed_run = recompute_enqueue(category=constructed, since=None, reason="full")
    limited_before = history(limited)

    with event_row_locked(event), workers_killed_on_failure() as start:
        first = start("--batch")
        wait_until(lambda: len(sessions_waiting_for_a_lock()) == 1, "the first worker to be mid-recompute")
        limited_run = recompute_enqueue(category=limited, since=None, reason="full")
        second = start("--batch")
        finished(second)  # while the first is still held inside its transaction
        limited_run.refresh_from_db()
        assert limited_run.status == RecomputeStatus.DONE
        constructed_run.refresh_from_db()
        assert constructed_run.status == RecomputeStatus.RUNNING
    finished(first)

    constructed_run.refresh_from_db()
    assert constructed_run.status == RecomputeStatus.DONE
    assert limited_run.error == constructed_run.error == ""  # no deadlock, no retry
    assert limited_run.finished_at < constructed_run.finished_at
    assert history(limited) == limited_before  # the same matches rate the same
    assert Event.objects.get(pk=event.pk).status == EventStatus.RATED
    assert history(constructed) == a_clean_full_recompute_gives(constructed)


@postgresql_only
def test_first_swaps_of_two_lists_take_turns(transactional_db, tmp_path):
    """A list's first full recompute moves its rows out of the shared default partition; two at once each waited
    for the other's delete there (a deadlock). Swaps take turns: the second waits for the first's commit."""
    a_rated_world(tmp_path)
    constructed, limited = Category.objects.get(slug="constructed"), Category.objects.get(slug="limited")
    with connection.cursor() as cursor:  # no partition of their own, as before their first full recompute
        for category in (constructed, limited):
            cursor.execute(f"DROP TABLE IF EXISTS {category_tables.partition_name(RatingEntry, category.pk)}")
    with another_session() as session:
        session.execute("SELECT pg_advisory_lock(%s, %s)", category_tables.SWAPS_LOCK)  # as a swap in progress
        runs = [recompute_enqueue(category=category, since=None, reason="first") for category in (constructed, limited)]
        with workers_killed_on_failure() as start:
            workers = [start("--batch"), start("--batch")]
            wait_until(lambda: len(sessions_waiting_for_a_lock()) == 2, "both recomputes to wait for their turn")
            session.execute("SELECT pg_advisory_unlock(%s, %s)", category_tables.SWAPS_LOCK)
            for worker in workers:
                finished(worker)
    for run in runs:
        run.refresh_from_db()
        assert (run.status, run.error) == (RecomputeStatus.DONE, "")
    for category in (constructed, limited):
        assert history(category) == a_clean_full_recompute_gives(category)


# recovering runs left running ---------------------------------------------------------------------------------------


def a_run_left_running(category: Category, error: str = "") -> RecomputeRun:
    run = RecomputeRun.objects.create(category=category, since=None, reason="test", error=error)
    RecomputeRun.objects.filter(pk=run.pk).update(status=RecomputeStatus.RUNNING)
    run.refresh_from_db()
    return run


def jobs_queued_for(run: RecomputeRun) -> int:
    return sum(
        1
        for job in DBTaskResult.objects.filter(task_path="ratings.tasks.recompute_task", status="READY")
        if job.args_kwargs["args"] == [run.pk]
    )


@pytest.mark.django_db
def test_a_starting_worker_queues_again_a_run_left_running_and_a_job_to_carry_it_out(
    django_capture_on_commit_callbacks,
):
    run = a_run_left_running(Category.objects.get(slug="limited"))

    with django_capture_on_commit_callbacks(execute=True):
        requeued = recompute_runs_recover(single_worker=True)

    assert requeued == [run]
    run.refresh_from_db()
    assert (run.status, run.started_at) == (RecomputeStatus.QUEUED, None)
    assert "its worker stopped, or lost the database, during the run; queued again (attempt 1 of 5)" in run.error
    assert jobs_queued_for(run) == 1


@pytest.mark.django_db
def test_a_run_whose_worker_stopped_five_times_is_failed_with_the_story(django_capture_on_commit_callbacks):
    notes = "\n".join(
        f"note: its worker stopped, or lost the database, during the run; queued again (attempt {n} of 5)."
        for n in range(1, 5)
    )
    run = a_run_left_running(Category.objects.get(slug="limited"), error=notes)

    with django_capture_on_commit_callbacks(execute=True):
        recompute_runs_recover(single_worker=True)

    run.refresh_from_db()
    assert run.status == RecomputeStatus.FAILED
    assert run.error.endswith("its worker stopped, or lost the database, during the run; failed after 5 attempts.")
    assert jobs_queued_for(run) == 0


@sqlite_only
@pytest.mark.django_db
def test_on_sqlite_a_running_run_is_left_alone_except_when_the_worker_starts():
    run = a_run_left_running(Category.objects.get(slug="limited"))

    assert recompute_runs_recover() == []

    run.refresh_from_db()
    assert run.status == RecomputeStatus.RUNNING


@postgresql_only
@pytest.mark.django_db
def test_a_run_whose_worker_is_alive_is_left_running_until_its_session_ends(django_capture_on_commit_callbacks):
    limited = Category.objects.get(slug="limited")
    run = a_run_left_running(limited)

    with another_session() as live_worker:
        live_worker.execute("SELECT pg_advisory_lock(%s, %s)", [runs.RUNS_LOCK_SPACE, limited.pk])
        assert recompute_runs_recover() == []
        run.refresh_from_db()
        assert run.status == RecomputeStatus.RUNNING
    wait_until(lambda: not runs_lock_held(limited), "PostgreSQL to end the session")

    with django_capture_on_commit_callbacks(execute=True):
        assert recompute_runs_recover() == [run]
    run.refresh_from_db()
    assert run.status == RecomputeStatus.QUEUED


@postgresql_only
@pytest.mark.django_db
def test_the_next_run_of_a_list_carries_out_the_runs_a_stopped_worker_left(tmp_path):
    constructed = Category.objects.get(slug="constructed")
    left = a_run_left_running(constructed)
    queued = recompute_enqueue(category=constructed, since=date(2024, 1, 1), reason="later")

    runs.recompute_run_execute(run_id=queued.pk)

    left.refresh_from_db()
    assert left.status == RecomputeStatus.DONE
    assert left.computed_since is None  # merged with the later run: the left run was a full recompute


@pytest.mark.django_db
@pytest.mark.parametrize("raised_by", ["Django", "the driver"])  # COPY uses the driver's connection directly
def test_a_failed_database_connection_queues_the_runs_again_and_keeps_the_history(
    tmp_path, monkeypatch, django_capture_on_commit_callbacks, raised_by
):
    constructed = a_rated_world(tmp_path)
    published = history(constructed)
    run = recompute_enqueue(category=constructed, since=date(2023, 1, 1), reason="test")
    error = OperationalError if raised_by == "Django" else connection.Database.OperationalError

    def connection_lost(**kwargs):
        raise error("terminating connection due to administrator command")

    monkeypatch.setattr(runs, "category_recompute", connection_lost)
    with django_capture_on_commit_callbacks(execute=True), pytest.raises(error):
        runs.recompute_run_execute(run_id=run.pk)

    run.refresh_from_db()
    assert run.status == RecomputeStatus.QUEUED
    assert "the database failed, which may pass" in run.error
    assert jobs_queued_for(run) >= 1
    assert history(constructed) == published


def test_the_worker_carries_out_a_run_left_running_on_sqlite_when_it_starts(transactional_db, tmp_path):
    """The SQLite flavour (make run's single worker): the run a killed worker left is done by the next one."""
    constructed = a_rated_world(tmp_path)
    event = an_event_reported_in_the_past(date(2022, 6, 4))
    run = the_run_of(event)
    RecomputeRun.objects.filter(pk=run.pk).update(status=RecomputeStatus.RUNNING)
    DBTaskResult.objects.all().delete()  # its job went with the killed worker

    call_command("db_worker", batch=True, startup_delay=False, reload=False, verbosity=0)

    run.refresh_from_db()
    assert run.status == RecomputeStatus.DONE
    event.refresh_from_db()
    assert event.status == EventStatus.RATED
    assert history(constructed) == a_clean_full_recompute_gives(constructed)


# a recompute job is what it was ------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_retry_is_queued_to_run_a_little_later(django_capture_on_commit_callbacks):
    """After a failed connection the database gets time to come back: the job is not ready at once."""
    run = a_run_left_running(Category.objects.get(slug="limited"))

    with django_capture_on_commit_callbacks(execute=True):
        runs._category_runs_requeue(run.category_id, why="a test", delay=timedelta(hours=1))

    job = DBTaskResult.objects.get(task_path="ratings.tasks.recompute_task")
    assert job.args_kwargs["args"] == [run.pk]
    assert not DBTaskResult.objects.ready().exists()


@pytest.mark.django_db
def test_a_correction_s_recompute_is_carried_out_before_full_recomputes_queued_earlier(
    django_capture_on_commit_callbacks,
):
    """A recompute from a date (a correction: an admin waits to see it) is taken before the full recomputes
    queued ahead of it, and both before the chores after a publication (month ends, history files)."""
    with django_capture_on_commit_callbacks(execute=True):
        full = recompute_enqueue(category=Category.objects.get(slug="constructed"), since=None, reason="rules")
        partial = recompute_enqueue(
            category=Category.objects.get(slug="limited"), since=date(2024, 1, 1), reason="correction #1"
        )
    waiting = DBTaskResult.objects.filter(status="READY")  # the workers' order: the model's ordering

    assert [job.args_kwargs["args"] for job in waiting] == [[partial.pk], [full.pk]]
