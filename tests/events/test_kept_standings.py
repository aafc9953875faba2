"""Standings computed from an event's matches are kept under a fingerprint of the matches (events.selectors): any
change of the matches is a new fingerprint, even one that brings their totals back to what they were."""

import pytest

from events.models import Match
from events.selectors import event_computed_standings
from tests.factories import EventFactory, MatchFactory, PlayerFactory

pytestmark = pytest.mark.django_db


def winners(event) -> set[int]:
    return {line.participant for line in event_computed_standings(event=event) if line.place == 1}


@pytest.fixture
def two_matches():
    event = EventFactory(player_count=4)
    a, b, c, d = (PlayerFactory().participant for _ in range(4))
    first = MatchFactory(event=event, participant1=a, participant2=b, games1=2, games2=0)
    second = MatchFactory(event=event, participant1=c, participant2=d, games1=0, games2=2)
    return event, first, second, (a.pk, b.pk, c.pk, d.pk)


def test_two_results_corrected_in_turn_are_both_shown(two_matches):
    event, first, second, (a, b, c, d) = two_matches
    assert winners(event) == {a, d}

    Match.objects.filter(pk=first.pk).update(games1=0, games2=2)
    assert winners(event) == {b, d}
    Match.objects.filter(pk=second.pk).update(games1=2, games2=0)  # the games' totals are the first ones again

    assert winners(event) == {b, c}


def test_two_players_exchanged_between_matches_are_shown(two_matches):
    event, first, second, (a, b, c, d) = two_matches
    assert winners(event) == {a, d}

    Match.objects.filter(pk=first.pk).update(participant1=PlayerFactory().participant)  # a seat freed in turn
    assert len(winners(event)) == 2
    Match.objects.filter(pk=second.pk).update(participant1_id=a)
    Match.objects.filter(pk=first.pk).update(participant1_id=c)  # the sides' totals are the first ones again

    assert winners(event) == {c, d}
