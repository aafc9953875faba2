"""factory_boy factories for accounts: the site's personas (tests and demo data)."""

import factory
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group

from accounts.models import Profile
from accounts.roles import ADMINS, ORGANIZERS, roles_ensure

PASSWORD = "correct horse battery staple"


class UserFactory(factory.django.DjangoModelFactory):
    """A plain account (a player's): no role."""

    class Meta:
        model = get_user_model()
        skip_postgeneration_save = True

    username = factory.Sequence(lambda n: f"user{n}")
    email = factory.LazyAttribute(lambda user: f"{user.username}@example.org")
    password = factory.PostGenerationMethodCall("set_password", PASSWORD)

    @factory.post_generation
    def save_password(user, create, extracted, **kwargs):
        if create:
            user.save()


def _with_group(name: str):
    def add(user, create, extracted, **kwargs):
        if create:
            roles_ensure()  # a transactional test's flush empties the groups the migration made
            user.groups.add(Group.objects.get(name=name))

    return add


class OrganizerFactory(UserFactory):
    username = factory.Sequence(lambda n: f"organizer{n}")
    role = factory.PostGeneration(_with_group(ORGANIZERS))


class AdminFactory(UserFactory):
    """An admin: the Admins group, and staff status to open the admin site."""

    username = factory.Sequence(lambda n: f"admin{n}")
    is_staff = True
    role = factory.PostGeneration(_with_group(ADMINS))


class ProfileFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Profile

    user = factory.SubFactory(UserFactory)
