"""The Elo arithmetic and the three Elo rulesets (SPEC 3.1-3.3), checked against numbers worked by hand.

Pure: no database. The worked examples are those of the DCI ratings article in
seeds/ (16-K matches between equals and against a 90% favourite, and its table
of win probabilities).
"""

import math
from datetime import date

import pytest

from ratings.engine import (
    DRAW,
    LOSS,
    WIN,
    MatchInput,
    ParticipantState,
    band_k,
    elo_update,
    expected_score,
    provisional_rating,
    rate_matches,
    ruleset_for,
)

EXACT = 1e-9
# The rating difference at which the favourite's win probability is exactly 0.9.
NINETY_PERCENT_GAP = 400 * math.log10(9)

_ids = iter(range(1, 1_000_000))


def a_match(p1, p2, result, *, k=16, players=64, judge=True, round=1, event_id=1, day=date(2003, 5, 1)):
    return MatchInput(next(_ids), event_id, day, round, p1, p2, result, k, players, judge)


def rate(slug, matches, states=None, *, provisional_until=0):
    """All the changes of `matches`, in order: [(change of participant 1, change of participant 2), ...]."""
    ruleset = ruleset_for(slug, provisional_until=provisional_until)
    return [(one, two) for _, one, two in rate_matches(ruleset, matches, states)]


def rate_one(slug, p1_rating, p2_rating, result, *, provisional_until=0, **match):
    """One match between two established players with the given ratings."""
    states = {1: ParticipantState(rating=p1_rating, matches=100), 2: ParticipantState(rating=p2_rating, matches=100)}
    [(one, two)] = rate(slug, [a_match(1, 2, result, **match)], states, provisional_until=provisional_until)
    return one, two


# expected score (win probability) ---------------------------------------------------


def test_equal_ratings_give_a_win_probability_of_one_half():
    assert expected_score(1600, 1600) == 0.5
    assert expected_score(2345.6, 2345.6) == 0.5


def test_the_gap_of_400_log10_9_makes_the_favourite_exactly_90_percent():
    assert expected_score(1600 + NINETY_PERCENT_GAP, 1600) == pytest.approx(0.9, abs=EXACT)
    assert expected_score(1600, 1600 + NINETY_PERCENT_GAP) == pytest.approx(0.1, abs=EXACT)


# The article's table: "Your rating higher by" -> "Your win probability", rounded to 0.1%.
ARTICLE_TABLE = {
    0: 50.0, 25: 53.6, 50: 57.1, 75: 60.6, 100: 64.0, 125: 67.3, 150: 70.3, 175: 73.3, 200: 76.0, 225: 78.5,
    250: 80.8, 300: 84.9, 350: 88.2, 400: 90.9, 450: 93.0, 500: 94.7, 600: 96.9, 700: 98.3, 800: 99.0,
    900: 99.4, 1000: 99.7,
}  # fmt: skip


@pytest.mark.parametrize(("difference", "percent"), ARTICLE_TABLE.items())
def test_the_win_probability_table_of_the_article_is_reproduced_to_a_tenth_of_a_percent(difference, percent):
    assert round(expected_score(1600 + difference, 1600) * 100, 1) == percent
    assert round(expected_score(1600, 1600 + difference) * 100, 1) == round(100 - percent, 1)


@pytest.mark.parametrize(("rating", "opponent"), [(1600, 1600), (1625, 1600), (1400, 2100), (2712.25, 1033.5)])
def test_the_win_probabilities_of_both_players_add_up_to_one(rating, opponent):
    assert expected_score(rating, opponent) + expected_score(opponent, rating) == pytest.approx(1.0, abs=1e-15)


def test_a_higher_rating_gives_a_higher_win_probability_and_never_reaches_one():
    assert expected_score(1700, 1600) > expected_score(1650, 1600) > 0.5 > expected_score(1550, 1600)
    assert expected_score(1600 + 3000, 1600) < 1.0


# the update rule -------------------------------------------------------------------


def test_the_update_adds_k_times_score_minus_expectation():
    assert elo_update(1600, 16, 1.0, 0.5) == 1608
    assert elo_update(1600, 16, 0.0, 0.5) == 1592
    assert elo_update(1600, 16, 0.5, 0.5) == 1600
    assert elo_update(1500, 32, 1.0, 0.25) == 1524


# dci-2001 ----------------------------------------------------------------------------


