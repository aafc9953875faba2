"""Today's lists: ranks at every level and last month's ranks, kept ready for the ranking pages."""

import datetime
from types import SimpleNamespace

import pytest
from django.core.management import call_command
from django.db import connection
from django.db.models import F
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from devtools.demo import demo_bundle_write
from events.models import Event, EventStatus, Match, Standing
from organize.importer import results_import
from players import geography
from players.models import Participant, Player
from ratings.management.commands import db_worker
from ratings.models import Category, CurrentRank, CurrentRating, EventScore
from ratings.selectors.lists import ranking_list
from ratings.selectors.rankings import RankingFilters, ranking_page_rows
from ratings.services import lists, recompute
from ratings.services.lists import (
    current_lists_refresh_stale,
    current_ratings_rebuild,
    current_ratings_refresh_if_stale,
)
from ratings.services.recompute import category_recompute
from tests.worlds import demo_world_rated

TODAY = datetime.date(2024, 12, 15)


@pytest.fixture
def demo_constructed(db, tmp_path) -> Category:
    """A demo world imported and rated: its Constructed category."""
    demo_world_rated(tmp_path, players=200, events=40, seed=5, end=datetime.date(2024, 12, 10))
    return Category.objects.get(slug="constructed")


def test_a_recompute_leaves_todays_list_ready(demo_constructed):
    rows = CurrentRating.objects.filter(category=demo_constructed)

    assert rows.count() == len(ranking_list(category=demo_constructed))
    assert rows.filter(ranked=True, world_rank=1).exists()
    assert not rows.filter(ranked=False, world_rank__isnull=False).exists()


@pytest.mark.parametrize("level", ["world", "continent", "country", "region"])
def test_its_ranks_at_every_level_equal_the_computed_list(demo_constructed, level):
    current_ratings_rebuild(category=demo_constructed, today=TODAY)
    sample = CurrentRating.objects.filter(category=demo_constructed, ranked=True).exclude(region="").first()
    filters = {
        "world": {},
        "continent": {"continent": sample.continent},
        "country": {"country": sample.country},
        "region": {"region": sample.region},
    }[level]

    expected = {row.player_id: row.rank for row in ranking_list(category=demo_constructed, as_of=TODAY, **filters)}
    stored = dict(
        CurrentRating.objects.filter(category=demo_constructed, **filters).values_list("display_id", f"{level}_rank")
    )

    assert stored == expected
    assert sorted(rank for rank in stored.values() if rank)[:1] == [1]


def test_last_months_ranks_are_the_ranks_at_the_end_of_last_month(demo_constructed):
    current_ratings_rebuild(category=demo_constructed, today=TODAY)

    end_of_november = {
        row.player_id: row.rank for row in ranking_list(category=demo_constructed, as_of=datetime.date(2024, 11, 30))
    }
    stored = dict(
        CurrentRating.objects.filter(category=demo_constructed).values_list("display_id", "previous_world_rank")
    )

    assert {key: value for key, value in stored.items() if value} == {
        key: value for key, value in end_of_november.items() if value
    }


def test_a_list_built_before_today_is_rebuilt_by_the_refresh(demo_constructed):
    current_ratings_rebuild(category=demo_constructed, today=datetime.date(2024, 11, 1))

    assert current_ratings_refresh_if_stale(category=demo_constructed)

    assert set(CurrentRating.objects.filter(category=demo_constructed).values_list("built_on", flat=True)) == {
        datetime.date.today()
    }
    assert not current_ratings_refresh_if_stale(category=demo_constructed)  # built today: left as it is


def built_on(category) -> set:
    return set(CurrentRating.objects.filter(category=category).values_list("built_on", flat=True))


def test_the_workers_refresh_rebuilds_every_stale_list_components_before_the_lists_derived_from_them(demo_constructed):
    composite, limited = Category.objects.get(slug="composite"), Category.objects.get(slug="limited")
    expected = _list_rows(composite)  # built from today's lists of its components
    for category in (composite, demo_constructed):
        current_ratings_rebuild(category=category, today=datetime.date(2024, 11, 1))  # last month was October

    refreshed = current_lists_refresh_stale()

    assert [category.slug for category in refreshed] == ["constructed", "composite"]
    assert built_on(demo_constructed) == built_on(composite) == built_on(limited) == {timezone.localdate()}
    assert _rounded(_list_rows(composite)) == _rounded(expected)
    assert current_lists_refresh_stale() == []  # nothing stale: nothing written


