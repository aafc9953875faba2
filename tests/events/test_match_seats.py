"""A participant plays at most one match per round of an event (the two seat keys): the database refuses a second
seat whichever side it is on, and byes, which have no second participant, never clash."""

import pytest
from django.db import IntegrityError, transaction

from tests.factories import MatchFactory, PlayerFactory

pytestmark = pytest.mark.django_db


def refused(**fields) -> bool:
    try:
        with transaction.atomic():
            MatchFactory(**fields)
    except IntegrityError:
        return True
    return False


def test_a_second_seat_in_a_round_is_refused_on_either_side():
    first = MatchFactory()
    event, one, two = first.event, first.participant1, first.participant2

    assert refused(event=event, round=1, participant1=one)  # participant 1 twice
    assert refused(event=event, round=1, participant2=two)  # participant 2 twice
    assert not refused(event=event, round=2, participant2=two)  # the next round
    assert not refused(round=1, participant2=two)  # another event's round 1


def test_byes_of_one_round_never_clash():
    bye = MatchFactory(participant2=None)

    assert not refused(event=bye.event, round=1, participant1=PlayerFactory().participant, participant2=None)
