"""The rating calculator: the engine's numbers against the DCI ratings article, and the /calculator/ page."""

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ratings.engine.calculator import (
    average_opponent_estimate,
    event_calculation,
    match_k,
    meeting_outlook,
    rating_sequence,
    win_probability_table,
)

# The opponent a 1600 player has a 10% chance against (the article's "90% favourite").
FAVOURITE = 1600 + 400 * math.log10(9)

# The article's last example: a 1650 player beats 1600 and 1530, draws 1950, loses to 1870, at K 16.
ARTICLE_EVENT = [(1600, "W"), (1530, "W"), (1950, "D"), (1870, "L")]
ARTICLE_URL = (
    "/calculator/?rating=1650&rules=dci-2001&k=16"
    "&opponent1=1600&result1=W&opponent2=1530&result2=W&opponent3=1950&result3=D&opponent4=1870&result4=L"
)

# The article's table: rating difference -> the higher-rated player's win probability, in %.
ARTICLE_TABLE = {
    0: 50.0, 25: 53.6, 50: 57.1, 75: 60.6, 100: 64.0, 125: 67.3, 150: 70.3, 175: 73.3, 200: 76.0, 225: 78.5,
    250: 80.8, 300: 84.9, 350: 88.2, 400: 90.9, 450: 93.0, 500: 94.7, 600: 96.9, 700: 98.3, 800: 99.0,
    900: 99.4, 1000: 99.7,
}  # fmt: skip


def change(rating, k, opponent, result, **options):
    (step,) = rating_sequence(rating, k, [(opponent, result)], **options)
    return step.change


# rating_sequence ------------------------------------------------------------


@pytest.mark.parametrize(("result", "expected"), [("W", 8), ("D", 0), ("L", -8)])
def test_equal_ratings_at_k16_win_or_lose_half_the_k(result, expected):
    assert change(1600, 16, 1600, result) == pytest.approx(expected)


@pytest.mark.parametrize(("result", "expected"), [("W", 14.4), ("D", 6.4), ("L", -1.6)])
def test_against_a_90_percent_favourite_the_underdog_wins_much_and_loses_little(result, expected):
    assert change(1600, 16, FAVOURITE, result) == pytest.approx(expected)


@pytest.mark.parametrize(("result", "expected"), [("W", 1.6), ("D", -6.4), ("L", -14.4)])
def test_the_favourite_gains_little_and_loses_much(result, expected):
    assert change(FAVOURITE, 16, 1600, result) == pytest.approx(expected)


def test_a_win_and_a_loss_differ_by_exactly_k():
    assert change(1712, 32, 1555, "W") - change(1712, 32, 1555, "L") == pytest.approx(32)


def test_each_match_starts_from_the_rating_the_previous_one_left():
    first, second = rating_sequence(1600, 16, [(1600, "W"), (1600, "L")])

    assert first.rating_after == 1608
    assert second.rating_before == 1608
    assert second.expected == pytest.approx(1 / (10 ** (-8 / 400) + 1))
    assert second.rating_after == pytest.approx(1608 - 16 * second.expected)


def test_results_may_be_letters_or_numbers():
    letters = rating_sequence(1650, 16, ARTICLE_EVENT)
    numbers = rating_sequence(1650, 16, [(1600, 1), (1530, 1.0), (1950, 0.5), (1870, 0)])

    assert [step.rating_after for step in letters] == [step.rating_after for step in numbers]


def test_match_points_score_a_draw_as_one_third_with_rating_band_k():
    (step,) = rating_sequence(2150, None, [(2000, "D")], "match-points")

    assert step.score == pytest.approx(1 / 3)
    assert step.k == 24
    assert step.change == pytest.approx(24 * (1 / 3 - step.expected))


def test_band_k_follows_the_rating_across_a_band_edge():
    first, second = rating_sequence(2095, None, [(2095, "W"), (2095, "W")], "match-points")

    assert (first.k, first.rating_after) == (32, 2111)
    assert second.k == 24


@pytest.mark.parametrize(
    ("small_event", "level2_judge", "k"), [(False, True, 32), (True, True, 16), (False, False, 16), (True, False, 8)]
)
def test_the_1997_rules_halve_k_for_small_events_and_again_without_a_judge(small_event, level2_judge, k):
    (step,) = rating_sequence(1800, None, [(1800, "W")], "dci-1997", small_event=small_event, level2_judge=level2_judge)

    assert step.k == k
    assert step.change == pytest.approx(k / 2)


