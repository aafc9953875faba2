"""Recomputing rating histories (SPEC 3, 5): what a recompute writes, and a recompute from a date.

Worlds are built with the bundle importer or with bulk ORM writes (neither
queues a recompute: tests/ratings/recompute_worlds.py), so that a test sees
only the recomputes it asks for. How changes queue runs:
test_results_changed.py; how runs are carried out: test_recompute_runs.py;
the V:EKN, composite and team lists: test_recompute_categories.py.
"""

from datetime import date, timedelta

import pytest
from django.db import connection

from events.models import Event, EventStatus, Match
from events.services import event_kinds, results_changed_send
from lib import bulk
from organize.importer import results_import
from players.models import Player
from ratings import category_tables
from ratings.engine import expected_score
from ratings.models import CurrentRank, CurrentRating, EventScore, RatingEntry, RecomputeRun, RecomputeStatus
from ratings.services.recompute import category_recompute
from ratings.services.runs import recompute_enqueue, recompute_run_execute
from ratings.tasks import published_list_extras_task, recompute_task
from tests.bundles import Bundle
from tests.ratings.recompute_worlds import (
    E1_DATE,
    EXACT,
    a_ruleset_category,
    a_world,
    an_event_with_random_rounds,
    assert_same_ratings,
    by_match,
    by_seq,
    category,
    entries,
    import_default_bundle,
    participant,
    rating_after,
    rows_before,
)

pytestmark = pytest.mark.django_db


# what a recompute writes -------------------------------------------------------------------------------


def test_a_recompute_writes_two_history_rows_per_rated_match_and_none_for_a_bye(tmp_path):
    import_default_bundle(tmp_path)

    result = category_recompute(category=category("constructed"))

    bye = Match.objects.get(event__code="E1", participant2__isnull=True)
    assert (result.matches_rated, result.entries_written) == (5, 10)  # E1: 6 matches, one a bye
    assert entries("constructed").count() == 10
    assert not entries("constructed", match=bye).exists()
    assert sorted(entries("constructed").values_list("seq", flat=True)) == [1, 1, 2, 2, 3, 3, 4, 4, 5, 5]
    assert entries("constructed", participant_id=participant("1005")).count() == 2  # rounds 2 and 3, not the bye


def test_the_recomputed_constructed_history_matches_the_numbers_by_hand(tmp_path):
    import_default_bundle(tmp_path)

    category_recompute(category=category("constructed"))

    # E1 is a 32-K event; round 1: 1001 beats 1002, 1003 draws 1004, 1005 has a bye.
    first = entries("constructed", round=1, participant_id=participant("1001")).get()
    assert (first.rating_before, first.rating_after, first.k, first.k_reason) == (1600, 1616, 32, "event K 32")
    assert rating_after("constructed", "1002") == 1584
    assert entries("constructed", round=1, participant_id=participant("1003")).get().rating_after == 1600
    # round 2: 1001 (1616) beats 1003 (1600); 1005 (1600) beats 1004 (1600)
    second = entries("constructed", round=2, participant_id=participant("1001")).get()
    assert second.opponent_rating == 1600
    assert second.rating_after == pytest.approx(1616 + 32 * (1 - expected_score(1616, 1600)), abs=EXACT)
    assert second.rating_after == pytest.approx(1631.26369, abs=1e-5)  # We = 1 / (10^-0.04 + 1) = 0.52301
    assert entries("constructed", round=2, participant_id=participant("1004")).get().rating_after == 1584
    # round 3 (elimination): 1001 beats 1005 (1616)
    last = entries("constructed", round=3, participant_id=participant("1005")).get()
    assert last.rating_before == 1616
    assert last.matches == 2
    assert rating_after("constructed", "1001") == pytest.approx(
        second.rating_after + 32 * (1 - expected_score(second.rating_after, 1616)), abs=EXACT
    )
    assert sum(rating_after("constructed", n) - 1600 for n in ["1001", "1002", "1003", "1004", "1005"]) == (
        pytest.approx(0, abs=1e-9)
    )


def test_a_recompute_marks_submitted_events_rated_and_leaves_draft_events_out(tmp_path):
    import_default_bundle(tmp_path)
    draft = Event.objects.create(
        name="Unsubmitted", date=date(2003, 5, 10), format="standard", player_count=2, status=EventStatus.DRAFT
    )
    draft_match = Match.objects.create(
        event=draft, round=1, participant1_id=participant("1001"), participant2_id=participant("1006"), games1=2
    )

    category_recompute(category=category("constructed"))

    statuses = dict(Event.objects.values_list("name", "status"))
    assert statuses == {
        "Munich Open": "rated",  # E1, constructed
        "Paris Draft": "submitted",  # limited: not recomputed yet
        "Team Cup": "submitted",  # team-constructed: not recomputed yet
        "Vampire Night": "submitted",
        "Unsubmitted": "draft",
    }
    assert not entries("constructed", match=draft_match).exists()
    assert not entries("constructed", participant_id=participant("1006")).exists()
    assert not RecomputeRun.objects.exists()  # a draft event queues nothing


