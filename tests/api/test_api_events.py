"""The API's categories and events: lists, filters, pages, standings and matches by round."""

import pytest
from django.db.models import Count

from api.schemas import EventDetail
from events.models import Event, EventStatus, Match
from ratings.models import Category
from tests.api.helpers import WORLD_END, all_rows, assert_error, get, queries

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


@pytest.mark.parametrize("team_size", [1, 3], ids=["players", "teams"])
def test_every_side_of_every_match_is_named_with_its_page(client, rated, team_size):
    event = Event.objects.filter(team_size=team_size, matches__isnull=False).distinct().first()

    body = get(client, f"/api/events/{event.pk}/")

    shown = {row["id"]: row for group in body["rounds"] for row in group["matches"]}
    matches = Match.objects.filter(event=event).select_related(
        "participant1__player", "participant1__team", "participant2__player", "participant2__team"
    )
    assert len(shown) == len(matches) > 0
    for match in matches:
        for side, participant in (("participant1", match.participant1), ("participant2", match.participant2)):
            named = shown[match.pk][side]
            if participant is None:
                assert named is None
            elif team_size == 1:
                number = participant.player.membership_number
                url = f"http://testserver/api/players/{number}/"
                assert named == {"kind": "player", "id": number, "name": participant.player.name, "url": url}
            else:
                team = participant.team
                assert named == {
                    "kind": "team",
                    "id": team.member_key.replace(" ", "+"),
                    "name": str(team),
                    "url": None,
                }


def test_a_vtes_event_has_standings(client, rated):
    event = Event.objects.filter(format="vtes").first()

    body = get(client, f"/api/events/{event.pk}/")

    expected = event.standings.order_by("rank", "id").select_related("participant__player")
    assert [
        (row["rank"], row["participant"]["id"], row["vp"], row["gw"], row["final"]) for row in body["standings"]
    ] == [(row.rank, row.participant.player.membership_number, float(row.vp), row.gw, row.final) for row in expected]


@pytest.mark.parametrize("kind", ["standard", "booster-draft", "vtes", "team"])
def test_every_event_answer_is_what_its_documented_schema_writes(client, rated, kind):
    """The event's answer is written as built (not validated on the way out): it must be exactly what EventDetail
    makes of it, no field more, none missing, each of its type."""
    events = Event.objects.public()
    event = (events.filter(team_size=3) if kind == "team" else events.filter(format=kind, team_size=1)).first()
    response = client.get(f"/api/events/{event.pk}/")

    body = response.json()

    assert response.status_code == 200 and response["Content-Type"] == "application/json; charset=utf-8"
    assert body == EventDetail.model_validate(body).model_dump(mode="json")
    assert body["rounds"] or body["standings"]


def test_unknown_events_and_urls_are_json_404s(client, rated):
    for url in ("/api/events/999999/", "/api/events/not-a-number/", "/api/nothing/here/"):
        assert_error(get(client, url, status=404), 404, "not_found")


# Query counts ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("small", "large"),
    [
        ("/api/categories/?limit=1", "/api/categories/?limit=500"),
        ("/api/events/?limit=1", "/api/events/?limit=500"),
    ],
)
def test_a_longer_page_takes_no_more_queries(client, rated, small, large):
    get(client, large)  # today's lists are fresh before counting

    assert queries(client, large) == queries(client, small)


def test_a_bigger_event_takes_no_more_queries(client, rated):
    events = Event.objects.exclude(status=EventStatus.DRAFT).annotate(size=Count("matches")).order_by("size")
    largest = events.last()
    # Of the same kind: a team event's sides are read from the teams after none was found among the players.
    smallest = events.filter(size__gt=0, team_size=largest.team_size).first()
    assert smallest.size < largest.size

    assert queries(client, f"/api/events/{largest.pk}/") == queries(client, f"/api/events/{smallest.pk}/")
