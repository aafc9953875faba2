"""Ranks and displayed ratings (SPEC 3, 4). Pure: no database."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ratings.engine import competition_ranks, displayed, level_ranks


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


def test_each_place_ranks_its_own_rows_and_a_blank_place_ranks_nobody():
    rows = [  # best first: (rating, (continent, country, region))
        (2000.0, ("EU", "DE", "DE-BY")),
        (1950.0, ("EU", "FR", "")),
        (1950.0, ("NA", "US", "US-CA")),
        (1900.0, ("EU", "DE", "DE-BE")),
        (1850.0, ("", "", "")),
        (1800.0, ("EU", "DE", "DE-BY")),
    ]

    assert list(level_ranks(rows)) == [
        (1, 1, 1, 1),
        (2, 2, 1, None),
        (2, 1, 1, 1),
        (4, 3, 2, 1),
        (5, None, None, None),
        (6, 4, 3, 2),
    ]


rated_rows = st.lists(
    st.tuples(
        st.sampled_from([1500.0, 1600.0, 1600.0000001, 1700.0, 1812.5]),
        st.tuples(st.sampled_from(["", "EU", "NA"]), st.sampled_from(["", "DE", "FR"]), st.sampled_from(["", "R1"])),
    ),
    max_size=40,
)


@given(rated_rows)
def test_level_ranks_are_each_places_competition_ranks(rows):
    """Whatever the rows, a row's rank at a level is its competition rank among the rows of its place there."""
    rows = sorted(rows, key=lambda row: -row[0])

    counted = list(level_ranks(rows))

    assert [ranks[0] for ranks in counted] == competition_ranks([rating for rating, _ in rows])
    for level in range(3):
        for place in {places[level] for _, places in rows}:
            mine = [at for at, (_, places) in enumerate(rows) if places[level] == place]
            expected = competition_ranks([rows[at][0] for at in mine]) if place else [None] * len(mine)
            assert [counted[at][level + 1] for at in mine] == expected


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
