"""Django's state declares the ranking pages' trigram index, which 0010 made on PostgreSQL with RunPython.

Nothing changes in either database. PostgreSQL has had current_search_trgm
since 0010, exactly as the model now declares it: GIN on (UPPER(name)
gin_trgm_ops, UPPER(display_id) gin_trgm_ops), on the partitioned parent since
0012, each partition with its own copy (ratings/category_tables.py builds a
fresh partition's from the parent's definition). SQLite has no GIN nor pg_trgm
and never gets it: lib.indexes.PostgresOnlyGinIndex writes nothing there, so
a later migration that rebuilds the table on SQLite leaves it out instead of
failing. Backwards, only the state forgets it again (0010 undone drops it).
"""

import django.contrib.postgres.indexes
import django.db.models.functions.text
from django.db import migrations

import lib.indexes


class Migration(migrations.Migration):
    dependencies = [
        ("ratings", "0017_history_indexes_state"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AddIndex(
                    model_name="currentrating",
                    index=lib.indexes.PostgresOnlyGinIndex(
                        django.contrib.postgres.indexes.OpClass(
                            django.db.models.functions.text.Upper("name"), name="gin_trgm_ops"
                        ),
                        django.contrib.postgres.indexes.OpClass(
                            django.db.models.functions.text.Upper("display_id"), name="gin_trgm_ops"
                        ),
                        name="current_search_trgm",
                    ),
                ),
            ],
            database_operations=[],
        ),
    ]
