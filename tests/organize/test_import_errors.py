"""Broken results bundles (SPEC 6): every error is located as `file:line: column: message`,
all are reported at once, and nothing is saved."""

import io
import subprocess
import sys
import zipfile

import pytest
from django.conf import settings
from django.core.management import call_command
from django.core.management.base import CommandError

from organize.importer import BundleError, BundleInvalid, results_import
from ratings.models import Category
from tests.bundles import DEFAULT_COUNTS, Bundle, db_counts, db_snapshot

pytestmark = pytest.mark.django_db

# The default bundle's last lines: rows added by a test come right after them.
NEXT_PLAYER_LINE = 8
NEXT_TEAM_LINE = 4
NEXT_EVENT_LINE = 6
NEXT_MATCH_LINE = 11
NEXT_STANDING_LINE = 5


@pytest.fixture
def bundle(tmp_path):
    return Bundle(tmp_path)


def rejected(source) -> list[str]:
    """Import `source` (a Bundle or a path), which must fail; check nothing was saved; the errors as text."""
    path = source.write() if isinstance(source, Bundle) else source
    before, categories = db_counts(), set(Category.objects.values_list())
    with pytest.raises(BundleInvalid) as invalid:
        results_import(source=path)
    assert db_counts() == before
    assert set(Category.objects.values_list()) == categories
    return [str(error) for error in invalid.value.errors]


def assert_only_error(source, where: str, message: str) -> None:
    """The import fails with one error, at `where` ("file:line: column:"), saying `message` (or more)."""
    errors = rejected(source)
    assert len(errors) == 1, errors
    assert errors[0].startswith(f"{where} "), errors
    assert message in errors[0], errors


# nothing is saved -------------------------------------------------------------


def test_it_saves_nothing_when_one_row_is_bad_and_the_rest_are_good(bundle):
    bundle.add_player("2001", country="XX")

    errors = rejected(bundle)

    assert errors == [f"players.csv:{NEXT_PLAYER_LINE}: country: 'XX' is not an ISO 3166-1 alpha-2 country code"]
    assert db_counts() == dict.fromkeys(DEFAULT_COUNTS, 0)


def test_it_changes_nothing_stored_when_a_reimport_has_an_error(bundle):
    results_import(source=bundle.write())
    before = db_snapshot()
    bundle.change_player("1001", name="Alice Changed", country="AT", region="")
    bundle.change_event("E1", name="Renamed", k=48)
    bundle.change_match("E1", 2, "1001", player1_games=0, player2_games=2)
    bundle.remove("matches.csv", event_id="E2", player1_id="1002")
    bundle.add_player("2001", "Newcomer")
    bundle.add_event("E5", format="sealed")
    bundle.add_match("E5", 1, "1001", "2001", 2, 0, 0)
    bundle.add_category("classic", ruleset="dci-1997")
    bundle.add_standing("E4", "1002", 4, vp="-1")

    errors = rejected(bundle)

    assert errors == [
        f"standings.csv:{NEXT_STANDING_LINE}: vp: '-1' is not a number of victory points (halves allowed)"
    ]
    assert db_snapshot() == before


def test_a_dry_run_of_a_broken_bundle_fails_the_same_way(bundle):
    bundle.add_player("2001", country="XX")

    with pytest.raises(BundleInvalid) as invalid:
        results_import(source=bundle.write(), dry_run=True)

    assert [str(error) for error in invalid.value.errors] == [
        f"players.csv:{NEXT_PLAYER_LINE}: country: 'XX' is not an ISO 3166-1 alpha-2 country code"
    ]


def test_each_error_is_a_bundle_error_with_file_line_column_and_message(bundle):
    bundle.add_player("2001", name="")

    with pytest.raises(BundleInvalid) as invalid:
        results_import(source=bundle.write())

    assert invalid.value.errors == [BundleError("players.csv", NEXT_PLAYER_LINE, "name", "a name is required")]
    assert str(invalid.value) == f"players.csv:{NEXT_PLAYER_LINE}: name: a name is required"


