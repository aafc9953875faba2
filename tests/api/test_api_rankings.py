"""The API's ranking lists: the same rows, ranks, searches, pages and refusals as the ranking pages."""

import datetime

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from api.schemas import MAX_OFFSET, RankingRow
from api.serializers import RANKING_ROW
from events.models import Event
from ratings.models import Category, CurrentRating
from ratings.selectors.lists import ranking_list
from ratings.services.lists import current_lists_refresh_stale, current_ratings_rebuild
from tests.api.helpers import PAST, WORLD_END, all_rows, assert_error, get, queries

# Rankings -------------------------------------------------------------------


def test_todays_ranking_is_the_current_list(client, rated):
    body = get(client, "/api/rankings/constructed/?limit=500")

    expected = CurrentRating.objects.filter(category__slug="constructed", ranked=True).order_by(
        "-rating", "name", "display_id"
    )
    assert (body["as_of"], body["level"], body["list"]) == (timezone.localdate().isoformat(), "world", "ranked")
    assert body["count"] == expected.count() > 10
    assert [(row["id"], row["rank"], row["rating"]) for row in body["results"]] == [
        (row.display_id, row.world_rank, row.rating) for row in expected
    ]
    first, row = body["results"][0], expected[0]
    assert first == {
        "rank": 1,
        "id": row.display_id,
        "name": row.name,
        "country": row.country,
        "continent": row.continent,
        "region": row.region,
        "rating": row.rating,
        "rating_display": int(row.rating),
        "matches": row.matches,
        "ranked": True,
        "provisional": False,
        "last_played": row.last_played.isoformat(),
        "ranks": {
            "world": row.world_rank,
            "continent": row.continent_rank,
            "country": row.country_rank,
            "region": row.region_rank,
        },
        "player_url": f"http://testserver/api/players/{row.display_id}/",
    }


@pytest.mark.parametrize("level", ["continent", "country", "region"])
def test_a_place_filter_ranks_at_that_level_like_the_ranking_page(client, rated, level):
    sample = CurrentRating.objects.filter(category__slug="constructed", ranked=True).exclude(region="").first()
    place = getattr(sample, level)

    body = get(client, f"/api/rankings/constructed/?{level}={place}&limit=500")

    category = Category.objects.get(slug="constructed")
    expected = [row for row in ranking_list(category=category, **{level: place}) if row.ranked]
    assert body["level"] == level
    assert [(row["id"], row["rank"]) for row in body["results"]] == [(row.player_id, row.rank) for row in expected]
    assert all(row[level] == place for row in body["results"])


def test_a_past_ranking_comes_from_the_history(client, rated):
    category = Category.objects.get(slug="constructed")
    country = CurrentRating.objects.filter(category=category, ranked=True).values_list("country", flat=True)[0]

    body = get(client, f"/api/rankings/constructed/?as_of={PAST}&country={country.lower()}&limit=500")

    expected = [row for row in ranking_list(category=category, as_of=PAST, country=country) if row.ranked]
    assert (body["as_of"], body["level"], body["country"]) == (PAST.isoformat(), "country", country)
    assert body["count"] == len(expected) > 0
    assert [(row["id"], row["rank"], row["rating"], row["matches"], row["last_played"]) for row in body["results"]] == [
        (row.player_id, row.rank, row.rating, row.matches, row.last_played.isoformat()) for row in expected
    ]
    assert all(row["last_played"] <= PAST.isoformat() for row in body["results"])


def test_the_unranked_list_has_no_ranks(client, rated):
    body = get(client, "/api/rankings/constructed/?list=unranked&limit=500")

    expected = CurrentRating.objects.filter(category__slug="constructed", ranked=False)
    assert body["list"] == "unranked"
    assert body["count"] == expected.count() > 0
    assert {row["id"] for row in body["results"]} == set(expected.values_list("display_id", flat=True))
    assert all(row["rank"] is None and not row["ranked"] for row in body["results"])


