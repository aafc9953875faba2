"""Recompute runs (SPEC 5): every queued run of a list carried out at once, all or nothing; the history's
tables on PostgreSQL; the recompute commands.

Worlds: tests/ratings/recompute_worlds.py.
"""

from datetime import date, timedelta

import pytest
from django.core.management import CommandError, call_command
from django.db import connection

from events.models import Event, EventStatus, Match
from lib.bulk import table_indexes
from ratings import category_tables
from ratings.models import Category, CurrentRank, CurrentRating, RatingEntry, RecomputeRun, RecomputeStatus
from ratings.services import lists, recompute, runs
from ratings.services.recompute import category_recompute
from ratings.services.runs import recompute_enqueue, recompute_run_execute
from tests.ratings.recompute_worlds import (
    E1_DATE,
    E2_DATE,
    a_world,
    an_event_with_random_rounds,
    category,
    entries,
    history_tables,
    import_default_bundle,
    published,
    ratings_by_seq,
    rows_by_partition,
    tables_named,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def events(tmp_path):
    """The default bundle, imported (no runs)."""
    import_default_bundle(tmp_path)
    return {event.code: event for event in Event.objects.all()}


# carrying out queued runs ------------------------------------------------------------------------------


def test_executing_a_run_carries_out_every_queued_run_of_its_category_at_once(events):
    constructed, limited = category("constructed"), category("limited")
    first = recompute_enqueue(category=constructed, since=date(2003, 5, 2), reason="one")
    second = recompute_enqueue(category=constructed, since=E1_DATE, reason="two")
    third = recompute_enqueue(category=constructed, since=date(2004, 1, 1), reason="three")
    other = recompute_enqueue(category=limited, since=E2_DATE, reason="other")

    done = recompute_run_execute(run_id=first.pk)

    assert done.pk == first.pk
    for run in (first, second, third):
        run.refresh_from_db()
        assert run.status == RecomputeStatus.DONE
        assert run.computed_since == E1_DATE
        assert (run.matches_rated, run.entries_written) == (5, 10)
        assert run.started_at <= run.finished_at
        assert run.error == ""
    other.refresh_from_db()
    assert other.status == RecomputeStatus.QUEUED
    assert entries("constructed").count() == 10
    assert not entries("limited").exists()


def test_a_full_run_queued_with_dated_ones_makes_the_merged_recompute_full(events, monkeypatch):
    constructed = category("constructed")
    dated = recompute_enqueue(category=constructed, since=date(2003, 6, 1), reason="dated")
    full = recompute_enqueue(category=constructed, since=None, reason="full")
    calls = []
    real = runs.category_recompute
    monkeypatch.setattr(runs, "category_recompute", lambda **kw: calls.append(kw) or real(**kw))

    recompute_run_execute(run_id=dated.pk)

    assert calls == [{"category": constructed, "since": None}]
    full.refresh_from_db()
    assert (full.status, full.computed_since, full.matches_rated) == (RecomputeStatus.DONE, None, 5)


def test_a_run_already_carried_out_with_another_returns_without_recomputing(events, monkeypatch):
    constructed = category("constructed")
    first = recompute_enqueue(category=constructed, since=E1_DATE, reason="one")
    second = recompute_enqueue(category=constructed, since=E1_DATE, reason="two")
    recompute_run_execute(run_id=first.pk)

    def must_not_run(**kwargs):
        raise AssertionError("recomputed twice")

    monkeypatch.setattr(runs, "category_recompute", must_not_run)
    again = recompute_run_execute(run_id=second.pk)

    assert again.pk == second.pk
    assert again.status == RecomputeStatus.DONE
    assert recompute_run_execute(run_id=first.pk).status == RecomputeStatus.DONE


def test_a_failing_recompute_marks_its_runs_failed_and_keeps_the_previous_history(monkeypatch):
    cat = category("constructed")
    world = a_world()
    category_recompute(category=cat)
    history = set(RatingEntry.objects.filter(category=cat).values_list())
    late = an_event_with_random_rounds(on=world[-1].date + timedelta(days=5))
    runs = [
        recompute_enqueue(category=cat, since=world[2].date, reason="one"),
        recompute_enqueue(category=cat, since=late.date, reason="two"),
    ]

    def engine_fails(*args, **kwargs):  # called after the old history has been deleted
        raise RuntimeError("the engine broke")

    monkeypatch.setattr(recompute, "history_rows", engine_fails)
    with pytest.raises(RuntimeError, match="the engine broke"):
        recompute_run_execute(run_id=runs[0].pk)

    assert set(RatingEntry.objects.filter(category=cat).values_list()) == history
    for run in runs:
        run.refresh_from_db()
        assert run.status == RecomputeStatus.FAILED
        assert run.error == "RuntimeError('the engine broke')"
        assert run.finished_at is not None
        assert run.matches_rated is None
    late.refresh_from_db()
    assert late.status == EventStatus.SUBMITTED


def test_a_failing_full_recompute_keeps_the_previous_history_and_list(monkeypatch):
    cat = category("constructed")
    a_world()
    category_recompute(category=cat)
    before = published(cat)

    def engine_fails_halfway(*args, **kwargs):  # after part of the new history has been written
        for written, row in enumerate(real(*args, **kwargs)):
            if written == 40:
                raise RuntimeError("the engine broke")
            yield row

    real = recompute.history_rows
    monkeypatch.setattr(recompute, "history_rows", engine_fails_halfway)
    with pytest.raises(RuntimeError, match="the engine broke"):
        category_recompute(category=cat)

    assert published(cat) == before
    if category_tables.swaps_tables():  # the half-written tables went with the transaction
        assert history_tables() == {category_tables.partition_name(RatingEntry, cat.pk)}


@pytest.mark.skipif(not category_tables.swaps_tables(), reason="tables are swapped on PostgreSQL only")
def test_a_full_recompute_failing_while_its_list_is_built_keeps_everything_as_it_was(monkeypatch):
    cat = category("constructed")
    a_world()
    category_recompute(category=cat)
    before, ratings = published(cat), ratings_by_seq(cat)

    def list_fails(*args, **kwargs):  # after the new history is written, before it is published
        raise RuntimeError("the list broke")

    # By the database on PostgreSQL, in Python on SQLite (or while the new history's indexes are built).
    monkeypatch.setattr(recompute, "list_staged_from_standings", list_fails)
    monkeypatch.setattr(recompute, "current_rows_from_standings", list_fails)
    with pytest.raises(RuntimeError, match="the list broke"):
        category_recompute(category=cat)

    assert published(cat) == before
    assert history_tables() == {category_tables.partition_name(RatingEntry, cat.pk)}
    monkeypatch.undo()
    category_recompute(category=cat)  # the connection works on: the index thread ended with the failure
    assert ratings_by_seq(cat) == ratings


@pytest.mark.skipif(not category_tables.swaps_tables(), reason="tables are partitioned on PostgreSQL only")
def test_on_postgresql_a_full_recompute_swaps_in_partitions_that_later_recomputes_update():
    cat, limited = category("constructed"), category("limited")
    world = a_world()

    first = category_recompute(category=cat)
    category_recompute(category=limited)
    listed = CurrentRating.objects.filter(category=cat).count()
    # Of the categories there are: tests before this one may leave partitions of categories since emptied out.
    existing = {category_tables.partition_name(RatingEntry, pk) for pk in Category.objects.values_list("pk", flat=True)}
    assert history_tables() & existing == {
        category_tables.partition_name(RatingEntry, cat.pk),
        category_tables.partition_name(RatingEntry, limited.pk),
    }
    again = category_recompute(category=cat)
    Match.objects.filter(event=world[-1]).update(games1=0, games2=2)
    category_recompute(category=cat, since=world[-1].date)

    assert first.entries_written == again.entries_written > 0
    assert rows_by_partition(RatingEntry, cat.pk) == [
        (category_tables.partition_name(RatingEntry, cat.pk), first.entries_written)
    ]
    assert rows_by_partition(CurrentRating, cat.pk) == [(category_tables.partition_name(CurrentRating, cat.pk), listed)]
    assert not tables_named("%_next")
    # The ids stay unique across the swapped-in tables.
    for model in (RatingEntry, CurrentRating):
        ids = list(model.objects.values_list("id", flat=True))
        assert len(ids) == len(set(ids))


# the recompute commands and today's list on PostgreSQL --------------------------------------------------


@pytest.mark.parametrize("command", ["recompute_ratings", "recompute_enqueue"])
@pytest.mark.parametrize(
    "arguments, message",
    [
        (["--category", "nope"], "unknown category 'nope'"),
        (["--since", "2004-02-30"], "--since '2004-02-30' is not a date in the form YYYY-MM-DD"),
    ],
)
def test_the_recompute_commands_refuse_an_unknown_category_or_an_impossible_date(command, arguments, message):
    with pytest.raises(CommandError, match=message):
        call_command(command, *arguments)
    assert not RecomputeRun.objects.exists()


@pytest.mark.skipif(not category_tables.swaps_tables(), reason="tables are swapped on PostgreSQL only")
def test_a_full_recompute_in_a_transaction_of_its_own_makes_its_tables_through_a_second_connection(
    transactional_db, monkeypatch
):
    cat = category("constructed")
    a_world()
    written_elsewhere = []
    real = category_tables.elsewhere

    def recorded(work, *args, **kwargs):
        written_elsewhere.append(work.__name__)
        return real(work, *args, **kwargs)

    monkeypatch.setattr(category_tables, "elsewhere", recorded)
    category_recompute(category=cat)
    listed = published(cat)[1]
    ranks = set(CurrentRank.objects.filter(category=cat).values_list("participant_id", "world_rank"))
    lists.current_ratings_rebuild(category=cat)  # from the history just published, on this connection

    # The history's table, so that the transaction holds no lock on the shared table before its swap; the list;
    # the list's keys, then half its indexes (the other half on this connection meanwhile); then composite's
    # rows and tables, which follow it.
    assert written_elsewhere == [
        "_history_staging_committed", "list_staged_from_standings", "_statements_committed", "_statements_committed",
        "_derived_rows_aside",
    ]  # fmt: skip
    assert {row[2:] for row in listed} == {row[2:] for row in published(cat)[1]}  # all but the ids
    assert ranks == set(CurrentRank.objects.filter(category=cat).values_list("participant_id", "world_rank"))
    assert tables_named("%_next") == set()


@pytest.mark.skipif(not category_tables.swaps_tables(), reason="tables are swapped on PostgreSQL only")
def test_a_list_indexed_by_two_connections_has_every_index_of_its_table(transactional_db):
    cat = category("constructed")
    a_world()
    category_recompute(category=cat)

    for model in (CurrentRating, CurrentRank):
        parent, partition = model._meta.db_table, category_tables.partition_name(model, cat.pk)
        assert index_shapes(partition) == index_shapes(parent)


def index_shapes(table: str) -> list[tuple[str, bool]]:
    """Each index of `table` as its method and columns read, and whether it backs a key (names differ)."""
    with connection.cursor() as cursor:
        indexes = table_indexes(cursor, table)
    return sorted((definition.split(" USING ", 1)[1], key is not None) for _, definition, key in indexes)


def _swap_fails(model, category_id, staging):
    raise RuntimeError("the swap broke")


def _indexes_fail(real):
    def failing(statements):
        if any(statement.startswith("CREATE") for statement in statements):
            raise RuntimeError("an index broke")
        return real(statements)

    return failing


@pytest.mark.skipif(not category_tables.swaps_tables(), reason="tables are swapped on PostgreSQL only")
@pytest.mark.parametrize(
    "target, failure, message",
    [
        ("staging_swap", lambda real: _swap_fails, "the swap broke"),
        ("_statements_committed", _indexes_fail, "an index broke"),  # the list's indexes, on the other connection
    ],
    ids=["its swap", "its list's indexes elsewhere"],
)
def test_a_full_recompute_failing_after_its_list_was_written_elsewhere_leaves_everything_as_it_was(
    transactional_db, monkeypatch, target, failure, message
):
    cat = category("constructed")
    a_world()
    category_recompute(category=cat)
    before = published(cat)

    monkeypatch.setattr(category_tables, target, failure(getattr(category_tables, target)))
    with pytest.raises(RuntimeError, match=message):
        category_recompute(category=cat)

    assert published(cat) == before
    assert tables_named("%_next") == set()
    monkeypatch.undo()
    category_recompute(category=cat)  # nothing is left locked
    assert {row[2:] for row in published(cat)[1]} == {row[2:] for row in before[1]}


@pytest.mark.skipif(not category_tables.swaps_tables(), reason="tables are swapped on PostgreSQL only")
def test_a_swap_waiting_for_a_long_reader_does_not_stall_the_readers_behind_it(transactional_db, monkeypatch):
    """A lock request waiting in line stops every later reader behind it: the swap steps out of the line
    while a reader holds the list, so other pages are read meanwhile; it swaps once the reader is done."""
    import threading

    from django.db import connection

    cat = category("constructed")
    a_world()
    category_recompute(category=cat)
    refused = threading.Event()
    real_sleep = category_tables.time.sleep

    def pause(seconds):
        refused.set()
        real_sleep(seconds)

    monkeypatch.setattr(category_tables.time, "sleep", pause)
    params = connection.get_connection_params()
    reader, other = connection.get_new_connection(params), connection.get_new_connection(params)
    failures = []

    def recompute_elsewhere():
        try:
            category_recompute(category=cat)
        except Exception as failure:  # noqa: BLE001 - reported by the test below
            failures.append(failure)
        finally:
            connection.close()

    try:
        reader.execute("SELECT count(*) FROM ratings_currentrating")  # a long page: its transaction stays open
        worker = threading.Thread(target=recompute_elsewhere)
        worker.start()
        assert refused.wait(60), "the swap never asked for its locks"
        other.execute("SET statement_timeout = '2s'")
        # Another reader meanwhile is served, not queued behind the swap.
        assert other.execute("SELECT count(*) FROM ratings_currentrating").fetchone()[0] > 0
        other.rollback()
        reader.rollback()
        worker.join(60)
    finally:
        reader.close()
        other.close()
    assert not worker.is_alive() and not failures
    assert CurrentRating.objects.filter(category=cat).exists()  # published once the reader was done


@pytest.mark.skipif(not category_tables.swaps_tables(), reason="the swaps take turns on PostgreSQL only")
def test_a_players_lists_refreshed_during_a_full_recompute_wait_for_it_and_both_finish(transactional_db, monkeypatch):
    """A full recompute holds its list's row from its start and takes the swaps' turn at its swap. A player's
    lists refreshed meanwhile (their details corrected) wait for that row before taking the turn: neither waits
    for the other in a circle (which PostgreSQL would break by failing one), and the list shows the new name."""
    import threading
    import time

    from players.models import Player
    from ratings.services.lists import participant_lists_refresh

    cat = category("constructed")
    a_world()
    category_recompute(category=cat)
    participant = CurrentRating.objects.filter(category=cat).values_list("participant_id", flat=True).first()
    real_swap = category_tables.stagings_swap
    at_swap = threading.Event()
    failures = []

    def someone_waits_for_a_lock() -> bool:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"
            )
            return cursor.fetchone()[0] > 0

    def swap_once_the_refresh_waits(category_id, stagings):
        if not at_swap.is_set():
            at_swap.set()
            deadline = time.monotonic() + 30
            while not someone_waits_for_a_lock() and time.monotonic() < deadline:
                time.sleep(0.05)
        real_swap(category_id, stagings)

    def recompute_elsewhere():
        try:
            category_recompute(category=cat, derived_follow=False)
        except Exception as failure:  # noqa: BLE001 - reported by the test below
            failures.append(failure)
        finally:
            connection.close()

    monkeypatch.setattr(category_tables, "stagings_swap", swap_once_the_refresh_waits)
    worker = threading.Thread(target=recompute_elsewhere)
    worker.start()
    try:
        assert at_swap.wait(60), "the recompute never reached its swap"
        Player.objects.filter(participant_id=participant).update(name="Renamed Meanwhile")
        participant_lists_refresh(participant_id=participant)
    except Exception as failure:  # noqa: BLE001 - reported below, once the recompute has ended
        failures.append(failure)
    finally:
        worker.join(60)

    assert not worker.is_alive() and not failures
    assert CurrentRating.objects.get(category=cat, participant_id=participant).name == "Renamed Meanwhile"