def test_a_full_recompute_replaces_the_previous_history(tmp_path):
    import_default_bundle(tmp_path)
    category_recompute(category=category("constructed"))
    Match.objects.filter(event__code="E1", round=1, participant1_id=participant("1001")).update(games1=0, games2=2)

    category_recompute(category=category("constructed"))

    assert entries("constructed").count() == 10
    assert entries("constructed", round=1, participant_id=participant("1002")).get().rating_after == 1616


def test_events_on_the_same_date_are_rated_in_the_order_they_were_recorded(tmp_path):
    bundle = Bundle(tmp_path)
    for file in ("events.csv", "matches.csv", "standings.csv"):
        bundle.rows[file] = []
    bundle.add_event("B", date="2004-01-10", format="standard", k="32")  # first in the file
    bundle.add_event("A", date="2004-01-10", format="standard", k="32")
    bundle.add_match("B", 1, "1001", "1002", 2, 0, 0)
    bundle.add_match("A", 1, "1002", "1001", 2, 0, 0)
    results_import(source=bundle.write())

    category_recompute(category=category("constructed"))

    assert list(entries("constructed").order_by("seq", "participant").values_list("seq", "event__code")) == [
        (1, "B"),
        (1, "B"),
        (2, "A"),
        (2, "A"),
    ]
    back = 32 * (1 - expected_score(1584, 1616))
    assert rating_after("constructed", "1002") == pytest.approx(1584 + back, abs=EXACT)
    assert rating_after("constructed", "1001") == pytest.approx(1616 - back, abs=EXACT)


# recomputing from a date -------------------------------------------------------------------------------


def _change_a_result(events):
    event = events[3]
    played = Match.objects.filter(event=event, participant2__isnull=False).order_by("id")[1]
    Match.objects.filter(pk=played.pk).update(games1=played.games2, games2=played.games1 + 1)
    return event.date


def _add_an_event_in_the_past(events):
    return an_event_with_random_rounds(on=events[2].date + timedelta(days=3)).date


def _add_an_event_on_an_existing_date(events):
    return an_event_with_random_rounds(on=events[2].date).date  # recorded later: rated after the other


def _add_an_event_at_the_end(events):
    return an_event_with_random_rounds(on=events[-1].date + timedelta(days=30)).date


CHANGES = {
    "a result changed": _change_a_result,
    "an event added in the past": _add_an_event_in_the_past,
    "an event added on an existing date": _add_an_event_on_an_existing_date,
    "an event added after the last": _add_an_event_at_the_end,
}


@pytest.mark.parametrize("ruleset", ["dci-2001", "dci-1997", "match-points"])
@pytest.mark.parametrize("change", CHANGES.values(), ids=CHANGES.keys())
def test_a_recompute_from_a_date_equals_a_full_recompute_and_keeps_the_history_before_it(ruleset, change):
    cat = a_ruleset_category(ruleset)
    events = a_world()
    category_recompute(category=cat)
    total_before = RatingEntry.objects.filter(category=cat).count()
    since = change(events)
    kept = rows_before(cat, since)
    assert kept  # the change is in the middle of the history (or after it), not at its start

    partial_result = category_recompute(category=cat, since=since)
    partial = by_seq(cat)

    assert rows_before(cat, since) == kept
    full_result = category_recompute(category=cat)
    assert_same_ratings(partial, by_seq(cat))
    assert partial_result.matches_rated == RatingEntry.objects.filter(category=cat, event_date__gte=since).count() / 2
    assert full_result.entries_written == RatingEntry.objects.filter(category=cat).count()
    assert full_result.entries_written >= total_before


def test_the_world_exercises_provisional_and_established_dci_1997_entries():
    cat = a_ruleset_category("dci-1997")
    a_world()

    category_recompute(category=cat)

    provisional = RatingEntry.objects.filter(category=cat, provisional=True)
    established = RatingEntry.objects.filter(category=cat, provisional=False)
    assert provisional.count() == 9 * 8  # 9 players, provisional for their first 8 matches each
    assert established.exists()
    # the event of 7 players (the 4th) is not rated
    assert not RatingEntry.objects.filter(category=cat, event__code="W7-3").exists()
    assert RatingEntry.objects.filter(category=cat, event__code="W7-4").exists()


def test_a_recompute_after_an_event_is_removed_equals_a_full_recompute():
    cat = category("constructed")
    events = a_world()
    category_recompute(category=cat)
    removed = events[2]
    kept = rows_before(cat, removed.date)

    kinds = event_kinds(events=[removed])
    removed.delete()
    results_changed_send(kinds=kinds, reason=f"{removed} removed")  # as the admin's removal says
    [run] = RecomputeRun.objects.filter(category=cat)
    assert run.since == removed.date
    recompute_run_execute(run_id=run.pk)
    partial = by_match(cat)

    assert rows_before(cat, removed.date) == kept
    category_recompute(category=cat)
    assert_same_ratings(partial, by_match(cat))
    assert not RatingEntry.objects.filter(category=cat, event_id=removed.pk).exists()


