"""Successful imports of results bundles (SPEC 6): what a re-import changes, dry runs, and the command."""

import datetime
import io
import re
from decimal import Decimal

import pytest
from django.core.management import call_command

from events.models import Event, Match, Standing
from players.models import Player, Team
from ratings.models import Category
from tests.bundles import DEFAULT_COUNTS, Bundle, db_counts, db_snapshot
from tests.organize.importing import (
    E1_DATE,
    E2_DATE,
    E3_DATE,
    E4_DATE,
    FIRST_IMPORT_AFFECTED,
    participant,
    run,
    tally,
    the_match,
)

pytestmark = pytest.mark.django_db


# importing again ------------------------------------------------------------


def test_importing_the_same_bundle_twice_changes_nothing(bundle):
    run(bundle)
    before = db_snapshot()

    report = run(bundle)

    assert db_snapshot() == before
    assert not report.changed
    assert report.affected == {}
    assert tally(report, "players") == (0, 0, 0, 6)
    assert tally(report, "teams") == (0, 0, 0, 2)
    assert tally(report, "events") == (0, 0, 0, 4)
    assert tally(report, "matches") == (0, 0, 0, 9)
    assert tally(report, "standings") == (0, 0, 0, 3)
    assert str(report).splitlines()[-1] == "  nothing changed"


def test_reimporting_with_a_changed_player_name_and_country_updates_the_player(bundle):
    run(bundle)
    player_id = Player.objects.get(membership_number="1002").pk
    bundle.change_player("1002", name="Bruno Becker-Braun", country="AT", region="AT-9")

    report = run(bundle)

    player = Player.objects.get(membership_number="1002")
    assert (player.pk, player.name, player.country.code, player.region) == (
        player_id,
        "Bruno Becker-Braun",
        "AT",
        "AT-9",
    )
    assert tally(report, "players") == (0, 1, 0, 5)
    assert Player.objects.count() == 6
    assert report.affected == {}  # who a player is does not change any rating


def test_reimporting_with_a_changed_match_result_updates_the_match_in_place(bundle):
    run(bundle)
    match = the_match("E1", 2, "1001")
    bundle.change_match("E1", 2, "1001", player1_games=0, player2_games=2, draws=1)

    report = run(bundle)

    updated = Match.objects.get(pk=match.pk)
    assert (updated.games1, updated.games2, updated.draws) == (0, 2, 1)
    assert tally(report, "matches") == (0, 1, 0, 8)
    assert Match.objects.count() == 9
    assert report.affected == {"constructed": E1_DATE, "composite": E1_DATE}


def test_reimporting_with_a_changed_elimination_flag_updates_the_match(bundle):
    run(bundle)
    bundle.change_match("E1", 3, "1001", elimination=0)

    report = run(bundle)

    assert the_match("E1", 3, "1001").elimination is False
    assert tally(report, "matches") == (0, 1, 0, 8)


def test_a_match_removed_from_the_bundle_is_deleted_and_a_new_one_created(bundle):
    run(bundle)
    removed = the_match("E2", 1, "1002")
    bundle.remove("matches.csv", event_id="E2", player1_id="1002")
    bundle.add_match("E2", 1, "1002", "1004", 2, 0, 0)

    report = run(bundle)

    assert not Match.objects.filter(pk=removed.pk).exists()
    added = the_match("E2", 1, "1002")
    assert (added.participant2_id, added.games1, added.games2) == (participant("1004"), 2, 0)
    assert tally(report, "matches") == (1, 0, 1, 8)
    assert Match.objects.count() == 9
    assert report.affected == {"limited": E2_DATE, "composite": E2_DATE}


def test_a_pairing_written_the_other_way_round_is_unchanged(bundle):
    run(bundle)
    match = the_match("E1", 1, "1001")
    bundle.change_match("E1", 1, "1001", player1_id="1002", player2_id="1001", player1_games=1, player2_games=2)

    report = run(bundle)

    assert tally(report, "matches") == (0, 0, 0, 9)
    assert report.affected == {}
    stored = Match.objects.get(pk=match.pk)
    assert (stored.participant1_id, stored.participant2_id, stored.games1, stored.games2) == (
        participant("1001"),
        participant("1002"),
        2,
        1,
    )


