"""V:EKN rating points (SPEC 3.4): points per event, the coefficient, the 18-month window, best 8, inactivity.

Pure: no database.
"""

import math
from datetime import date

import pytest

from ratings.engine import (
    displayed,
    months_before,
    vekn_coefficient,
    vekn_counting_events,
    vekn_event_points,
    vekn_is_active,
    vekn_rating,
)

EXACT = 1e-9


# the published examples -------------------------------------------------------------


def test_a_50_player_continental_qualifier_winner_gets_a_bonus_of_192_5_shown_193():
    points = vekn_event_points(vp=5, gw=2, final="winner", players=50, level="continental-qualifier")

    assert points.coefficient == pytest.approx(2.139, abs=5e-4)  # log15(2500) - 1 + 0.25 = 2.889 - 0.75
    assert points.bonus == pytest.approx(192.5, abs=0.05)
    assert displayed(points.bonus, "round") == 193
    assert points.points == pytest.approx(5 + 4 * 5 + 8 * 2 + 192.526, abs=1e-3)


def test_20_players_2_vp_1_gw_not_a_finalist_earns_21():
    points = vekn_event_points(vp=2, gw=1, final="", players=20)

    assert points.points == 21.0  # 5 + 4 x 2 + 8 x 1
    assert points.bonus == 0.0


def test_the_winner_of_20_players_with_6_vp_and_3_gw_earns_162():
    points = vekn_event_points(vp=6, gw=3, final="winner", players=20)

    assert points.coefficient == pytest.approx(math.log(400, 15) - 1, abs=EXACT)
    assert points.points == pytest.approx(53 + 90 * 1.21246, abs=1e-3)  # 5 + 24 + 24 + bonus 109.12
    assert displayed(points.points, "round") == 162


def test_a_finalist_of_a_30_player_national_with_4_vp_and_2_gw_earns_about_90():
    points = vekn_event_points(vp=4, gw=2, final="finalist", players=30, level="national")

    assert points.coefficient == pytest.approx(1.7619, abs=1e-4)  # log15(900) - 1 + 0.25
    assert points.bonus == pytest.approx(52.857, abs=1e-3)
    assert points.points == pytest.approx(89.857, abs=1e-3)
    assert displayed(points.points, "round") == 90


def test_half_victory_points_count_four_points_per_vp():
    assert vekn_event_points(vp=2.5, gw=1, final="", players=20).points == 23.0


def test_a_continental_championship_adds_a_whole_point_to_the_coefficient():
    assert vekn_coefficient(50, "continental") == pytest.approx(vekn_coefficient(50) + 1.0, abs=EXACT)
    assert vekn_coefficient(50, "national") == pytest.approx(vekn_coefficient(50) + 0.25, abs=EXACT)


# the coefficient ---------------------------------------------------------------------


def test_15_players_make_a_coefficient_of_exactly_one():
    assert vekn_coefficient(15) == 1.0
    assert vekn_event_points(vp=0, gw=0, final="winner", players=15).bonus == 90.0


@pytest.mark.parametrize("players", [0, 1, 2, 3])
def test_tiny_events_have_their_coefficient_floored_at_zero(players):
    assert vekn_coefficient(players) == 0.0
    assert vekn_event_points(vp=3, gw=1, final="winner", players=players).points == 5 + 12 + 8


def test_a_level_bonus_can_lift_a_tiny_event_above_zero():
    assert vekn_coefficient(3, "national") == pytest.approx(math.log(9, 15) - 0.75, abs=EXACT)
    assert vekn_coefficient(3, "national") == pytest.approx(0.0614, abs=1e-4)
    assert vekn_coefficient(2, "national") == 0.0  # log15(4) - 1 + 0.25 = -0.238


# the window: best 8 of 18 months ---------------------------------------------------------


def test_the_rating_is_the_sum_of_the_best_8_scores_in_the_window():
    on = date(2024, 3, 15)
    points = [10, 90, 20, 80, 30, 70, 40, 60, 50, 5]
    scores = [(date(2023, month, 1), value) for month, value in enumerate(points, start=1)]

    assert vekn_rating(scores, on=on) == 90 + 80 + 70 + 60 + 50 + 40 + 30 + 20
    assert vekn_rating(scores, on=on, best_of=3) == 240
    assert vekn_rating(scores[:3], on=on) == 120  # fewer than 8: all count


def test_the_counting_events_are_the_best_8_best_first():
    on = date(2024, 3, 15)
    scores = [(date(2023, 1, day), float(day), day) for day in range(1, 11)]

    counted = vekn_counting_events(scores, on=on)

    assert [event for _, _, event in counted] == [10, 9, 8, 7, 6, 5, 4, 3]


@pytest.mark.parametrize(
    ("day", "months", "earlier"),
    [
        (date(2021, 8, 31), 6, date(2021, 2, 28)),
        (date(2020, 8, 31), 6, date(2020, 2, 29)),
        (date(2024, 3, 15), 18, date(2022, 9, 15)),
        (date(2024, 1, 31), 1, date(2023, 12, 31)),
        (date(2024, 12, 31), 12, date(2023, 12, 31)),
        (date(2025, 3, 31), 13, date(2024, 2, 29)),
    ],
)
def test_months_before_goes_back_calendar_months_clamped_to_the_months_end(day, months, earlier):
    assert months_before(day, months) == earlier


@pytest.mark.parametrize(
    ("event_day", "counts"),
    [
        (date(2022, 9, 14), False),
        (date(2022, 9, 15), False),  # exactly 18 months before: out
        (date(2022, 9, 16), True),  # one day later: in
        (date(2023, 11, 1), True),
        (date(2024, 3, 15), True),  # the day itself: in
        (date(2024, 3, 16), False),  # after the day: not yet
    ],
)
def test_the_18_month_window_boundaries(event_day, counts):
    assert vekn_rating([(event_day, 42.0)], on=date(2024, 3, 15)) == (42.0 if counts else 0)


def test_the_window_on_the_31st_of_august_starts_after_the_end_of_february():
    on = date(2025, 8, 31)  # 18 months earlier: 31 Feb 2024 -> 29 Feb 2024

    assert vekn_rating([(date(2024, 2, 29), 10.0)], on=on) == 0
    assert vekn_rating([(date(2024, 3, 1), 10.0)], on=on) == 10.0


def test_an_event_before_the_window_does_not_count_even_among_the_best():
    on = date(2024, 3, 15)
    scores = [(date(2022, 9, 15), 500.0), (date(2023, 1, 1), 10.0)]

    assert vekn_rating(scores, on=on) == 10.0


# inactivity ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("last_event", "active"),
    [
        (date(2023, 3, 15), False),  # exactly 12 months before
        (date(2023, 3, 16), True),
        (date(2024, 3, 15), True),
        (date(2024, 3, 16), False),  # only an event after the day
    ],
)
def test_a_player_without_an_event_in_the_12_months_before_the_day_is_inactive(last_event, active):
    assert vekn_is_active([last_event], on=date(2024, 3, 15)) is active


def test_a_player_with_no_events_is_inactive():
    assert vekn_is_active([], on=date(2024, 3, 15)) is False


def test_an_inactive_player_keeps_a_rating_from_the_18_month_window():
    on = date(2024, 3, 15)
    scores = [(date(2023, 1, 10), 33.0)]  # 14 months before: counts, but not active

    assert vekn_rating(scores, on=on) == 33.0
    assert vekn_is_active([day for day, _ in scores], on=on) is False
