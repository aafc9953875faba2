import datetime

import pytest
from django.utils import timezone

from events.models import Event, EventStatus
from players.services import player_create
from ratings.models import Category, CurrentRating
from ratings.services.lists import current_lists_refresh_stale, current_ratings_rebuild
from tests.bundles import Bundle
from tests.worlds import bundle_rated


def a_world_of(tmp_path, players: int) -> None:
    """`players` players in one constructed event, each with one match, ranked after one."""
    bundle = Bundle(tmp_path)
    bundle.rows = {file: [] for file in bundle.rows}
    bundle.absent = {"teams.csv", "standings.csv"}
    bundle.add_category("constructed", "Constructed", formats="standard block extended", ranked_after="1")
    bundle.add_event("X", date="2024-05-04", format="standard", k="32", country="DE", city="Berlin")
    for number in range(players):
        bundle.add_player(f"P{number:03d}", f"Player {number:03d}", "DE")
    for number in range(0, players - 1, 2):
        bundle.add_match("X", 1, f"P{number:03d}", f"P{number + 1:03d}", 2, number % 2, 0)
    bundle_rated(bundle)


def test_it_shows_the_world_in_numbers(client, db):
    player_create(membership_number="1", name="Ann", country="DE")
    player_create(membership_number="2", name="Ben", country="FR")
    player_create(membership_number="3", name="Cy", country="FR")

    response = client.get("/")

    assert response.status_code == 200
    assert response.context["summary"] == {"players": 3, "countries": 2, "events": 0, "matches": 0}
    html = response.content.decode()
    assert "No events yet" in html
    assert "Nobody is ranked yet." in html


def test_it_lists_recent_events_newest_first_with_links(client, db):
    for day in (1, 3, 2):
        Event.objects.create(
            name=f"Event on the {day}", date=datetime.date(2024, 5, day), format="standard", player_count=8,
            status=EventStatus.SUBMITTED,
        )  # fmt: skip
    Event.objects.create(name="A draft", date=datetime.date(2024, 5, 4), format="standard", player_count=8)

    response = client.get("/")

    html = response.content.decode()
    assert html.index("Event on the 3") < html.index("Event on the 2") < html.index("Event on the 1")
    newest = Event.objects.get(name="Event on the 3")
    assert f'<a href="/events/{newest.pk}/">Event on the 3</a>' in html
    assert "A draft" not in html  # the organizer's until submitted


def test_it_has_a_search_box_for_players(client, db):
    html = client.get("/").content.decode()

    assert '<form class="hero-search" action="/players/" method="get" role="search">' in html
    assert '<input id="home-search" type="search" name="q"' in html
    assert '<label for="home-search">Find a player</label>' in html


def test_it_shows_the_top_ten_of_every_category(client, db, tmp_path):
    a_world_of(tmp_path, 24)

    response = client.get("/")

    top_lists = {category.slug: leaders for category, leaders in response.context["top_lists"]}
    assert list(top_lists) == list(Category.objects.values_list("slug", flat=True))
    best = CurrentRating.objects.filter(category__slug="constructed").order_by("-rating", "name")[:10]
    assert [leader.display_id for leader in top_lists["constructed"]] == [row.display_id for row in best]
    assert [leader.rank for leader in top_lists["constructed"]] == [1] * 10  # twelve winners, all equal
    assert top_lists["vtes"] == []
    html = response.content.decode()
    assert '<a href="/players/P000/">Player 000</a>' in html
    assert 'href="/rankings/constructed/"' in html
    assert str(int(best[0].rating)) in html


def test_a_list_built_before_today_is_shown_as_built_until_the_workers_rebuild_it(client, db, tmp_path):
    a_world_of(tmp_path, 6)
    constructed = Category.objects.get(slug="constructed")
    yesterday = timezone.localdate() - datetime.timedelta(days=1)
    current_ratings_rebuild(category=constructed, today=yesterday)

    client.get("/")  # a GET writes nothing
    assert set(CurrentRating.objects.filter(category=constructed).values_list("built_on", flat=True)) == {yesterday}
    current_lists_refresh_stale()  # what the job workers do just after midnight

    assert set(CurrentRating.objects.filter(category=constructed).values_list("built_on", flat=True)) == {
        timezone.localdate()
    }


@pytest.mark.parametrize("players", [10, 60])
def test_its_query_count_grows_with_neither_events_nor_players(
    client, db, tmp_path, players, django_assert_max_num_queries
):
    a_world_of(tmp_path, players)
    for day in range(1, 11):
        Event.objects.create(name=f"E{day}", date=datetime.date(2024, 5, day), format="standard", player_count=8)

    # categories, the top ten of every category (one query), four headline counts, recent events, and their
    # winners: uploaded standings, the matches' fingerprints, their names, and the matches the first time
    with django_assert_max_num_queries(11):
        client.get("/")


def test_the_headline_counts_are_counted_once_a_minute_not_on_every_visit(client, db):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as first:
        client.get("/")
    with CaptureQueriesContext(connection) as second:
        client.get("/")

    counted = [query["sql"] for query in first.captured_queries if query["sql"].upper().startswith("SELECT COUNT(")]
    assert len(counted) >= 3  # players, countries, events, matches
    assert not [query["sql"] for query in second.captured_queries if query["sql"].upper().startswith("SELECT COUNT(")]