# the bundle and its files ---------------------------------------------------------


@pytest.mark.parametrize("file", ["players.csv", "events.csv", "matches.csv"])
def test_it_rejects_a_bundle_without_a_required_file(bundle, file):
    bundle.without(file)

    assert_only_error(bundle, f"{file}:0: -:", "required file is missing from the bundle")


def test_it_reports_every_missing_required_file_at_once(bundle):
    bundle.without("players.csv", "matches.csv")

    errors = rejected(bundle)

    assert errors == [
        "players.csv:0: -: required file is missing from the bundle",
        "matches.csv:0: -: required file is missing from the bundle",
    ]


def test_it_rejects_a_bundle_that_does_not_exist(tmp_path):
    missing = tmp_path / "nowhere"

    assert_only_error(missing, f"{missing}:0: -:", "the bundle does not exist")


def test_it_rejects_a_bundle_that_is_neither_a_folder_nor_a_zip(tmp_path):
    path = tmp_path / "results.tar"
    path.write_bytes(b"not a bundle")

    assert_only_error(path, f"{path}:0: -:", "is neither a folder nor a .zip file")


def test_it_rejects_a_zip_that_is_not_a_zip(tmp_path):
    path = tmp_path / "results.zip"
    path.write_bytes(b"players.csv,events.csv")

    assert_only_error(path, "results.zip:1: -:", "not a valid .zip file")


def test_it_rejects_a_zip_holding_two_files_of_the_same_name(bundle, tmp_path):
    path = tmp_path / "twice.zip"
    with zipfile.ZipFile(path, "w") as archive:
        for file, data in bundle.files().items():
            archive.writestr(file, data)
        archive.writestr("old/players.csv", bundle.text("players.csv"))

    assert_only_error(path, "players.csv:1: -:", "the archive holds more than one players.csv")


def test_it_rejects_a_zip_that_unpacks_to_too_much(bundle, settings):
    settings.IMPORT_MAX_BYTES = 100

    path = bundle.zip()

    assert_only_error(path, f"{path.name}:1: -:", "more than the 100 allowed")


def test_it_rejects_a_folder_that_holds_too_much(bundle, settings):
    settings.IMPORT_MAX_BYTES = 100

    path = bundle.write()

    assert_only_error(path, f"{path.name}:1: -:", "more than the 100 allowed")


def test_it_reports_a_required_file_missing_from_a_zip(bundle):
    bundle.without("events.csv")

    assert_only_error(bundle.zip(inside="results"), "events.csv:0: -:", "required file is missing from the bundle")


@pytest.mark.parametrize(
    ("file", "column"),
    [
        ("players.csv", "name"),
        ("teams.csv", "member3"),
        ("events.csv", "level2_judge"),
        ("events.csv", "k"),
        ("matches.csv", "draws"),
        ("matches.csv", "player2_id"),
        ("standings.csv", "final"),
        ("categories.csv", "ranked_after"),
    ],
)
def test_it_rejects_a_file_missing_a_required_column(bundle, file, column):
    bundle.absent.discard(file)
    bundle.drop_column(file, column)

    assert_only_error(bundle, f"{file}:1: {column}:", "required column is missing from the header")


def test_it_reports_every_missing_column_of_every_file(bundle):
    bundle.drop_column("players.csv", "id").drop_column("players.csv", "name").drop_column("standings.csv", "rank")

    assert rejected(bundle) == [
        "players.csv:1: id: required column is missing from the header",
        "players.csv:1: name: required column is missing from the header",
        "standings.csv:1: rank: required column is missing from the header",
    ]


@pytest.mark.parametrize("file", ["players.csv", "matches.csv", "teams.csv", "standings.csv"])
def test_it_rejects_an_empty_file(bundle, file):
    bundle.write_raw(file, b"")

    assert_only_error(bundle, f"{file}:1: -:", "the file is empty: a header row is required")


