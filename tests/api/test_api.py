"""The JSON API: every endpoint's shape and values against the ORM and the ranking selectors."""

import datetime
import io
import json
import re

import pytest
from django.core.management import call_command
from django.db import connection, transaction
from django.db.models import Count
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from devtools.demo import demo_bundle_write
from events.models import Event, EventStatus, Match
from organize.importer import results_import
from players.models import Player
from ratings.models import Category, CurrentRating, RatingEntry
from ratings.selectors.lists import ranking_list
from ratings.services import current_ratings_rebuild
from tests.bundles import Bundle, match
from tests.conftest import ensure_default_categories

PAST = datetime.date(2023, 6, 30)
WORLD_END = datetime.date(2024, 12, 10)


@pytest.fixture(scope="module")
def world(django_db_setup, django_db_blocker, tmp_path_factory):
    """A rated demo world, built once for the module and rolled back after it (each test runs in a savepoint)."""
    with django_db_blocker.unblock(), transaction.atomic():
        ensure_default_categories()
        folder = tmp_path_factory.mktemp("world")
        demo_bundle_write(folder, players=150, events=30, seed=7, end=WORLD_END)
        results_import(source=folder)
        call_command("recompute_ratings", stdout=io.StringIO())
        yield
        transaction.set_rollback(True)


@pytest.fixture
def rated(world, db):
    """The world, for one test."""


@pytest.fixture
def tied(db, tmp_path):
    """Four players at 1616, 1600, 1600 and 1584 in a category of their own, all ranked after one match.

    A category of its own, because the module's world may be there too.
    """
    bundle = Bundle(tmp_path)
    bundle.add_category("ties", formats="pauper", ranked_after=1)
    bundle.change_event("E1", format="pauper")
    bundle.rows["matches.csv"] = [
        match("E1", 1, "1001", "1002", 2, 0, 0),
        match("E1", 1, "1003", "1004", 1, 1, 1),
        match("E2", 1, "1001", "1006", 2, 0, 0),
        match("E3", 1, "T1", "T2", 2, 1, 0),
    ]
    results_import(source=bundle.write())
    for category in ("ties", "team-constructed"):
        call_command("recompute_ratings", category=category, stdout=io.StringIO())
    return Category.objects.get(slug="ties")


def get(client, url, status=200):
    response = client.get(url)
    assert response.status_code == status, response.content
    assert response["Content-Type"].startswith("application/json")
    return response.json()


def all_rows(client, url):
    """Every row of a list, page after page, following the `next` links."""
    rows = []
    while url:
        body = get(client, url)
        rows += body["results"]
        url = body["next"]
    return rows


def queries(client, url) -> int:
    with CaptureQueriesContext(connection) as captured:
        get(client, url)
    return len(captured)


def assert_error(body, status, error, *parameters):
    assert set(body) == {"status", "error", "message", "details"}
    assert (body["status"], body["error"]) == (status, error)
    assert body["message"]
    assert [detail["parameter"] for detail in body["details"]] == list(parameters)


# Categories -----------------------------------------------------------------


def test_categories_lists_every_category_in_menu_order(client, rated):
    body = get(client, "/api/categories/")

    assert body["count"] == Category.objects.count()
    assert [row["slug"] for row in body["results"]] == list(Category.objects.values_list("slug", flat=True))
    constructed = body["results"][0]
    assert constructed == {
        "slug": "constructed",
        "name": "Constructed",
        "ruleset": "dci-2001",
        "display_rounding": "truncate",
        "formats": ["standard", "block", "extended"],
        "components": [],
        "team_size": 1,
        "start_rating": 1600.0,
        "ranked_after": 10,
        "provisional_until": 0,
        "rankings_url": "http://testserver/api/rankings/constructed/",
    }


def test_lists_are_paginated_with_limit_and_offset(client, rated):
    body = get(client, "/api/categories/?limit=2&offset=2")

    slugs = list(Category.objects.values_list("slug", flat=True))
    assert (body["count"], body["limit"], body["offset"]) == (len(slugs), 2, 2)
    assert [row["slug"] for row in body["results"]] == slugs[2:4]
    assert body["previous"] == "http://testserver/api/categories/?limit=2&offset=0"
    assert body["next"] == "http://testserver/api/categories/?limit=2&offset=4"
    assert [row["slug"] for row in all_rows(client, "/api/categories/?limit=3")] == slugs


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


