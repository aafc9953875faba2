"""The event page's parts: its sides named from plain values, its rating changes read once per recompute."""

import pytest

from events import selectors
from events.models import Event, Match
from players.links import ParticipantLinks, participant_link
from players.models import Participant, Team
from players.selectors import participant_names
from ratings.selectors import events as event_ratings
from tests.worlds import every_category_recomputed

pytestmark = pytest.mark.django_db


def test_participants_are_named_and_linked_as_their_models_are(rated_default_bundle, django_assert_num_queries):
    """The event page names hundreds of sides from plain values: the same names and links as from the models."""
    unnamed_team = Team.objects.filter(name="").first() or Team.objects.first()
    Team.objects.filter(pk=unnamed_team.pk).update(name="")
    participants = list(Participant.objects.select_related("player", "team"))
    links = ParticipantLinks()

    with django_assert_num_queries(2):  # the players, then the teams among the rest
        names = participant_names(participant_ids=[participant.pk for participant in participants])

    assert len(names) == len(participants) > 0
    for participant in participants:
        assert links(names[participant.pk]) == participant_link(participant)
    team = names[unnamed_team.participant_id]
    assert team.name == unnamed_team.member_key.replace(" ", " / ")
    assert participant_names(participant_ids=[]) == {}


def test_a_side_that_is_neither_a_player_nor_a_team_is_still_named(db, django_assert_num_queries):
    bare = Participant.objects.create(kind=Participant.Kind.PLAYER)

    with django_assert_num_queries(3):
        names = participant_names(participant_ids=[bare.pk])

    assert names[bare.pk].pk == bare.pk
    assert ParticipantLinks()(names[bare.pk]) == participant_link(bare) == "—"  # a missing side, as the model's


def test_the_event_page_names_each_side_of_its_matches(rated_default_bundle, client):
    event = Event.objects.get(code="E1")

    page = client.get(f"/events/{event.pk}/").content.decode()

    for match in Match.objects.filter(event=event).select_related("participant1__player", "participant2__player"):
        pair = f"{participant_link(match.participant1)}</span>"
        assert pair in page
        if match.participant2_id:
            assert f"{participant_link(match.participant2)}</span>" in page


def test_the_recent_events_count_their_matches(rated_default_bundle):
    recent = {event.code: event.match_count for event in selectors.event_list_recent()}

    for event in Event.objects.public():
        assert recent[event.code] == event.matches.count()


def record(changes, number: str) -> tuple:
    row = next(row for row in changes.rows if row.participant.membership_number == number)
    return row.wins, row.draws, row.losses, round(row.change, 2)


def test_the_rating_changes_are_read_once_per_recompute(rated_default_bundle, django_assert_num_queries):
    event = Event.objects.get(code="E1")
    categories = event_ratings.event_categories(event=event)
    (first,) = event_ratings.event_rating_changes(event=event, categories=categories)

    with django_assert_num_queries(1):  # the participants: neither the history nor the matches again
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