def test_it_rejects_a_file_that_is_not_utf8_at_the_line_of_the_bad_byte(bundle):
    latin1 = bundle.text("players.csv").replace("Chloé".encode(), "Chloé".encode("latin-1"))
    bundle.write_raw("players.csv", latin1)

    assert_only_error(bundle, "players.csv:4: -:", "the file is not valid UTF-8 text")  # Chloé is on line 4


def test_it_finds_the_bad_byte_on_a_later_line_of_a_file_with_a_byte_order_mark(bundle):
    latin1 = bundle.text("players.csv").replace("Chloé".encode(), "Chloé".encode("latin-1"))
    bundle.write_raw("players.csv", b"\xef\xbb\xbf" + latin1)

    assert_only_error(bundle, "players.csv:4: -:", "the file is not valid UTF-8 text")


def test_it_reports_the_right_line_for_a_bad_byte_at_the_start_of_a_line_after_a_byte_order_mark(bundle):
    data = "name,id,country,region\nAlice Archer,1001,DE,DE-BY\nÉmile Zola,2001,FR,\n".encode("latin-1")
    bundle.write_raw("players.csv", b"\xef\xbb\xbf" + data)

    assert_only_error(bundle, "players.csv:3: -:", "the file is not valid UTF-8 text")


def test_it_reports_the_bad_byte_of_every_file_that_is_not_utf8(bundle):
    bundle.write_raw("players.csv", bundle.text("players.csv").replace("Chloé".encode(), "Chlo\xe9".encode("cp1252")))
    bundle.write_raw("teams.csv", bundle.text("teams.csv") + "T3,Équipe,1001,1004,1006\n".encode("cp1252"))

    assert rejected(bundle) == [
        "players.csv:4: -: the file is not valid UTF-8 text",
        "teams.csv:4: -: the file is not valid UTF-8 text",
    ]


def test_it_rejects_rows_with_more_or_fewer_fields_than_the_header(bundle):
    bundle.write_raw("players.csv", bundle.text("players.csv") + b"2001,Extra Field,DE,,oops\n2002,Too Short\n")

    assert rejected(bundle) == [
        f"players.csv:{NEXT_PLAYER_LINE}: -: expected 4 fields as in the header, found 5",
        f"players.csv:{NEXT_PLAYER_LINE + 1}: -: expected 4 fields as in the header, found 2",
    ]


def test_it_counts_lines_of_quoted_fields_with_newlines_in_them(bundle):
    text = bundle.text("players.csv") + b'2001,"Two\nLines",DE,\n2002,Bad Country,XX,\n'
    bundle.write_raw("players.csv", text)

    # The record of two lines starts on its first; the next record's line counts both.
    assert [str(error) for error in rejected(bundle)] == [
        f"players.csv:{NEXT_PLAYER_LINE}: name: the name holds a control character (U+000A)",
        f"players.csv:{NEXT_PLAYER_LINE + 2}: country: 'XX' is not an ISO 3166-1 alpha-2 country code",
    ]


def test_blank_lines_do_not_shift_the_line_numbers(bundle):
    bundle.write_raw("players.csv", bundle.text("players.csv") + b"\n  \n2001,Bad Country,XX,\n")

    assert_only_error(bundle, f"players.csv:{NEXT_PLAYER_LINE + 2}: country:", "'XX' is not an ISO 3166-1")


def test_line_numbers_are_right_with_windows_line_endings_and_a_byte_order_mark(bundle):
    bundle.add_player("2001", country="XX")
    crlf = b"\xef\xbb\xbf" + bundle.text("players.csv").replace(b"\n", b"\r\n")
    bundle.write_raw("players.csv", crlf)

    assert_only_error(bundle, f"players.csv:{NEXT_PLAYER_LINE}: country:", "'XX' is not an ISO 3166-1")


def test_it_rejects_malformed_csv(bundle):
    bundle.add_player("2001", name="x" * 200_000)

    assert_only_error(bundle, f"players.csv:{NEXT_PLAYER_LINE}: -:", "malformed CSV: field larger than field limit")


