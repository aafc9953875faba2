"""Derived lists (composite, SPEC 3.1) built by the database from their components' lists, once per change.

The database's build (ratings.services.derived_lists.derived_list_sql) must give exactly the rows the Python path
gives (_current_rows_read: derived_standing and rank_levels over the components' lists): every column, the
ratings to the last bit, the ranks at every level, last month's columns.
"""

from datetime import timedelta
from unittest import mock

import pytest
from django.core.management import call_command
from django.db import connection
from django.db.models import F
from django.utils import timezone

from events.models import Match
from players.models import Player
from ratings import category_tables
from ratings.models import Category, CurrentRank, CurrentRating
from ratings.services import derived_lists, lists, recompute
from ratings.services.lists import CURRENT_FIELDS, RANK_FIELDS, current_ratings_rebuild
from ratings.services.recompute import category_recompute
from tests.ratings.recompute_worlds import tables_named
from tests.worlds import demo_world_rated

pytestmark = pytest.mark.django_db


def category(slug: str) -> Category:
    return Category.objects.get(slug=slug)


@pytest.fixture
def world(tmp_path):
    """A demo world played up to today (so last month's list differs from today's), with low thresholds
    so that many are ranked in one component only, and some in neither."""
    today = timezone.localdate()
    demo_world_rated(tmp_path, players=400, events=60, seed=7, start=today - timedelta(days=500), end=today)
    Category.objects.filter(slug="constructed").update(ranked_after=4)
    Category.objects.filter(slug="limited").update(ranked_after=6)
    for slug in ("constructed", "limited"):
        category_recompute(category=category(slug))


def stored_rows(slug: str) -> dict[int, tuple]:
    rows = CurrentRating.objects.filter(category=category(slug)).values_list(*CURRENT_FIELDS)
    return {row[1]: tuple(row) for row in rows}


def stored_ranks(slug: str) -> dict[int, tuple]:
    return {row[1]: tuple(row) for row in CurrentRank.objects.filter(category=category(slug)).values_list(*RANK_FIELDS)}


def python_rows(slug: str) -> dict[int, tuple]:
    """The list as the Python path computes it from the components' lists."""
    rows = lists._current_rows_read(category(slug), timezone.localdate())
    return {row[1]: row for row in rows}


def assert_same_rows(got: dict[int, tuple], expected: dict[int, tuple]) -> None:
    assert got.keys() == expected.keys()
    for participant, row in expected.items():
        for name, value, stored in zip(CURRENT_FIELDS, row, got[participant], strict=True):
            if isinstance(value, float):  # to the last bit
                assert stored.hex() == value.hex(), (participant, name)
            else:
                assert stored == value, (participant, name, stored, value)


def test_the_database_builds_the_derived_list_the_python_path_builds(world):
    composite = category("composite")
    assert derived_lists.derived_list_in_sql(composite)
    expected = python_rows("composite")
    # The world has what the rules tell apart: both components, one only, ranked in either, last month's.
    constructed, limited = stored_rows("constructed"), stored_rows("limited")
    assert constructed.keys() & limited.keys() and constructed.keys() ^ limited.keys()
    assert any(row[CURRENT_FIELDS.index("previous_rating")] is None for row in expected.values())
    assert any(row[CURRENT_FIELDS.index("previous_world_rank")] for row in expected.values())
    assert any(row[CURRENT_FIELDS.index("region_rank")] for row in expected.values())

    current_ratings_rebuild(category=composite)

    assert_same_rows(stored_rows("composite"), expected)
    world_at = CURRENT_FIELDS.index("world_rank")
    ranks = stored_ranks("composite")
    assert ranks == {
        participant: tuple(row[CURRENT_FIELDS.index(name)] for name in RANK_FIELDS)
        for participant, row in expected.items()
        if row[world_at] is not None
    }


