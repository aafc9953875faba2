"""export_ratings (SPEC 4): ranks, levels, dates, formats and errors; and import_results queueing recomputes."""

import csv
import io
import json
from datetime import date

import pytest
from django.core.management import CommandError, call_command

from organize.importer import results_import
from players.models import Player
from ratings.engine import expected_score
from ratings.models import RULESET_DEFAULTS, Category, RecomputeRun, RecomputeStatus, Ruleset
from ratings.selectors.lists import category_standings
from ratings.services.recompute import category_recompute
from ratings.services.runs import recompute_run_execute
from tests.bundles import Bundle

pytestmark = pytest.mark.django_db

HEADER = "rank,player_id,name,country,region,rating,matches,ranked"
# 1001 beat 1002 twice at K 16: 1608, then + 16 x (1 - We(1608 vs 1592)).
ALICE = 1608 + 16 * (1 - expected_score(1608, 1592))
BRUNO = 1592 - 16 * (1 - expected_score(1608, 1592))


def category(slug) -> Category:
    return Category.objects.get(slug=slug)


def an_empty_bundle(tmp_path) -> Bundle:
    """The default bundle's players and teams, with no events."""
    bundle = Bundle(tmp_path)
    for file in ("events.csv", "matches.csv", "standings.csv"):
        bundle.rows[file] = []
    return bundle


def export(*args) -> str:
    out = io.StringIO()
    call_command("export_ratings", *args, stdout=out)
    return out.getvalue()


def export_rows(*args) -> list[list[str]]:
    lines = export(*args).splitlines()
    assert lines[0] == HEADER
    return list(csv.reader(lines[1:]))


def ranks_and_ids(*args) -> list[tuple[str, str]]:
    return [(row[0], row[1]) for row in export_rows(*args)]


@pytest.fixture
def ties(tmp_path):
    """Constructed (ranked after 2 matches), K 16:

    X1 (2004-01-10), two rounds: 1001 beats 1002, 1003 draws 1004 - twice.
    X2 (2004-02-01): 1005 beats 1006 (one match each: unranked).
    Ratings: 1001 ALICE, 1003 and 1004 1600 (tied), 1002 BRUNO, 1005 1608, 1006 1592.
    """
    bundle = an_empty_bundle(tmp_path)
    bundle.add_event("X1", date="2004-01-10", format="standard", k="16", country="DE")
    bundle.add_event("X2", date="2004-02-01", format="standard", k="16", country="JP")
    for round_number in (1, 2):
        bundle.add_match("X1", round_number, "1001", "1002", 2, 0, 0)
        bundle.add_match("X1", round_number, "1003", "1004", 1, 1, 1)
    bundle.add_match("X2", 1, "1005", "1006", 2, 1, 0)
    results_import(source=bundle.write())
    Category.objects.filter(slug="constructed").update(ranked_after=2)
    category_recompute(category=category("constructed"))


# the CSV ------------------------------------------------------------------------------------------------


def test_the_csv_lists_ranked_players_by_rating_then_the_unranked(ties):
    lines = export("--category", "constructed").splitlines()

    assert lines[0] == HEADER
    assert list(csv.reader(lines[1:])) == [
        ["1", "1001", "Alice Archer", "DE", "DE-BY", repr(ALICE), "2", "1"],
        ["2", "1003", "Chloé Dubois", "FR", "FR-IDF", "1600.0", "2", "1"],
        ["2", "1004", "Dan Evans", "US", "US-CA", "1600.0", "2", "1"],
        ["4", "1002", "Bruno Becker", "DE", "", repr(BRUNO), "2", "1"],
        ["", "1005", "Emi Fujita", "JP", "", "1608.0", "1", "0"],
        ["", "1006", "Finn Gallagher", "", "", "1592.0", "1", "0"],
    ]


def test_the_rating_column_round_trips_the_stored_float_exactly(ties):
    stored = {
        Player.objects.get(participant_id=who).membership_number: standing.rating
        for who, standing in category_standings(category=category("constructed")).items()
    }

    exported = {row[1]: row[5] for row in export_rows("--category", "constructed")}

    assert exported.keys() == stored.keys()
    for number, text in exported.items():
        assert float(text) == stored[number]
        assert text == repr(stored[number])
    assert exported["1001"] == repr(ALICE)
    assert int(ALICE) != ALICE  # the unrounded value, decimals and all


