"""Codes compared byte by byte on PostgreSQL (lib.fields.BytewiseCharField): the places and display ids of
today's lists, their ranks and the past dates' lists. A list's indexes on its places and numbers build 10-20 %
faster in byte order; the rank windows sorted them so already. Changing a column's collation rebuilds its
indexes, not the table.

The membership number leaves the list's trigram index for a plain one on UPPER(display_id), which in byte order
answers a search by a number's start (istartswith) from a range: in the trigram index the numbers took as long to
build as the names (0.26 s a list of 48,000 rows). The trigram index is made again with the names only."""

import django.contrib.postgres.indexes
import django.db.models.functions.text
import lib.fields
import lib.indexes
import players.search
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('players', '0007_name_folded_stored'),
        ('ratings', '0027_current_search_index_again'),
    ]

    operations = [
        migrations.RemoveIndex(
            model_name='currentrating',
            name='current_search_trgm',
        ),
        migrations.AlterField(
            model_name='currentrank',
            name='continent',
            field=lib.fields.BytewiseCharField(blank=True, max_length=2),
        ),
        migrations.AlterField(
            model_name='currentrank',
            name='country',
            field=lib.fields.BytewiseCharField(blank=True, max_length=2),
        ),
        migrations.AlterField(
            model_name='currentrank',
            name='region',
            field=lib.fields.BytewiseCharField(blank=True, max_length=6),
        ),
        migrations.AlterField(
            model_name='currentrating',
            name='continent',
            field=lib.fields.BytewiseCharField(blank=True, max_length=2),
        ),
        migrations.AlterField(
            model_name='currentrating',
            name='country',
            field=lib.fields.BytewiseCharField(blank=True, max_length=2),
        ),
        migrations.AlterField(
            model_name='currentrating',
            name='display_id',
            field=lib.fields.BytewiseCharField(help_text="Membership number; for a team its members' numbers.", max_length=200),
        ),
        migrations.AlterField(
            model_name='currentrating',
            name='region',
            field=lib.fields.BytewiseCharField(blank=True, max_length=6),
        ),
        migrations.AlterField(
            model_name='snapshotrating',
            name='continent',
            field=lib.fields.BytewiseCharField(blank=True, max_length=2),
        ),
        migrations.AlterField(
            model_name='snapshotrating',
            name='country',
            field=lib.fields.BytewiseCharField(blank=True, max_length=2),
        ),
        migrations.AlterField(
            model_name='snapshotrating',
            name='display_id',
            field=lib.fields.BytewiseCharField(max_length=200),
        ),
        migrations.AlterField(
            model_name='snapshotrating',
            name='region',
            field=lib.fields.BytewiseCharField(blank=True, max_length=6),
        ),
        migrations.AddIndex(
            model_name='currentrating',
            index=lib.indexes.PostgresOnlyGinIndex(django.contrib.postgres.indexes.OpClass(players.search.FoldName('name'), name='gin_trgm_ops'), name='current_search_trgm'),
        ),
        migrations.AddIndex(
            model_name='currentrating',
            index=models.Index(models.F('category'), django.db.models.functions.text.Upper('display_id'), name='current_by_number_start'),
        ),
    ]
