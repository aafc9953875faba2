"""The rating history in the admin site, read only: the rows written last first; a search finds a player's rows.

The world is the default test bundle (tests/bundles.py), imported and rated (`rated_default_bundle`).
"""

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from lib import admin_lists
from ratings.models import Category, RatingEntry
from tests.worlds import participant

pytestmark = pytest.mark.django_db


def listed(client, **params) -> list[int]:
    response = client.get(reverse("admin:ratings_ratingentry_changelist"), params)
    assert response.status_code == 200
    return [row.pk for row in response.context["cl"].result_list]


def newest_first(rows) -> list[int]:
    return sorted(rows.values_list("pk", flat=True), reverse=True)


def test_the_history_lists_the_rows_written_last_first(client, rated_default_bundle, admin):
    client.force_login(admin)

    shown = listed(client)

    assert shown and shown == newest_first(RatingEntry.objects.all())[: len(shown)]


@pytest.mark.parametrize("search", ["alice", "ARCHER Alice", '"alice archer"'])
def test_a_search_lists_the_players_rows_newest_first(client, rated_default_bundle, admin, search):
    client.force_login(admin)

    shown = listed(client, q=search)

    assert shown and shown == newest_first(RatingEntry.objects.filter(participant_id=participant("1001")))


def test_every_word_of_a_search_names_the_same_player(client, rated_default_bundle, admin):
    client.force_login(admin)

    assert listed(client, q="alice becker") == []
    assert listed(client, q="becker") == newest_first(RatingEntry.objects.filter(participant_id=participant("1002")))


def _footer(client, **params) -> str:
    html = client.get(reverse("admin:ratings_ratingentry_changelist"), params).content.decode()
    return " ".join(re.search(r'<p class="paginator">(.*?)</p>', html, re.S).group(1).split())


@pytest.mark.skipif(connection.vendor != "postgresql", reason="the planner's statistics are PostgreSQL's")
def test_a_large_unfiltered_history_is_counted_from_the_statistics_and_says_about(
    client, rated_default_bundle, admin, monkeypatch
):
    monkeypatch.setattr(admin_lists, "ESTIMATED_ABOVE", 0)  # the test world's history counts as large
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE ratings_ratingentry")  # a small table's statistics count every row
    client.force_login(admin)
    rows = RatingEntry.objects.count()
    constructed = RatingEntry.objects.filter(category__slug="constructed")

    with CaptureQueriesContext(connection) as queries:
        unfiltered = _footer(client)

    assert unfiltered == f"about {rows} rating entries"
    assert not any("COUNT(" in query["sql"] for query in queries.captured_queries)  # no row was counted
    category = constructed.values_list("category_id", flat=True)[0]
    assert _footer(client, category__id__exact=category) == f"{constructed.count()} rating entries"  # filtered


def test_a_small_history_is_counted_exactly(client, rated_default_bundle, admin):
    client.force_login(admin)

    assert _footer(client) == f"{RatingEntry.objects.count()} rating entries"


def test_a_team_lists_rows_are_named_without_a_query_each(client, rated_default_bundle, admin):
    """A team's history rows name both teams (participant and opponent) from the page's one query, as a player's."""
    client.force_login(admin)
    url = reverse("admin:ratings_ratingentry_changelist")
    teams = Category.objects.get(slug="team-constructed")
    players = Category.objects.get(slug="constructed")
    assert RatingEntry.objects.filter(category=teams).count() >= 2

    with CaptureQueriesContext(connection) as of_players:
        client.get(url, {"category__id__exact": players.pk})
    with CaptureQueriesContext(connection) as of_teams:
        response = client.get(url, {"category__id__exact": teams.pk})

    assert len(of_teams) <= len(of_players)
    assert "Bavarian Dragons" in response.content.decode()