def test_a_search_narrows_the_list_without_renumbering_it(client, rated):
    everyone = {row["id"]: row for row in all_rows(client, "/api/rankings/constructed/?limit=500")}
    name = next(iter(everyone.values()))["name"]
    part = name.split()[-1][:4].lower()

    for url in (f"/api/rankings/constructed/?q={part}", f"/api/rankings/constructed/?q={part}&as_of={WORLD_END}"):
        found = get(client, url)["results"]
        assert found and all(part in row["name"].lower() for row in found)
        assert all(row["rank"] == everyone[row["id"]]["rank"] for row in found if row["id"] in everyone)

    number = next(iter(everyone))
    assert [row["id"] for row in get(client, f"/api/rankings/constructed/?q={number}")["results"]] == [number]


def test_pages_of_a_ranking_add_up_to_the_whole_list(client, rated):
    for as_of in ("", str(PAST)):
        whole = get(client, f"/api/rankings/constructed/?limit=500&as_of={as_of}")["results"]
        assert all_rows(client, f"/api/rankings/constructed/?limit=7&as_of={as_of}") == whole


def test_equal_ratings_share_a_rank_and_the_next_rank_skips(client, tied):
    for url in ("/api/rankings/ties/", f"/api/rankings/ties/?as_of={timezone.localdate()}"):
        rows = get(client, url)["results"]
        assert [(row["id"], row["rank"], row["rating"]) for row in rows] == [
            ("1001", 1, 1616.0),
            ("1003", 2, 1600.0),
            ("1004", 2, 1600.0),
            ("1002", 4, 1584.0),
        ]


def test_the_past_list_ranks_ties_like_today(client, tied):
    on_the_day = get(client, f"/api/rankings/ties/?as_of={datetime.date(2003, 5, 1)}")["results"]

    assert [row["rank"] for row in on_the_day] == [1, 2, 2, 4]
    assert get(client, f"/api/rankings/ties/?as_of={datetime.date(2003, 4, 30)}")["count"] == 0


def test_a_team_is_named_by_its_members(client, tied):
    rows = get(client, "/api/rankings/team-constructed/?list=unranked")["results"]

    assert {"1001+1002+1003", "1004+1005+1006"} <= {row["id"] for row in rows}
    assert all(row["player_url"] is None for row in rows)


def test_v_ekn_points_are_displayed_rounded(client, rated):
    last_event = Event.objects.filter(format="vtes").latest("date")

    body = get(client, f"/api/rankings/vtes/?as_of={last_event.date}&limit=500")

    assert body["category"]["display_rounding"] == "round"
    assert body["results"]
    assert all(row["rating_display"] == int(row["rating"] + 0.5) for row in body["results"])


@pytest.mark.parametrize(
    ("query", "parameter"),
    [
        ("continent=XX", "continent"),
        ("country=ZZ", "country"),
        ("region=DE-XX", "region"),
        ("as_of=2024-02-30", "as_of"),
        ("as_of=2999-01-01", "as_of"),
        ("list=everyone", "list"),
        ("limit=0", "limit"),
        ("limit=501", "limit"),
        ("offset=-1", "offset"),
    ],
)
def test_bad_ranking_parameters_are_a_400_naming_the_parameter(client, rated, query, parameter):
    body = get(client, f"/api/rankings/constructed/?{query}", status=400)

    assert_error(body, 400, "bad_request", parameter)


def test_a_list_built_before_today_is_read_as_built_until_the_workers_rebuild_it(client, rated):
    category = Category.objects.get(slug="constructed")
    current_ratings_rebuild(category=category, today=datetime.date(2024, 11, 1))

    get(client, "/api/rankings/constructed/")  # a GET writes nothing
    assert set(CurrentRating.objects.filter(category=category).values_list("built_on", flat=True)) == {
        datetime.date(2024, 11, 1)
    }
    current_lists_refresh_stale()  # what the job workers do just after midnight
    body = get(client, "/api/rankings/constructed/")

    assert body["as_of"] == timezone.localdate().isoformat()
    assert set(CurrentRating.objects.filter(category=category).values_list("built_on", flat=True)) == {
        timezone.localdate()
    }


def test_an_empty_as_of_means_today(client, rated):
    assert get(client, "/api/rankings/constructed/?as_of=")["as_of"] == timezone.localdate().isoformat()


