"""Today's ratings and the participants' names read for a set of participants: by their ids, or the whole table
when they are most of it (ratings.selectors.lists._read_for); the same answer either way."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from players.services import team_create
from ratings.models import CurrentRating
from ratings.selectors import lists
from ratings.services.recompute import category_recompute
from tests.factories import PlayerFactory
from tests.ratings.recompute_worlds import a_world, category

pytestmark = pytest.mark.django_db


@pytest.fixture(params=["by ids", "whole table"])
def read(request, monkeypatch):
    if request.param == "whole table":
        monkeypatch.setattr(lists, "WHOLE_TABLE_SHARE", 0)
        monkeypatch.setattr(lists, "WHOLE_TABLE_ABOVE", 0)
    else:
        monkeypatch.setattr(lists, "WHOLE_TABLE_SHARE", 10)
        monkeypatch.setattr(lists, "WHOLE_TABLE_ABOVE", 10**9)
    return request.param


def test_todays_ratings_of_some_participants_are_theirs_alone(read):
    a_world(players=8, events=3)
    constructed = category("constructed")
    category_recompute(category=constructed)
    listed = dict(CurrentRating.objects.filter(category=constructed).values_list("participant_id", "rating"))
    some = sorted(listed)[::2]

    assert lists.current_ratings(constructed, some + [10**9]) == {
        participant: listed[participant] for participant in some
    }
    assert lists.current_ratings(constructed, []) == {}


def test_the_names_of_some_players_and_teams_are_theirs_alone(read):
    players = [PlayerFactory(membership_number=f"50{n}", name=f"Name {n}", country="DE") for n in range(6)]
    wanted = [players[0].participant_id, players[2].participant_id, 10**9]

    assert lists.participant_identities(category("constructed"), wanted) == {
        players[0].participant_id: ("500", "Name 0", "DE", ""),
        players[2].participant_id: ("502", "Name 2", "DE", ""),
    }
    one, two = team_create(members=players[:3], name="Trio"), team_create(members=players[3:])
    found = lists.participant_identities(category("team-constructed"), [one.participant_id])
    assert found == {one.participant_id: ("500+501+502", "Trio", "", "")}
    assert two.participant_id not in found


def test_nobody_wanted_reads_nothing(read, django_assert_num_queries):
    constructed = category("constructed")
    with django_assert_num_queries(0):
        assert lists.participant_identities(constructed, []) == {}
        assert lists.current_ratings(constructed, []) == {}


def test_names_and_ratings_are_read_in_no_order(read):
    """Read through a server-side cursor, an ORDER BY of the players' model order made PostgreSQL walk their
    name index over every player to keep a few thousand (0.7 s at a million players, 25 ms in no order)."""
    players = [PlayerFactory() for _ in range(3)]
    wanted = [player.participant_id for player in players]
    with CaptureQueriesContext(connection) as queries:
        lists.participant_identities(category("constructed"), wanted)
        lists.current_ratings(category("constructed"), wanted)
    tables = ('FROM "players_player"', 'FROM "ratings_currentrating"')
    reads = [query["sql"] for query in queries if any(table in query["sql"] for table in tables)]
    assert len(reads) == 2
    assert not [sql for sql in reads if "ORDER BY" in sql.upper()]