def test_a_page_or_api_read_of_a_stale_list_writes_nothing(demo_constructed, client):
    long_ago = datetime.date(2024, 11, 1)
    for category in Category.objects.all():
        current_ratings_rebuild(category=category, today=long_ago)
    version = Category.objects.get(pk=demo_constructed.pk).history_version
    player = CurrentRating.objects.filter(category=demo_constructed, ranked=True).first().display_id
    written_tables = [model._meta.db_table for model in (CurrentRating, CurrentRank, Category)]

    with CaptureQueriesContext(connection) as queries:
        for url in ("/rankings/constructed/", "/rankings/", "/", f"/players/{player}/", "/api/rankings/constructed/",
                    f"/api/players/{player}/"):  # fmt: skip
            assert client.get(url).status_code == 200, url

    writes = [
        query["sql"]
        for query in queries.captured_queries
        if query["sql"].lstrip().split()[0].upper() in ("INSERT", "UPDATE", "DELETE", "ALTER", "CREATE", "DROP")
        and any(table in query["sql"] for table in written_tables)
    ]
    assert writes == []
    assert {row for category in Category.objects.all() for row in built_on(category)} == {long_ago}
    assert Category.objects.get(pk=demo_constructed.pk).history_version == version


class WakesThenStops:
    """The worker's stop event: each wait is one wake of the maintenance loop, until `wakes` have passed."""

    def __init__(self, wakes: int):
        self.wakes = wakes

    def wait(self, timeout: float) -> bool:
        self.wakes -= 1
        return self.wakes < 0


def test_a_starting_worker_rebuilds_the_lists_of_an_earlier_day(demo_constructed):
    current_ratings_rebuild(category=demo_constructed, today=datetime.date(2024, 11, 1))

    db_worker._maintain_periodically(WakesThenStops(0), recover_every=60, housekeep_every=3600)

    assert built_on(demo_constructed) == {timezone.localdate()}


def test_a_running_worker_rebuilds_the_lists_just_after_midnight_and_hourly(monkeypatch):
    calls = []
    monkeypatch.setattr(db_worker, "_recover", lambda: calls.append("recover"))
    monkeypatch.setattr(db_worker, "_housekeep", lambda: calls.append("housekeep"))
    monkeypatch.setattr(db_worker, "_month_end_lists", lambda: calls.append("month ends"))
    monkeypatch.setattr(db_worker, "current_lists_refresh_stale", lambda: calls.append("refresh") or [])
    monkeypatch.setattr(db_worker, "_history_files", lambda: calls.append("history files"))
    evening, morning = datetime.date(2024, 12, 14), datetime.date(2024, 12, 15)
    days = iter([evening, evening, morning, morning, morning])  # at the start, then one per wake
    monkeypatch.setattr(db_worker, "timezone", SimpleNamespace(localdate=lambda: next(days)))

    db_worker._maintain_periodically(WakesThenStops(3), recover_every=60, housekeep_every=3600)

    assert calls == [
        "housekeep", "refresh", "month ends", "history files",  # starting
        "recover",  # 23:59
        "recover", "refresh", "month ends",  # 00:00: a new day
        "recover",  # 00:01
    ]  # fmt: skip


def test_a_stale_list_read_while_a_recompute_publishes_is_not_written_over_it(demo_constructed, monkeypatch):
    long_ago = datetime.date(2024, 11, 1)
    current_ratings_rebuild(category=demo_constructed, today=long_ago)
    read = lists._current_rows_read

    def read_then_recompute_publishes(category, today):
        rows = read(category, today)
        Category.objects.filter(pk=category.pk).update(history_version=F("history_version") + 1)
        return rows

    monkeypatch.setattr(lists, "_current_rows_read", read_then_recompute_publishes)
    current_ratings_refresh_if_stale(category=demo_constructed)

    # The recompute's own list stands (here: the old one, which a real recompute would have replaced).
    assert set(CurrentRating.objects.filter(category=demo_constructed).values_list("built_on", flat=True)) == {long_ago}