def test_a_list_built_before_today_is_rebuilt_when_read(client, rated):
    category = Category.objects.get(slug="constructed")
    current_ratings_rebuild(category=category, today=datetime.date(2024, 11, 1))

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


# Players --------------------------------------------------------------------


def test_players_are_found_by_name_or_membership_number(client, rated):
    player = Player.objects.order_by("membership_number").first()
    surname = player.name.split()[-1]

    by_name = get(client, f"/api/players/?q={surname.upper()}&limit=500")
    by_number = get(client, f"/api/players/?q={player.membership_number}")

    assert by_name["count"] == Player.objects.filter(name__icontains=surname).count()
    assert all(surname.lower() in row["name"].lower() for row in by_name["results"])
    assert by_number["results"][0] == {
        "membership_number": player.membership_number,
        "name": player.name,
        "country": player.country.code,
        "continent": player.continent,
        "region": player.region,
        "url": f"http://testserver/api/players/{player.membership_number}/",
    }


def test_every_player_is_listed_by_name(client, rated):
    rows = all_rows(client, "/api/players/?limit=40")

    assert [row["membership_number"] for row in rows] == list(
        Player.objects.order_by("name", "membership_number").values_list("membership_number", flat=True)
    )


def test_a_player_has_todays_rating_in_each_category(client, rated):
    row = CurrentRating.objects.filter(category__slug="constructed", ranked=True).order_by("-rating").first()
    player = Player.objects.get(participant_id=row.participant_id)

    body = get(client, f"/api/players/{player.membership_number}/")

    expected = CurrentRating.objects.filter(participant_id=player.participant_id, category__team_size=1)
    assert body["membership_number"] == player.membership_number
    assert [rating["category"]["slug"] for rating in body["ratings"]] == [
        category.slug for category in Category.objects.filter(pk__in=expected.values("category"))
    ]
    constructed = body["ratings"][0]
    assert constructed == {
        "category": {
            "slug": "constructed",
            "name": "Constructed",
            "ruleset": "dci-2001",
            "display_rounding": "truncate",
        },
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
        "history_url": f"http://testserver/api/players/{player.membership_number}/history/?category=constructed",
    }


def test_an_unknown_player_is_a_404(client, rated):
    assert_error(get(client, "/api/players/nobody-here/", status=404), 404, "not_found")
    assert_error(get(client, "/api/players/nobody-here/history/?category=constructed", status=404), 404, "not_found")


def test_a_history_lists_the_rated_matches_newest_first(client, rated):
    row = CurrentRating.objects.filter(category__slug="constructed", ranked=True).order_by("-matches").first()
    player = Player.objects.get(participant_id=row.participant_id)
    url = f"/api/players/{player.membership_number}/history/?category=constructed"

    body = get(client, f"{url}&limit=5")

    entries = RatingEntry.objects.filter(category__slug="constructed", participant_id=row.participant_id)
    newest = entries.order_by("-seq").first()
    opponent = Player.objects.get(participant_id=newest.opponent_id)
    assert body["count"] == entries.count() == row.matches
    assert body["player"]["membership_number"] == player.membership_number
    assert body["results"][0] == {
        "date": newest.event_date.isoformat(),
        "event": {
            "id": newest.event_id,
            "name": newest.event.name,
            "url": f"http://testserver/api/events/{newest.event_id}/",
        },
        "round": newest.round,
        "opponent": {
            "kind": "player",
            "id": opponent.membership_number,
            "name": opponent.name,
            "url": f"http://testserver/api/players/{opponent.membership_number}/",
        },
        "opponent_rating": newest.opponent_rating,
        "result": {1.0: "win", 0.5: "draw", 0.0: "loss"}[newest.score],
        "score": newest.score,
        "expected": newest.expected,
        "k": newest.k,
        "k_reason": newest.k_reason,
        "change": newest.rating_after - newest.rating_before,
        "rating_before": newest.rating_before,
        "rating_after": newest.rating_after,
        "provisional": False,
    }
    whole = all_rows(client, f"{url}&limit=9")
    assert [entry["rating_after"] for entry in whole] == list(
        entries.order_by("-seq").values_list("rating_after", flat=True)
    )
    assert whole[0]["rating_after"] == row.rating


