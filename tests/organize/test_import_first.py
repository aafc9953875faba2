"""Successful imports of results bundles (SPEC 6): what a first import stores, from a folder or a zip."""

from decimal import Decimal

import pytest
from django.utils import timezone

from events.models import Event, EventStatus, Match, Standing
from organize.importer import results_import
from players.models import Participant, Player, Team
from tests.bundles import DEFAULT_COUNTS, Bundle, db_counts
from tests.organize.importing import (
    E1_DATE,
    FIRST_IMPORT_AFFECTED,
    a_registered_player,
    participant,
    run,
    tally,
    team_participant,
    the_match,
)

pytestmark = pytest.mark.django_db


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


def test_an_imported_event_is_submitted_and_found_by_its_creation_time(bundle):
    started = timezone.now()

    run(bundle)

    event = Event.objects.get(code="E1")
    assert event.status == EventStatus.SUBMITTED
    assert started <= event.created_at <= timezone.now()
    assert Event.objects.filter(code="E1", created_at=event.created_at).exists()  # stored as the ORM stores times


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
