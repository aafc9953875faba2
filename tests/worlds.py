"""Worlds that several test modules build: a results bundle imported and rated, and lookups into the default one.

The fixtures that hand these worlds to tests live in tests/conftest.py (`rated_default_bundle`) or in the
modules whose tests need a world of their own; they all build it here, so the steps stay one recipe.
"""

from importlib import import_module
from pathlib import Path

from django.apps import apps

from devtools.demo import demo_bundle_write
from events.models import Match
from organize.importer import results_import
from players.models import Player
from ratings.models import Category, RecomputeRun
from ratings.services.recompute import category_recompute
from tests.bundles import Bundle
from tests.factories import PlayerAccountFactory


def ensure_default_categories():
    """Put back the categories the data migration seeds, for fixtures that outlive one test.

    Transactional tests (the browser tests) end with a flush of every table, and
    pytest-django runs them last, so a module-scoped world built after one must
    not assume the seeded rows are still there.
    """
    import_module("ratings.migrations.0002_default_categories").create_defaults(apps, None)


def every_category_recomputed() -> None:
    """What `manage.py recompute_ratings` does: every category's history rebuilt, lists published."""
    for category in Category.objects.all():
        category_recompute(category=category)


def bundle_rated(bundle: Bundle | Path, *, queued_runs_dropped: bool = False) -> None:
    """Import the bundle (a `Bundle`, or a folder already written) and recompute every category.

    The import queues a recompute run per category it feeds; the ratings are computed here instead, so
    tests that count or carry out the runs a later change queues drop those first (`queued_runs_dropped`).
    """
    results_import(source=bundle.write() if isinstance(bundle, Bundle) else bundle)
    every_category_recomputed()
    if queued_runs_dropped:
        RecomputeRun.objects.all().delete()


def default_bundle_ranked_from_one_match(folder: Path) -> Bundle:
    """The default bundle with constructed ranked from the first match, so ranks show in a small world."""
    bundle = Bundle(folder)
    bundle.add_category("constructed", name="Constructed", formats="standard block extended", ranked_after="1")
    return bundle


def demo_world_rated(folder: Path, *, categories_csv: str = "", **demo) -> dict:
    """A demo bundle (devtools.demo, `demo` its sizes, seed and dates) written into `folder`, imported and rated.

    `categories_csv` adds the bundle's categories.csv (lists beyond the seeded ones). Returns the demo's counts.
    """
    ensure_default_categories()  # the world may be built after a transactional test's flush
    counts = demo_bundle_write(folder, **demo)
    if categories_csv:
        (folder / "categories.csv").write_text(categories_csv, encoding="utf-8")
    bundle_rated(folder)
    return counts


# Lookups into the default bundle (tests/bundles.py) -----------------------------------------------------------------


def player(number: str) -> Player:
    return Player.objects.get(membership_number=number)


def participant(number: str) -> int:
    """The participant id of the player with this membership number."""
    return player(number).participant_id


def account_of(number: str, **user_fields):
    """The account of the player with this membership number, linked to them by an admin."""
    return PlayerAccountFactory(player=player(number), **user_fields)


def the_match(event_code: str, round_number: int, number1: str) -> Match:
    """The match of that round with this player on side 1."""
    return Match.objects.select_related("event").get(
        event__code=event_code, round=round_number, participant1=player(number1).participant
    )
