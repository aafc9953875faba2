from django.db import migrations


def complete_roles(apps, schema_editor):
    from accounts.roles import roles_create

    roles_create(apps)  # adds the permissions of models created since; safe to run again


class Migration(migrations.Migration):
    """Admins get the permissions of suspensions and official lists, added after 0006."""

    dependencies = [
        ("accounts", "0006_membership_claims"),
        ("players", "0006_suspensions"),
        ("ratings", "0023_category_history_file"),
    ]

    operations = [migrations.RunPython(complete_roles, migrations.RunPython.noop)]
