from django.db import migrations


def complete_roles(apps, schema_editor):
    from accounts.roles import roles_create

    roles_create(apps)  # adds the permissions of models created since 0002; safe to run again


class Migration(migrations.Migration):
    """Admins get the permissions of the corrections app and of the ranking snapshots, added after 0002."""

    dependencies = [
        ("accounts", "0002_roles"),
        ("corrections", "0001_initial"),
        ("ratings", "0012_current_ratings_partitioned"),
    ]

    operations = [migrations.RunPython(complete_roles, migrations.RunPython.noop)]
