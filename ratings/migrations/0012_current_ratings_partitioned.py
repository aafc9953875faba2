"""On PostgreSQL, today's lists (CurrentRating) become a table partitioned by category, like the history.

A full recompute then writes the category's list into a fresh table and
swaps it in (ratings/category_tables.py): a dozen indexes, a trigram one
among them, built once each instead of maintained row by row.
The primary key becomes (id, category_id), as a partitioned table's keys must
contain the partition key; ids still come from one sequence. SQLite keeps the
plain table.
"""

import re

from django.db import migrations

TABLE = "ratings_currentrating"


def _indexes(cursor, table):
    """(name, definition, key constraint definition or None) of each index of `table`."""
    cursor.execute(
        """
        SELECT ic.relname, pg_get_indexdef(i.indexrelid), pg_get_constraintdef(c.oid)
        FROM pg_index i
        JOIN pg_class ic ON ic.oid = i.indexrelid
        LEFT JOIN pg_constraint c ON c.conindid = i.indexrelid AND c.conrelid = i.indrelid AND c.contype IN ('p', 'u')
        WHERE i.indrelid = %s::regclass
        ORDER BY i.indexrelid
        """,
        [table],
    )
    return cursor.fetchall()


def _rebuild(schema_editor, *, partitioned: bool, table: str = TABLE) -> None:
    """Recreate `table` with the same columns, keys and indexes, partitioned by category or plain."""
    if schema_editor.connection.vendor != "postgresql":
        return
    old = f"{table}_old"
    with schema_editor.connection.cursor() as cursor:
        indexes = _indexes(cursor, table)
        execute = cursor.execute
        execute(f"ALTER TABLE {table} RENAME TO {old}")
        for name, _, constraint in indexes:  # index names are global: free them for the new table
            if constraint:
                execute(f"ALTER TABLE {old} RENAME CONSTRAINT {name} TO {name}_old")
            else:
                execute(f"ALTER INDEX {name} RENAME TO {name}_old")
        partition = " PARTITION BY LIST (category_id)" if partitioned else ""
        execute(
            f"CREATE TABLE {table} (LIKE {old} INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING IDENTITY){partition}"
        )
        for name, definition, constraint in indexes:
            if constraint and constraint.startswith("PRIMARY KEY"):
                constraint = "PRIMARY KEY (id, category_id)" if partitioned else "PRIMARY KEY (id)"
            if constraint:
                execute(f"ALTER TABLE {table} ADD CONSTRAINT {name} {constraint}")
            else:
                execute(re.sub(r" ON (ONLY )?\S+ USING", f" ON {table} USING", definition, count=1))
        if partitioned:
            execute(f"CREATE TABLE {table}_default PARTITION OF {table} DEFAULT")
        execute(f"INSERT INTO {table} SELECT * FROM {old}")
        execute(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), COALESCE(MAX(id), 0) + 1, false) FROM {table}")
        execute(f"DROP TABLE {old} CASCADE")


def partition(apps, schema_editor):
    _rebuild(schema_editor, partitioned=True)


def unpartition(apps, schema_editor):
    _rebuild(schema_editor, partitioned=False)


class Migration(migrations.Migration):
    dependencies = [
        ("ratings", "0011_history_partitioned"),
    ]

    operations = [
        migrations.RunPython(partition, unpartition),
    ]