def test_between_two_new_players_at_k16_a_win_is_worth_8_points_and_a_draw_nothing():
    win, loss = rate("dci-2001", [a_match(1, 2, WIN, k=16)])[0]
    draw1, draw2 = rate("dci-2001", [a_match(3, 4, DRAW, k=16)])[0]

    assert (win.rating_before, win.rating_after) == (1600, 1608)
    assert (loss.rating_before, loss.rating_after) == (1600, 1592)
    assert (draw1.rating_after, draw2.rating_after) == (1600, 1600)
    assert (win.score, loss.score, draw1.score) == (1.0, 0.0, 0.5)
    assert win.expected == loss.expected == 0.5


@pytest.mark.parametrize(
    ("result", "underdog_change"),
    [(WIN, 14.4), (DRAW, 6.4), (LOSS, -1.6)],
    ids=["win gains 14.4", "draw gains 6.4", "loss costs 1.6"],
)
def test_against_a_90_percent_favourite_at_k16(result, underdog_change):
    underdog, favourite = rate_one("dci-2001", 1600, 1600 + NINETY_PERCENT_GAP, result, k=16)

    assert underdog.expected == pytest.approx(0.1, abs=EXACT)
    assert favourite.expected == pytest.approx(0.9, abs=EXACT)
    assert underdog.rating_after - underdog.rating_before == pytest.approx(underdog_change, abs=EXACT)
    assert favourite.rating_after - favourite.rating_before == pytest.approx(-underdog_change, abs=EXACT)


def test_a_won_and_a_lost_match_differ_by_exactly_the_event_k():
    won, _ = rate_one("dci-2001", 1712.5, 1650, WIN, k=32)
    lost, _ = rate_one("dci-2001", 1712.5, 1650, LOSS, k=32)

    assert won.rating_after - lost.rating_after == pytest.approx(32, abs=EXACT)


def test_dci_2001_uses_the_event_k_for_both_players_whatever_their_ratings():
    strong, weak = rate_one("dci-2001", 2500, 1500, LOSS, k=40, players=9, judge=False)

    assert (strong.k, weak.k) == (40, 40)
    assert strong.k_reason == weak.k_reason == "event K 40"
    assert strong.rating_after - 2500 == pytest.approx(-40 * expected_score(2500, 1500), abs=EXACT)
    assert (strong.rating_after - 2500) + (weak.rating_after - 1500) == pytest.approx(0, abs=EXACT)
    assert not strong.provisional and not weak.provisional


@pytest.mark.parametrize("k", [8, 16, 24, 32, 40, 48])
def test_every_event_k_value_is_applied_as_given(k):
    winner, loser = rate("dci-2001", [a_match(1, 2, WIN, k=k)])[0]

    assert winner.rating_after == 1600 + k / 2
    assert loser.rating_after == 1600 - k / 2
    assert winner.k_reason == f"event K {k}"


def test_both_players_are_rated_from_their_pre_match_ratings():
    one, two = rate_one("dci-2001", 1700, 1500, WIN, k=16)

    assert one.opponent_rating == 1500
    assert two.opponent_rating == 1700
    assert two.rating_after == pytest.approx(1500 - 16 * expected_score(1500, 1700), abs=EXACT)


def test_the_match_count_grows_by_one_per_rated_match():
    changes = rate("dci-2001", [a_match(1, 2, WIN), a_match(1, 3, DRAW, round=2), a_match(2, 3, LOSS, round=3)])

    assert [(one.matches, two.matches) for one, two in changes] == [(1, 1), (2, 1), (2, 2)]


# rating bands ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rating", "k", "band"),
    [
        (1600, 32, "rating below 2100"),
        (2099.99, 32, "rating below 2100"),
        (2100, 24, "rating 2100-2399"),
        (2399.99, 24, "rating 2100-2399"),
        (2400, 16, "rating 2400 and up"),
        (2890.5, 16, "rating 2400 and up"),
    ],
)
def test_k_by_rating_band(rating, k, band):
    assert band_k(rating) == (k, band)


# dci-1997 ----------------------------------------------------------------------------


def test_dci_1997_does_not_rate_an_event_of_7_players():
    assert rate("dci-1997", [a_match(1, 2, WIN, players=7)]) == []
    assert len(rate("dci-1997", [a_match(1, 2, WIN, players=8)])) == 1


