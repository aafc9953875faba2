"""The site's roles: Django groups holding permissions, created by a data migration.

- Organizers report their own events (create, upload or enter results, preview, submit).
- Admins see and change every event, also after submission, and use the admin site
  (their accounts also need "staff status" to open it).
- Players are plain accounts, possibly linked to a membership number; no group.

`roles_create` takes an app registry so the migration can run it with the
historical models and tests with the live ones (a transactional test's flush
empties the groups table, like every other).
"""

ORGANIZERS = "Organizers"
ADMINS = "Admins"

# Permission codenames, declared on accounts.Profile (they are about people, not one model).
ORGANIZE_EVENTS = "organize_events"
MANAGE_ALL_EVENTS = "manage_all_events"
ORGANIZE_PERMISSION = f"accounts.{ORGANIZE_EVENTS}"
MANAGE_ALL_PERMISSION = f"accounts.{MANAGE_ALL_EVENTS}"

# Every model permission of these apps goes to admins, so the admin site is theirs to use.
ADMIN_APPS = ("accounts", "corrections", "events", "players", "ratings", "axes")  # axes: lifting a sign-in lockout
# Admins add and change organizer and player accounts; which accounts and which of their fields
# is decided per account (accounts.selectors.account_managed_by, accounts.admin.UserAdmin).
ADMIN_AUTH_PERMISSIONS = ("view_user", "add_user", "change_user", "view_group")


def roles_create(apps) -> None:
    """Create (or complete) both groups with their permissions; safe to run again."""
    from django.contrib.auth.management import create_permissions

    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    # Permissions are normally created after migrate; this runs during it, so make them now.
    for app_config in apps.get_app_configs():
        models_module = getattr(app_config, "models_module", None)
        app_config.models_module = models_module or True  # historical app configs have none
        create_permissions(app_config, apps=apps, verbosity=0)
        app_config.models_module = models_module

    organizers, _ = Group.objects.get_or_create(name=ORGANIZERS)
    organizers.permissions.add(*Permission.objects.filter(content_type__app_label="accounts", codename=ORGANIZE_EVENTS))

    admins, _ = Group.objects.get_or_create(name=ADMINS)
    admins.permissions.add(
        *Permission.objects.filter(content_type__app_label__in=ADMIN_APPS),
        *Permission.objects.filter(content_type__app_label="auth", codename__in=ADMIN_AUTH_PERMISSIONS),
    )


def roles_ensure() -> None:
    """The groups with the live models (for tests and demo data after a flush)."""
    from django.apps import apps

    roles_create(apps)
