"""Broken results bundles (SPEC 6): errors in matches.csv and standings.csv."""

import pytest

from organize.importer import results_import
from tests.organize.importing import (
    NEXT_EVENT_LINE,
    NEXT_MATCH_LINE,
    NEXT_STANDING_LINE,
    assert_only_error,
    rejected,
)

pytestmark = pytest.mark.django_db


# matches.csv ----------------------------------------------------------------------------


def test_it_rejects_a_match_in_an_unknown_event(bundle):
    bundle.add_match("E9", 1, "1001", "1002", 2, 0, 0)

    assert_only_error(bundle, f"matches.csv:{NEXT_MATCH_LINE}: event_id:", "unknown event 'E9': not in events.csv")


def test_it_rejects_a_match_in_an_event_whose_row_is_broken(bundle):
    bundle.add_event("E5", k="7")
    bundle.add_match("E5", 1, "1001", "1002", 2, 0, 0)

    assert rejected(bundle) == [
        f"events.csv:{NEXT_EVENT_LINE}: k: '7' is not a K-value; use one of 8, 16, 24, 32, 40, 48 (blank: 16)",
        f"matches.csv:{NEXT_MATCH_LINE}: event_id: unknown event 'E5': not in events.csv",
    ]


@pytest.mark.parametrize("round_number", ["0", "one", "", "-1", "1.5", "40000"])
def test_it_rejects_a_bad_round_number(bundle, round_number):
    bundle.add_match("E1", round_number, "1001", "1006", 2, 0, 0)

    assert_only_error(
        bundle, f"matches.csv:{NEXT_MATCH_LINE}: round:", f"{round_number!r} is not a round number (1 or more)"
    )


def test_it_rejects_a_match_without_player1(bundle):
    bundle.add_match("E1", 4, "", "1002", 0, 2, 0)

    assert_only_error(
        bundle, f"matches.csv:{NEXT_MATCH_LINE}: player1_id:", "player 1 is required (a bye leaves player2_id blank)"
    )


@pytest.mark.parametrize("column", ["player1_id", "player2_id"])
def test_it_rejects_a_player_neither_listed_nor_registered(bundle, column):
    players = ("9999", "1006") if column == "player1_id" else ("1006", "9999")
    bundle.add_match("E1", 4, *players, 2, 0, 0)

    assert_only_error(
        bundle,
        f"matches.csv:{NEXT_MATCH_LINE}: {column}:",
        "unknown player '9999': not in players.csv and not registered",
    )


def test_it_rejects_an_unknown_player_who_has_a_bye(bundle):
    bundle.add_match("E1", 4, "9999")

    assert_only_error(bundle, f"matches.csv:{NEXT_MATCH_LINE}: player1_id:", "unknown player '9999'")


def test_it_rejects_a_player_id_that_is_not_a_membership_number(bundle):
    bundle.add_match("E1", 4, "1006", "no such player", 2, 0, 0)

    assert_only_error(
        bundle, f"matches.csv:{NEXT_MATCH_LINE}: player2_id:", "'no such player' is not a membership number"
    )


def test_it_rejects_an_unknown_team_in_a_team_event(bundle):
    bundle.add_match("E3", 2, "T1", "T9", 2, 0, 0)

    assert_only_error(
        bundle,
        f"matches.csv:{NEXT_MATCH_LINE}: player2_id:",
        "unknown team 'T9': team events name teams from teams.csv",
    )


def test_it_rejects_a_player_id_in_a_team_event(bundle):
    bundle.add_match("E3", 2, "1001", "T2", 2, 0, 0)

    assert_only_error(bundle, f"matches.csv:{NEXT_MATCH_LINE}: player1_id:", "unknown team '1001'")


def test_it_rejects_a_team_id_in_an_individual_event(bundle):
    bundle.add_match("E1", 4, "T1", "1006", 2, 0, 0)

    assert_only_error(bundle, f"matches.csv:{NEXT_MATCH_LINE}: player1_id:", "unknown player 'T1': not in players.csv")


