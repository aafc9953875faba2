"""The player search compares folded names (players.search): lower case, no accents, through a trigram index.

On PostgreSQL, fold_name(text) is an SQL function over the unaccent extension
(both pg_trgm and unaccent are trusted extensions: the database's owner may
create them). SQLite gets fold_name from Python on each connection and has
no such index.
"""

from django.contrib.postgres.indexes import OpClass
from django.db import migrations

import lib.indexes
import players.search

FOLD_NAME = """
CREATE OR REPLACE FUNCTION fold_name(text) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
AS $$ SELECT lower(public.unaccent('public.unaccent'::regdictionary, $1)) $$
"""


def fold_name_create(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute("CREATE EXTENSION IF NOT EXISTS unaccent SCHEMA public")
    schema_editor.execute(FOLD_NAME)


def fold_name_drop(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute("DROP FUNCTION IF EXISTS fold_name(text)")


class Migration(migrations.Migration):
    dependencies = [("players", "0004_search_trigram_index_state")]

    operations = [
        migrations.RunPython(fold_name_create, fold_name_drop),
        migrations.AddIndex(
            model_name="player",
            index=lib.indexes.PostgresOnlyGinIndex(
                OpClass(players.search.FoldName("name"), name="gin_trgm_ops"), name="player_name_folded_trgm"
            ),
        ),
    ]
