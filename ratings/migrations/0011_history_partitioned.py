"""On PostgreSQL, the rating history becomes a table partitioned by category.

A full recompute then writes the category's new history into a fresh table,
indexes it once, and swaps it in for the old partition: no row-by-row index
maintenance, no delete of the old rows, no dead rows left behind (see
ratings/history_tables.py). Categories without a partition of their own yet
live in the default partition.

The primary key becomes (id, category_id): a partitioned table's unique keys
must contain the partition key. Ids still come from one sequence, so they stay
unique on their own. SQLite keeps the plain table.
"""

from django.db import migrations

TABLE = "ratings_ratingentry"

PARTITIONED = f"""
ALTER TABLE {TABLE} RENAME TO {TABLE}_plain;
ALTER INDEX rating_entry_by_participant RENAME TO rating_entry_by_participant_plain;
ALTER INDEX rating_entry_order RENAME TO rating_entry_order_plain;
ALTER TABLE {TABLE}_plain RENAME CONSTRAINT {TABLE}_pkey TO {TABLE}_plain_pkey;
CREATE TABLE {TABLE} (LIKE {TABLE}_plain INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING IDENTITY)
    PARTITION BY LIST (category_id);
ALTER TABLE {TABLE} ADD CONSTRAINT {TABLE}_pkey PRIMARY KEY (id, category_id);
CREATE INDEX rating_entry_by_participant ON {TABLE} (category_id, participant_id, seq);
CREATE INDEX rating_entry_order ON {TABLE} (category_id, seq);
CREATE TABLE {TABLE}_default PARTITION OF {TABLE} DEFAULT;
INSERT INTO {TABLE} SELECT * FROM {TABLE}_plain;
SELECT setval(pg_get_serial_sequence('{TABLE}', 'id'), COALESCE(MAX(id), 0) + 1, false) FROM {TABLE};
DROP TABLE {TABLE}_plain;
"""

PLAIN = f"""
ALTER TABLE {TABLE} RENAME TO {TABLE}_partitioned;
ALTER INDEX rating_entry_by_participant RENAME TO rating_entry_by_participant_partitioned;
ALTER INDEX rating_entry_order RENAME TO rating_entry_order_partitioned;
ALTER TABLE {TABLE}_partitioned RENAME CONSTRAINT {TABLE}_pkey TO {TABLE}_partitioned_pkey;
CREATE TABLE {TABLE} (LIKE {TABLE}_partitioned INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING IDENTITY);
ALTER TABLE {TABLE} ADD CONSTRAINT {TABLE}_pkey PRIMARY KEY (id);
CREATE INDEX rating_entry_by_participant ON {TABLE} (category_id, participant_id, seq);
CREATE INDEX rating_entry_order ON {TABLE} (category_id, seq);
INSERT INTO {TABLE} SELECT * FROM {TABLE}_partitioned;
SELECT setval(pg_get_serial_sequence('{TABLE}', 'id'), COALESCE(MAX(id), 0) + 1, false) FROM {TABLE};
DROP TABLE {TABLE}_partitioned CASCADE;
"""


def _run(schema_editor, script: str) -> None:
    if schema_editor.connection.vendor == "postgresql":
        for statement in script.split(";\n"):
            if statement.strip():
                schema_editor.execute(statement)


def partition(apps, schema_editor):
    _run(schema_editor, PARTITIONED)


def unpartition(apps, schema_editor):
    _run(schema_editor, PLAIN)


class Migration(migrations.Migration):
    dependencies = [
        ("ratings", "0010_ranking_pages"),
    ]

    operations = [
        migrations.RunPython(partition, unpartition),
    ]
