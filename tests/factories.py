"""factory_boy factories: accounts with their roles, players, events and their results."""

import datetime

import factory
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group

from accounts.models import Profile
from accounts.roles import ADMINS, ORGANIZERS, roles_ensure
from accounts.services import profile_link
from events.models import Event, EventStatus, KValue, Match, Standing
from players.models import Participant, Player

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


class SuperuserFactory(UserFactory):
    """A superuser: every permission, and the only one who manages admins' accounts."""

    username = factory.Sequence(lambda n: f"root{n}")
    is_staff = True
    is_superuser = True


class ProfileFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Profile

    user = factory.SubFactory(UserFactory)


class PlayerFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Player

    participant = factory.LazyFunction(lambda: Participant.objects.create(kind=Participant.Kind.PLAYER))
    membership_number = factory.Sequence(lambda n: f"{9000 + n}")
    name = factory.Sequence(lambda n: f"Player {n}")
    country = "DE"


class EventFactory(factory.django.DjangoModelFactory):
    """A draft individual constructed event with K 16, organized by `organizer`."""

    class Meta:
        model = Event

    name = factory.Sequence(lambda n: f"Event {n}")
    date = datetime.date(2024, 3, 2)
    format = "standard"
    team_size = 1
    k = KValue.DEFAULT
    player_count = 8
    level2_judge = False
    status = EventStatus.DRAFT
    organizer = None


class MatchFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Match

    event = factory.SubFactory(EventFactory)
    round = 1
    participant1 = factory.LazyFunction(lambda: PlayerFactory().participant)
    participant2 = factory.LazyFunction(lambda: PlayerFactory().participant)
    games1 = 2
    games2 = 0


class StandingFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Standing

    event = factory.SubFactory(EventFactory, format="vtes", k=KValue.DEFAULT)
    participant = factory.LazyFunction(lambda: PlayerFactory().participant)
    rank = 1
    vp = 0
    gw = 0
    final = ""


class PlayerAccountFactory(UserFactory):
    """A player's account, linked to their player record by an admin (only a linked player may appeal).

    `PlayerAccountFactory(player=someone)` links an existing player; without it a new player is made.
    """

    @factory.post_generation
    def player(user, create, extracted, **kwargs):
        if create:
            profile_link(profile=ProfileFactory(user=user), player=extracted or PlayerFactory(**kwargs), by=None)
