"""Today's lists lose their trigram index: the ranking pages' search of a list of players finds them through
the players' table's trigram indexes (players migrations 0002 and 0005) and reads their rows by participant,
and a team list is small enough to read whole (ratings.selectors.rankings._search_condition). Every recompute
built that index again for each list it wrote (a third of a second for a list of 50,000 players). Dropping the
parent's index drops each partition's. SQLite never had it. Migration 0027 brings it back."""

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('ratings', '0025_world_list_to_the_last_key'),
    ]

    operations = [
        migrations.RemoveIndex(
            model_name='currentrating',
            name='current_search_trgm',
        ),
    ]
