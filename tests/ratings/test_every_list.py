"""Every list recomputed at once (`recompute_ratings`, ratings.services.every_list), and today's list of players built
by the database from its standings (derived_lists.list_staged_from_standings).

On PostgreSQL, outside a caller's transaction, the lists are recomputed by forked processes side by side; they
must publish exactly what one list after the other publishes. The database's build of an Elo list must give the
rows the Python path gives (current_rows_from_standings) to the last bit.
"""

import threading
from datetime import date, timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.db import connection, transaction
from django.utils import timezone

from devtools.demo import demo_bundle_write
from organize.importer import results_import
from ratings.models import Category, CurrentRank, CurrentRating, RatingEntry
from ratings.services import derived_lists, every_list, lists, recompute
from ratings.services.lists import CURRENT_FIELDS, RANK_FIELDS
from ratings.services.recompute import ENTRY_FIELDS, category_recompute
from tests.ratings.test_recompute_derived import assert_same_rows
from tests.worlds import demo_world_rated

ON_POSTGRESQL = connection.vendor == "postgresql"
postgresql_only = pytest.mark.skipif(not ON_POSTGRESQL, reason="processes side by side need PostgreSQL")


def published() -> dict[str, tuple[list, list, list]]:
    """Every list's history, today's list and its ranks as stored (no row ids)."""
    history_fields = [field for field in ENTRY_FIELDS if field != "category"]
    found = {}
    for category in Category.objects.order_by("slug"):
        found[category.slug] = (
            list(
                RatingEntry.objects.filter(category=category)
                .order_by("seq", "participant")
                .values_list(*history_fields)
            ),
            list(CurrentRating.objects.filter(category=category).order_by("participant").values_list(*CURRENT_FIELDS)),
            list(CurrentRank.objects.filter(category=category).order_by("participant").values_list(*RANK_FIELDS)),
        )
    return found


def recompute_ratings(*options: str) -> str:
    out = StringIO()
    call_command("recompute_ratings", *options, stdout=out)
    return out.getvalue()


@pytest.fixture
def world_until_today(tmp_path):
    """A demo world played up to today (last month's list differs from today's), every list rated."""
    today = timezone.localdate()
    demo_world_rated(tmp_path, players=300, events=50, seed=12, start=today - timedelta(days=400), end=today)


# today's Elo list by the database ------------------------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("slug", ["constructed", "vtes"])
def test_a_full_recompute_lists_players_as_the_python_path_does(world_until_today, slug):
    constructed = Category.objects.get(slug=slug)
    Category.objects.filter(pk=constructed.pk).update(ranked_after=4 if slug == "constructed" else 2)
    constructed.refresh_from_db()
    assert derived_lists.list_in_sql(constructed) == ON_POSTGRESQL

    category_recompute(category=constructed)

    expected = {row[1]: row for row in lists._current_rows_read(constructed, timezone.localdate())}
    stored = {row[1]: row for row in CurrentRating.objects.filter(category=constructed).values_list(*CURRENT_FIELDS)}
    at = CURRENT_FIELDS.index
    assert len(expected) > 20
    if slug == "constructed":  # what the rules tell apart is there: ranked and not, new this month, every level
        assert any(row[at("ranked")] for row in expected.values()) and not all(
            r[at("ranked")] for r in expected.values()
        )
        assert any(row[at("previous_rating")] is None for row in expected.values())
        assert any(row[at("previous_world_rank")] for row in expected.values())
        assert any(row[at("region_rank")] for row in expected.values())
    assert any(row[at("world_rank")] for row in expected.values())
    assert_same_rows(stored, expected)
    assert sorted(CurrentRank.objects.filter(category=constructed).values_list(*RANK_FIELDS)) == sorted(
        tuple(row[at(name)] for name in RANK_FIELDS) for row in expected.values() if row[at("world_rank")] is not None
    )


@pytest.mark.django_db
def test_team_lists_are_still_listed_in_python():
    assert not derived_lists.list_in_sql(Category.objects.get(slug="team-constructed"))
    assert not derived_lists.list_in_sql(Category.objects.get(slug="composite"))


# every list at once -------------------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_every_list_inside_a_transaction_is_recomputed_one_after_the_other(world_until_today, monkeypatch):
    """Processes could not see what this transaction holds: the lists are recomputed here, in order."""
    before = published()
    monkeypatch.setattr(every_list, "_in_processes", lambda *args: pytest.fail("no processes in a transaction"))

    output = recompute_ratings("--workers", "4")

    assert published() == before
    assert "composite: derived, built in" in output
    assert "Recomputed 7 lists in" in output


