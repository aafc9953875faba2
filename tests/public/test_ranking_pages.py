"""Any page of a ranking list (SPEC 4): the rows and ranks of page N, today and on past dates, at every level.

The world is built for ties: pairs of players meet every month with the same
result, so many share a rating (and a rank), and groups of equal ranks run
across the boundaries of small pages.
"""

import io
import math
import re
from datetime import date, timedelta

import pytest
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from ratings.models import Category, RankingSnapshot, SnapshotRating
from ratings.selectors import rankings
from ratings.selectors.lists import ranking_list, ranking_rows
from ratings.selectors.rankings import PAST_SORTED_WHOLE_UP_TO, SORTED_WHOLE_UP_TO
from ratings.snapshots import SNAPSHOTS_KEPT, end_of_previous_month, ranking_snapshots
from tests.bundles import Bundle
from tests.worlds import bundle_rated

TODAY = timezone.localdate()
PER_PAGE = 4
MONTHS = 6


def months_ago(months: int) -> date:
    """The first day of the month `months` before this one."""
    day = TODAY.replace(day=1)
    for _ in range(months):
        day = (day - timedelta(days=1)).replace(day=1)
    return day


# The first day of each month of play, oldest first; the last is last month.
FIRST_DAYS = [months_ago(months) for months in range(MONTHS, 0, -1)]

LEVELS = {
    "world": {},
    "continent": {"continent": "EU"},
    "country": {"country": "DE"},
    "region": {"country": "DE", "region": "DE-BY"},
}


def tied_world(tmp_path) -> Bundle:
    """Sixty players in thirty pairs; the first twenty-one pairs meet on the 10th of every month, the rest only in
    the first month. An even pair's result is always the same (win, draw or loss, by pair), so equal ratings
    abound; an odd pair's changes every month, so the order changes too. Ranked after three matches: the last
    eighteen players stay unranked."""
    bundle = Bundle(tmp_path)
    bundle.rows = {file: [] for file in bundle.rows}
    bundle.absent = {"teams.csv", "standings.csv"}
    bundle.add_category("constructed", "Constructed", formats="standard", ranked_after="3")
    for number in range(60):
        country = ("DE", "FR", "US")[number % 3]
        region = {"DE": "DE-BY" if number % 2 else "DE-BE", "US": "US-CA"}.get(country, "")
        bundle.add_player(f"P{number:02d}", f"Player {number:02d}", country, region)
    for month, first_day in enumerate(FIRST_DAYS):
        event = f"E{month}"
        bundle.add_event(event, date=first_day.replace(day=10).isoformat(), format="standard", k="16")
        for pair in range(30 if month == 0 else 21):
            games = [(2, 0, 0), (1, 1, 1), (0, 2, 0)][(pair + month * (pair % 2)) % 3]
            bundle.add_match(event, 1, f"P{2 * pair:02d}", f"P{2 * pair + 1:02d}", *games)
    return bundle


@pytest.fixture
def tied_constructed(db, tmp_path) -> Category:
    """The tied world imported and rated: its Constructed category."""
    bundle_rated(tied_world(tmp_path))
    return Category.objects.get(slug="constructed")


def listed(response) -> list[tuple]:
    assert response.status_code == 200
    rows = response.context["table"].paginated_rows
    return [(row.record.display_id, row.record.rank, row.record.rating, row.record.matches) for row in rows]


def expected(category: Category, *, ranked: bool, as_of: date | None = None, **level) -> list[tuple]:
    """The list as `ranking_list` computes it from the history: (number, rank, rating, matches), best first."""
    rows = ranking_list(category=category, as_of=as_of, **level)
    return [(row.player_id, row.rank, row.rating, row.matches) for row in rows if row.ranked == ranked]


def query(**params) -> str:
    return "&".join(f"{key}={value}" for key, value in params.items() if value not in (None, ""))


def every_page(client, params: dict, rows: int) -> list[list[tuple[str, int | None]]]:
    pages = max(1, math.ceil(rows / PER_PAGE))
    return [
        listed(client.get(f"/rankings/constructed/?{query(**params, per_page=PER_PAGE, page=page)}"))
        for page in range(1, pages + 1)
    ]


def in_pages(rows: list) -> list[list]:
    return [rows[start : start + PER_PAGE] for start in range(0, len(rows), PER_PAGE)] or [[]]


def test_the_world_has_ties_across_page_boundaries(tied_constructed):
    ranks = [rank for _, rank, _, _ in expected(tied_constructed, ranked=True)]
    assert len(ranks) == 42
    shared = [index for index in range(1, len(ranks)) if ranks[index] == ranks[index - 1] and index % PER_PAGE == 0]
    assert shared, "no tie group crosses a page boundary"


# today ------------------------------------------------------------------------------------------------------


@pytest.fixture(params=["rows", "keys first"])
def deep_pages_read(request, monkeypatch) -> str:
    """Pages deep in a list read row by row, or by their keys first (rankings.KEYS_FIRST_AFTER): from the
    second page on here."""
    if request.param == "keys first":
        monkeypatch.setattr(rankings, "KEYS_FIRST_AFTER", 0)
    return request.param


