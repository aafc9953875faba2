"""Large loads on PostgreSQL: keys checked as a set and plain indexes built after the rows, never lost."""

import pytest
from django.db import IntegrityError, connection, transaction

from events.models import Event, Match
from lib import bulk
from lib.bulk import insert_rows, loaded_in_bulk
from organize.importer import results_import
from players.models import Player
from tests.bundles import DEFAULT_COUNTS, Bundle, db_counts

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(connection.vendor != "postgresql", reason="bulk loads take this path on PostgreSQL only"),
]

LOADED_TABLES = ["players_player", "events_match", "events_standing"]
MATCH_FIELDS = ["event", "round", "participant1", "participant2", "games1", "games2", "draws", "elimination"]


@pytest.fixture
def small_loads_are_large(monkeypatch):
    """The default bundle's few rows count as a large load."""
    monkeypatch.setattr(bulk, "BULK_FOREIGN_KEY_THRESHOLD", 2)


def indexes(tables=LOADED_TABLES) -> set[tuple]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT tablename, indexname, indexdef FROM pg_indexes WHERE tablename = ANY(%s)", [tables])
        return set(cursor.fetchall())


def keys() -> set[tuple]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT conrelid::regclass::text, conname, pg_get_constraintdef(oid), convalidated FROM pg_constraint"
            " WHERE conrelid::regclass::text = ANY(%s)",
            [LOADED_TABLES],
        )
        return set(cursor.fetchall())


def indexes_and_keys() -> set[tuple]:
    return indexes() | keys()


def test_a_first_import_leaves_every_index_and_key_as_it_was(small_loads_are_large, tmp_path):
    before = indexes_and_keys()
    assert any("gin_trgm_ops" in row[2] for row in before)  # the name search's index is among them

    results_import(source=Bundle(tmp_path).write())

    assert db_counts() == DEFAULT_COUNTS
    assert indexes_and_keys() == before
    assert Player.objects.filter(name__icontains="dubois").count() == 1


def test_a_load_that_fails_its_key_check_saves_nothing_and_keeps_every_index(small_loads_are_large, tmp_path):
    results_import(source=Bundle(tmp_path).write())
    Match.objects.all().delete()
    before = indexes_and_keys()
    event = Event.objects.first()
    missing = 10**9
    rows = [(event.pk, round_, missing, None, 2, 0, 0, False) for round_ in range(1, 4)]

    with pytest.raises(IntegrityError), transaction.atomic(), loaded_in_bulk(Match, rows=len(rows)):
        insert_rows(Match, MATCH_FIELDS, rows)

    assert Match.objects.count() == 0
    assert indexes_and_keys() == before


def test_a_load_that_seats_a_player_twice_in_a_round_fails_at_its_end_and_keeps_every_key(
    small_loads_are_large, tmp_path
):
    results_import(source=Bundle(tmp_path).write())
    Match.objects.all().delete()
    before = indexes_and_keys()
    assert any("UNIQUE (event_id, round, participant1_id)" in row[2] for row in before)
    event = Event.objects.first()
    one, other, third = Player.objects.values_list("participant_id", flat=True)[:3]
    rows = [(event.pk, 1, one, other, 2, 0, 0, False), (event.pk, 1, one, third, 2, 1, 0, False)]

    during = None
    with pytest.raises(IntegrityError), transaction.atomic(), loaded_in_bulk(Match, rows=len(rows)):
        insert_rows(Match, MATCH_FIELDS, rows)  # the seat keys are dropped meanwhile: the rows go in
        during = indexes_and_keys()

    assert during is not None
    assert not any(row[0] == "events_match" and "UNIQUE (" in row[2] for row in during)
    assert Match.objects.count() == 0
    assert indexes_and_keys() == before


def test_a_load_smaller_than_the_table_keeps_the_indexes_while_it_runs(small_loads_are_large, tmp_path):
    results_import(source=Bundle(tmp_path).write())
    stored = Match.objects.count()
    event = Event.objects.first()
    player = Player.objects.first()
    rows = [(event.pk, 100 + round_, player.participant_id, None, 2, 0, 0, False) for round_ in range(stored - 1)]
    before = indexes(["events_match"])

    with transaction.atomic(), loaded_in_bulk(Match, rows=len(rows)):
        insert_rows(Match, MATCH_FIELDS, rows)
        during = indexes(["events_match"])

    assert during == before
    assert Match.objects.count() == stored + len(rows)


def statistics_of(tables: list[str]) -> set[str]:
    """The tables of `tables` PostgreSQL has statistics for (what it plans reads of them by)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT DISTINCT tablename FROM pg_stats WHERE tablename = ANY(%s)", [tables])
        return {table for (table,) in cursor.fetchall()}


def test_an_import_of_many_rows_leaves_statistics_of_the_tables_it_loaded(monkeypatch, tmp_path):
    loaded = ["players_player", "players_participant", "events_event", "events_match", "events_standing"]
    with connection.cursor() as cursor:  # as after a first import where autovacuum is slow, or off
        cursor.execute("DELETE FROM pg_statistic WHERE starelid = ANY(%s::regclass[])", [loaded])
    assert statistics_of(loaded) == set()
    monkeypatch.setattr(bulk, "STATISTICS_AFTER_ROWS", 2)  # the default bundle's few rows count as many

    results_import(source=Bundle(tmp_path).write())

    # Without them the event list sorted all 100,000 events of a page 50 (130 ms) instead of reading its index.
    assert statistics_of(loaded) == set(loaded)


def test_statistics_are_taken_again_after_a_write_of_a_tenth_of_the_table_or_more(monkeypatch, tmp_path):
    monkeypatch.setattr(bulk, "STATISTICS_AFTER_ROWS", 1)  # the default bundle's few rows count as many
    results_import(source=Bundle(tmp_path).write())  # a first import: every table it loaded analysed
    matches = Match.objects.count()
    assert matches >= 5
    monkeypatch.setattr(bulk, "STATISTICS_AFTER_SHARE", 0.5)  # so that a few of the bundle's rows fall short

    assert bulk.statistics_refresh({Match: matches // 3}) == []  # planned as before
    assert bulk.statistics_refresh({Match: matches // 2 + 1, Event: 0}) == ["events_match"]