@postgresql_only
def test_every_list_recomputed_side_by_side_publishes_what_one_after_the_other_does(transactional_db, tmp_path):
    demo_bundle_write(tmp_path, players=250, events=40, seed=5, start=date(2023, 1, 1), end=date(2024, 6, 30))
    results_import(source=tmp_path)
    recompute_ratings("--workers", "1")
    one_after_the_other = published()
    assert all(one_after_the_other[slug][1] for slug in ("constructed", "limited", "vintage", "vtes", "composite"))
    RatingEntry.objects.all().delete()
    CurrentRating.objects.all().delete()
    CurrentRank.objects.all().delete()

    output = recompute_ratings("--workers", "2")

    assert published() == one_after_the_other
    for category in Category.objects.all():
        assert f"{category.slug}: " in output


@postgresql_only
def test_a_list_that_fails_leaves_the_others_published(transactional_db, tmp_path, monkeypatch):
    demo_bundle_write(tmp_path, players=120, events=20, seed=3, start=date(2023, 1, 1), end=date(2023, 12, 31))
    results_import(source=tmp_path)
    real = recompute.category_recompute

    def failing_for_limited(*, category, **options):
        if category.slug == "limited":
            raise RuntimeError("limited failed")
        return real(category=category, **options)

    monkeypatch.setattr(every_list, "category_recompute", failing_for_limited)  # the forked processes have it too

    with pytest.raises(RuntimeError, match="limited failed"):
        every_list.lists_recompute(categories=list(Category.objects.all()), workers=2)

    assert RatingEntry.objects.filter(category__slug="constructed").exists()
    assert not RatingEntry.objects.filter(category__slug="limited").exists()
    assert CurrentRating.objects.filter(category__slug="vtes").exists()


@postgresql_only
def test_a_derived_list_is_built_while_the_lists_that_do_not_feed_it_go_on(transactional_db, tmp_path, monkeypatch):
    demo_bundle_write(tmp_path, players=150, events=24, seed=7, start=date(2023, 1, 1), end=date(2023, 12, 31))
    results_import(source=tmp_path)
    with transaction.atomic():  # other connections cannot see this: the composite is built after every list
        recompute_ratings("--workers", "1")
    after_every_list = published()
    components = set(Category.objects.get(slug="composite").component_list)
    composite_built = threading.Event()
    real_follow, real_recompute = every_list.derived_list_follow, every_list.category_recompute

    def follow(*, derived, results):
        followed = real_follow(derived=derived, results=results)
        composite_built.set()
        return followed

    recomputed, waited = set(), []

    def recompute(*, category, **options):
        result = real_recompute(category=category, **options)
        recomputed.add(category.slug)
        if category.slug not in components and components <= recomputed:
            # The composite's components have published: it is being built beside this list, not after all.
            waited.append((category.slug, composite_built.wait(timeout=60)))
        return result

    monkeypatch.setattr(every_list, "derived_list_follow", follow)
    monkeypatch.setattr(every_list, "category_recompute", recompute)

    output = recompute_ratings("--workers", "1")

    assert waited and all(built for _, built in waited), waited
    assert published() == after_every_list
    assert "composite: derived, built in" in output


@pytest.mark.django_db
def test_the_default_is_a_process_per_core_while_the_largest_lists_fit_in_memory(monkeypatch, settings):
    settings.RECOMPUTE_MEMORY_MB = 1536
    million = [986_000.0, 703_000.0, 181_000.0, 36_000.0, 23_000.0]  # history rows: every list at 1M matches
    ten_million = [9_400_000.0, 6_600_000.0, 1_760_000.0, 877_000.0]
    monkeypatch.setattr(every_list.os, "cpu_count", lambda: 2)
    assert every_list.default_workers(million) == 2
    assert every_list.default_workers(ten_million) == 1  # 1.9 GB together: one after the other
    monkeypatch.setattr(every_list.os, "cpu_count", lambda: 8)
    assert every_list.default_workers(million) == 8
    assert every_list.default_workers(ten_million) == 1
    assert every_list.default_workers(ten_million[2:]) == 8  # without the two largest, the rest fit together
    monkeypatch.setattr(every_list.os, "cpu_count", lambda: None)
    assert every_list.default_workers(million) == 1


def test_a_list_never_recomputed_is_taken_to_hold_two_rows_for_every_match_stored(monkeypatch, settings):
    """After a first import no list has a history to go by: at ten million matches each may be 19 million rows,
    so the lists go one after the other; at a million, two at a time still fit."""
    lists = [Category(pk=1, slug="constructed"), Category(pk=2, slug="limited")]

    assert every_list._history_estimates(lists, {1: 986_000.0}, 983_000.0) == [986_000.0, 1_966_000.0]
    assert every_list._history_estimates(lists, {}, 9_580_000.0) == [19_160_000.0, 19_160_000.0]
    settings.RECOMPUTE_MEMORY_MB = 1536
    monkeypatch.setattr(every_list.os, "cpu_count", lambda: 2)
    assert every_list.default_workers(every_list._history_estimates(lists, {}, 9_580_000.0)) == 1
    assert every_list.default_workers(every_list._history_estimates(lists, {}, 983_000.0)) == 2