def test_a_pairing_written_the_other_way_round_with_a_new_result_is_updated(bundle):
    run(bundle)
    match = the_match("E1", 1, "1001")
    bundle.change_match("E1", 1, "1001", player1_id="1002", player2_id="1001", player1_games=2, player2_games=0)

    report = run(bundle)

    assert tally(report, "matches") == (0, 1, 0, 8)
    stored = Match.objects.get(pk=match.pk)
    # Still stored the first way round, with the games turned to match.
    assert (stored.participant1_id, stored.games1, stored.games2) == (participant("1001"), 0, 2)


def test_reimporting_with_a_changed_standing_updates_it(bundle):
    run(bundle)
    standing = Standing.objects.get(participant_id=participant("1006"))
    bundle.change("standings.csv", bundle.find("standings.csv", player_id="1006"), vp="1.5", gw=1)

    report = run(bundle)

    standing.refresh_from_db()
    assert (standing.vp, standing.gw) == (Decimal("1.5"), 1)
    assert tally(report, "standings") == (0, 1, 0, 2)
    assert report.affected == {"vtes": E4_DATE}


def test_a_standing_removed_from_the_bundle_is_deleted(bundle):
    run(bundle)
    bundle.remove("standings.csv", player_id="1006")

    report = run(bundle)

    assert not Standing.objects.filter(participant_id=participant("1006")).exists()
    assert tally(report, "standings") == (0, 0, 1, 2)


def test_reimporting_with_a_changed_event_name_updates_it_without_affecting_ratings(bundle):
    run(bundle)
    event_id = Event.objects.get(code="E2").pk
    bundle.change_event("E2", name="Paris Booster Draft")

    report = run(bundle)

    assert Event.objects.get(pk=event_id).name == "Paris Booster Draft"
    assert tally(report, "events") == (0, 1, 0, 3)
    assert report.affected == {}


def test_moving_an_event_later_affects_ratings_from_its_old_date(bundle):
    run(bundle)
    bundle.change_event("E1", date="2003-09-01")

    report = run(bundle)

    assert Event.objects.get(code="E1").date == datetime.date(2003, 9, 1)
    assert report.affected == {"constructed": E1_DATE, "composite": E1_DATE}


def test_moving_an_event_earlier_affects_ratings_from_its_new_date(bundle):
    run(bundle)
    bundle.change_event("E2", date="2003-04-01")

    report = run(bundle)

    assert report.affected == {"limited": datetime.date(2003, 4, 1), "composite": datetime.date(2003, 4, 1)}


def test_changing_an_events_k_value_affects_its_categories(bundle):
    run(bundle)
    bundle.change_event("E3", k=48)

    report = run(bundle)

    assert Event.objects.get(code="E3").k == 48
    assert report.affected == {"team-constructed": E3_DATE}


def test_events_not_in_the_bundle_are_left_alone(bundle, tmp_path):
    run(bundle)
    later = Bundle(tmp_path / "later")
    later.rows["events.csv"] = [row for row in later.rows["events.csv"] if row["id"] == "E2"]
    later.rows["matches.csv"] = [row for row in later.rows["matches.csv"] if row["event_id"] == "E2"]
    later.rows["standings.csv"] = []

    report = run(later)

    assert not report.changed
    assert db_counts() == DEFAULT_COUNTS


# dry runs -------------------------------------------------------------------


def test_a_dry_run_saves_nothing_but_reports_what_it_would_do(bundle):
    categories = set(Category.objects.values_list())

    report = run(bundle, dry_run=True)

    assert db_counts() == dict.fromkeys(DEFAULT_COUNTS, 0)
    assert set(Category.objects.values_list()) == categories
    assert report.dry_run
    assert tally(report, "players") == (6, 0, 0, 0)
    assert tally(report, "teams") == (2, 0, 0, 0)
    assert tally(report, "events") == (4, 0, 0, 0)
    assert tally(report, "matches") == (9, 0, 0, 0)
    assert tally(report, "standings") == (3, 0, 0, 0)
    assert report.affected == FIRST_IMPORT_AFFECTED
    assert str(report).splitlines()[0] == "Dry run: nothing was saved."


