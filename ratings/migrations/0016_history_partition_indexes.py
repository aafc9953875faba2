"""On PostgreSQL, each category's history partition indexes (participant_id, seq) and (seq) without the category.

Inside a partition the category is constant, yet it led both indexes of the
history: every comparison of a full recompute's index sorts looked at it
first. The partitioned indexes become indexes of each partition: a category's
own partition leaves the category out (ratings/category_tables.OWN_INDEXES),
the default partition, which holds the categories not yet swapped in, keeps
it first. Queries name the category, so PostgreSQL reads only its partition
and uses that partition's indexes. SQLite keeps the model's indexes as
declared, and so does Django's migration state.
"""

from django.db import migrations

TABLE = "ratings_ratingentry"
PARTITIONED = {
    "rating_entry_by_participant": "(category_id, participant_id, seq)",
    "rating_entry_order": "(category_id, seq)",
}
OWN = ["(participant_id, seq)", "(seq)"]  # as ratings/category_tables.OWN_INDEXES names them


def _partitions(cursor) -> list[tuple[str, bool]]:
    cursor.execute(
        """
        SELECT c.relname, pg_get_expr(c.relpartbound, c.oid) = 'DEFAULT'
        FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
        WHERE i.inhparent = %s::regclass
        """,
        [TABLE],
    )
    return cursor.fetchall()


def to_partition_indexes(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    with schema_editor.connection.cursor() as cursor:
        partitions = _partitions(cursor)
        for name in PARTITIONED:
            cursor.execute(f"DROP INDEX {name}")
        for partition, default in partitions:
            columns = list(PARTITIONED.values()) if default else OWN
            for number, indexed in enumerate(columns):
                cursor.execute(f"CREATE INDEX {partition}_own{number} ON {partition} {indexed}")


def to_partitioned_indexes(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    with schema_editor.connection.cursor() as cursor:
        for partition, _ in _partitions(cursor):
            for number, _ in enumerate(OWN):
                cursor.execute(f"DROP INDEX IF EXISTS {partition}_own{number}")
        for name, indexed in PARTITIONED.items():
            cursor.execute(f"CREATE INDEX {name} ON {TABLE} {indexed}")


class Migration(migrations.Migration):
    dependencies = [
        ("ratings", "0015_current_ranks"),
    ]

    operations = [
        migrations.RunPython(to_partition_indexes, to_partitioned_indexes),
    ]
