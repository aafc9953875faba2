"""Broken results bundles (SPEC 6): every error is located as `file:line: column: message`, all are reported
at once, and nothing is saved. Here: the bundle and its files as a whole, many errors at once, the command."""

import io
import subprocess
import sys
import zipfile

import pytest
from django.conf import settings
from django.core.management import call_command
from django.core.management.base import CommandError
from django.utils import translation

from organize.importer import BundleError, BundleInvalid, results_import
from tests.bundles import DEFAULT_COUNTS, db_counts, db_snapshot
from tests.organize.importing import (
    NEXT_MATCH_LINE,
    NEXT_PLAYER_LINE,
    NEXT_STANDING_LINE,
    assert_only_error,
    rejected,
)

pytestmark = pytest.mark.django_db


# nothing is saved -------------------------------------------------------------


def test_it_saves_nothing_when_one_row_is_bad_and_the_rest_are_good(bundle):
    bundle.add_player("2001", country="XX")

    errors = rejected(bundle)

    assert errors == [f"players.csv:{NEXT_PLAYER_LINE}: country: 'XX' is not an ISO 3166-1 alpha-2 country code"]
    assert db_counts() == dict.fromkeys(DEFAULT_COUNTS, 0)


def test_the_players_written_while_the_matches_are_checked_are_taken_back_when_a_match_is_bad(bundle):
    bundle.add_player("2001", "Newcomer")
    bundle.add_match("E1", 1, "2001", "1004", "two", 0, 0)

    errors = rejected(bundle)  # which holds that nothing was saved

    assert errors == [f"matches.csv:{NEXT_MATCH_LINE}: player1_games: 'two' is not a number of games (0 or more)"]
    assert db_counts() == dict.fromkeys(DEFAULT_COUNTS, 0)


def test_the_matches_are_checked_in_the_language_of_the_import(bundle):
    # On a thread of their own, which would start in the site's default language.
    bundle.add_match("E9", 1, "1001", "1002", 2, 0, 0)

    with translation.override("de"):
        errors = rejected(bundle)

    assert errors == [f"matches.csv:{NEXT_MATCH_LINE}: event_id: unbekanntes Turnier 'E9': nicht in events.csv"]


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