def test_an_unknown_category_is_a_404(client, rated):
    body = get(client, "/api/rankings/chess/", status=404)

    assert_error(body, 404, "not_found")
    assert "chess" in body["message"]


# As the ranking pages ------------------------------------------------------------
# Each of these failed before the API read the lists through the pages' read path (ratings.selectors.rankings).


def test_a_team_is_found_by_any_members_number_as_on_the_page(client, tied):
    yesterday = timezone.localdate() - datetime.timedelta(days=1)
    for as_of in ("", yesterday.isoformat()):
        query = f"list=unranked&q=1002&as_of={as_of}"

        rows = get(client, f"/api/rankings/team-constructed/?{query}")["results"]
        page = client.get(f"/rankings/team-constructed/?{query}").content.decode()

        assert [row["id"] for row in rows] == ["1001+1002+1003"]  # 1002 is the second member
        assert "1001 · 1002 · 1003" in page


@pytest.mark.parametrize(
    ("query", "parameter", "message"),
    [
        ("continent=EU&country=US", "country", "United States of America is not in Europe."),
        ("continent=eu&region=us-ca", "country", "United States of America is not in Europe."),
        ("country=FR&region=DE-BY", "region", "DE-BY is not a region of France."),
        ("country=ZZ", "country", "“ZZ” is not a country code (ISO 3166-1 alpha-2, such as DE or US)."),
    ],
)
def test_places_that_do_not_meet_are_a_400_in_the_pages_words(client, rated, query, parameter, message):
    body = get(client, f"/api/rankings/constructed/?{query}", status=400)
    page = client.get(f"/rankings/constructed/?{query}")

    assert_error(body, 400, "bad_request", parameter)
    assert body["message"] == body["details"][0]["message"] == message
    assert page.status_code == 400
    assert message in page.content.decode()


@pytest.mark.parametrize("as_of", ["", str(PAST)])
def test_a_deep_page_is_read_by_rank_or_position_not_by_skipping_rows(client, rated, as_of):
    whole = get(client, f"/api/rankings/constructed/?limit=500&as_of={as_of}")
    offset = whole["count"] - 3

    with CaptureQueriesContext(connection) as captured:
        body = get(client, f"/api/rankings/constructed/?limit=5&offset={offset}&as_of={as_of}")

    assert body["results"] == whole["results"][offset:]
    assert (body["count"], body["offset"], body["next"]) == (whole["count"], offset, None)
    assert not [query["sql"] for query in captured if f"OFFSET {offset}" in query["sql"]]


def test_offsets_stay_bounded_and_past_the_end_is_an_empty_page(client, rated):
    body = get(client, f"/api/rankings/constructed/?offset={MAX_OFFSET}")
    too_far = get(client, f"/api/rankings/constructed/?offset={MAX_OFFSET + 1}", status=400)

    assert body["results"] == [] and body["count"] > 0 and body["next"] is None
    assert_error(too_far, 400, "bad_request", "offset")


def test_a_ranking_rows_fields_are_the_listed_rows_fields(client, rated):
    computed = {"rating_display", "ranks", "player_url"}  # from the row and the category

    assert list(RANKING_ROW) == [name for name in RankingRow.model_fields if name not in computed]
    assert set(get(client, "/api/rankings/constructed/")["results"][0]) == set(RankingRow.model_fields)


# Query counts ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("small", "large"),
    [
        ("/api/rankings/constructed/?limit=2", "/api/rankings/constructed/?limit=500"),
        ("/api/rankings/constructed/?limit=2&list=unranked", "/api/rankings/constructed/?limit=500&country=US"),
        (f"/api/rankings/constructed/?limit=2&as_of={PAST}", f"/api/rankings/constructed/?limit=500&as_of={PAST}"),
        ("/api/rankings/composite/?limit=2", "/api/rankings/composite/?limit=500"),
    ],
)
def test_a_longer_page_takes_no_more_queries(client, rated, small, large):
    get(client, large)  # today's lists are fresh before counting

    assert queries(client, large) == queries(client, small)
