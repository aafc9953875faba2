"""The players' names folded as searches compare them (players.search), stored by the database in a generated
column, and the trigram index on it instead of on the expression: a search's candidates are compared as stored,
not folded again one by one. fold_name is immutable on PostgreSQL (migration 0005) and deterministic on SQLite,
where it is registered on every connection (players.search.search_session_prepare) before any migration runs."""

import django.contrib.postgres.indexes
import lib.indexes
import players.search
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('players', '0006_suspensions'),
    ]

    operations = [
        migrations.RemoveIndex(
            model_name='player',
            name='player_name_folded_trgm',
        ),
        migrations.AddField(
            model_name='player',
            name='name_folded',
            field=models.GeneratedField(db_persist=True, expression=players.search.FoldName('name'), output_field=models.CharField(max_length=200)),
        ),
        migrations.AddIndex(
            model_name='player',
            index=lib.indexes.PostgresOnlyGinIndex(django.contrib.postgres.indexes.OpClass('name_folded', name='gin_trgm_ops'), name='player_name_folded_trgm'),
        ),
    ]
