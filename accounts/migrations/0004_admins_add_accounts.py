from django.db import migrations


def complete_roles(apps, schema_editor):
    from accounts.roles import roles_create

    roles_create(apps)  # adds auth.add_user to the Admins; safe to run again


class Migration(migrations.Migration):
    """Admins create organizer and player accounts; which accounts is decided in accounts.admin."""

    dependencies = [("accounts", "0003_roles_for_later_models")]

    operations = [migrations.RunPython(complete_roles, migrations.RunPython.noop)]