def test_an_event_added_in_the_past_is_rated_by_the_queued_run_as_by_a_full_recompute():
    cat = category("constructed")
    events = a_world()
    category_recompute(category=cat)
    day = events[1].date + timedelta(days=1)
    players = list(Player.objects.filter(membership_number__startswith="W").order_by("pk"))

    added = Event.objects.create(
        name="Late report", date=day, format="standard", k=40, player_count=8, status=EventStatus.SUBMITTED
    )
    for number, (one, two) in enumerate([(0, 1), (2, 3), (0, 3), (1, 2)], start=1):
        Match.objects.create(
            event=added,
            round=(number + 1) // 2,
            participant1_id=players[one].participant_id,
            participant2_id=players[two].participant_id,
            games1=2,
            games2=number % 2,
        )
    results_changed_send(kinds=event_kinds(events=[added]), reason=f"{added} added")  # as the admin's save says

    [run] = RecomputeRun.objects.all()
    assert (run.category, run.since, run.status) == (cat, day, RecomputeStatus.QUEUED)
    done = recompute_run_execute(run_id=run.pk)
    assert (done.status, done.computed_since) == (RecomputeStatus.DONE, day)
    assert RatingEntry.objects.filter(category=cat, event=added).count() == 8
    partial = by_seq(cat)
    category_recompute(category=cat)
    assert_same_ratings(partial, by_seq(cat))


@pytest.mark.django_db(transaction=True)  # statistics are taken once the recompute has committed
@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's statistics")
def test_a_recompute_that_marks_many_events_rated_leaves_statistics_of_the_events(tmp_path, monkeypatch):
    import_default_bundle(tmp_path)
    with connection.cursor() as cursor:  # as where autovacuum is slow, or off
        cursor.execute("DELETE FROM pg_statistic WHERE starelid = 'events_event'::regclass")
    monkeypatch.setattr(bulk, "STATISTICS_AFTER_ROWS", 1)  # the bundle's few events count as many
    constructed = category("constructed")

    try:
        category_recompute(category=constructed)

        assert Event.objects.filter(status=EventStatus.RATED).exists()
        with connection.cursor() as cursor:  # what the event pages are planned by: taken since the statuses changed
            cursor.execute("SELECT 1 FROM pg_stats WHERE tablename = 'events_event' AND attname = 'status'")
            assert cursor.fetchone() == (1,)
    finally:  # the committed partitions of the list's own tables outlive the test's flush: gone, for the next tests
        with connection.cursor() as cursor:
            for model in (RatingEntry, CurrentRating, CurrentRank):
                cursor.execute(f"DROP TABLE IF EXISTS {category_tables.partition_name(model, constructed.pk)}")


@pytest.mark.django_db(transaction=True)  # statistics are taken once the recompute has committed
@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's statistics")
def test_a_vekn_recompute_leaves_statistics_of_the_event_scores(tmp_path, monkeypatch):
    """Where autovacuum is slow, or off, the admin's list of scores is counted from them (1.2 million rows changed
    and none taken at ten million matches: every score counted on each page)."""
    import_default_bundle(tmp_path)
    monkeypatch.setattr(bulk, "STATISTICS_AFTER_ROWS", 1)  # the bundle's few scores count as many

    category_recompute(category=category("vtes"))

    assert EventScore.objects.exists()
    with connection.cursor() as cursor:
        cursor.execute("SELECT reltuples FROM pg_class WHERE relname = 'ratings_eventscore'")
        assert cursor.fetchone()[0] == EventScore.objects.count()


def last_marked(table: str):
    """When VACUUM last marked the table's pages all visible (None: never)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT last_vacuum FROM pg_stat_user_tables WHERE relname = %s", [table])
        return cursor.fetchone()[0]


@pytest.mark.django_db(transaction=True)  # VACUUM runs outside a transaction
@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's visibility map")
def test_a_list_rewritten_in_part_has_its_pages_marked_by_the_job_after_the_publication(tmp_path):
    import_default_bundle(tmp_path)
    constructed = category("constructed")
    listed = category_tables.partition_name(CurrentRating, constructed.pk)
    try:
        category_recompute(category=constructed)
        swapped_in = last_marked(listed)
        assert swapped_in is not None  # a list swapped in whole is marked as it is published
        run = recompute_enqueue(category=constructed, since=E1_DATE, reason="a result corrected")

        recompute_task.call(run.pk)

        assert RecomputeRun.objects.get(pk=run.pk).status == RecomputeStatus.DONE
        assert last_marked(listed) == swapped_in  # the run ends, and the next one starts, without it
        published_list_extras_task.call(constructed.pk)
        assert last_marked(listed) > swapped_in
    finally:
        with connection.cursor() as cursor:
            for model in (RatingEntry, CurrentRating, CurrentRank):
                cursor.execute(f"DROP TABLE IF EXISTS {category_tables.partition_name(model, constructed.pk)}")