@pytest.mark.parametrize(
    ("players", "judge", "k", "reason"),
    [
        (32, True, 32, "32 (rating below 2100)"),
        (500, True, 32, "32 (rating below 2100)"),
        (31, True, 16, "32 (rating below 2100) x 1/2 (8-31 players) = 16"),
        (8, True, 16, "32 (rating below 2100) x 1/2 (8-31 players) = 16"),
        (32, False, 16, "32 (rating below 2100) x 1/2 (no Level II judge) = 16"),
        (8, False, 8, "32 (rating below 2100) x 1/2 (8-31 players) x 1/2 (no Level II judge) = 8"),
    ],
    ids=["32 players", "500 players", "31 players", "8 players", "no judge", "small event without judge"],
)
def test_dci_1997_halves_k_for_small_events_and_again_without_a_level_ii_judge(players, judge, k, reason):
    winner, loser = rate_one("dci-1997", 1600, 1600, WIN, players=players, judge=judge)

    assert (winner.k, loser.k) == (k, k)
    assert winner.k_reason == reason
    assert winner.rating_after == 1600 + k / 2
    assert loser.rating_after == 1600 - k / 2


def test_dci_1997_takes_each_established_players_k_from_their_own_pre_match_rating():
    higher, lower = rate_one("dci-1997", 2100, 2099, DRAW, players=40, judge=True)

    assert (higher.k, lower.k) == (24, 32)
    assert higher.k_reason == "24 (rating 2100-2399)"
    assert lower.k_reason == "32 (rating below 2100)"
    expected_higher = expected_score(2100, 2099)
    assert higher.rating_after == pytest.approx(2100 + 24 * (0.5 - expected_higher), abs=EXACT)
    assert lower.rating_after == pytest.approx(2099 + 32 * (expected_higher - 0.5), abs=EXACT)
    # different K on both sides: the match is not zero-sum
    assert (higher.rating_after - 2100) + (lower.rating_after - 2099) != pytest.approx(0, abs=1e-6)


def test_dci_1997_band_and_event_halvings_combine():
    top, _ = rate_one("dci-1997", 2450, 2000, WIN, players=12, judge=False)

    assert top.k == 4  # 16 halved twice
    assert top.k_reason == "16 (rating 2400 and up) x 1/2 (8-31 players) x 1/2 (no Level II judge) = 4"


def test_a_provisional_players_first_win_against_a_1600_makes_2000():
    winner, loser = rate("dci-1997", [a_match(1, 2, WIN)], provisional_until=25)[0]

    assert winner.rating_after == 2000  # 1600 + 400 x (1 - 0) / 1
    assert loser.rating_after == 1200  # 1600 + 400 x (0 - 1) / 1
    assert winner.provisional and loser.provisional
    assert winner.k is None
    assert winner.k_reason == "provisional: mean opponent rating 1600.00 + 400 x (1 - 0) / 1"


def test_a_provisional_players_second_match_lost_to_a_1600_averages_back_to_1600():
    changes = rate("dci-1997", [a_match(1, 2, WIN, round=1), a_match(1, 3, LOSS, round=2)], provisional_until=25)

    second = changes[1][0]
    assert second.rating_before == 2000
    assert second.opponent_rating == 1600
    assert second.rating_after == 1600  # (1600 + 1600) / 2 + 400 x (1 - 1) / 2
    assert second.matches == 2
    assert "+ 400 x (1 - 1) / 2" in second.k_reason


def test_a_provisional_draw_counts_in_matches_but_not_in_wins_or_losses():
    changes = rate("dci-1997", [a_match(1, 2, WIN, round=1), a_match(1, 3, DRAW, round=2)], provisional_until=25)

    assert changes[1][0].rating_after == 1800  # 3200 / 2 + 400 x (1 - 0) / 2
    assert changes[1][1].rating_after == 2000  # the new opponent: 2000 + 400 x (0 - 0) / 1
    assert changes[1][0].k_reason == "provisional: mean opponent rating 1600.00 + 400 x (1 - 0) / 2"


def test_the_provisional_formula_uses_the_opponents_ratings_when_each_match_was_played():
    states = {2: ParticipantState(rating=1800, matches=50), 3: ParticipantState(rating=1500, matches=50)}
    changes = rate(
        "dci-1997", [a_match(1, 2, LOSS, round=1), a_match(1, 3, WIN, round=2)], states, provisional_until=25
    )

    assert changes[0][0].rating_after == 1400  # 1800 - 400
    assert changes[1][0].rating_after == 1650  # (1800 + 1500) / 2 + 0
    assert provisional_rating(3300, 1, 1, 2) == 1650