@pytest.mark.parametrize("level", LEVELS, ids=str)
@pytest.mark.parametrize("ranked", [True, False], ids=["ranked", "unranked"])
def test_every_page_of_todays_list_holds_its_rows_of_the_computed_list(
    client, tied_constructed, level, ranked, deep_pages_read
):
    rows = expected(tied_constructed, ranked=ranked, **LEVELS[level])
    assert rows

    pages = every_page(client, {**LEVELS[level], "list": "" if ranked else "unranked"}, len(rows))

    assert pages == in_pages(rows)


@pytest.mark.parametrize("sort", ["name", "-name", "rank", "-rank", "rating", "-matches"])
def test_a_list_sorted_by_a_column_shows_every_row_once_in_that_order(client, tied_constructed, sort, deep_pages_read):
    everyone = expected(tied_constructed, ranked=True)
    field = sort.lstrip("-")
    shown = []
    for page in range(1, math.ceil(len(everyone) / PER_PAGE) + 1):
        response = client.get(f"/rankings/constructed/?sort={sort}&per_page={PER_PAGE}&page={page}")
        shown += [row.record for row in response.context["table"].paginated_rows]

    assert sorted((row.display_id, row.rank, row.rating, row.matches) for row in shown) == sorted(everyone)
    values = [getattr(row, field) for row in shown]
    assert values == sorted(values, reverse=sort.startswith("-"))


@pytest.mark.parametrize("sort", ["", "name", "-name", "-rank", "rating", "-matches"])
@pytest.mark.parametrize("sorted_whole_up_to", [0, SORTED_WHOLE_UP_TO], ids=["walked", "sorted whole"])
def test_a_search_finding_everyone_pages_through_the_list_as_the_list_does(
    client, tied_constructed, sort, sorted_whole_up_to, monkeypatch
):
    """A search's matches are read along the list's order, or, when they are few, found whole and sorted
    (rankings.SORTED_WHOLE_UP_TO): the same pages either way, ties across page boundaries included."""
    monkeypatch.setattr(rankings, "SORTED_WHOLE_UP_TO", sorted_whole_up_to)
    rows = len(expected(tied_constructed, ranked=True))

    searched = every_page(client, {"q": "player", "sort": sort}, rows)

    assert searched == every_page(client, {"sort": sort}, rows)
    assert len(searched) > 1 and all(searched)


@pytest.mark.parametrize("params", [{}, {"page": 2}, {"sort": "name", "page": 3}], ids=str)
def test_a_search_finding_a_few_tests_the_names_once_to_find_and_count_them(client, tied_constructed, params):
    """The search tests the list's folded names twice: whether anyone in the list is called that (one row found
    is enough), then to find and count everyone who is; stored folded, no name is folded to be tested. The page
    is read by participant."""
    with CaptureQueriesContext(connection) as queries:
        response = client.get(f"/rankings/constructed/?{query(q='player', per_page=PER_PAGE, **params)}")

    assert response.status_code == 200
    assert len(response.context["table"].paginated_rows) == PER_PAGE
    assert sum(bool(re.search(r'"name_folded"(::text)? LIKE', each["sql"])) for each in queries.captured_queries) == 2
    assert not any("fold_name" in each["sql"] for each in queries.captured_queries)


def test_a_page_past_the_end_shows_the_last_page(client, tied_constructed):
    rows = expected(tied_constructed, ranked=True)

    assert listed(client.get(f"/rankings/constructed/?per_page={PER_PAGE}&page=999")) == in_pages(rows)[-1]


# past dates --------------------------------------------------------------------------------------------------


def past_dates() -> list[date]:
    """A mid-month date, a later day of that month, an earlier month end, the days of and before an event,
    the last month of play, yesterday."""
    return [
        FIRST_DAYS[3].replace(day=15),
        FIRST_DAYS[3].replace(day=25),
        FIRST_DAYS[4].replace(day=10),
        FIRST_DAYS[2].replace(day=9),
        end_of_previous_month(FIRST_DAYS[2]),
        FIRST_DAYS[5].replace(day=12),
        TODAY - timedelta(days=1),
    ]


def test_every_page_of_past_lists_holds_its_rows_of_the_computed_list(client, tied_constructed):
    # Asked for in this order, the lists are written from the history, from today's list less what
    # came after, and from an earlier list of the same day plus the history between.
    for as_of in past_dates():
        for level, place in LEVELS.items():
            for ranked in (True, False):
                rows = expected(tied_constructed, ranked=ranked, as_of=as_of, **place)
                params = {**place, "as_of": as_of.isoformat(), "list": "" if ranked else "unranked"}

                pages = every_page(client, params, len(rows))

                assert pages == in_pages(rows), f"{as_of} {level} {'ranked' if ranked else 'unranked'}"