def test_a_player_becomes_ranked_at_the_categorys_threshold(tmp_path):
    bundle = an_empty_bundle(tmp_path)
    bundle.add_event("X1", date="2004-01-10", format="standard", k="16")
    for round_number in range(1, 10):
        bundle.add_match("X1", round_number, "1001", "1002", 2, 1, 0)
    bundle.add_match("X1", 10, "1001", "1003", 1, 2, 0)
    results_import(source=bundle.write())
    category_recompute(category=category("constructed"))

    rows = export_rows("--category", "constructed")

    assert [(row[0], row[1], row[6], row[7]) for row in rows] == [
        ("1", "1001", "10", "1"),  # 10 matches: ranked
        ("", "1003", "1", "0"),  # higher rated than 1002, but unranked
        ("", "1002", "9", "0"),  # 9 matches: not yet
    ]
    assert float(rows[1][5]) > float(rows[2][5])


@pytest.mark.parametrize(("ruleset", "threshold"), [("dci-2001", 10), ("dci-1997", 25), ("match-points", 16)])
def test_each_elo_rulesets_default_threshold(tmp_path, ruleset, threshold):
    Category.objects.create(
        slug="test-list",
        name="Test list",
        ruleset=ruleset,
        formats="vintage",
        **RULESET_DEFAULTS[Ruleset(ruleset)],
    )
    bundle = an_empty_bundle(tmp_path)
    bundle.add_event("X1", date="2004-01-10", format="vintage", k="16", players="8")
    for round_number in range(1, threshold):
        bundle.add_match("X1", round_number, "1001", "1002", 2, 1, 0)
    bundle.add_match("X1", threshold, "1001", "1003", 2, 1, 0)
    results_import(source=bundle.write())
    category_recompute(category=category("test-list"))

    rows = export_rows("--category", "test-list")

    assert category("test-list").ranked_after == threshold
    assert {row[1]: (row[0], row[6], row[7]) for row in rows} == {
        "1001": ("1", str(threshold), "1"),
        "1002": ("", str(threshold - 1), "0"),
        "1003": ("", "1", "0"),
    }


def test_vtes_ranks_from_the_first_event_with_points_as_the_rating(tmp_path):
    results_import(source=Bundle(tmp_path).write())
    category_recompute(category=category("vtes"))

    rows = export_rows("--category", "vtes", "--as-of", "2003-08-02")

    assert [(row[0], row[1], row[6], row[7]) for row in rows] == [
        ("1", "1001", "1", "1"),
        ("2", "1004", "1", "1"),
        ("3", "1006", "1", "1"),
    ]
    assert float(rows[0][5]) == pytest.approx(40.523, abs=1e-3)
    assert rows[2][5] == "7.0"


def test_vtes_without_a_date_is_as_of_today_so_old_points_have_aged_out(tmp_path):
    results_import(source=Bundle(tmp_path).write())  # E4 is in 2003: out of the window, inactive
    category_recompute(category=category("vtes"))

    rows = export_rows("--category", "vtes")

    assert [(row[1], row[0], float(row[5]), row[7]) for row in rows] == [
        ("1001", "", 0.0, "0"),
        ("1004", "", 0.0, "0"),
        ("1006", "", 0.0, "0"),
    ]


# dates --------------------------------------------------------------------------------------------------


def test_as_of_gives_the_ratings_of_that_date(ties):
    assert ranks_and_ids("--category", "constructed", "--as-of", "2004-01-31") == [
        ("1", "1001"),
        ("2", "1003"),
        ("2", "1004"),
        ("4", "1002"),
    ]
    assert [row[1] for row in export_rows("--category", "constructed", "--as-of", "2004-02-01")] == [
        "1001", "1003", "1004", "1002", "1005", "1006",
    ]  # fmt: skip
    assert export("--category", "constructed", "--as-of", "2004-01-09").splitlines() == [HEADER]