def test_a_derived_list_rebuilt_over_rows_that_differ_rewrites_exactly_those(world):
    """On PostgreSQL a rebuild that finds few rows differing writes only those (the others stay as stored)."""
    composite = category("composite")
    expected = python_rows("composite")
    rows = CurrentRating.objects.filter(category=composite).order_by("participant_id")
    first, second, third = (row.participant_id for row in rows[:3])
    CurrentRating.objects.filter(category=composite, participant_id=first).update(rating=1.5, world_rank=None)
    CurrentRating.objects.filter(category=composite, participant_id=second).update(previous_rating=None, name="X")
    CurrentRating.objects.filter(category=composite, participant_id=third).delete()
    CurrentRank.objects.filter(category=composite, participant_id__in=[first, second, third]).delete()
    CurrentRank.objects.filter(category=composite).order_by("participant_id").last().delete()
    untouched = CurrentRating.objects.filter(category=composite).order_by("participant_id").values_list("id")[5][0]

    current_ratings_rebuild(category=composite)

    assert_same_rows(stored_rows("composite"), expected)
    world_at = CURRENT_FIELDS.index("world_rank")
    assert stored_ranks("composite") == {
        participant: tuple(row[CURRENT_FIELDS.index(name)] for name in RANK_FIELDS)
        for participant, row in expected.items()
        if row[world_at] is not None
    }
    if connection.vendor == "postgresql":
        assert CurrentRating.objects.filter(pk=untouched).exists()  # rewritten in place, not afresh


def test_a_derived_list_refreshed_for_the_changed_participants_equals_one_built_whole(world):
    match = Match.objects.filter(event__format="standard", participant2__isnull=False).order_by("-event__date").first()
    match.games1, match.games2 = match.games2, match.games1 + 1
    match.save()

    category_recompute(category=category("constructed"), since=match.event.date)

    assert_same_rows(stored_rows("composite"), python_rows("composite"))


def test_a_recompute_of_every_list_builds_the_derived_list_once_after_its_components(world):
    calls = []
    real = recompute._derived_list_refresh

    def counted(derived, **kwargs):
        calls.append((derived.slug, kwargs))
        return real(derived, **kwargs)

    with mock.patch.object(recompute, "_derived_list_refresh", counted):
        call_command("recompute_ratings", stdout=open("/dev/null", "w"))  # noqa: SIM115
    assert [(slug, kwargs["since"], kwargs["changed"]) for slug, kwargs in calls] == [("composite", None, None)]
    assert_same_rows(stored_rows("composite"), python_rows("composite"))

    calls.clear()
    since = timezone.localdate() - timedelta(days=7)
    with mock.patch.object(recompute, "_derived_list_refresh", counted):
        call_command("recompute_ratings", since=since.isoformat(), stdout=open("/dev/null", "w"))  # noqa: SIM115
    assert [slug for slug, _ in calls] == ["composite"]
    assert calls[0][1]["since"] == since and calls[0][1]["changed"] is not None  # only those who played since
    assert_same_rows(stored_rows("composite"), python_rows("composite"))


def test_one_list_recomputed_alone_is_still_followed_by_its_derived_list(world):
    with mock.patch.object(recompute, "_derived_list_refresh", wraps=recompute._derived_list_refresh) as refresh:
        category_recompute(category=category("limited"))
    assert [call.args[0].slug for call in refresh.call_args_list] == ["composite"]


# Built aside: rows and fresh tables made by a second connection, the swaps' turn taken only to publish -----------

on_postgresql = pytest.mark.skipif(not category_tables.swaps_tables(), reason="lists are swapped on PostgreSQL only")


@pytest.fixture
def world_alone(transactional_db, tmp_path):
    """The world above, each recompute a transaction of its own: a derived list is then built aside."""
    today = timezone.localdate()
    demo_world_rated(tmp_path, players=400, events=60, seed=7, start=today - timedelta(days=500), end=today)
    Category.objects.filter(slug__in=["constructed", "limited"]).update(ranked_after=4)
    for slug in ("constructed", "limited"):
        category_recompute(category=category(slug))


def composite_as_python_builds_it() -> None:
    assert_same_rows(stored_rows("composite"), python_rows("composite"))
    ranked = {participant: row for participant, row in python_rows("composite").items() if row[12] is not None}
    assert stored_ranks("composite").keys() == ranked.keys()
    assert tables_named("derived_rows%") == set() and tables_named("%_next") == set()