@pytest.mark.parametrize("sort", ["", "name", "-rank", "rating"])
@pytest.mark.parametrize("sorted_whole_up_to", [0, PAST_SORTED_WHOLE_UP_TO], ids=["paged by the database", "by keys"])
def test_a_past_lists_search_finding_everyone_pages_through_it_as_the_list_does(
    client, tied_constructed, sort, sorted_whole_up_to, monkeypatch
):
    """A past list's search counts and orders what it finds in one pass and reads each page by the keys, or, when
    it finds more than rankings.PAST_SORTED_WHOLE_UP_TO, pages in the database: the same pages either way."""
    monkeypatch.setattr(rankings, "PAST_SORTED_WHOLE_UP_TO", sorted_whole_up_to)
    as_of = FIRST_DAYS[4].replace(day=10)
    rows = len(expected(tied_constructed, ranked=True, as_of=as_of))
    params = {"as_of": as_of.isoformat(), "sort": sort}

    searched = every_page(client, {**params, "q": "player"}, rows)

    assert searched == every_page(client, params, rows)
    assert len(searched) > 1 and all(searched)


def test_past_lists_know_when_each_participant_last_played_up_to_their_date(tied_constructed):
    # Written in this order, the lists come from each of the three sources (see the test above).
    category = Category.objects.get(slug="constructed")
    for as_of in past_dates():
        snapshot = ranking_snapshots(category=category, dates=[as_of])[as_of]

        stored = dict(SnapshotRating.objects.filter(snapshot=snapshot).values_list("participant_id", "last_played"))

        computed = {row.participant: row.last_played for row in ranking_rows(category=category, as_of=as_of)}
        assert stored == computed, as_of
        assert all(day <= as_of for day in stored.values()), as_of


def test_a_past_date_before_every_written_list_is_computed_from_the_history(client, tied_constructed):
    later = FIRST_DAYS[4].replace(day=20)
    client.get(f"/rankings/constructed/?as_of={later}")
    earlier = FIRST_DAYS[1].replace(day=11)

    pages = every_page(client, {"as_of": earlier.isoformat()}, 42)

    assert [row for page in pages for row in page] == expected(tied_constructed, ranked=True, as_of=earlier)


@pytest.mark.parametrize("month", [2, 4])
def test_past_movement_is_the_change_of_rank_since_the_month_before(client, tied_constructed, month):
    # The list at the end of the month before is written first, from the history (month 2) or from
    # today's list less what came after (month 4): its ranks are the previous ranks.
    as_of = FIRST_DAYS[month].replace(day=20)
    for level, place in LEVELS.items():
        before = {
            row[0]: row[1]
            for row in expected(tied_constructed, ranked=True, as_of=end_of_previous_month(as_of), **place)
        }

        response = client.get(f"/rankings/constructed/?{query(**place, as_of=as_of.isoformat(), per_page=50)}")

        rows = response.context["table"].paginated_rows
        assert [(row.record.display_id, row.record.previous_rank) for row in rows] == [
            (number, before.get(number)) for number, *_ in expected(tied_constructed, ranked=True, as_of=as_of, **place)
        ], level


# queries -------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "params",
    [{}, {"country": "DE"}, {"list": "unranked"}, {"sort": "name"}, {"as_of": "past"}, {"as_of": "past", "q": "9"}],
    ids=str,
)
def test_the_last_page_costs_the_queries_of_the_first(client, tied_constructed, params):
    if params.get("as_of") == "past":
        params = {**params, "as_of": FIRST_DAYS[4].replace(day=20).isoformat()}
    client.get(f"/rankings/constructed/?{query(**params)}")  # lists and caches written once
    counts = []
    for page in (1, 2, 999):
        with CaptureQueriesContext(connection) as queries:
            response = client.get(f"/rankings/constructed/?{query(**params, per_page=2, page=page)}")
        assert response.status_code == 200
        counts.append(len(queries))
    assert counts[0] <= counts[1] == counts[2]  # the first page of a list in its own order may skip a lookup


# keeping past lists -------------------------------------------------------------------------------------------


def test_past_lists_of_an_older_history_are_deleted_when_a_new_one_is_written(client, tied_constructed):
    client.get(f"/rankings/constructed/?as_of={FIRST_DAYS[3].replace(day=15)}")
    old = set(RankingSnapshot.objects.values_list("pk", flat=True))
    call_command("recompute_ratings", category="constructed", stdout=io.StringIO())

    client.get(f"/rankings/constructed/?as_of={FIRST_DAYS[3].replace(day=15)}")

    assert old and not old & set(RankingSnapshot.objects.values_list("pk", flat=True))


def test_a_category_keeps_a_bounded_number_of_past_lists(client, tied_constructed):
    for days in range(0, 3 * SNAPSHOTS_KEPT, 3):
        client.get(f"/rankings/constructed/?as_of={FIRST_DAYS[2] + timedelta(days=days)}")

    assert RankingSnapshot.objects.filter(category=tied_constructed).count() <= SNAPSHOTS_KEPT
