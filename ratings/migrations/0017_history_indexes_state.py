"""Django's state no longer declares the history's two indexes: on PostgreSQL they are the partitions' own.

Since 0016 the partitioned history table (PostgreSQL) has no index of its own
besides its key: (category, participant, seq) and (category, seq) are indexes
of each partition, without the category in a category's partition
(ratings/category_tables.OWN_INDEXES), with it in the default partition.
Django's state still declared rating_entry_by_participant and
rating_entry_order, so it described indexes that were not there (a later
RemoveIndex or rename would have failed on them).

Nothing changes in either database. SQLite's plain table keeps both indexes as
0003 and 0006 made them, now outside the state: a migration that rebuilds the
table on SQLite must make them again (tests/test_schema_matches_models.py
checks that they exist). Backwards, the state declares them again, as 0016
undone makes them again on PostgreSQL's parent table.
"""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("ratings", "0016_history_partition_indexes"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.RemoveIndex(model_name="ratingentry", name="rating_entry_by_participant"),
                migrations.RemoveIndex(model_name="ratingentry", name="rating_entry_order"),
            ],
            database_operations=[],
        ),
    ]