def test_match_k_explains_the_k():
    assert match_k(2450, ruleset="dci-1997", k=None, small_event=True, level2_judge=False) == (
        4.0,
        "16 (rating 2400 and up) x 1/2 (8-31 players) x 1/2 (no Level II judge) = 4",
    )
    assert match_k(1500, ruleset="dci-2001", k=40) == (40.0, "event K 40")


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ((1600, 16, [(1600, "W")], "vekn"), "ruleset"),
        ((1600, 20, [(1600, "W")], "dci-2001"), "K 20"),
        ((1600, None, [(1600, "W")], "dci-2001"), "K None"),
        ((1600, 16, [(1600, "X")], "dci-2001"), "not W, D or L"),
    ],
)
def test_it_refuses_what_it_cannot_calculate(arguments, message):
    with pytest.raises(ValueError, match=message):
        rating_sequence(*arguments)


# average_opponent_estimate --------------------------------------------------


def test_the_articles_average_opponent_example_comes_to_about_plus_16():
    estimate = average_opponent_estimate(1650, 16, [1600, 1530, 1950, 1870], wins=2, draws=1, losses=1)

    assert estimate.average_opponent == 1737.5
    assert estimate.average_difference == 87.5  # "nearly 90 points above you"
    assert 0.35 < estimate.expected_each < 0.40  # "something in between 35 and 40%"
    assert estimate.score == 2.5
    assert estimate.change == pytest.approx(16 * (2.5 - 4 * estimate.expected_each))
    assert round(estimate.change) == 16
    assert estimate.new_rating == pytest.approx(1650 + estimate.change)


def test_the_estimate_needs_one_result_per_opponent():
    with pytest.raises(ValueError, match="3 opponents but 2 results"):
        average_opponent_estimate(1600, 16, [1500, 1600, 1700], wins=1, draws=0, losses=1)


def test_an_event_is_worked_out_both_ways():
    calculation = event_calculation(1650, 16, ARTICLE_EVENT)

    assert calculation.final_rating == pytest.approx(1663.6952, abs=1e-4)
    assert calculation.change == pytest.approx(sum(step.change for step in calculation.steps))
    assert calculation.estimate.change == pytest.approx(15.8929, abs=1e-4)


def test_under_band_rules_the_estimate_uses_the_starting_ratings_k_and_their_draw_score():
    calculation = event_calculation(2150, None, [(2000, "D"), (2300, "W")], "match-points")

    assert calculation.estimate.k == 24
    assert calculation.estimate.score == pytest.approx(1 + 1 / 3)


# win_probability_table ------------------------------------------------------


def test_the_table_runs_from_0_to_1000_in_steps_of_25():
    table = win_probability_table(step=25, up_to=1000)

    assert [row.difference for row in table] == list(range(0, 1001, 25))
    assert all(row.higher + row.lower == pytest.approx(1) for row in table)


@pytest.mark.parametrize(("difference", "percent"), ARTICLE_TABLE.items())
def test_the_table_agrees_with_the_article(difference, percent):
    row = {row.difference: row for row in win_probability_table()}[difference]

    assert round(row.higher * 100, 1) == percent
    assert round(row.lower * 100, 1) == round(100 - percent, 1)


# The page -------------------------------------------------------------------


def test_the_page_offers_an_empty_form_and_the_table(client):
    response = client.get("/calculator/")

    html = response.content.decode()
    assert response.status_code == 200
    assert response.context["calculation"] is None
    assert response.context["form"].row_count == 8
    assert 'name="opponent8"' in html and 'name="opponent9"' not in html
    assert '<form class="calc-form" method="get"' in html
    assert "76.0%" in html and "90.9%" in html and "99.7%" in html


def test_it_works_out_the_articles_example(client):
    response = client.get(ARTICLE_URL)

    calculation = response.context["calculation"]
    html = response.content.decode()
    assert calculation.final_rating == pytest.approx(1663.6952, abs=1e-4)
    assert "1663.70" in html  # exact, two decimals
    assert ">1663</strong>" in html  # as the DCI listed it: decimals cut off
    assert "+13.70" in html  # the exact change
    assert "+15.89" in html  # the quick estimate
    assert "1737.50" in html  # the average opponent
    assert response.context["nearest_difference"] == 100