@pytest.mark.parametrize(
    ("query", "status", "error", "parameter"),
    [
        ("", 400, "bad_request", "category"),
        ("?category=vtes", 400, "bad_request", "category"),
        ("?category=composite", 400, "bad_request", "category"),
        ("?category=chess", 404, "not_found", None),
    ],
)
def test_a_history_needs_a_category_rated_match_by_match(client, rated, query, status, error, parameter):
    number = Player.objects.values_list("membership_number", flat=True).first()

    body = get(client, f"/api/players/{number}/history/{query}", status=status)

    assert_error(body, status, error, *([parameter] if parameter else []))


# Events ---------------------------------------------------------------------


def test_events_are_listed_newest_first_without_drafts(client, rated):
    draft = Event.objects.create(name="Unfinished", date=WORLD_END, format="standard", player_count=8)

    rows = all_rows(client, "/api/events/?limit=8")

    published = Event.objects.exclude(status=EventStatus.DRAFT).order_by("-date", "-id")
    assert [row["id"] for row in rows] == list(published.values_list("id", flat=True))
    assert draft.pk not in {row["id"] for row in rows}
    event = published.first()
    assert rows[0] == {
        "id": event.pk,
        "code": event.code,
        "name": event.name,
        "date": event.date.isoformat(),
        "format": event.format,
        "team_size": event.team_size,
        "k": event.k,
        "player_count": event.player_count,
        "level2_judge": event.level2_judge,
        "structure": event.structure,
        "country": event.country.code or "",
        "city": event.city,
        "level": event.level,
        "status": event.status,
        "matches": event.matches.count(),
        "url": f"http://testserver/api/events/{event.pk}/",
    }
    assert_error(get(client, f"/api/events/{draft.pk}/", status=404), 404, "not_found")


def test_events_are_filtered_by_name_and_format(client, rated):
    event = Event.objects.exclude(status=EventStatus.DRAFT).first()
    word = event.name.split()[-1]

    by_name = get(client, f"/api/events/?q={word}&limit=500")["results"]
    by_format = get(client, f"/api/events/?format={event.format}&limit=500")["results"]

    assert event.pk in {row["id"] for row in by_name}
    assert all(word.lower() in row["name"].lower() for row in by_name)
    assert {row["format"] for row in by_format} == {event.format}
    assert len(by_format) == Event.objects.filter(format=event.format).exclude(status=EventStatus.DRAFT).count()


def test_an_event_has_its_standings_and_its_matches_by_round(client, rated):
    event = Event.objects.filter(matches__participant2__isnull=True, format="standard").distinct().first()

    body = get(client, f"/api/events/{event.pk}/")

    matches = Match.objects.filter(event=event).order_by("round", "id")
    assert body["id"] == event.pk and body["matches"] == matches.count()
    assert [group["round"] for group in body["rounds"]] == sorted(set(matches.values_list("round", flat=True)))
    assert [row["id"] for group in body["rounds"] for row in group["matches"]] == list(
        matches.values_list("id", flat=True)
    )
    bye = next(row for group in body["rounds"] for row in group["matches"] if row["participant2"] is None)
    assert bye["result"] == "bye"
    played = (
        Match.objects.filter(event=event, participant2__isnull=False).select_related("participant1__player").first()
    )
    shown = next(row for group in body["rounds"] for row in group["matches"] if row["id"] == played.pk)
    assert shown["participant1"]["id"] == played.participant1.player.membership_number
    assert (shown["games1"], shown["games2"], shown["draws"]) == (played.games1, played.games2, played.draws)
    assert shown["result"] == played.result.value


def test_a_vtes_event_has_standings(client, rated):
    event = Event.objects.filter(format="vtes").first()

    body = get(client, f"/api/events/{event.pk}/")

    expected = event.standings.order_by("rank", "id").select_related("participant__player")
    assert [
        (row["rank"], row["participant"]["id"], row["vp"], row["gw"], row["final"]) for row in body["standings"]
    ] == [(row.rank, row.participant.player.membership_number, float(row.vp), row.gw, row.final) for row in expected]