def test_composite_is_rebuilt_when_a_component_is_recomputed(demo_constructed):
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
    # A result reported late on that date: the list's best loses to someone from the middle of the list.
    listed = CurrentRating.objects.filter(category=constructed, ranked=True).order_by("world_rank")
    best, middle = listed.first(), listed[listed.count() // 2]
    late = Event.objects.create(
        name="Late open", date=since, format="standard", k=32, player_count=2, status=EventStatus.SUBMITTED
    )
    Match.objects.create(
        event=late, round=1, participant1_id=middle.participant_id, participant2_id=best.participant_id, games1=2,
        games2=0,
    )  # fmt: skip

    def no_rebuild(**kwargs):
        raise AssertionError("a recompute from a date must update the list, not rebuild it")

    monkeypatch.setattr(recompute, "current_ratings_rebuild", no_rebuild)
    category_recompute(category=constructed, since=since)
    monkeypatch.undo()
    composite = Category.objects.get(slug="composite")
    updated, updated_composite = _list_rows(constructed), _list_rows(composite)
    assert_ranks_follow_the_list(constructed)
    assert_ranks_follow_the_list(composite)
    current_ratings_rebuild(category=constructed)
    current_ratings_rebuild(category=composite)

    assert updated == _list_rows(constructed)
    assert _rounded(updated_composite) == _rounded(_list_rows(composite))


@pytest.mark.parametrize("days_before_the_month", [0, 12], ids=["this month", "reaching into last month"])
def test_a_vekn_recompute_from_a_date_updates_the_list_as_a_rebuild_would(
    db, tmp_path, monkeypatch, days_before_the_month
):
    today = datetime.date.today()
    demo_bundle_write(tmp_path, players=200, events=60, seed=8, start=today - datetime.timedelta(days=400), end=today)
    results_import(source=tmp_path)
    since = today.replace(day=1) - datetime.timedelta(days=days_before_the_month)
    # A national championship on that date whose results are withdrawn later: its winner loses those points.
    withdrawn = Standing.objects.filter(event__format="vtes").order_by("pk").first().participant_id
    early = Event.objects.create(
        name="Withdrawn", date=since, format="vtes", k=16, player_count=40, level="national",
        status=EventStatus.SUBMITTED,
    )  # fmt: skip
    Standing.objects.create(event=early, participant_id=withdrawn, rank=1, vp=4, gw=2, final="winner")
    call_command("recompute_ratings", stdout=None)
    vtes = Category.objects.get(slug="vtes")
    listed = CurrentRating.objects.filter(category=vtes, ranked=True).exclude(participant_id=withdrawn)
    listed = listed.order_by("world_rank")
    best, middle = listed.first(), listed[listed.count() // 2]
    newcomer = Player.objects.exclude(participant__in=CurrentRating.objects.filter(category=vtes).values("participant"))
    newcomer = newcomer.first().participant
    # A national championship reported late on that date: the middle of the list wins it, the best comes last,
    # and a player never listed before earns their first points.
    late = Event.objects.create(
        name="Late national", date=since, format="vtes", k=16, player_count=3, level="national",
        status=EventStatus.SUBMITTED,
    )  # fmt: skip
    for rank, (participant, vp, final) in enumerate(
        [(middle.participant_id, 5, "winner"), (newcomer.pk, 3, "finalist"), (best.participant_id, 0, "")], start=1
    ):
        Standing.objects.create(event=late, participant_id=participant, rank=rank, vp=vp, gw=1, final=final)
    before = CurrentRating.objects.get(category=vtes, participant_id=withdrawn).rating
    early.delete()

    def no_rebuild(**kwargs):
        raise AssertionError("a recompute from a date of a list built today must update it, not rebuild it")

    monkeypatch.setattr(recompute, "current_ratings_rebuild", no_rebuild)
    category_recompute(category=vtes, since=since)
    monkeypatch.undo()
    updated = _list_rows(vtes)
    assert_ranks_follow_the_list(vtes)
    assert newcomer.pk in {row[0] for row in updated}
    assert CurrentRating.objects.get(category=vtes, participant_id=withdrawn).rating < before
    current_ratings_rebuild(category=vtes)

    assert updated == _list_rows(vtes)


def test_a_removed_events_vekn_scores_are_read_in_the_models_order_until_the_recompute_replaces_them(
    demo_constructed,
):
    vtes = Category.objects.get(slug="vtes")
    scores = EventScore.objects.filter(category=vtes)
    kept = scores.count()
    Event.objects.filter(pk=scores.first().event_id).delete()

    assert len(list(scores.all())) == kept  # in the model's order, which joins no event


def assert_ranks_follow_the_list(category):
    """The rank rows pages read by are the list's ranked rows, place for place and rank for rank."""
    fields = ["participant_id", "continent", "country", "region", "world_rank", "continent_rank", "country_rank",
              "region_rank"]  # fmt: skip
    listed = CurrentRating.objects.filter(category=category, ranked=True).values_list(*fields)
    assert sorted(CurrentRank.objects.filter(category=category).values_list(*fields)) == sorted(listed)
    assert listed.exists()


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
    assert_ranks_follow_the_list(constructed)
    assert_ranks_follow_the_list(composite)

    current_ratings_rebuild(category=constructed)
    CurrentRating.objects.filter(category=composite).delete()
    from ratings.selectors.lists import ranking_rows

    composite_from_history = sorted((row.participant, round(row.rating, 9)) for row in ranking_rows(category=composite))

    assert from_memory == _list_rows(constructed)
    assert any(row[9] is not None for row in from_memory), "last month's standing was filled in"
    assert sorted((row[0], round(row[1], 9)) for row in composite_from_lists) == composite_from_history


def test_a_player_who_moved_country_is_listed_in_the_new_one_after_a_recompute_from_a_date(db, tmp_path):
    today = datetime.date.today()
    demo_bundle_write(tmp_path, players=200, events=60, seed=8, start=today - datetime.timedelta(days=400), end=today)
    results_import(source=tmp_path)
    since = today - datetime.timedelta(days=60)
    call_command("recompute_ratings", stdout=None)
    constructed = Category.objects.get(slug="constructed")
    # The best of a country, with no region: moved to an empty country of the same continent, every rank
    # stays the same (first in the country, none in a region), and only the place changes.
    bests = CurrentRating.objects.filter(category=constructed, ranked=True, country_rank=1)
    mover = bests.filter(last_played__gte=since).first()
    if mover is None:  # none played lately in the generated world: one wins a late match
        mover = bests.first()
        loser = CurrentRating.objects.filter(category=constructed, ranked=True).exclude(country=mover.country).last()
        late = Event.objects.create(
            name="Late open", date=since, format="standard", k=32, player_count=2, status=EventStatus.SUBMITTED
        )
        Match.objects.create(
            event=late, round=1, participant1_id=mover.participant_id, participant2_id=loser.participant_id,
            games1=2, games2=0,
        )  # fmt: skip
    Player.objects.filter(participant_id=mover.participant_id).update(region="")
    call_command("recompute_ratings", stdout=None)
    listed = set(CurrentRating.objects.filter(category=constructed).values_list("country", flat=True))
    empty = next(code for code in geography.countries_in(mover.continent) if code not in listed)
    Player.objects.filter(participant_id=mover.participant_id).update(country=empty)

    category_recompute(category=constructed, since=since)

    page = ranking_page_rows(category=constructed, filters=RankingFilters(country=empty))
    assert [(row.participant_id, row.rank) for row in page[0:50]] == [(mover.participant_id, 1)]
    assert_ranks_follow_the_list(constructed)
    # Those the mover left behind each move up a place in their country, keeping their world ranks.
    updated = _list_rows(constructed)
    current_ratings_rebuild(category=constructed)
    assert updated == _list_rows(constructed)


def test_a_recompute_from_a_date_ranks_ties_together_and_unranks_who_falls_below_the_threshold(db):
    today = timezone.localdate()
    constructed = Category.objects.get(slug="constructed")
    Category.objects.filter(pk=constructed.pk).update(ranked_after=2)
    a, b, c, d = (
        Player.objects.create(
            participant=Participant.objects.create(kind=Participant.Kind.PLAYER),
            membership_number=number,
            name=f"Player {number}",
            country="DE",
        ).participant_id
        for number in ("A1", "B2", "C3", "D4")
    )

    def event(days_ago):
        return Event.objects.create(
            name=f"Open {days_ago}", date=today - datetime.timedelta(days=days_ago), format="standard", k=32,
            player_count=4, status=EventStatus.SUBMITTED,
        )  # fmt: skip

    def won(event, winner, loser):
        return Match.objects.create(
            event=event, round=1, participant1_id=winner, participant2_id=loser, games1=2, games2=0
        )

    first, second = event(10), event(5)
    won(first, a, b), won(first, c, d), won(second, a, d)
    category_recompute(category=constructed)
    # A and C won the same way against players rated the same: the same rating, one rank.
    late_result = won(second, c, b)

    category_recompute(category=constructed, since=second.date)

    ranks = dict(CurrentRating.objects.filter(category=constructed).values_list("participant_id", "world_rank"))
    page = ranking_page_rows(category=constructed, filters=RankingFilters(country="DE"))
    assert ranks == {a: 1, c: 1, b: 3, d: 3}
    assert sorted((row.participant_id, row.rank) for row in page[0:50]) == sorted(ranks.items())
    assert_ranks_follow_the_list(constructed)

    late_result.delete()
    category_recompute(category=constructed, since=second.date)

    ranked = CurrentRating.objects.filter(category=constructed, ranked=True)
    page = ranking_page_rows(category=constructed, filters=RankingFilters())
    assert dict(ranked.values_list("participant_id", "world_rank")) == {a: 1, d: 2}
    assert not CurrentRating.objects.filter(category=constructed, ranked=False, world_rank__isnull=False).exists()
    assert [(row.participant_id, row.rank) for row in page[0:50]] == [(a, 1), (d, 2)]
    assert_ranks_follow_the_list(constructed)


def test_a_player_who_moves_country_and_falls_below_the_threshold_leaves_every_ranked_page(db):
    today = timezone.localdate()
    constructed = Category.objects.get(slug="constructed")
    Category.objects.filter(pk=constructed.pk).update(ranked_after=2)
    a, b, c = (
        Player.objects.create(
            participant=Participant.objects.create(kind=Participant.Kind.PLAYER),
            membership_number=number, name=f"Player {number}", country="DE",
        ).participant_id
        for number in ("A1", "B2", "C3")
    )  # fmt: skip
    first, second = (
        Event.objects.create(
            name=f"Open {days_ago}", date=today - datetime.timedelta(days=days_ago), format="standard", k=32,
            player_count=3, status=EventStatus.SUBMITTED,
        )
        for days_ago in (10, 5)
    )  # fmt: skip
    Match.objects.create(event=first, round=1, participant1_id=a, participant2_id=b, games1=2, games2=0)
    Match.objects.create(event=first, round=2, participant1_id=a, participant2_id=c, games1=2, games2=0)
    late = Match.objects.create(event=second, round=1, participant1_id=b, participant2_id=c, games1=2, games2=0)
    category_recompute(category=constructed)
    assert CurrentRank.objects.filter(category=constructed, participant_id=b).exists()

    # B's second match is struck out and B moved abroad meanwhile: one match, no longer ranked, anywhere.
    late.delete()
    Player.objects.filter(participant_id=b).update(country="FR")
    category_recompute(category=constructed, since=second.date)

    for filters in (RankingFilters(), RankingFilters(country="DE"), RankingFilters(country="FR")):
        assert b not in [row.participant_id for row in ranking_page_rows(category=constructed, filters=filters)[0:50]]
    assert CurrentRating.objects.get(category=constructed, participant_id=b).country == "FR"
    assert_ranks_follow_the_list(constructed)
