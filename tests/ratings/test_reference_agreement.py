"""export_ratings agrees with an independent implementation of SPEC to 1e-6, for every ruleset."""

import datetime

import pytest
from django.core.management import call_command

from tests.agreement import disagreements, exported, page_exported
from tests.worlds import demo_world_rated

EXTRA_CATEGORIES = """slug,name,ruleset,formats,team_size,ranked_after
classic,Classic (1997 rules),dci-1997,standard block extended sealed booster-draft rochester-draft,1,25
points,Match points list,match-points,standard block extended sealed booster-draft rochester-draft,1,16
"""

CATEGORIES = [
    "constructed", "limited", "vintage", "composite", "team-constructed", "team-limited", "vtes", "classic", "points",
]  # fmt: skip


@pytest.fixture(scope="module")
def large_rated_demo_world(django_db_setup, django_db_blocker, tmp_path_factory):
    """Four hundred players and some 18,000 matches, imported and rated once for the module: (bundle, counts)."""
    bundle = tmp_path_factory.mktemp("world")
    with django_db_blocker.unblock():
        counts = demo_world_rated(
            bundle,
            categories_csv=EXTRA_CATEGORIES,
            players=400,
            events=200,
            seed=11,
            start=datetime.date(2021, 1, 1),
            end=datetime.date(2024, 12, 31),
        )
    yield bundle, counts
    with django_db_blocker.unblock():
        call_command("flush", interactive=False)
        call_command("migrate", "ratings", "0001", verbosity=0)  # re-seed the default categories
        call_command("migrate", verbosity=0)


def test_the_world_is_big_enough_to_mean_something(large_rated_demo_world):
    _, counts = large_rated_demo_world
    assert counts["players"] == 400
    assert counts["matches"] > 3000


@pytest.mark.parametrize("category", CATEGORIES)
@pytest.mark.parametrize("as_of", [datetime.date(2022, 6, 30), datetime.date(2024, 12, 31)])
def test_export_equals_the_reference(large_rated_demo_world, db, category, as_of):
    bundle, _ = large_rated_demo_world
    rows = exported(category, as_of=as_of.isoformat())
    assert len(rows) >= 10, "too few rated participants for the comparison to mean anything"
    assert disagreements(bundle, category, as_of=as_of) == []


@pytest.mark.parametrize("category", ["constructed", "classic", "points", "vtes"])
def test_country_and_region_lists_equal_the_reference(large_rated_demo_world, db, category):
    bundle, _ = large_rated_demo_world
    as_of = datetime.date(2024, 12, 31)
    assert exported(category, as_of=as_of.isoformat(), country="DE")
    assert disagreements(bundle, category, as_of=as_of, country="DE") == []
    assert disagreements(bundle, category, as_of=as_of, country="US", region="US-CA") == []


@pytest.mark.parametrize("category", CATEGORIES)
def test_past_lists_of_the_ranking_pages_equal_the_reference(large_rated_demo_world, db, client, category):
    # Each date's list is written when first asked for, from the list of the month end before it.
    bundle, _ = large_rated_demo_world
    for as_of in (datetime.date(2022, 6, 30), datetime.date(2022, 7, 19), datetime.date(2024, 11, 3)):
        ours = page_exported(client, category, as_of=as_of.isoformat())
        assert disagreements(bundle, category, as_of=as_of, ours=ours) == []
    as_of = datetime.date(2024, 12, 31)
    ours = page_exported(client, category, as_of=as_of.isoformat(), country="DE")
    assert disagreements(bundle, category, as_of=as_of, country="DE", ours=ours) == []