def test_the_26th_match_is_an_elo_update_from_the_rating_after_the_25th():
    # Player 1 meets 25 established opponents rated 1500, 1510, ..., 1740 (mean 1620):
    # 15 wins, 5 draws, 5 losses.
    results = [WIN] * 15 + [DRAW] * 5 + [LOSS] * 5
    states = {100 + i: ParticipantState(rating=1500 + 10 * i, matches=60) for i in range(26)}
    states[200] = ParticipantState(rating=1700, matches=60)
    matches = [a_match(1, 100 + i, result, round=i + 1) for i, result in enumerate(results)]
    matches.append(a_match(1, 200, WIN, round=26))

    changes = [one for one, _ in rate("dci-1997", matches, states, provisional_until=25)]

    twenty_fifth, twenty_sixth = changes[24], changes[25]
    assert twenty_fifth.provisional and twenty_fifth.matches == 25
    assert twenty_fifth.rating_after == pytest.approx(1780, abs=EXACT)  # 1620 + 400 x (15 - 5) / 25
    assert not twenty_sixth.provisional and twenty_sixth.matches == 26
    assert twenty_sixth.rating_before == pytest.approx(1780, abs=EXACT)
    assert twenty_sixth.k == 32
    assert twenty_sixth.k_reason == "32 (rating below 2100)"
    # 1780 + 32 x (1 - 1 / (10^((1700 - 1780) / 400) + 1))
    assert twenty_sixth.rating_after == pytest.approx(1780 + 32 * (1 - 1 / (10**-0.2 + 1)), abs=EXACT)
    assert twenty_sixth.rating_after == pytest.approx(1792.37962, abs=1e-5)


def test_the_provisional_threshold_counts_each_players_own_matches():
    # Player 2 is established; player 1 is in their first match: only player 1 is provisional.
    states = {2: ParticipantState(rating=1600, matches=30)}
    newcomer, veteran = rate("dci-1997", [a_match(1, 2, WIN)], states, provisional_until=25)[0]

    assert newcomer.provisional and not veteran.provisional
    assert veteran.k == 32


def test_an_established_players_opponent_rating_is_the_provisional_players_current_rating():
    states = {9: ParticipantState(rating=1700, matches=40)}
    matches = [a_match(1, 2, WIN, round=1), a_match(9, 1, WIN, round=2)]

    veteran, newcomer = rate("dci-1997", matches, states, provisional_until=25)[1]

    assert newcomer.rating_before == 2000
    assert veteran.opponent_rating == 2000
    assert veteran.expected == pytest.approx(expected_score(1700, 2000), abs=EXACT)
    assert veteran.rating_after == pytest.approx(1700 + 32 * (1 - expected_score(1700, 2000)), abs=EXACT)
    assert veteran.rating_after == pytest.approx(1727.16865, abs=1e-5)  # We = 1 / (10^0.75 + 1) = 0.15098
    # and the newcomer's formula sees the veteran's pre-match 1700
    assert newcomer.rating_after == pytest.approx((1600 + 1700) / 2 + 400 * (1 - 1) / 2, abs=EXACT)


# match-points ------------------------------------------------------------------------


def test_a_match_points_draw_scores_a_third_for_both():
    one, two = rate("match-points", [a_match(1, 2, DRAW, k=32)])[0]

    assert one.score == two.score == pytest.approx(1 / 3, abs=1e-15)
    assert one.rating_after - 1600 == pytest.approx(32 * (1 / 3 - 1 / 2), abs=EXACT)
    assert one.rating_after == pytest.approx(1594.6666666667, abs=1e-9)
    assert two.rating_after == one.rating_after


def test_a_match_points_win_and_loss_score_one_and_zero():
    winner, loser = rate("match-points", [a_match(1, 2, WIN)])[0]

    assert (winner.score, loser.score) == (1.0, 0.0)
    assert (winner.rating_after, loser.rating_after) == (1616, 1584)


@pytest.mark.parametrize(("rating", "k"), [(2099.99, 32), (2100, 24), (2399.99, 24), (2400, 16)])
def test_match_points_k_follows_the_rating_band(rating, k):
    player, _ = rate_one("match-points", rating, rating, WIN)

    assert player.k == k
    assert player.rating_after == pytest.approx(rating + k / 2, abs=EXACT)


def test_match_points_ignores_the_event_k_size_and_judge():
    player, _ = rate_one("match-points", 1600, 1600, WIN, k=48, players=8, judge=False)

    assert player.k == 32
    assert player.k_reason == "32 (rating below 2100)"
    assert player.rating_after == 1616


def test_match_points_rates_events_of_any_size():
    assert len(rate("match-points", [a_match(1, 2, WIN, players=2)])) == 1
    assert len(rate("dci-2001", [a_match(1, 2, WIN, players=2)])) == 1