def test_it_rejects_a_player_playing_themselves(bundle):
    bundle.add_match("E1", 4, "1006", "1006", 2, 0, 0)

    assert_only_error(bundle, f"matches.csv:{NEXT_MATCH_LINE}: player2_id:", "1006 cannot play against themselves")


def test_it_rejects_a_team_playing_itself(bundle):
    bundle.add_match("E3", 2, "T2", "T2", 2, 0, 0)

    assert_only_error(bundle, f"matches.csv:{NEXT_MATCH_LINE}: player2_id:", "T2 cannot play against themselves")


@pytest.mark.parametrize(
    ("player1", "player2", "column", "twice", "first_line"),
    [
        ("1001", "1006", "player1_id", "1001", 2),  # player 1 before, player 1 again
        ("1004", "1006", "player1_id", "1004", 3),  # player 2 before, player 1 now
        ("1006", "1002", "player2_id", "1002", 2),  # player 2 before, player 2 again
        ("1006", "1003", "player2_id", "1003", 3),  # player 1 before, player 2 now
        ("1005", "", "player1_id", "1005", 4),  # a second bye
    ],
)
def test_it_rejects_a_participant_playing_twice_in_a_round(bundle, player1, player2, column, twice, first_line):
    bundle.add_match("E1", 1, player1, player2, 2, 0, 0)

    assert_only_error(
        bundle,
        f"matches.csv:{NEXT_MATCH_LINE}: {column}:",
        f"{twice} already plays in round 1 of event E1 (line {first_line})",
    )


def test_it_rejects_a_team_playing_twice_in_a_round(bundle):
    bundle.add_team("T3", ["1001", "1004", "1006"])
    bundle.add_match("E3", 1, "T3", "T2", 2, 0, 0)

    assert_only_error(
        bundle, f"matches.csv:{NEXT_MATCH_LINE}: player2_id:", "T2 already plays in round 1 of event E3 (line 10)"
    )


def test_the_same_pairing_may_play_again_in_another_round_or_event(bundle):
    bundle.add_match("E1", 4, "1001", "1002", 2, 0, 0)
    bundle.add_match("E2", 2, "1001", "1002", 0, 2, 0)

    report = results_import(source=bundle.write())

    assert report.matches.created == 11


@pytest.mark.parametrize(
    ("games1", "games2", "draws", "column", "bad"),
    [
        ("two", "0", "0", "player1_games", "two"),
        ("2", "-1", "0", "player2_games", "-1"),
        ("1.5", "0", "0", "player1_games", "1.5"),
        ("2", "99999", "0", "player2_games", "99999"),
        ("2", "0", "x", "draws", "x"),
        ("2", "0", "-1", "draws", "-1"),
    ],
)
def test_it_rejects_a_bad_number_of_games(bundle, games1, games2, draws, column, bad):
    bundle.add_match("E1", 4, "1006", "1002", games1, games2, draws)

    assert_only_error(
        bundle, f"matches.csv:{NEXT_MATCH_LINE}: {column}:", f"{bad!r} is not a number of games (0 or more)"
    )


def test_it_requires_both_players_games_unless_the_match_is_a_bye(bundle):
    bundle.add_match("E1", 4, "1006", "1002", "", "", "")

    assert rejected(bundle) == [
        f"matches.csv:{NEXT_MATCH_LINE}: player1_games: '' is not a number of games (0 or more)",
        f"matches.csv:{NEXT_MATCH_LINE}: player2_games: '' is not a number of games (0 or more)",
    ]


@pytest.mark.parametrize("flag", ["yes", "2", "true", "-"])
def test_it_rejects_an_elimination_flag_other_than_0_1_or_blank(bundle, flag):
    bundle.add_match("E1", 4, "1006", "1002", 2, 0, 0, elimination=flag)

    assert_only_error(bundle, f"matches.csv:{NEXT_MATCH_LINE}: elimination:", f"{flag!r} must be 0 or 1")


@pytest.mark.parametrize(("games1", "games2", "draws"), [(1, 1, 1), (0, 0, 3), (2, 2, 0)])
def test_it_rejects_a_drawn_elimination_match(bundle, games1, games2, draws):
    bundle.add_match("E1", 4, "1006", "1002", games1, games2, draws, elimination=1)

    assert_only_error(
        bundle,
        f"matches.csv:{NEXT_MATCH_LINE}: player2_games:",
        f"an elimination-round match cannot be a draw ({games1}-{games2}); report the winner",
    )