@on_postgresql
def test_a_derived_list_built_aside_is_the_list_the_python_path_builds(world_alone, monkeypatch):
    published = []
    real = derived_lists.derived_list_rebuild_aside

    def recorded(derived, today):
        published.append(real(derived, today))
        return published[-1]

    monkeypatch.setattr(recompute, "derived_list_rebuild_aside", recorded)
    stored = CurrentRating.objects.filter(category=category("composite"))

    Category.objects.filter(slug="constructed").update(ranked_after=2)  # many rows differ: fresh tables
    category_recompute(category=category("constructed"))
    composite_as_python_builds_it()
    ids = set(stored.values_list("pk", flat=True))

    category_recompute(category=category("constructed"))  # nothing differs: nothing written
    composite_as_python_builds_it()
    assert set(stored.values_list("pk", flat=True)) == ids

    renamed = stored.values_list("participant_id", flat=True).first()
    Player.objects.filter(participant_id=renamed).update(name="Renamed Since")
    category_recompute(category=category("constructed"))  # one row differs: rewritten in place
    composite_as_python_builds_it()
    assert set(stored.values_list("pk", flat=True)) == ids
    assert stored.get(participant_id=renamed).name == "Renamed Since"

    assert len(published) == 3 and None not in published


@on_postgresql
def test_a_derived_list_whose_component_changed_while_it_was_built_aside_is_built_again(world_alone, monkeypatch):
    real = derived_lists._derived_rows_aside

    def and_limited_edited_meanwhile(derived, today):
        built = real(derived, today)
        Category.objects.filter(slug="limited").update(list_edits=F("list_edits") + 1)
        return built

    monkeypatch.setattr(derived_lists, "_derived_rows_aside", and_limited_edited_meanwhile)
    rebuilt = mock.patch.object(recompute, "current_ratings_rebuild", wraps=recompute.current_ratings_rebuild)

    Category.objects.filter(slug="constructed").update(ranked_after=2)
    with rebuilt as rebuild:
        category_recompute(category=category("constructed"))

    assert [call.kwargs["category"].slug for call in rebuild.call_args_list] == ["composite"]  # under the turn
    composite_as_python_builds_it()


@on_postgresql
def test_a_swap_does_not_wait_for_a_read_of_another_lists_partition(world_alone, monkeypatch):
    """A derived list reads its components' partitions directly: another list's swap locks the tables every list
    shares and its own partitions, so it neither waits for that read nor steps out of line for it."""
    pauses = []
    monkeypatch.setattr(category_tables.time, "sleep", pauses.append)
    reader = connection.get_new_connection(connection.get_connection_params())
    constructed = category_tables.partition_name(CurrentRating, category("constructed").pk)
    with connection.cursor() as cursor:
        cursor.execute("SET lock_timeout = '10s'")  # fails rather than hangs if the swap waits for the reader
    try:
        reader.execute(f"SELECT count(*) FROM {constructed}")  # its transaction stays open, the read lock with it
        category_recompute(category=category("limited"), derived_follow=False)
    finally:
        reader.close()
        with connection.cursor() as cursor:
            cursor.execute("RESET lock_timeout")

    assert pauses == []
    assert CurrentRating.objects.filter(category=category("limited")).exists()


@on_postgresql
def test_a_derived_list_failing_while_built_aside_keeps_the_list_it_had_and_leaves_no_table(world_alone, monkeypatch):
    real = derived_lists._list_staged_from

    def fails_once_its_tables_exist(cursor, derived, rows_table):
        real(cursor, derived, rows_table)  # committed as each statement ends
        raise RuntimeError("the disk filled up")

    monkeypatch.setattr(derived_lists, "_list_staged_from", fails_once_its_tables_exist)
    listed = stored_rows("composite")
    Category.objects.filter(slug="constructed").update(ranked_after=2)  # many rows would differ: fresh tables

    with pytest.raises(RuntimeError, match="the disk filled up"):
        category_recompute(category=category("constructed"))

    assert stored_rows("composite") == listed
    assert tables_named("derived_rows%") == set() and tables_named("%_next") == set()
