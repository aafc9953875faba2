"""The API's players: search, a player's ratings in every category, and match histories."""

import pytest

from players.models import Player
from ratings.models import Category, CurrentRating, RatingEntry
from tests.api.helpers import all_rows, assert_error, get, queries

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


@pytest.mark.parametrize(
    ("small", "large"),
    [
        ("/api/players/?limit=1", "/api/players/?limit=500"),
    ],
)
def test_a_longer_page_takes_no_more_queries(client, rated, small, large):
    get(client, large)  # today's lists are fresh before counting

    assert queries(client, large) == queries(client, small)


def test_a_bigger_history_takes_no_more_queries(client, rated):
    busy = CurrentRating.objects.filter(category__slug="constructed").order_by("matches")
    quiet_player = Player.objects.get(participant_id=busy.first().participant_id)
    busy_player = Player.objects.get(participant_id=busy.last().participant_id)

    assert queries(client, f"/api/players/{busy_player.membership_number}/") == queries(
        client, f"/api/players/{quiet_player.membership_number}/"
    )
    history = "/api/players/{}/history/?category=constructed&limit=500"
    assert queries(client, history.format(busy_player.membership_number)) == queries(
        client, history.format(quiet_player.membership_number)
    )
