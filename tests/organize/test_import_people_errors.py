"""Broken results bundles (SPEC 6): errors in players.csv, teams.csv and categories.csv."""

import pytest

from organize.importer import results_import
from tests.organize.importing import (
    NEXT_PLAYER_LINE,
    NEXT_TEAM_LINE,
    assert_only_error,
    rejected,
)

pytestmark = pytest.mark.django_db


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
