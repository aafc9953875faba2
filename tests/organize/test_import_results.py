"""Successful imports of results bundles (SPEC 6): what is stored, and what a re-import changes."""

import datetime
import io
import re
from decimal import Decimal

import pytest
from django.core.management import call_command

from events.models import Event, EventStatus, Match, Standing
from organize.importer import results_import
from players.models import Participant, Player, Team
from ratings.models import Category
from tests.bundles import DEFAULT_COUNTS, Bundle, db_counts, db_snapshot

pytestmark = pytest.mark.django_db

E1_DATE = datetime.date(2003, 5, 1)
E2_DATE = datetime.date(2003, 6, 14)
E3_DATE = datetime.date(2003, 7, 5)
E4_DATE = datetime.date(2003, 8, 2)
FIRST_IMPORT_AFFECTED = {
    "constructed": E1_DATE,
    "composite": E1_DATE,
    "limited": E2_DATE,
    "team-constructed": E3_DATE,
    "vtes": E4_DATE,
}


@pytest.fixture
def bundle(tmp_path):
    return Bundle(tmp_path)


def run(bundle, **options):
    return results_import(source=bundle.write(), **options)


def tally(report, name):
    part = getattr(report, name)
    return (part.created, part.updated, part.deleted, part.unchanged)


def participant(number):
    return Player.objects.get(membership_number=number).participant_id


def team_participant(*members):
    return Team.objects.get(member_key=" ".join(sorted(members))).participant_id


def the_match(event_code, round_number, number1):
    return Match.objects.get(event__code=event_code, round=round_number, participant1_id=participant(number1))


def a_registered_player(number, name="Registered Player", country=""):
    return Player.objects.create(
        participant=Participant.objects.create(kind=Participant.Kind.PLAYER),
        membership_number=number,
        name=name,
        country=country,
    )


# a first import -------------------------------------------------------------


def test_it_imports_the_default_bundle(bundle):
    report = run(bundle)

    assert db_counts() == DEFAULT_COUNTS
    assert tally(report, "players") == (6, 0, 0, 0)
    assert tally(report, "teams") == (2, 0, 0, 0)
    assert tally(report, "events") == (4, 0, 0, 0)
    assert tally(report, "matches") == (9, 0, 0, 0)
    assert tally(report, "standings") == (3, 0, 0, 0)
    assert tally(report, "categories") == (0, 0, 0, 0)
    assert report.changed
    assert not report.dry_run


def test_it_stores_each_players_name_country_and_region(bundle):
    run(bundle)

    stored = {
        player.membership_number: (player.name, player.country.code or "", player.region, player.continent)
        for player in Player.objects.all()
    }
    assert stored == {
        "1001": ("Alice Archer", "DE", "DE-BY", "EU"),
        "1002": ("Bruno Becker", "DE", "", "EU"),
        "1003": ("Chloé Dubois", "FR", "FR-IDF", "EU"),
        "1004": ("Dan Evans", "US", "US-CA", "NA"),
        "1005": ("Emi Fujita", "JP", "", "AS"),
        "1006": ("Finn Gallagher", "", "", ""),
    }


def test_it_gives_every_player_a_participant_of_kind_player(bundle):
    run(bundle)

    kinds = {player.membership_number: player.participant.kind for player in Player.objects.all()}
    assert set(kinds.values()) == {Participant.Kind.PLAYER}
    assert len(kinds) == 6


def test_it_infers_the_country_from_a_region_given_without_one(bundle):
    bundle.add_player("2001", "Kenji Kato", country="", region="JP-13")

    run(bundle)

    player = Player.objects.get(membership_number="2001")
    assert (player.country.code, player.region, player.continent) == ("JP", "JP-13", "AS")


def test_it_accepts_country_and_region_codes_in_lowercase(bundle):
    bundle.add_player("2001", "Greta Gruber", country="at", region="at-9")

    run(bundle)

    player = Player.objects.get(membership_number="2001")
    assert (player.country.code, player.region) == ("AT", "AT-9")


def test_it_stores_every_event_field(bundle):
    run(bundle)

    event = Event.objects.get(code="E1")
    assert (event.name, event.date, event.format, event.k) == ("Munich Open", E1_DATE, "standard", 32)
    assert (event.player_count, event.level2_judge, event.team_size) == (5, True, 1)
    assert (event.structure, event.country.code, event.city, event.level) == ("swiss-top8", "DE", "Munich", "")
    assert (event.status, event.organizer) == (EventStatus.SUBMITTED, None)


def test_it_stores_the_vekn_level_of_an_event(bundle):
    run(bundle)

    assert Event.objects.get(code="E4").level == "national"


