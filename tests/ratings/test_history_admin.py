"""The rating history in the admin site, read only: the rows written last first; a search finds a player's rows.

The world is the default test bundle (tests/bundles.py), imported and rated (`rated_default_bundle`).
"""

import pytest
from django.urls import reverse

from ratings.models import RatingEntry
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
