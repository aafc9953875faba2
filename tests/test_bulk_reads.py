"""lib.bulk.rows_read: every row of a read, in binary on PostgreSQL, as Django's cursor reads them."""

import pytest
from django.db import DatabaseError, connection, transaction

from lib.bulk import rows_read
from players.models import Player
from tests.factories import PlayerFactory

pytestmark = pytest.mark.django_db

READ = (
    "SELECT id, name, country, region, public, 0.5 + id AS half, CAST(NULL AS INTEGER) AS missing"
    " FROM players_player WHERE membership_number <> %s ORDER BY id"
)


def test_it_reads_what_the_cursor_reads_numbers_text_flags_and_nulls():
    players = [PlayerFactory(name=name, country=country) for name, country in (("Zoë Ångström", "SE"), ("Li", ""))]
    PlayerFactory(membership_number="left-out")
    params = ["left-out"]

    with connection.cursor() as cursor:
        read = rows_read(cursor, READ, params)
        cursor.execute(READ, params)
        expected = cursor.fetchall()

    assert read == expected
    assert [row[0] for row in read] == [player.pk for player in players]
    assert read[0][1:] == ("Zoë Ångström", "SE", "", True, players[0].pk + 0.5, None)


def test_a_broken_read_raises_djangos_error_which_its_transaction_takes_back():
    with pytest.raises(DatabaseError), transaction.atomic(), connection.cursor() as cursor:
        rows_read(cursor, "SELECT no_such_column FROM players_player", [])

    assert Player.objects.count() == 0  # the connection reads on