def test_an_elimination_round_bye_is_not_a_draw(bundle):
    bundle.add_match("E1", 4, "1006", elimination=1)

    report = results_import(source=bundle.write())

    assert report.matches.created == 10


def test_it_rejects_a_team_playing_itself_under_another_id(bundle):
    bundle.add_team("T1B", ["1003", "1002", "1001"])
    bundle.add_match("E3", 2, "T1", "T1B", 2, 0, 0)

    errors = rejected(bundle)

    assert len(errors) == 1
    assert errors[0].startswith(f"matches.csv:{NEXT_MATCH_LINE}: player2_id: ")


# standings.csv -------------------------------------------------------------------------


def test_it_rejects_a_standing_in_an_unknown_event(bundle):
    bundle.add_standing("E9", "1002", 1)

    assert_only_error(bundle, f"standings.csv:{NEXT_STANDING_LINE}: event_id:", "unknown event 'E9': not in events.csv")


def test_it_rejects_a_standing_without_a_player(bundle):
    bundle.add_standing("E4", "", 4)

    assert_only_error(bundle, f"standings.csv:{NEXT_STANDING_LINE}: player_id:", "a player is required")


def test_it_rejects_a_standing_for_an_unknown_player(bundle):
    bundle.add_standing("E4", "9999", 4)

    assert_only_error(
        bundle,
        f"standings.csv:{NEXT_STANDING_LINE}: player_id:",
        "unknown player '9999': not in players.csv and not registered",
    )


def test_it_rejects_a_player_with_two_standings_in_one_event(bundle):
    bundle.add_standing("E4", "1004", 4)

    assert_only_error(
        bundle, f"standings.csv:{NEXT_STANDING_LINE}: player_id:", "1004 already has a standing in event E4 (line 3)"
    )


def test_a_player_may_have_standings_in_two_events(bundle):
    bundle.add_standing("E1", "1001", 1, vp="0", gw=6)

    report = results_import(source=bundle.write())

    assert report.standings.created == 4


@pytest.mark.parametrize("rank", ["0", "first", "", "-1", "2.5"])
def test_it_rejects_a_bad_rank(bundle, rank):
    bundle.add_standing("E4", "1002", rank)

    assert_only_error(bundle, f"standings.csv:{NEXT_STANDING_LINE}: rank:", f"{rank!r} is not a rank (1 or more)")


@pytest.mark.parametrize("vp", ["1.25", "-1", "0.3", "three", "1,5", "1e2", "123456"])
def test_it_rejects_victory_points_that_are_not_halves(bundle, vp):
    bundle.add_standing("E4", "1002", 4, vp=vp)

    assert_only_error(
        bundle,
        f"standings.csv:{NEXT_STANDING_LINE}: vp:",
        f"{vp!r} is not a number of victory points (halves allowed)",
    )


@pytest.mark.parametrize("gw", ["-1", "two", "1.5"])
def test_it_rejects_a_bad_number_of_game_wins(bundle, gw):
    bundle.add_standing("E4", "1002", 4, gw=gw)

    assert_only_error(
        bundle, f"standings.csv:{NEXT_STANDING_LINE}: gw:", f"{gw!r} is not a number of game wins (0 or more)"
    )


@pytest.mark.parametrize("final", ["champion", "1", "loser"])
def test_it_rejects_a_final_placing_other_than_winner_finalist_or_blank(bundle, final):
    bundle.add_standing("E4", "1002", 4, final=final)

    assert_only_error(
        bundle, f"standings.csv:{NEXT_STANDING_LINE}: final:", f"{final!r} must be winner, finalist or blank"
    )


def test_it_rejects_a_second_winner_of_an_event(bundle):
    bundle.add_standing("E4", "1002", 4, final="Winner")

    assert_only_error(bundle, f"standings.csv:{NEXT_STANDING_LINE}: final:", "event E4 already has a winner (line 2)")