def test_unknown_events_and_urls_are_json_404s(client, rated):
    for url in ("/api/events/999999/", "/api/events/not-a-number/", "/api/nothing/here/"):
        assert_error(get(client, url, status=404), 404, "not_found")


# Query counts ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("small", "large"),
    [
        ("/api/categories/?limit=1", "/api/categories/?limit=500"),
        ("/api/rankings/constructed/?limit=2", "/api/rankings/constructed/?limit=500"),
        ("/api/rankings/constructed/?limit=2&list=unranked", "/api/rankings/constructed/?limit=500&country=US"),
        (f"/api/rankings/constructed/?limit=2&as_of={PAST}", f"/api/rankings/constructed/?limit=500&as_of={PAST}"),
        ("/api/rankings/composite/?limit=2", "/api/rankings/composite/?limit=500"),
        ("/api/players/?limit=1", "/api/players/?limit=500"),
        ("/api/events/?limit=1", "/api/events/?limit=500"),
    ],
)
def test_a_longer_page_takes_no_more_queries(client, rated, small, large):
    get(client, large)  # today's lists are fresh before counting

    assert queries(client, large) == queries(client, small)


def test_a_bigger_event_or_history_takes_no_more_queries(client, rated):
    events = Event.objects.exclude(status=EventStatus.DRAFT).annotate(size=Count("matches")).order_by("size")
    smallest, largest = events.first(), events.last()
    busy = CurrentRating.objects.filter(category__slug="constructed").order_by("matches")
    quiet_player = Player.objects.get(participant_id=busy.first().participant_id)
    busy_player = Player.objects.get(participant_id=busy.last().participant_id)

    assert queries(client, f"/api/events/{largest.pk}/") == queries(client, f"/api/events/{smallest.pk}/")
    assert queries(client, f"/api/players/{busy_player.membership_number}/") == queries(
        client, f"/api/players/{quiet_player.membership_number}/"
    )
    history = "/api/players/{}/history/?category=constructed&limit=500"
    assert queries(client, history.format(busy_player.membership_number)) == queries(
        client, history.format(quiet_player.membership_number)
    )


# The documents --------------------------------------------------------------

EXTERNAL_ASSET = re.compile(r"""(src|href)=["']?(https?:)?//""")  # a script, style or font from elsewhere

ENDPOINTS = [
    "/api/categories/",
    "/api/rankings/{slug}/",
    "/api/players/",
    "/api/players/{membership_number}/",
    "/api/players/{membership_number}/history/",
    "/api/events/",
    "/api/events/{event_id}/",
]


def test_the_openapi_document_lists_every_endpoint(client, db):
    response = client.get("/api/openapi.json")

    document = json.loads(response.content)
    assert document["openapi"].startswith("3.")
    assert sorted(document["paths"]) == sorted(ENDPOINTS)
    schemas = document["components"]["schemas"]
    for path, operations in document["paths"].items():
        assert set(operations) == {"get"}, path
        responses = operations["get"]["responses"]
        assert "200" in responses and set(responses) - {"200"} <= {"400", "404", "429"}
    references = response.content.decode().split('"$ref": "')[1:]
    assert references
    assert all(reference.split('"')[0].removeprefix("#/components/schemas/") in schemas for reference in references)


def test_the_docs_page_documents_every_endpoint_without_a_cdn(client, db):
    html = client.get("/api/docs/").content.decode()

    assert all(f"<code>{path}</code>" in html for path in ENDPOINTS)
    assert 'id="schema-RankingRow"' in html
    assert not EXTERNAL_ASSET.search(html)


def test_swagger_ui_comes_from_the_sites_own_static_files(client, db):
    html = client.get("/api/docs/swagger/").content.decode()

    assert 'src="/static/ninja/swagger-ui-bundle.js"' in html
    assert not EXTERNAL_ASSET.search(html)


def test_the_api_root_links_to_the_lists(client, db):
    body = get(client, "/api/")

    assert body["links"]["categories"] == "http://testserver/api/categories/"
    assert body["links"]["openapi-json"] == "http://testserver/api/openapi.json"