def test_it_rejects_a_malformed_header(bundle):
    bundle.write_raw("players.csv", b"id," + b"x" * 200_000 + b"\n1001,Alice\n")

    assert_only_error(bundle, "players.csv:1: -:", "malformed CSV")


# players.csv --------------------------------------------------------------------


@pytest.mark.parametrize("number", ["10 01", "1001!", "Ärger", "1" * 33], ids=["space", "punctuation", "umlaut", "33"])
def test_it_rejects_a_bad_membership_number(bundle, number):
    bundle.add_player(number)

    assert_only_error(bundle, f"players.csv:{NEXT_PLAYER_LINE}: id:", f"{number!r} is not a membership number")


def test_it_rejects_a_blank_membership_number(bundle):
    bundle.add_player("")

    assert_only_error(bundle, f"players.csv:{NEXT_PLAYER_LINE}: id:", "'' is not a membership number")


def test_it_rejects_a_player_listed_twice(bundle):
    bundle.add_player("1003", "Chloe Dubois")

    assert_only_error(bundle, f"players.csv:{NEXT_PLAYER_LINE}: id:", "player 1003 is already listed on line 4")


def test_it_rejects_a_player_without_a_name(bundle):
    bundle.add_player("2001", name="   ")

    assert_only_error(bundle, f"players.csv:{NEXT_PLAYER_LINE}: name:", "a name is required")


def test_it_rejects_a_name_longer_than_200_characters(bundle):
    bundle.add_player("2001", name="x" * 201)

    assert_only_error(bundle, f"players.csv:{NEXT_PLAYER_LINE}: name:", "the name is longer than 200 characters")


def test_it_accepts_a_name_of_exactly_200_characters(bundle):
    bundle.add_player("2001", name="x" * 200)

    report = results_import(source=bundle.write())

    assert report.players.created == 7


@pytest.mark.parametrize("country", ["XX", "DEU", "Germany", "D"])
def test_it_rejects_a_bad_country(bundle, country):
    bundle.add_player("2001", country=country)

    assert_only_error(
        bundle,
        f"players.csv:{NEXT_PLAYER_LINE}: country:",
        f"{country.upper()!r} is not an ISO 3166-1 alpha-2 country code",
    )


@pytest.mark.parametrize("region", ["DE-ZZ", "BY", "Bavaria"])
def test_it_rejects_a_bad_region(bundle, region):
    bundle.add_player("2001", country="DE", region=region)

    assert_only_error(
        bundle, f"players.csv:{NEXT_PLAYER_LINE}: region:", f"{region.upper()!r} is not an ISO 3166-2 region code"
    )


def test_it_rejects_a_region_outside_the_players_country(bundle):
    bundle.add_player("2001", country="FR", region="DE-BY")

    assert_only_error(bundle, f"players.csv:{NEXT_PLAYER_LINE}: region:", "region DE-BY is not in country FR")


def test_it_reports_every_error_of_a_row_in_column_order(bundle):
    bundle.add_player("bad id", name="", country="XX")

    assert rejected(bundle) == [
        f"players.csv:{NEXT_PLAYER_LINE}: id: 'bad id' is not a membership number (1-32 letters, digits, hyphens)",
        f"players.csv:{NEXT_PLAYER_LINE}: name: a name is required",
        f"players.csv:{NEXT_PLAYER_LINE}: country: 'XX' is not an ISO 3166-1 alpha-2 country code",
    ]


# teams.csv --------------------------------------------------------------------------


def test_it_rejects_a_team_id_listed_twice(bundle):
    bundle.add_team("T2", ["1001", "1004", "1006"])

    assert_only_error(bundle, f"teams.csv:{NEXT_TEAM_LINE}: id:", "team T2 is already listed on line 3")


def test_it_rejects_a_team_without_an_id(bundle):
    bundle.add_team("", ["1001", "1004", "1006"])

    assert_only_error(bundle, f"teams.csv:{NEXT_TEAM_LINE}: id:", "a team id of 1 to 64 characters is required")


