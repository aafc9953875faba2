"""Django's state declares the player search's trigram index, which 0002 made on PostgreSQL with RunPython.

Nothing changes in either database. PostgreSQL has had player_search_trgm since
0002, exactly as the model now declares it: GIN on (UPPER(name) gin_trgm_ops,
UPPER(membership_number) gin_trgm_ops). SQLite has no GIN nor pg_trgm and never
gets it: lib.indexes.PostgresOnlyGinIndex writes nothing there, so a later
migration that rebuilds the table on SQLite leaves it out instead of failing.
Backwards, only the state forgets it again (0002 undone drops it).
"""

import django.contrib.postgres.indexes
import django.db.models.functions.text
from django.db import migrations

import lib.indexes


class Migration(migrations.Migration):
    dependencies = [
        ("players", "0003_players_public_and_names"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AddIndex(
                    model_name="player",
                    index=lib.indexes.PostgresOnlyGinIndex(
                        django.contrib.postgres.indexes.OpClass(
                            django.db.models.functions.text.Upper("name"), name="gin_trgm_ops"
                        ),
                        django.contrib.postgres.indexes.OpClass(
                            django.db.models.functions.text.Upper("membership_number"), name="gin_trgm_ops"
                        ),
                        name="player_search_trgm",
                    ),
                ),
            ],
            database_operations=[],
        ),
    ]
