"""On PostgreSQL, the rows of past dates' lists become a table partitioned by snapshot.

A past date's list is then written into a table of its own, unindexed, its
five indexes built afterwards in one sort each, and attached as its
snapshot's partition: no index maintained row by row among the other lists'
rows (half the time of writing a list of 41,000 rows). A list no page asks
for any more goes by dropping its table: no delete, no dead rows to vacuum
(ratings/snapshots.py).

The primary key becomes (id, snapshot_id): a partitioned table's unique keys
must contain the partition key; ids still come from one sequence. Each list
already written gets its partition here. SQLite keeps the plain table.
"""

from django.db import migrations

TABLE = "ratings_snapshotrating"
INDEXES = {
    "snapshot_world_list": "(snapshot_id, ranked, world_position)",
    "snapshot_continent_list": "(snapshot_id, continent, ranked, continent_position)",
    "snapshot_country_list": "(snapshot_id, country, ranked, country_position)",
    "snapshot_region_list": "(snapshot_id, region, ranked, region_position)",
    "snapshot_by_participant": "(snapshot_id, participant_id)",
}


def _rebuilt(suffix: str, partition_by: str, key: str) -> list[str]:
    """Statements that move the table aside (as TABLE_<suffix>) and create it again, with its indexes."""
    return [
        f"ALTER TABLE {TABLE} RENAME TO {TABLE}_{suffix}",
        *(f"ALTER INDEX {name} RENAME TO {name}_{suffix}" for name in INDEXES),
        f"ALTER TABLE {TABLE}_{suffix} RENAME CONSTRAINT {TABLE}_pkey TO {TABLE}_{suffix}_pkey",
        f"CREATE TABLE {TABLE} (LIKE {TABLE}_{suffix} INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING IDENTITY)"
        f" {partition_by}",
        f"ALTER TABLE {TABLE} ADD CONSTRAINT {TABLE}_pkey PRIMARY KEY {key}",
        *(f"CREATE INDEX {name} ON {TABLE} {columns}" for name, columns in INDEXES.items()),
    ]


def _moved_back(suffix: str) -> list[str]:
    return [
        f"INSERT INTO {TABLE} SELECT * FROM {TABLE}_{suffix}",
        f"SELECT setval(pg_get_serial_sequence('{TABLE}', 'id'), COALESCE(MAX(id), 0) + 1, false) FROM {TABLE}",
        f"DROP TABLE {TABLE}_{suffix} CASCADE",
    ]


def partition(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    for statement in _rebuilt("plain", "PARTITION BY LIST (snapshot_id)", "(id, snapshot_id)"):
        schema_editor.execute(statement)
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(f"SELECT DISTINCT snapshot_id FROM {TABLE}_plain")
        snapshots = [row[0] for row in cursor.fetchall()]
    for snapshot_id in snapshots:
        schema_editor.execute(
            f"CREATE TABLE {TABLE}_s{int(snapshot_id)} PARTITION OF {TABLE} FOR VALUES IN ({int(snapshot_id)})"
        )
    for statement in _moved_back("plain"):
        schema_editor.execute(statement)


def unpartition(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    for statement in [*_rebuilt("partitioned", "", "(id)"), *_moved_back("partitioned")]:
        schema_editor.execute(statement)


class Migration(migrations.Migration):
    dependencies = [
        ("ratings", "0023_category_history_file"),
    ]

    operations = [
        migrations.RunPython(partition, unpartition),
    ]
