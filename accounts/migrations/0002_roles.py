from django.db import migrations


def create_roles(apps, schema_editor):
    from accounts.roles import roles_create

    roles_create(apps)


def remove_roles(apps, schema_editor):
    from accounts.roles import ADMINS, ORGANIZERS

    apps.get_model("auth", "Group").objects.filter(name__in=[ORGANIZERS, ADMINS]).delete()


class Migration(migrations.Migration):
    """The Organizers and Admins groups with their permissions (accounts/roles.py)."""

    dependencies = [
        ("accounts", "0001_initial"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
        # Every model whose permissions admins get exists by now.
        ("events", "0001_initial"),
        ("players", "0001_initial"),
        ("ratings", "0009_current_previous_rating"),
        ("axes", "0010_accessattemptexpiration"),
    ]

    operations = [migrations.RunPython(create_roles, remove_roles)]
