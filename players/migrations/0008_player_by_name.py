"""Players indexed in their order (name, then number): the player list without a search and the admin's players
list read their first page along it instead of sorting every player."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('players', '0007_name_folded_stored'),
    ]

    operations = [
        migrations.AddIndex(
            model_name='player',
            index=models.Index(fields=['name', 'membership_number'], name='player_by_name'),
        ),
    ]