def test_a_blank_k_means_16(bundle):
    run(bundle)

    assert Event.objects.get(code="E2").k == 16


def test_a_blank_structure_means_swiss_and_a_blank_team_size_means_1(bundle):
    run(bundle)

    event = Event.objects.get(code="E4")
    assert (event.structure, event.team_size) == ("swiss", 1)


def test_a_given_number_of_players_is_kept(bundle):
    run(bundle)

    assert Event.objects.get(code="E2").player_count == 8


def test_blank_players_is_the_number_of_distinct_participants(bundle):
    run(bundle)

    player_counts = dict(Event.objects.values_list("code", "player_count"))
    # E1: five players in matches; E3: two teams; E4: three players in the standings only.
    assert (player_counts["E1"], player_counts["E3"], player_counts["E4"]) == (5, 2, 3)


def test_it_records_the_organizer_it_is_given(bundle, django_user_model):
    organizer = django_user_model.objects.create_user("organizer")

    run(bundle, organizer=organizer)

    assert set(Event.objects.values_list("organizer", flat=True)) == {organizer.pk}


def test_events_get_increasing_ids_in_file_order_not_date_order(bundle):
    bundle.change_event("E1", date="2003-12-24")
    bundle.change_event("E2", date="2003-01-02")

    run(bundle)

    assert list(Event.objects.order_by("id").values_list("code", flat=True)) == ["E1", "E2", "E3", "E4"]


def test_format_structure_level_and_country_are_read_in_any_case(bundle):
    bundle.change_event("E1", format="Standard", structure="Swiss-Top8", country="de")
    bundle.change_event("E4", level="National")

    run(bundle)

    e1, e4 = Event.objects.get(code="E1"), Event.objects.get(code="E4")
    assert (e1.format, e1.structure, e1.country.code, e4.level) == ("standard", "swiss-top8", "DE", "national")


def test_it_stores_match_games_draws_and_the_elimination_flag(bundle):
    run(bundle)

    stored = {
        (match.round, match.participant1_id, match.participant2_id): (
            match.games1,
            match.games2,
            match.draws,
            match.elimination,
        )
        for match in Match.objects.filter(event__code="E1")
    }
    p = participant
    assert stored == {
        (1, p("1001"), p("1002")): (2, 1, 0, False),
        (1, p("1003"), p("1004")): (1, 1, 1, False),
        (1, p("1005"), None): (0, 0, 0, False),
        (2, p("1001"), p("1003")): (2, 0, 0, False),
        (2, p("1004"), p("1005")): (0, 2, 0, False),
        (3, p("1001"), p("1005")): (2, 1, 0, True),
    }


def test_a_bye_is_stored_with_no_second_participant(bundle):
    run(bundle)

    bye = the_match("E1", 1, "1005")
    assert bye.participant2_id is None
    assert bye.is_bye
    assert (bye.games1, bye.games2, bye.draws) == (0, 0, 0)


def test_a_match_without_the_optional_elimination_column_is_not_an_elimination_match(bundle):
    bundle.drop_column("matches.csv", "elimination")

    run(bundle)

    assert not Match.objects.filter(elimination=True).exists()
    assert Match.objects.count() == 9


def test_unknown_columns_are_ignored(bundle):
    bundle.change_player("1001", nickname="Ace")
    bundle.change_event("E1", sponsor="Someone")

    run(bundle)

    assert Player.objects.get(membership_number="1001").name == "Alice Archer"
    assert db_counts() == DEFAULT_COUNTS


def test_columns_may_come_in_any_order_and_any_case(bundle):
    bundle.columns["players.csv"] = ["Region", "NAME", "Country", "Id"]
    for row in bundle.rows["players.csv"]:
        row.update({"Region": row.pop("region"), "NAME": row.pop("name"), "Country": row.pop("country")})
        row["Id"] = row.pop("id")

    run(bundle)

    player = Player.objects.get(membership_number="1001")
    assert (player.name, player.country.code, player.region) == ("Alice Archer", "DE", "DE-BY")


def test_a_team_event_stores_matches_between_teams(bundle):
    run(bundle)

    match = Match.objects.get(event__code="E3")
    assert match.participant1_id == team_participant("1001", "1002", "1003")
    assert match.participant2_id == team_participant("1004", "1005", "1006")
    assert match.participant1.kind == Participant.Kind.TEAM
    assert (match.games1, match.games2) == (2, 1)


