"""Today's lists: ranks at every level and last month's ranks, kept ready for the ranking pages."""

import datetime

import pytest
from django.core.management import call_command
from django.db.models import F

from events.demo import demo_bundle_write
from events.importer import results_import
from events.models import Match
from ratings import services
from ratings.models import Category, CurrentRating
from ratings.selectors import ranking_list
from ratings.services import category_recompute, current_ratings_rebuild, current_ratings_refresh_if_stale

TODAY = datetime.date(2024, 12, 15)


@pytest.fixture
def rated_world(db, tmp_path):
    demo_bundle_write(tmp_path, players=200, events=40, seed=5, end=datetime.date(2024, 12, 10))
    results_import(source=tmp_path)
    call_command("recompute_ratings", stdout=None)
    return Category.objects.get(slug="constructed")


def test_a_recompute_leaves_todays_list_ready(rated_world):
    rows = CurrentRating.objects.filter(category=rated_world)

    assert rows.count() == len(ranking_list(category=rated_world))
    assert rows.filter(ranked=True, world_rank=1).exists()
    assert not rows.filter(ranked=False, world_rank__isnull=False).exists()


@pytest.mark.parametrize("level", ["world", "continent", "country", "region"])
def test_its_ranks_at_every_level_equal_the_computed_list(rated_world, level):
    current_ratings_rebuild(category=rated_world, today=TODAY)
    sample = CurrentRating.objects.filter(category=rated_world, ranked=True).exclude(region="").first()
    filters = {
        "world": {},
        "continent": {"continent": sample.continent},
        "country": {"country": sample.country},
        "region": {"region": sample.region},
    }[level]

    expected = {row.player_id: row.rank for row in ranking_list(category=rated_world, as_of=TODAY, **filters)}
    stored = dict(
        CurrentRating.objects.filter(category=rated_world, **filters).values_list("display_id", f"{level}_rank")
    )

    assert stored == expected
    assert sorted(rank for rank in stored.values() if rank)[:1] == [1]


def test_last_months_ranks_are_the_ranks_at_the_end_of_last_month(rated_world):
    current_ratings_rebuild(category=rated_world, today=TODAY)

    end_of_november = {
        row.player_id: row.rank for row in ranking_list(category=rated_world, as_of=datetime.date(2024, 11, 30))
    }
    stored = dict(CurrentRating.objects.filter(category=rated_world).values_list("display_id", "previous_world_rank"))

    assert {key: value for key, value in stored.items() if value} == {
        key: value for key, value in end_of_november.items() if value
    }


def test_a_list_built_before_today_is_rebuilt_when_read(rated_world):
    current_ratings_rebuild(category=rated_world, today=datetime.date(2024, 11, 1))

    current_ratings_refresh_if_stale(category=rated_world)

    assert set(CurrentRating.objects.filter(category=rated_world).values_list("built_on", flat=True)) == {
        datetime.date.today()
    }


def test_a_stale_list_read_while_a_recompute_publishes_is_not_written_over_it(rated_world, monkeypatch):
    long_ago = datetime.date(2024, 11, 1)
    current_ratings_rebuild(category=rated_world, today=long_ago)
    read = services._current_rows_read

    def read_then_recompute_publishes(category, today):
        rows = read(category, today)
        Category.objects.filter(pk=category.pk).update(history_version=F("history_version") + 1)
        return rows

    monkeypatch.setattr(services, "_current_rows_read", read_then_recompute_publishes)
    current_ratings_refresh_if_stale(category=rated_world)

    # The recompute's own list stands (here: the old one, which a real recompute would have replaced).
    assert set(CurrentRating.objects.filter(category=rated_world).values_list("built_on", flat=True)) == {long_ago}


def test_composite_is_rebuilt_when_a_component_is_recomputed(rated_world):
    composite = Category.objects.get(slug="composite")
    CurrentRating.objects.filter(category=composite).delete()

    call_command("recompute_ratings", category="limited", stdout=None)

    assert CurrentRating.objects.filter(category=composite).count() == len(ranking_list(category=composite))


def _list_rows(category):
    return sorted(
        CurrentRating.objects.filter(category=category).values_list(
            "participant_id", "rating", "matches", "ranked", "last_played", "world_rank", "continent_rank",
            "country_rank", "region_rank", "previous_rating", "previous_ranked", "previous_world_rank",
            "previous_continent_rank", "previous_country_rank", "previous_region_rank",
        )
    )  # fmt: skip


@pytest.mark.parametrize("days_before_the_month", [0, 12], ids=["this month", "reaching into last month"])
def test_a_recompute_from_a_date_updates_the_list_as_a_rebuild_would(db, tmp_path, monkeypatch, days_before_the_month):
    today = datetime.date.today()
    demo_bundle_write(tmp_path, players=200, events=60, seed=8, start=today - datetime.timedelta(days=400), end=today)
    results_import(source=tmp_path)
    call_command("recompute_ratings", stdout=None)
    constructed = Category.objects.get(slug="constructed")
    first_of_month = today.replace(day=1)
    since = first_of_month - datetime.timedelta(days=days_before_the_month)
    match = (
        Match.objects.filter(event__date__gte=since, event__format="standard", participant2__isnull=False)
        .order_by("event__date")
        .first()
    )
    if match is None:
        pytest.skip("the generated world has no standard match since that date")
    Match.objects.filter(pk=match.pk).update(games1=match.games2, games2=match.games1)

    def no_rebuild(**kwargs):
        raise AssertionError("a recompute from a date must update the list, not rebuild it")

    monkeypatch.setattr(services, "current_ratings_rebuild", no_rebuild)
    category_recompute(category=constructed, since=since)
    monkeypatch.undo()
    composite = Category.objects.get(slug="composite")
    updated, updated_composite = _list_rows(constructed), _list_rows(composite)
    current_ratings_rebuild(category=constructed)
    current_ratings_rebuild(category=composite)

    assert updated == _list_rows(constructed)
    assert _rounded(updated_composite) == _rounded(_list_rows(composite))


def _rounded(rows):
    """Composite ratings are means: summed in another order they may differ in the last bit."""
    return [
        (row[0], round(row[1], 9), *row[2:9], None if row[9] is None else round(row[9], 9), *row[10:]) for row in rows
    ]


def test_a_full_recompute_builds_the_list_a_rebuild_from_the_history_gives(db, tmp_path):
    today = datetime.date.today()
    demo_bundle_write(tmp_path, players=200, events=60, seed=4, start=today - datetime.timedelta(days=300), end=today)
    results_import(source=tmp_path)
    call_command("recompute_ratings", stdout=None)  # builds today's list from the engine's final states
    constructed, composite = Category.objects.get(slug="constructed"), Category.objects.get(slug="composite")
    from_memory, composite_from_lists = _list_rows(constructed), _list_rows(composite)

    current_ratings_rebuild(category=constructed)
    services.CurrentRating.objects.filter(category=composite).delete()
    from ratings.selectors import ranking_rows

    composite_from_history = sorted((row.participant, round(row.rating, 9)) for row in ranking_rows(category=composite))

    assert from_memory == _list_rows(constructed)
    assert any(row[9] is not None for row in from_memory), "last month's standing was filled in"
    assert sorted((row[0], round(row[1], 9)) for row in composite_from_lists) == composite_from_history
