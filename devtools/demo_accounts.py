"""Demo accounts for the demo world (`manage.py seed_demo`): never for a real site.

Their passwords are public (README, "Organizers"), which is why only the
demo command creates them.
"""

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group

from accounts.roles import ADMINS, ORGANIZERS, roles_ensure

DEMO_ACCOUNTS = (
    # username, password, group, staff (opens the admin site)
    ("organizer", "organizer-demo", ORGANIZERS, False),
    ("admin", "admin-demo", ADMINS, True),
)


def demo_accounts_create() -> list[str]:
    """Create (or reset) the demo organizer and admin; returns "username / password" lines."""
    roles_ensure()
    User = get_user_model()
    lines = []
    for username, password, group, staff in DEMO_ACCOUNTS:
        user, _ = User.objects.get_or_create(username=username, defaults={"email": f"{username}@example.org"})
        user.is_staff = staff
        user.set_password(password)
        user.save()
        user.groups.add(Group.objects.get(name=group))
        lines.append(f"{username} / {password} ({group.lower()[:-1]})")
    return lines
