"""Player search: by part of a name, by a membership number, page by page.

The world is the default test bundle (tests/bundles.py), imported and rated (`ranked_default_bundle`).
"""

import time

import pytest

from ratings.models import Category
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


def test_search_lists_its_players_by_name_then_number(client, tmp_path):
    bundle = Bundle(tmp_path)
    for number, name in [("P3", "Zoe Sofia"), ("P1", "Sofia Alba"), ("P4", "Ana Sofia"), ("P2", "Sofia Alba")]:
        bundle.add_player(number, name=name)
    bundle.add_player("P5", name="Ana Sofa")  # not found: the search finds names holding every word
    bundle_rated(bundle)

    table = client.get("/players/?q=sofia").context["table"]

    assert [(row.record.name, row.record.membership_number) for row in table.page.object_list] == [
        ("Ana Sofia", "P4"),
        ("Sofia Alba", "P1"),
        ("Sofia Alba", "P2"),
        ("Zoe Sofia", "P3"),
    ]


def test_search_shows_each_players_ratings_in_the_lists_order(client, ranked_default_bundle):
    first, *_ = Category.objects.order_by("position", "slug")
    Category.objects.filter(pk=first.pk).update(position=99)  # now last: the chips follow

    table = client.get("/players/?q=10").context["table"]

    chips = {pk: [row.category.slug for row in rows] for pk, rows in table.ratings.items()}
    order = list(Category.objects.order_by("position", "slug").values_list("slug", flat=True))
    assert any(len(slugs) > 1 for slugs in chips.values())
    assert all(slugs == sorted(slugs, key=order.index) for slugs in chips.values())
    assert any(slugs[-1] == first.slug for slugs in chips.values())


def test_search_reads_the_ratings_of_a_page_in_fixed_queries(client, tmp_path, django_assert_max_num_queries):
    bundle = Bundle(tmp_path)
    for number in range(60):
        bundle.add_player(f"P{number:03}", name=f"Searchable {number:03}")
        bundle.add_event(f"W{number}", name=f"Weekly {number}", date="2010-01-01")
        bundle.add_match(f"W{number}", 1, f"P{number:03}", "1001", 2, 0, 0)
    bundle_rated(bundle)

    # A number looked up, whether a name holds the words, the newest player (the kept count's key), the count,
    # the page, the lists, their rows.
    with django_assert_max_num_queries(7):
        response = client.get("/players/?q=searchable")
    assert "Constructed" in text(response.content.decode())


def test_the_number_a_search_finds_is_kept_a_minute_when_large_and_a_new_player_counts_at_once(client, monkeypatch):
    from players import selectors as player_selectors
    from players.models import Player
    from tests.factories import PlayerFactory

    def counted(query: str) -> int:
        return client.get("/players/", {"q": query}).context["table"].paginator.count

    def names(query: str) -> list[str]:
        return [row.record.name for row in client.get("/players/", {"q": query}).context["table"].page]

    monkeypatch.setattr(player_selectors, "PLAYER_COUNT_KEPT_FROM", 2)  # "large": two players and more
    PlayerFactory(name="Ada Lovelace"), PlayerFactory(name="Ada Byron"), PlayerFactory(name="Grace Hopper")
    PlayerFactory(name="Hopper Junior", public=False)  # named by a draft event: not public yet
    assert (counted("ada"), counted("hopper"), counted("")) == (2, 1, 3)

    Player.objects.filter(name="Ada Byron").update(name="Augusta Byron")  # renamed out of the search
    Player.objects.filter(name="Hopper Junior").update(public=True)  # their event submitted
    assert counted("ada") == 2  # a large number is counted once a minute
    assert names("ada") == ["Ada Lovelace"]  # the rows themselves are read afresh
    assert counted("hopper") == 2  # a small one each time: the player just published is found at once
    a_minute_later = time.time() + player_selectors.PLAYER_COUNT_SECONDS + 1
    monkeypatch.setattr(time, "time", lambda: a_minute_later)
    assert counted("ada") == 1

    PlayerFactory(name="Ada King")
    assert (counted("ada"), counted("")) == (2, 5)  # a new player counts at once
