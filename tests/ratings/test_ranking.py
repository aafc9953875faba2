"""Ranks and displayed ratings (SPEC 3, 4). Pure: no database."""

import pytest

from ratings.engine import competition_ranks, displayed


def test_equal_ratings_share_a_rank_and_the_next_rank_skips():
    assert competition_ranks([2000, 1900, 1900, 1800]) == [1, 2, 2, 4]


@pytest.mark.parametrize(
    ("ratings", "ranks"),
    [
        ([], []),
        ([1600.0], [1]),
        ([1700, 1700, 1700], [1, 1, 1]),
        ([2000, 2000, 1900, 1800, 1800, 1700], [1, 1, 3, 4, 4, 6]),
        ([1700.0000001, 1700.0], [1, 2]),  # ratings are unrounded: a tiny difference is a difference
    ],
)
def test_competition_ranks(ratings, ranks):
    assert competition_ranks(ratings) == ranks


@pytest.mark.parametrize(
    ("rating", "shown"), [(1699.99, 1699), (1699.5, 1699), (1700.0, 1700), (1600.0001, 1600), (2345.999999, 2345)]
)
def test_truncating_categories_cut_the_decimals_off(rating, shown):
    assert displayed(rating, "truncate") == shown


@pytest.mark.parametrize(
    ("rating", "shown"), [(1699.5, 1700), (1699.49, 1699), (1699.99, 1700), (192.5, 193), (162.12, 162), (0.4, 0)]
)
def test_rounding_categories_round_half_up(rating, shown):
    assert displayed(rating, "round") == shown