def test_it_stores_each_teams_name_and_members(bundle):
    run(bundle)

    team = Team.objects.get(name="Bavarian Dragons")
    assert set(team.members.values_list("membership_number", flat=True)) == {"1001", "1002", "1003"}
    assert team.member_key == "1001 1002 1003"


def test_a_second_team_id_with_the_same_members_is_the_same_team(bundle):
    bundle.add_team("DRAGONS", ["1003", "1001", "1002"], name="")
    bundle.add_match("E3", 2, "DRAGONS", "T2", 0, 2, 0)

    report = run(bundle)

    assert Team.objects.count() == 2
    assert tally(report, "teams") == (2, 0, 0, 0)
    dragons = team_participant("1001", "1002", "1003")
    assert set(Match.objects.filter(event__code="E3").values_list("round", "participant1_id")) == {
        (1, dragons),
        (2, dragons),
    }


def test_a_team_already_stored_is_found_by_its_members_under_a_new_id(bundle, tmp_path):
    run(bundle)
    team = Team.objects.get(member_key="1001 1002 1003")
    later = Bundle(tmp_path / "later")
    later.rows["teams.csv"] = []
    later.add_team("X9", ["1002", "1003", "1001"])
    later.add_team("Y9", ["1004", "1005", "1006"])
    later.rows["events.csv"] = [row for row in later.rows["events.csv"] if row["id"] == "E3"]
    later.rows["matches.csv"] = []
    later.rows["standings.csv"] = []
    later.add_match("E3", 1, "X9", "Y9", 2, 1, 0)

    report = run(later)

    assert Team.objects.count() == 2
    assert tally(report, "teams") == (0, 0, 0, 2)
    assert Match.objects.get(event__code="E3").participant1_id == team.participant_id


def test_it_stores_standings_with_half_victory_points(bundle):
    run(bundle)

    stored = {
        standing.participant_id: (standing.rank, standing.vp, standing.gw, standing.final)
        for standing in Standing.objects.filter(event__code="E4")
    }
    assert stored == {
        participant("1001"): (1, Decimal("3.5"), 2, "winner"),
        participant("1004"): (2, Decimal("2"), 1, "finalist"),
        participant("1006"): (3, Decimal("0.5"), 0, ""),
    }


def test_standings_are_optional_outside_vtes_events(bundle):
    bundle.rows["standings.csv"] = []
    bundle.remove("events.csv", id="E4")

    run(bundle)

    assert Standing.objects.count() == 0
    assert Event.objects.count() == 3


def test_optional_files_may_be_left_out(bundle):
    bundle.without("teams.csv", "standings.csv")
    bundle.remove("events.csv", id="E3")
    bundle.remove("events.csv", id="E4")
    bundle.remove("matches.csv", event_id="E3")

    report = run(bundle)

    assert tally(report, "teams") == (0, 0, 0, 0)
    assert (Event.objects.count(), Match.objects.count(), Team.objects.count()) == (2, 8, 0)


def test_a_file_with_a_byte_order_mark_imports(bundle):
    bundle.write_raw("players.csv", b"\xef\xbb\xbf" + bundle.text("players.csv"))

    run(bundle)

    assert Player.objects.get(membership_number="1001").name == "Alice Archer"


def test_a_player_already_registered_may_play_without_being_listed(bundle):
    registered = a_registered_player("2001", "Rita Registered", country="IT")
    bundle.add_match("E2", 2, "1001", "2001", 0, 2, 0)
    bundle.add_standing("E4", "2001", 4, "0", 0)

    report = run(bundle)

    assert the_match("E2", 2, "1001").participant2_id == registered.participant_id
    assert Standing.objects.filter(participant=registered.participant).count() == 1
    assert Player.objects.count() == 7
    assert tally(report, "players") == (6, 0, 0, 0)
    registered.refresh_from_db()
    assert (registered.name, registered.country.code) == ("Rita Registered", "IT")


def test_a_player_already_registered_may_be_a_team_member_without_being_listed(bundle):
    registered = a_registered_player("2001")
    bundle.change_team("T1", member3="2001")

    run(bundle)

    team = Team.objects.get(name="Bavarian Dragons")
    assert set(team.members.all()) == {
        Player.objects.get(membership_number="1001"),
        Player.objects.get(membership_number="1002"),
        registered,
    }


# zip bundles ----------------------------------------------------------------


@pytest.mark.parametrize("inside", ["", "results-2003"], ids=["files at the top", "files inside one folder"])
def test_a_zip_bundle_imports_the_same_as_a_folder(bundle, inside):
    report = results_import(source=bundle.zip(inside=inside))

    assert db_counts() == DEFAULT_COUNTS
    assert tally(report, "matches") == (9, 0, 0, 0)
    assert report.affected == FIRST_IMPORT_AFFECTED
    again = run(bundle)  # the same bundle as a folder finds everything already there
    assert not again.changed


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


