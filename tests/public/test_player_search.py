"""Player search: by part of a name, by a membership number, page by page.

The world is the default test bundle (tests/bundles.py), imported and rated (`ranked_default_bundle`).
"""

import pytest

from tests.bundles import Bundle
from tests.pages import page, text
from tests.worlds import bundle_rated

pytestmark = pytest.mark.django_db


# Search ------------------------------------------------------------------------------


def test_search_finds_players_by_part_of_their_name_with_flag_and_ratings(client, ranked_default_bundle):
    html = page(client, "/players/?q=arch")

    words = text(html)
    assert "Alice Archer" in words
    assert "Bruno Becker" not in words
    assert "/static/flags/de.gif" in html
    assert "Constructed 1646" in words  # today's rating, truncated


def test_search_by_a_number_prefix_lists_every_match(client, ranked_default_bundle):
    response = client.get("/players/?q=100")

    assert response.status_code == 200
    assert response.context["table"].paginator.count == 6


def test_search_by_an_exact_membership_number_goes_to_the_player(client, ranked_default_bundle):
    response = client.get("/players/?q=1003")

    assert response.status_code == 302
    assert response.url == "/players/1003/"


def test_search_lists_players_page_by_page(client, tmp_path):
    bundle = Bundle(tmp_path)
    for number in range(60):
        bundle.add_player(f"P{number:03}", name=f"Searchable {number:03}")
    bundle_rated(bundle)

    first = client.get("/players/?q=searchable")
    second = client.get("/players/?q=searchable&page=2")

    assert first.context["table"].paginator.count == 60
    assert "Searchable 000" in text(first.content.decode())
    assert "Searchable 059" in text(second.content.decode())
    assert "Searchable 000" not in text(second.content.decode())
