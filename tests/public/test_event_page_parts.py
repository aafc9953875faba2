"""The event page's parts read once and shared: the matches take the participants the rating changes read."""

import pytest

from events import selectors
from events.models import Event, Match
from ratings.selectors import events as event_ratings
from tests.worlds import every_category_recomputed

pytestmark = pytest.mark.django_db


def sides(matches) -> list[tuple]:
    return [
        (match.pk, str(match.participant1), str(match.participant2) if match.participant2_id else None)
        for match in matches
    ]


def test_the_matches_take_the_participants_given_and_read_the_others(rated_default_bundle, django_assert_num_queries):
    event = Event.objects.get(code="E1")
    categories = event_ratings.event_categories(event=event)
    (changes,) = event_ratings.event_rating_changes(event=event, categories=categories)
    given = {row.participant.pk: row.participant for row in changes.rows}
    one = next(iter(given))
    fewer = {pk: participant for pk, participant in given.items() if pk != one}
    joined = list(selectors.event_matches(event=event))

    with django_assert_num_queries(1):  # the matches only
        shared = selectors.event_matches(event=event, participants=given)
    with django_assert_num_queries(2):  # and the one participant not given
        partly = selectors.event_matches(event=event, participants=fewer)

    assert sides(shared) == sides(partly) == sides(joined)
    assert any(match.participant1_id == one or match.participant2_id == one for match in partly)
    assert all(match.participant1 is given[match.participant1_id] for match in shared)


def test_the_recent_events_count_their_matches(rated_default_bundle):
    recent = {event.code: event.match_count for event in selectors.event_list_recent()}

    for event in Event.objects.public():
        assert recent[event.code] == event.matches.count()


def record(changes, number: str) -> tuple:
    row = next(row for row in changes.rows if row.participant.player.membership_number == number)
    return row.wins, row.draws, row.losses, round(row.change, 2)


def test_the_rating_changes_are_read_once_per_recompute(rated_default_bundle, django_assert_num_queries):
    event = Event.objects.get(code="E1")
    categories = event_ratings.event_categories(event=event)
    (first,) = event_ratings.event_rating_changes(event=event, categories=categories)

    with django_assert_num_queries(2):  # the matches' sides and the participants: not the history again
        (again,) = event_ratings.event_rating_changes(event=event, categories=categories)
    assert [record(again, number) for number in ("1001", "1003")] == [(3, 0, 0, 46.56), (0, 1, 1, -15.26)]
    assert again.by_match == first.by_match

    # 1003 wins the draw's games instead: after the recompute the event shows it at once.
    draw = Match.objects.get(event=event, participant1__player__membership_number="1003", draws__gt=0)
    Match.objects.filter(pk=draw.pk).update(games1=2, games2=1)
    every_category_recomputed()
    categories = event_ratings.event_categories(event=event)
    (after,) = event_ratings.event_rating_changes(event=event, categories=categories)
    assert record(after, "1003")[:3] == (1, 0, 1)