# the report's affected categories ----------------------------------------------


def test_a_first_import_affects_each_rated_category_from_its_earliest_event(bundle):
    report = run(bundle)

    assert report.affected == FIRST_IMPORT_AFFECTED


def test_the_composite_category_is_affected_from_the_earlier_of_its_components(bundle):
    bundle.change_event("E2", date="2003-02-01")

    report = run(bundle)

    assert report.affected["limited"] == datetime.date(2003, 2, 1)
    assert report.affected["constructed"] == E1_DATE
    assert report.affected["composite"] == datetime.date(2003, 2, 1)


def test_a_team_limited_event_affects_team_limited_only(bundle):
    bundle.add_event("E5", date="2002-01-01", format="sealed", team_size=3)
    bundle.add_match("E5", 1, "T2", "T1", 2, 0, 0)

    report = run(bundle)

    assert report.affected["team-limited"] == datetime.date(2002, 1, 1)
    assert report.affected["limited"] == E2_DATE
    assert report.affected["composite"] == E1_DATE


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


# categories.csv -------------------------------------------------------------


def test_categories_csv_creates_a_new_category_with_its_rulesets_defaults(bundle):
    bundle.add_category("classic", name="Classic 1997", ruleset="dci-1997", formats="standard  block", ranked_after=30)

    report = run(bundle)

    category = Category.objects.get(slug="classic")
    assert (category.name, category.ruleset, category.formats, category.team_size) == (
        "Classic 1997",
        "dci-1997",
        "standard block",
        1,
    )
    assert (category.provisional_until, category.ranked_after, category.display_rounding) == (25, 30, "truncate")
    assert category.start_rating == 1600.0
    assert tally(report, "categories") == (1, 0, 0, 0)
    assert report.affected["classic"] <= E1_DATE


def test_a_new_vekn_category_gets_the_vekn_window_and_best_of(bundle):
    bundle.add_category("vtes-open", ruleset="vekn", formats="vtes", ranked_after=1)

    run(bundle)

    category = Category.objects.get(slug="vtes-open")
    assert (category.window_months, category.best_of, category.inactivity_months, category.display_rounding) == (
        18,
        8,
        12,
        "round",
    )


def test_a_new_category_may_rate_a_new_format(bundle):
    bundle.add_category("pauper", formats="pauper")
    bundle.add_event("E5", format="pauper")
    bundle.add_match("E5", 1, "1001", "1002", 2, 0, 0)

    report = run(bundle)

    assert Event.objects.get(code="E5").format == "pauper"
    assert report.affected["pauper"] <= E1_DATE


def test_categories_csv_replaces_an_existing_categorys_fields(bundle):
    run(bundle)
    bundle.add_category(
        "constructed",
        name="Constructed (match points)",
        ruleset="match-points",
        formats="standard block",
        ranked_after=16,
    )

    report = run(bundle)

    category = Category.objects.get(slug="constructed")
    assert (category.name, category.ruleset, category.formats, category.ranked_after) == (
        "Constructed (match points)",
        "match-points",
        "standard block",
        16,
    )
    assert category.display_rounding == "round"
    assert Category.objects.count() == 7
    assert tally(report, "categories") == (0, 1, 0, 0)
    assert report.affected == {"constructed": datetime.date.min, "composite": datetime.date.min}


def test_categories_csv_with_the_stored_definition_changes_nothing(bundle):
    bundle.add_category("limited", ruleset="dci-2001", formats="sealed booster-draft rochester-draft", ranked_after=10)
    run(bundle)

    report = run(bundle)

    assert tally(report, "categories") == (0, 0, 0, 1)
    assert report.affected == {}


def test_a_new_category_for_events_already_stored_is_affected_from_the_start(bundle):
    run(bundle)
    bundle.add_category("classic", ruleset="dci-1997", formats="standard")

    report = run(bundle)

    assert tally(report, "categories") == (1, 0, 0, 0)
    assert "classic" in report.affected


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


def test_the_command_says_when_nothing_changed(bundle):
    path = str(bundle.write())
    call_command("import_results", path, stdout=io.StringIO())
    out = io.StringIO()

    call_command("import_results", path, stdout=out)

    lines = out.getvalue().splitlines()
    assert "  matches: 0 created, 0 updated, 9 unchanged" in lines
    assert lines[-2] == "  nothing changed"
    assert lines[-1].startswith("Checked and saved in ")