def test_a_short_link_leaves_the_rules_to_their_defaults(client):
    response = client.get("/calculator/?rating=1600&opponent1=1600&result1=W")

    assert response.context["form"].row_count == 1
    assert response.context["calculation"].change == pytest.approx(8)


def test_band_rules_default_to_band_k_in_a_short_link(client):
    response = client.get("/calculator/?rating=2150&rules=match-points&opponent1=2000&result1=D")

    assert response.context["calculation"].steps[0].k == 24


def test_more_rows_keeps_what_was_entered(client):
    response = client.get(f"{ARTICLE_URL}&rows=16")

    assert response.context["form"].row_count == 16
    assert response.context["form"]["opponent3"].value() == "1950"


@pytest.mark.parametrize(
    ("query", "field", "message"),
    [
        ("rating=abc&opponent1=1600&result1=W", "rating", "Enter a number."),
        ("rating=1600&opponent1=9000&result1=W", "opponent1", "less than or equal to 4000"),
        ("rating=1600&opponent1=1600&result1=X", "result1", "Select a valid choice"),
        ("rating=1600&opponent1=1600", "result1", "Choose a win, a draw or a loss."),
        ("rating=1600&rules=dci-2001&k=band&opponent1=1600&result1=W", "k", "The 2001 rules use the event's K"),
        ("rating=1600&rules=match-points&k=16&opponent1=1600&result1=W", "k", "take K from your rating band"),
        ("rating=1600&k=16&small_event=on&opponent1=1600&result1=W", "small_event", "Only the 1997 rules halve K"),
        ("rating=1600&rules=vekn&opponent1=1600&result1=W", "rules", "Select a valid choice"),
    ],
)
def test_it_shows_each_error_next_to_its_field(client, query, field, message):
    response = client.get(f"/calculator/?{query}")

    form = response.context["form"]
    html = response.content.decode()
    assert response.context["calculation"] is None
    assert message in " ".join(form.errors[field])
    assert f'id="id_{field}_error"' in html  # rendered with the field, and tied to it for screen readers


def test_it_asks_for_at_least_one_opponent(client):
    response = client.get("/calculator/?rating=1600&opponent1=&result1=W")

    assert response.context["form"].non_field_errors() == ["Enter at least one opponent's rating."]
    assert "Enter at least one opponent" in response.content.decode()


def test_empty_rows_are_skipped(client):
    response = client.get("/calculator/?rating=1600&opponent1=&result1=W&opponent2=1600&result2=L&opponent3=")

    assert [step.opponent_rating for step in response.context["calculation"].steps] == [1600]
    assert response.context["calculation"].change == pytest.approx(-8)


# meeting_outlook: a head-to-head's next meeting ---------------------------------------------------------------------


def test_the_outlook_of_a_90_percent_favourite_at_k16_is_the_articles():
    favourite, underdog = meeting_outlook(FAVOURITE, 1600, ruleset="dci-2001", k=16)

    assert (favourite.expected, underdog.expected) == pytest.approx((0.9, 0.1))
    assert (favourite.win, favourite.draw, favourite.loss) == pytest.approx((1.6, -6.4, -14.4))
    assert (underdog.win, underdog.draw, underdog.loss) == pytest.approx((14.4, 6.4, -1.6))
    assert favourite.k == underdog.k == 16


def test_the_outlook_under_the_band_rules_takes_each_players_own_k():
    strong, weak = meeting_outlook(2450, 2000, ruleset="dci-1997")

    assert (strong.k, weak.k) == (16, 32)  # SPEC 3.2: 2400 and up, below 2100
    expected = 1 / (10 ** (-450 / 400) + 1)  # 0.9302
    assert strong.win == pytest.approx(16 * (1 - expected))
    assert weak.loss == pytest.approx(-32 * (1 - expected))


@given(
    st.floats(min_value=100, max_value=3000),
    st.floats(min_value=100, max_value=3000),
    st.sampled_from([8, 16, 24, 32, 40, 48]),
)
def test_at_one_k_a_meeting_is_zero_sum_and_the_chances_add_up_to_one(rating, opponent, k):
    mine, theirs = meeting_outlook(rating, opponent, ruleset="dci-2001", k=k)

    assert mine.expected + theirs.expected == pytest.approx(1)
    assert mine.win == pytest.approx(-theirs.loss)
    assert mine.draw == pytest.approx(-theirs.draw)
    assert mine.win - mine.loss == pytest.approx(k)
