"""How a list's ratings are spread: its histogram in bins of 25 points at every level, and the share of the ranked
players a player is better than.

The world is the default bundle with constructed ranked from one match (tests/conftest.py). Its ranked
list, hand-checked: Alice Archer (1001, DE, Bavaria) 1646.56, Emi Fujita (1005, JP) 1600.70, Chloé Dubois (1003,
FR) 1584.74, Bruno Becker (1002, DE) 1584.00 and Dan Evans (1004, US) 1584.00, the last two tied fourth.
Bins of 25: 1625-1649 holds Alice, 1600-1624 Emi, 1575-1599 the other three.
"""

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ratings.engine.ranking import competition_ranks
from ratings.selectors.distribution import better_than_percent, bin_start, bins_filled
from tests.clients import client_of
from tests.worlds import account_of

pytestmark = pytest.mark.django_db

# The rules --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rating", "start"), [(1600.0, 1600), (1624.99, 1600), (1599.99, 1575), (1646.56, 1625), (0.0, 0), (12.5, 0)]
)
def test_a_rating_falls_in_the_bin_of_25_points_at_or_below_it(rating, start):
    assert bin_start(rating) == start


def test_the_bins_between_the_lowest_and_the_highest_are_all_there_empty_ones_too():
    assert bins_filled({1675: 1, 1600: 2}) == ((1600, 2), (1625, 0), (1650, 0), (1675, 1))
    assert bins_filled({}) == ()


@pytest.mark.parametrize(
    ("total", "rank", "tied", "percent"),
    [
        (5, 1, 1, 80),  # Alice: four of five are rated lower
        (5, 4, 2, 0),  # Bruno and Dan, tied last
        (3, 1, 1, 66),  # 2 of 3 is 66.7 %: rounded down, never up
        (100, 1, 1, 99),  # the best of a hundred is better than 99 of them, not 100 %
        (1, 1, 1, None),  # alone at a place: better than nobody and worse than nobody
    ],
)
def test_better_than_counts_those_rated_lower(total, rank, tied, percent):
    assert better_than_percent(total=total, rank=rank, tied=tied) == percent


@given(st.lists(st.integers(min_value=1000, max_value=2400).map(lambda points: points / 2), min_size=2, max_size=60))
def test_better_than_from_ranks_is_the_share_rated_lower_and_the_bins_hold_everyone(ratings):
    ranks = competition_ranks(sorted(ratings, reverse=True))
    for rating, rank in zip(sorted(ratings, reverse=True), ranks, strict=True):
        tied = ratings.count(rating)
        lower = sum(other < rating for other in ratings)
        assert better_than_percent(total=len(ratings), rank=rank, tied=tied) == math.floor(100 * lower / len(ratings))
    counts: dict[int, int] = {}
    for rating in ratings:
        counts[bin_start(rating)] = counts.get(bin_start(rating), 0) + 1
    bins = bins_filled(counts)
    assert sum(count for _, count in bins) == len(ratings)
    assert [start for start, _ in bins] == list(range(bins[0][0], bins[-1][0] + 25, 25))


# The pages ---------------------------------------------------------------------------------------------------


def bins_on(page) -> tuple:
    return page.context["distribution"].bins


def test_a_ranking_shows_its_histogram_at_the_level_chosen(client, ranked_default_bundle):
    world = client.get("/rankings/constructed/")
    germany = client.get("/rankings/constructed/?country=DE")
    unranked = client.get("/rankings/constructed/?list=unranked")

    assert bins_on(world) == ((1575, 3), (1600, 1), (1625, 1))
    assert "5 ranked players in the world, in bins of 25 points." in world.content.decode()
    assert "<title>1575–1599: 3</title>" in world.content.decode()
    assert bins_on(germany) == ((1575, 1), (1600, 0), (1625, 1))
    assert "2 ranked players in Germany" in germany.content.decode()
    assert bins_on(unranked) == ()  # nobody unranked: no chart
    assert "How the ratings are spread" not in unranked.content.decode()


def test_a_past_dates_histogram_counts_the_list_of_that_date(client, ranked_default_bundle):
    past = client.get("/rankings/constructed/", {"as_of": "2003-05-31"})

    listed = [row.record.rating for row in past.context["table"].paginated_rows]
    assert past.context["distribution"].total == len(listed) > 0
    assert "on 31 May 2003" in past.content.decode()


def test_the_viewers_own_bar_is_marked_when_signed_in(ranked_default_bundle):
    alice = client_of(account_of("1001", username="alice"))

    page = alice.get("/rankings/constructed/").content.decode()

    assert "Your rating, 1,646, is in the" in page
    assert page.count("bar bar-own") == 1
    assert 'class="bar bar-own"><title>1625–1649: 1</title>' in page


def test_a_player_page_says_where_the_player_stands(client, ranked_default_bundle):
    alice = client.get("/players/1001/?category=constructed").content.decode()
    bruno = client.get("/players/1002/?category=constructed").content.decode()

    # Bavaria has only Alice: no share there. Germany 1 of 2 lower, Europe 2 of 3 (66.7 %), the world 4 of 5.
    assert "Better than 50 % of the ranked players in Germany, 66 % in Europe and 80 % in the world." in alice
    assert "Better than" not in bruno  # last in Germany and Europe, tied last in the world