def test_a_dry_run_of_changes_leaves_the_stored_rows_as_they_were(bundle):
    run(bundle)
    before = db_snapshot()
    bundle.change_player("1001", name="Alice Changed")
    bundle.change_match("E1", 2, "1001", player1_games=0, player2_games=2)
    bundle.remove("matches.csv", event_id="E2", player1_id="1002")
    bundle.add_match("E2", 2, "1002", "1003", 2, 0, 0)
    bundle.add_player("2001", "Newcomer")
    bundle.change_event("E3", name="Team Cup 2003")

    report = run(bundle, dry_run=True)

    assert db_snapshot() == before
    assert tally(report, "players") == (1, 1, 0, 5)
    assert tally(report, "matches") == (1, 1, 1, 7)
    assert tally(report, "events") == (0, 1, 0, 3)
    assert report.affected == {"constructed": E1_DATE, "composite": E1_DATE, "limited": E2_DATE}


def test_a_dry_run_creates_no_category_and_changes_none(bundle):
    categories = set(Category.objects.values_list())
    bundle.add_category("classic", ruleset="dci-1997")
    bundle.add_category("constructed", ruleset="match-points", formats="standard block extended", ranked_after=16)

    report = run(bundle, dry_run=True)

    assert set(Category.objects.values_list()) == categories
    assert tally(report, "categories") == (1, 1, 0, 0)


def test_the_command_with_dry_run_saves_nothing_and_says_so(bundle):
    out = io.StringIO()

    call_command("import_results", str(bundle.write()), "--dry-run", stdout=out)

    assert db_counts() == dict.fromkeys(DEFAULT_COUNTS, 0)
    lines = out.getvalue().splitlines()
    assert lines[0] == "Dry run: nothing was saved."
    assert "  players: 6 created, 0 updated, 0 unchanged" in lines


# known bugs -----------------------------------------------------------------


def test_reimporting_with_a_changed_team_name_renames_the_team(bundle):
    run(bundle)
    bundle.change_team("T1", name="Munich Dragons")

    report = run(bundle)

    assert tally(report, "teams") == (0, 1, 0, 1)
    assert Team.objects.get(member_key="1001 1002 1003").name == "Munich Dragons"


# the command ----------------------------------------------------------------


def test_the_command_imports_and_prints_the_report(bundle):
    out = io.StringIO()

    call_command("import_results", str(bundle.write()), stdout=out)

    assert db_counts() == DEFAULT_COUNTS
    lines = out.getvalue().splitlines()
    assert re.fullmatch(r"Checked and saved in [0-9]+\.[0-9]{2} s\.", lines.pop(-2))
    assert lines == [
        "Import complete.",
        "  categories: 0 created, 0 updated, 0 unchanged",
        "  players: 6 created, 0 updated, 0 unchanged",
        "  teams: 2 created, 0 updated, 0 unchanged",
        "  events: 4 created, 0 updated, 0 unchanged",
        "  matches: 9 created, 0 updated, 0 unchanged",
        "  standings: 3 created, 0 updated, 0 unchanged",
        "  ratings affected: composite from 2003-05-01, constructed from 2003-05-01, limited from 2003-06-14,"
        " team-constructed from 2003-07-05, vtes from 2003-08-02",
        "4 recompute(s) queued for the job worker.",
    ]


def test_the_command_says_where_the_time_went_when_asked(bundle):
    out = io.StringIO()

    call_command("import_results", str(bundle.write()), "--no-recompute", "-v", "2", stdout=out)

    (line,) = [line for line in out.getvalue().splitlines() if line.startswith("  where the time went: ")]
    steps = re.findall(r"([a-z ]+) ([0-9]+\.[0-9]{2}) s", line.removeprefix("  where the time went: "))
    assert [step.strip() for step, _ in steps] == [
        "files opened",
        "players and teams checked",
        "events checked",
        "players written",  # while the matches and standings are checked
        "matches and standings checked after that",
        "numbers checked",
        "teams and events written",
        "matches and standings written",
        "statistics taken",
    ]


def test_the_command_says_when_nothing_changed(bundle):
    path = str(bundle.write())
    call_command("import_results", path, stdout=io.StringIO())
    out = io.StringIO()

    call_command("import_results", path, stdout=out)

    lines = out.getvalue().splitlines()
    assert "  matches: 0 created, 0 updated, 9 unchanged" in lines
    assert lines[-2] == "  nothing changed"
    assert lines[-1].startswith("Checked and saved in ")
