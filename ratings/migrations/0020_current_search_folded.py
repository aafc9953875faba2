"""The ranking pages' name search compares folded names, as the player search does (players.search): the
trigram index on today's lists takes fold_name(name) instead of UPPER(name). PostgreSQL builds it on every
category's partition; ratings.category_tables builds the next lists' from this definition. SQLite has none."""

import django.contrib.postgres.indexes
import django.db.models.functions.text
import lib.indexes
import players.search
from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('players', '0005_search_folded_names'),
        ('ratings', '0019_category_list_refreshed_on'),
    ]

    operations = [
        migrations.RemoveIndex(
            model_name='currentrating',
            name='current_search_trgm',
        ),
        migrations.AddIndex(
            model_name='currentrating',
            index=lib.indexes.PostgresOnlyGinIndex(django.contrib.postgres.indexes.OpClass(players.search.FoldName('name'), name='gin_trgm_ops'), django.contrib.postgres.indexes.OpClass(django.db.models.functions.text.Upper('display_id'), name='gin_trgm_ops'), name='current_search_trgm'),
        ),
    ]
