"""Today's lists get their trigram index again (0026 dropped it). Without it a ranking search of a list of
players asked the players' table and read the list by participant: at ten million matches a common first name
("Andrew" in limited) took 116-122 ms against 41 ms through the list's own index, and a name found among many
players 22 -> 41 ms, while the index costs a recompute about 0.3 s a list at a million matches. The pages come
first. Creating the parent's index creates each partition's. SQLite has none."""

import django.contrib.postgres.indexes
import django.db.models.functions.text
import lib.indexes
import players.search
from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('players', '0007_name_folded_stored'),
        ('ratings', '0026_current_search_by_players'),
    ]

    operations = [
        migrations.AddIndex(
            model_name='currentrating',
            index=lib.indexes.PostgresOnlyGinIndex(django.contrib.postgres.indexes.OpClass(players.search.FoldName('name'), name='gin_trgm_ops'), django.contrib.postgres.indexes.OpClass(django.db.models.functions.text.Upper('display_id'), name='gin_trgm_ops'), name='current_search_trgm'),
        ),
    ]