def test_it_rejects_a_team_id_longer_than_64_characters(bundle):
    bundle.add_team("T" * 65, ["1001", "1004", "1006"])

    assert_only_error(bundle, f"teams.csv:{NEXT_TEAM_LINE}: id:", "a team id of 1 to 64 characters is required")


def test_it_rejects_a_team_name_longer_than_200_characters(bundle):
    bundle.add_team("T3", ["1001", "1004", "1006"], name="n" * 201)

    assert_only_error(bundle, f"teams.csv:{NEXT_TEAM_LINE}: name:", "the name is longer than 200 characters")


@pytest.mark.parametrize("position", [1, 2, 3])
def test_it_rejects_a_team_with_a_member_missing(bundle, position):
    members = ["1001", "1004", "1006"]
    members[position - 1] = ""
    bundle.add_team("T3", members)

    assert_only_error(
        bundle, f"teams.csv:{NEXT_TEAM_LINE}: member{position}:", "a member's membership number is required"
    )


def test_it_rejects_a_team_with_the_same_member_twice(bundle):
    bundle.add_team("T3", ["1001", "1004", "1001"])

    assert_only_error(bundle, f"teams.csv:{NEXT_TEAM_LINE}: member3:", "player 1001 is already a member of this team")


def test_it_rejects_a_team_member_who_is_neither_listed_nor_registered(bundle):
    bundle.add_team("T3", ["1001", "9999", "1006"])

    assert_only_error(
        bundle, f"teams.csv:{NEXT_TEAM_LINE}: member2:", "unknown player '9999': not in players.csv and not registered"
    )


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


# categories.csv --------------------------------------------------------------------------


@pytest.mark.parametrize("slug", ["Bad Slug", "Constructed", "-leading-hyphen", "", "s" * 51])
def test_it_rejects_a_bad_category_slug(bundle, slug):
    bundle.add_category(slug, name="Some Category")

    assert_only_error(bundle, "categories.csv:2: slug:", f"{slug!r} is not a slug (lowercase letters, digits, hyphens)")


def test_it_rejects_a_category_defined_twice(bundle):
    bundle.add_category("pauper", formats="pauper")
    bundle.add_category("pauper", formats="pauper-draft")

    assert_only_error(bundle, "categories.csv:3: slug:", "category 'pauper' is already defined on line 2")


def test_it_rejects_a_category_without_a_name(bundle):
    bundle.add_category("pauper", name="", formats="pauper")

    assert_only_error(bundle, "categories.csv:2: name:", "a name is required")


@pytest.mark.parametrize("ruleset", ["glicko", "DCI-2001", ""])
def test_it_rejects_an_unknown_ruleset(bundle, ruleset):
    bundle.add_category("pauper", ruleset=ruleset, formats="pauper")

    assert_only_error(
        bundle,
        "categories.csv:2: ruleset:",
        f"unknown ruleset {ruleset!r}; use one of dci-2001, dci-1997, match-points, vekn, derived",
    )


def test_it_rejects_a_rated_category_without_formats(bundle):
    bundle.add_category("pauper", formats="  ")

    assert_only_error(bundle, "categories.csv:2: formats:", "at least one format is required")


def test_it_rejects_a_bad_format_name(bundle):
    bundle.add_category("pauper", formats="pauper Pauper!")

    assert_only_error(bundle, "categories.csv:2: formats:", "'Pauper!' is not a format name")


def test_it_rejects_a_derived_category_without_components(bundle):
    bundle.add_category("overall", ruleset="derived", formats="")

    assert_only_error(bundle, "categories.csv:2: components:", "a derived category needs its component categories")


@pytest.mark.parametrize("team_size", ["2", "0", "many"])
def test_it_rejects_a_category_team_size_other_than_1_or_3(bundle, team_size):
    bundle.add_category("pauper", formats="pauper", team_size=team_size)

    assert_only_error(bundle, "categories.csv:2: team_size:", f"{team_size!r} is not a team size; use 1 or 3")


