"""Where a full recompute writes a category's history on PostgreSQL: a fresh table swapped in at the end.

The history table is partitioned by category (migration 0011). Writing a
million matches into the live, indexed table means maintaining three indexes
row by row, deleting the old rows first, and vacuuming them afterwards. A
fresh table takes the rows unindexed, builds each index in one sort, and
replaces the category's partition in a few catalogue updates. Everything
happens inside the recompute's transaction: until it commits, readers see the
old partition; a failure drops the new table with the rest of the work.
"""

from django.db import connection

from ratings.models import RatingEntry

PARENT = RatingEntry._meta.db_table


def swaps_tables() -> bool:
    return connection.vendor == "postgresql"


def partition_name(category_id: int) -> str:
    return f"{PARENT}_c{int(category_id)}"


def staging_create(category_id: int) -> str:
    """An empty table shaped like the history, numbering its rows from the history's sequence."""
    staging = f"{partition_name(category_id)}_next"
    with connection.cursor() as cursor:
        cursor.execute(f"DROP TABLE IF EXISTS {staging}")
        cursor.execute(f"CREATE TABLE {staging} (LIKE {PARENT} INCLUDING DEFAULTS INCLUDING CONSTRAINTS)")
        cursor.execute(
            f"ALTER TABLE {staging} ALTER COLUMN id SET DEFAULT nextval(pg_get_serial_sequence(%s, 'id'))", [PARENT]
        )
    return staging


def staging_publish(category_id: int, staging: str) -> None:
    """Index `staging` and make it the category's partition, replacing whatever history it had.

    The swap locks the whole history table until the transaction commits, so
    callers run it last.
    """
    final = partition_name(category_id)
    with connection.cursor() as cursor:
        # Each index is built in one sort; memory for it is the difference between one pass and several.
        cursor.execute("SET LOCAL maintenance_work_mem = '256MB'")
        cursor.execute(f"ALTER TABLE {staging} ALTER COLUMN id DROP DEFAULT")
        cursor.execute(f"ALTER TABLE {staging} ADD CONSTRAINT {staging}_pkey PRIMARY KEY (id, category_id)")
        cursor.execute(f"CREATE INDEX {staging}_by_participant ON {staging} (category_id, participant_id, seq)")
        cursor.execute(f"CREATE INDEX {staging}_order ON {staging} (category_id, seq)")
        if _exists(cursor, final):
            cursor.execute(f"DROP TABLE {final}")
        else:  # the category's rows are still in the default partition
            cursor.execute(f"DELETE FROM {PARENT} WHERE category_id = %s", [category_id])
        cursor.execute(f"ALTER TABLE {staging} RENAME TO {final}")
        for suffix in ("pkey", "by_participant", "order"):
            cursor.execute(f"ALTER INDEX {staging}_{suffix} RENAME TO {final}_{suffix}")
        cursor.execute(f"ALTER TABLE {PARENT} ATTACH PARTITION {final} FOR VALUES IN ({int(category_id)})")


def analyze(category_id: int) -> None:
    """Statistics for a freshly swapped-in partition (run after the commit: it reads a sample, not the table)."""
    with connection.cursor() as cursor:
        if _exists(cursor, partition_name(category_id)):
            cursor.execute(f"ANALYZE {partition_name(category_id)}")


def _exists(cursor, table: str) -> bool:
    cursor.execute("SELECT to_regclass(%s) IS NOT NULL", [table])
    return cursor.fetchone()[0]
