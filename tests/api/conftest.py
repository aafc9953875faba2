"""The API's fixtures: a rated demo world shared by the package's modules, and a list of ties."""

import io

import pytest
from django.core.management import call_command
from django.db import transaction

from organize.importer import results_import
from ratings.models import Category
from tests.api.helpers import WORLD_END
from tests.bundles import Bundle, match
from tests.worlds import demo_world_rated


@pytest.fixture(scope="package")
def demo_world(django_db_setup, django_db_blocker, tmp_path_factory):
    """A rated demo world, built once for the package and rolled back after it (each test runs in a savepoint)."""
    with django_db_blocker.unblock(), transaction.atomic():
        demo_world_rated(tmp_path_factory.mktemp("world"), players=150, events=30, seed=7, end=WORLD_END)
        yield
        transaction.set_rollback(True)


@pytest.fixture
def rated(demo_world, db):
    """The demo world, for one test."""


@pytest.fixture
def tied(db, tmp_path):
    """Four players at 1616, 1600, 1600 and 1584 in a category of their own, all ranked after one match.

    A category of its own, because the package's world may be there too.
    """
    bundle = Bundle(tmp_path)
    bundle.add_category("ties", formats="pauper", ranked_after=1)
    bundle.change_event("E1", format="pauper")
    bundle.rows["matches.csv"] = [
        match("E1", 1, "1001", "1002", 2, 0, 0),
        match("E1", 1, "1003", "1004", 1, 1, 1),
        match("E2", 1, "1001", "1006", 2, 0, 0),
        match("E3", 1, "T1", "T2", 2, 1, 0),
    ]
    results_import(source=bundle.write())
    for category in ("ties", "team-constructed"):
        call_command("recompute_ratings", category=category, stdout=io.StringIO())
    return Category.objects.get(slug="ties")