def test_as_of_ignores_the_history_after_that_date(tmp_path):
    bundle = an_empty_bundle(tmp_path)
    bundle.add_event("X1", date="2004-01-10", format="standard", k="32")
    bundle.add_event("X2", date="2004-03-01", format="standard", k="32")
    bundle.add_match("X1", 1, "1001", "1002", 2, 0, 0)
    bundle.add_match("X2", 1, "1002", "1001", 2, 0, 0)
    results_import(source=bundle.write())
    category_recompute(category=category("constructed"))

    then = {row[1]: (row[5], row[6]) for row in export_rows("--category", "constructed", "--as-of", "2004-02-29")}
    now = {row[1]: row[5] for row in export_rows("--category", "constructed")}

    assert then == {"1001": ("1616.0", "1"), "1002": ("1584.0", "1")}
    back = 32 * (1 - expected_score(1584, 1616))
    assert now == {"1001": repr(1616 - back), "1002": repr(1584 + back)}


# levels ------------------------------------------------------------------------------------------------


def test_a_country_list_is_ranked_within_the_country(ties):
    assert ranks_and_ids("--category", "constructed", "--country", "DE") == [("1", "1001"), ("2", "1002")]
    assert ranks_and_ids("--category", "constructed", "--country", "FR") == [("1", "1003")]
    assert ranks_and_ids("--category", "constructed", "--country", "us") == [("1", "1004")]
    assert ranks_and_ids("--category", "constructed", "--country", "JP") == [("", "1005")]
    assert ranks_and_ids("--category", "constructed", "--country", "IT") == []


def test_a_region_list_is_ranked_within_the_region(ties):
    assert ranks_and_ids("--category", "constructed", "--region", "DE-BY") == [("1", "1001")]
    assert ranks_and_ids("--category", "constructed", "--region", "us-ca") == [("1", "1004")]
    assert ranks_and_ids("--category", "constructed", "--region", "DE-BE") == []


def test_a_continent_list_is_ranked_within_the_continent(ties):
    assert ranks_and_ids("--category", "constructed", "--continent", "EU") == [
        ("1", "1001"),
        ("2", "1003"),
        ("3", "1002"),
    ]
    assert ranks_and_ids("--category", "constructed", "--continent", "AS") == [("", "1005")]


def test_a_team_list_shows_the_members_as_the_id(tmp_path):
    results_import(source=Bundle(tmp_path).write())
    category_recompute(category=category("team-constructed"))

    assert export_rows("--category", "team-constructed") == [
        ["", "1001+1002+1003", "Bavarian Dragons", "", "", "1608.0", "1", "0"],
        ["", "1004+1005+1006", "West Coast", "", "", "1592.0", "1", "0"],
    ]


# JSON ----------------------------------------------------------------------------------------------------


def test_the_json_export_holds_the_same_rows(ties):
    records = json.loads(export("--category", "constructed", "--format", "json"))

    assert records[0] == {
        "rank": 1,
        "player_id": "1001",
        "name": "Alice Archer",
        "country": "DE",
        "region": "DE-BY",
        "rating": ALICE,
        "matches": 2,
        "ranked": True,
    }
    assert [(record["rank"], record["player_id"], record["ranked"]) for record in records] == [
        (1, "1001", True),
        (2, "1003", True),
        (2, "1004", True),
        (4, "1002", True),
        (None, "1005", False),
        (None, "1006", False),
    ]
    assert records[-1]["rating"] == 1592.0


def test_the_json_export_of_an_empty_list_is_an_empty_array(db):
    assert json.loads(export("--category", "limited", "--format", "json")) == []


# errors --------------------------------------------------------------------------------------------------


BAD_ARGUMENTS = {
    "unknown category": (
        ["--category", "nope"],
        "unknown category 'nope'; categories: constructed, limited, vintage, composite, team-constructed, "
        "team-limited, vtes",
    ),
    "impossible date": (["--as-of", "2004-02-30"], "--as-of '2004-02-30' is not a date in the form YYYY-MM-DD"),
    "not a date": (["--as-of", "yesterday"], "--as-of 'yesterday' is not a date in the form YYYY-MM-DD"),
    "unknown country": (["--country", "ZZ"], "--country 'ZZ' is not an ISO 3166-1 alpha-2 code"),
    "alpha-3 country": (["--country", "DEU"], "--country 'DEU' is not an ISO 3166-1 alpha-2 code"),
    "unknown region": (["--region", "DE-XX"], "--region 'DE-XX' is not an ISO 3166-2 code"),
    "unknown continent": (["--continent", "XX"], "--continent 'XX' is not one of AF, AN, AS, EU, NA, OC, SA"),
}