@pytest.mark.parametrize("ranked_after", ["ten", "", "-1", "2.5"])
def test_it_rejects_a_bad_ranked_after(bundle, ranked_after):
    bundle.add_category("pauper", formats="pauper", ranked_after=ranked_after)

    assert_only_error(bundle, "categories.csv:2: ranked_after:", f"{ranked_after!r} is not a whole number of matches")


# many errors at once -------------------------------------------------------------------


def test_it_reports_every_error_of_every_file_at_once_in_file_then_line_order(bundle):
    bundle.add_standing("E4", "1002", 4, vp="1.25")  # standings.csv:5
    bundle.add_match("E1", 4, "1006", "9999", 2, 0, 0)  # matches.csv:11, found only once the database is asked
    bundle.add_match("E1", "four", "1006", "1002", 2, 0, 0)  # matches.csv:12
    bundle.add_event("E5", k="12")  # events.csv:6
    bundle.add_event("E6", date="2024-02-30")  # events.csv:7
    bundle.add_event("E7")  # events.csv:8, no results: found after all results are read
    bundle.add_team("T3", ["1001", "1004", "8888"])  # teams.csv:4, unknown member
    bundle.add_team("T1", ["1001", "1004", "1006"])  # teams.csv:5
    bundle.add_player("2001", country="XX")  # players.csv:8
    bundle.add_player("1001", "Alice Again")  # players.csv:9
    bundle.add_category("Bad Slug")  # categories.csv:2

    errors = rejected(bundle)

    assert [error.split(" ", 2)[:2] for error in errors] == [
        ["categories.csv:2:", "slug:"],
        ["players.csv:8:", "country:"],
        ["players.csv:9:", "id:"],
        ["teams.csv:4:", "member3:"],
        ["teams.csv:5:", "id:"],
        ["events.csv:6:", "k:"],
        ["events.csv:7:", "date:"],
        ["events.csv:8:", "id:"],
        ["matches.csv:11:", "player2_id:"],
        ["matches.csv:12:", "round:"],
        ["standings.csv:5:", "vp:"],
    ]
    assert "unknown player '8888'" in errors[3]
    assert "event E7 has no results" in errors[7]
    assert "unknown player '9999'" in errors[8]


# the command ---------------------------------------------------------------------------


def test_the_command_raises_command_error_and_writes_each_error_to_stderr(bundle):
    bundle.add_player("2001", country="XX")
    bundle.add_match("E1", 0, "1006", "1002", 2, 0, 0)
    err = io.StringIO()

    with pytest.raises(CommandError, match=r"^2 error\(s\); nothing was saved\.$"):
        call_command("import_results", str(bundle.write()), stdout=io.StringIO(), stderr=err)

    assert err.getvalue().splitlines() == [
        f"players.csv:{NEXT_PLAYER_LINE}: country: 'XX' is not an ISO 3166-1 alpha-2 country code",
        f"matches.csv:{NEXT_MATCH_LINE}: round: '0' is not a round number (1 or more)",
    ]
    assert db_counts() == dict.fromkeys(DEFAULT_COUNTS, 0)


def test_the_command_with_dry_run_also_fails_on_a_broken_bundle(bundle):
    bundle.without("matches.csv")

    with pytest.raises(CommandError):
        call_command("import_results", str(bundle.write()), "--dry-run", stdout=io.StringIO(), stderr=io.StringIO())


def test_manage_py_import_results_exits_with_status_1_and_prints_each_error(bundle):
    # Errors found while reading the files, so the command never needs the database.
    bundle.drop_column("players.csv", "name")
    bundle.write_raw("matches.csv", b"")

    result = subprocess.run(
        [sys.executable, "manage.py", "import_results", str(bundle.write())],
        cwd=settings.BASE_DIR,
        capture_output=True,
        text=True,
        timeout=120,
    )

    assert result.returncode == 1, result.stderr
    lines = result.stderr.splitlines()
    assert "players.csv:1: name: required column is missing from the header" in lines
    assert "matches.csv:1: -: the file is empty: a header row is required" in lines
    assert "CommandError: 2 error(s); nothing was saved." in lines
    assert "Import complete." not in result.stdout
