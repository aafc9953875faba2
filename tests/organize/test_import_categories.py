"""Successful imports of results bundles (SPEC 6): the categories a bundle defines, and those its import
affects (which lists are recomputed, and from when)."""

import datetime

import pytest

from events.models import Event
from ratings.models import Category
from tests.organize.importing import (
    E1_DATE,
    E2_DATE,
    FIRST_IMPORT_AFFECTED,
    run,
    tally,
)

pytestmark = pytest.mark.django_db


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