@pytest.mark.parametrize(("args", "message"), BAD_ARGUMENTS.values(), ids=BAD_ARGUMENTS.keys())
def test_bad_arguments_are_command_errors_with_a_clear_message(db, args, message):
    with pytest.raises(CommandError) as error:
        export("--category", "constructed", *args)  # a later --category wins

    assert str(error.value) == message


# import_results queues recomputes ----------------------------------------------------------------------


def test_import_results_queues_a_recompute_per_affected_category(tmp_path):
    path = Bundle(tmp_path).write()
    out = io.StringIO()

    call_command("import_results", str(path), stdout=out)

    runs = RecomputeRun.objects.all()
    assert sorted(runs.values_list("category__slug", "since", "status")) == [
        ("constructed", date(2003, 5, 1), RecomputeStatus.QUEUED),
        ("limited", date(2003, 6, 14), RecomputeStatus.QUEUED),
        ("team-constructed", date(2003, 7, 5), RecomputeStatus.QUEUED),
        ("vtes", date(2003, 8, 2), RecomputeStatus.QUEUED),
    ]  # composite is derived: computed when read
    assert {run.reason for run in runs} == {f"import of {path}"}
    assert out.getvalue().splitlines()[-1] == "4 recompute(s) queued for the job worker."


def test_import_results_with_no_recompute_queues_nothing(tmp_path):
    out = io.StringIO()

    call_command("import_results", str(Bundle(tmp_path).write()), "--no-recompute", stdout=out)

    assert not RecomputeRun.objects.exists()
    assert out.getvalue().splitlines()[-1] == (
        "Ratings not recomputed (--no-recompute): run recompute_ratings when ready."
    )


def test_a_dry_run_or_an_unchanged_reimport_queues_nothing(tmp_path):
    bundle = Bundle(tmp_path)
    call_command("import_results", str(bundle.write()), "--dry-run", stdout=io.StringIO())
    assert not RecomputeRun.objects.exists()

    call_command("import_results", str(bundle.write()), stdout=io.StringIO())
    call_command("import_results", str(bundle.write()), stdout=io.StringIO())

    assert RecomputeRun.objects.count() == 4


def test_the_queued_runs_once_carried_out_give_the_exported_ratings(tmp_path):
    call_command("import_results", str(Bundle(tmp_path).write()), stdout=io.StringIO())
    for run in RecomputeRun.objects.order_by("pk"):
        recompute_run_execute(run_id=run.pk)
    assert set(RecomputeRun.objects.values_list("status", flat=True)) == {RecomputeStatus.DONE}

    rows = {row[1]: row for row in export_rows("--category", "constructed")}
    composite = {row[1]: float(row[5]) for row in export_rows("--category", "composite")}

    assert rows["1002"][5] == "1584.0"
    assert rows["1004"][5] == "1584.0"
    assert rows["1001"][6] == "3"
    assert composite["1004"] == (1584 + 1600) / 2
    assert composite["1006"] == (1600 + 1592) / 2


def test_the_recompute_ratings_command_recomputes_now(tmp_path):
    results_import(source=Bundle(tmp_path).write())
    out = io.StringIO()

    call_command("recompute_ratings", "--category", "limited", stdout=out)

    assert out.getvalue().startswith("limited: 2 rated, 4 history rows, cleanup ")
    assert " published in " in out.getvalue()
    assert [row[5] for row in export_rows("--category", "limited")][:1] == ["1608.0"]
    with pytest.raises(CommandError, match="unknown category 'nope'"):
        call_command("recompute_ratings", "--category", "nope")
    with pytest.raises(CommandError, match="--since '2003-1-1' is not a date in the form YYYY-MM-DD"):
        call_command("recompute_ratings", "--since", "2003-1-1")
