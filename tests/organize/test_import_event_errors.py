"""Broken results bundles (SPEC 6): errors in events.csv, and events whose results do not add up."""

import pytest

from tests.organize.importing import (
    NEXT_EVENT_LINE,
    assert_only_error,
)

pytestmark = pytest.mark.django_db


# events.csv ---------------------------------------------------------------------------


def test_it_rejects_an_event_id_listed_twice(bundle):
    bundle.add_event("E2")

    assert_only_error(bundle, f"events.csv:{NEXT_EVENT_LINE}: id:", "event E2 is already listed on line 3")


def test_it_rejects_an_event_without_an_id(bundle):
    bundle.add_event("")

    assert_only_error(bundle, f"events.csv:{NEXT_EVENT_LINE}: id:", "an event id of 1 to 64 characters is required")


def test_it_rejects_an_event_without_a_name(bundle):
    bundle.add_event("E5", name="")

    assert_only_error(bundle, f"events.csv:{NEXT_EVENT_LINE}: name:", "a name of 1 to 200 characters is required")


@pytest.mark.parametrize("day", ["01/05/2003", "2003-5-1", "20030501", "2003-05-01T10:00", "May 1st", ""])
def test_it_rejects_a_date_not_written_yyyy_mm_dd(bundle, day):
    bundle.add_event("E5", date=day)

    assert_only_error(bundle, f"events.csv:{NEXT_EVENT_LINE}: date:", f"{day!r} is not a date in the form YYYY-MM-DD")


@pytest.mark.parametrize("day", ["2024-02-30", "2003-02-29", "2003-13-01", "2003-04-31", "0000-01-01"])
def test_it_rejects_an_impossible_date(bundle, day):
    bundle.add_event("E5", date=day)

    assert_only_error(bundle, f"events.csv:{NEXT_EVENT_LINE}: date:", f"{day!r} is not a date in the form YYYY-MM-DD")


def test_it_rejects_an_unknown_format(bundle):
    bundle.add_event("E5", format="chess")

    assert_only_error(
        bundle, f"events.csv:{NEXT_EVENT_LINE}: format:", "unknown format 'chess'; known formats: block, booster-draft"
    )


def test_it_rejects_a_format_no_category_rates_at_the_events_team_size(bundle):
    bundle.add_event("E5", format="vtes", team_size=3)

    assert_only_error(
        bundle, f"events.csv:{NEXT_EVENT_LINE}: format:", "no rating category takes 'vtes' events with team size 3"
    )


def test_it_rejects_a_format_that_the_bundles_categories_no_longer_rate(bundle):
    bundle.add_category("limited", formats="sealed booster-draft")
    bundle.add_event("E5", format="rochester-draft")

    assert_only_error(
        bundle,
        f"events.csv:{NEXT_EVENT_LINE}: format:",
        "no rating category takes 'rochester-draft' events with team size 1",
    )


@pytest.mark.parametrize("k", ["12", "0", "64", "-16", "sixteen", "16.0"])
def test_it_rejects_an_unknown_k_value(bundle, k):
    bundle.add_event("E5", k=k)

    assert_only_error(
        bundle, f"events.csv:{NEXT_EVENT_LINE}: k:", f"{k!r} is not a K-value; use one of 8, 16, 24, 32, 40, 48"
    )


@pytest.mark.parametrize("players", ["0", "-3", "many", "8.5"])
def test_it_rejects_a_bad_number_of_players(bundle, players):
    bundle.add_event("E5", players=players)

    assert_only_error(
        bundle, f"events.csv:{NEXT_EVENT_LINE}: players:", f"{players!r} is not a positive number of players"
    )


@pytest.mark.parametrize("judge", ["yes", "true", "2", ""])
def test_it_rejects_a_level2_judge_flag_other_than_0_or_1(bundle, judge):
    bundle.add_event("E5", level2_judge=judge)

    assert_only_error(bundle, f"events.csv:{NEXT_EVENT_LINE}: level2_judge:", f"{judge!r} must be 0 or 1")


@pytest.mark.parametrize("team_size", ["2", "0", "4", "three"])
def test_it_rejects_a_team_size_other_than_1_or_3(bundle, team_size):
    bundle.add_event("E5", team_size=team_size)

    assert_only_error(
        bundle, f"events.csv:{NEXT_EVENT_LINE}: team_size:", f"{team_size!r} is not a team size; use 1 or 3"
    )


def test_it_rejects_an_unknown_structure(bundle):
    bundle.add_event("E5", structure="round-robin")

    assert_only_error(
        bundle,
        f"events.csv:{NEXT_EVENT_LINE}: structure:",
        "'round-robin' is not one of swiss, single-elimination, swiss-top8",
    )


def test_it_rejects_an_unknown_vekn_level(bundle):
    bundle.add_event("E5", level="world")

    assert_only_error(
        bundle,
        f"events.csv:{NEXT_EVENT_LINE}: level:",
        "'world' is not one of national, continental-qualifier, continental (or blank)",
    )


def test_it_rejects_a_bad_event_country(bundle):
    bundle.add_event("E5", country="XY")

    assert_only_error(bundle, f"events.csv:{NEXT_EVENT_LINE}: country:", "'XY' is not an ISO 3166-1 alpha-2 country")


def test_it_rejects_a_city_longer_than_100_characters(bundle):
    bundle.add_event("E5", city="c" * 101)

    assert_only_error(bundle, f"events.csv:{NEXT_EVENT_LINE}: city:", "the city is longer than 100 characters")


def test_it_rejects_a_vtes_event_without_standings(bundle):
    bundle.rows["standings.csv"] = []

    assert_only_error(bundle, "events.csv:5: format:", "vtes event E4 needs its standings in standings.csv")


def test_it_rejects_a_vtes_event_when_standings_csv_is_left_out(bundle):
    bundle.without("standings.csv")

    assert_only_error(bundle, "events.csv:5: format:", "vtes event E4 needs its standings in standings.csv")


def test_it_rejects_an_event_with_no_results(bundle):
    bundle.add_event("E5")

    assert_only_error(
        bundle, f"events.csv:{NEXT_EVENT_LINE}: id:", "event E5 has no results in matches.csv or standings.csv"
    )


def test_it_rejects_fewer_players_than_the_results_name(bundle):
    bundle.change_event("E2", players=3)

    assert_only_error(bundle, "events.csv:3: players:", "3 players, but the results name 4 participants")


def test_it_counts_standings_among_the_participants(bundle):
    bundle.change_event("E4", players=2)

    assert_only_error(bundle, "events.csv:5: players:", "2 players, but the results name 3 participants")
