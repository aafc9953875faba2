"""factory_boy factories for events and players, as the organizers' tests and demo data need them."""

import datetime

import factory

from events.models import Event, EventStatus, KValue, Match, Standing
from players.models import Participant, Player


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
