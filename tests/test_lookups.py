"""lib.lookups.any_of: a field is one of many values, as one parameter (an array on PostgreSQL, JSON on SQLite)."""

import sqlite3

import pytest
from django.db import connection

from events.models import Match
from lib.lookups import any_of
from players.models import Player
from tests.factories import MatchFactory, PlayerFactory

pytestmark = pytest.mark.django_db


def test_it_finds_what_in_finds_nulls_and_missing_values_aside():
    matches = [MatchFactory() for _ in range(3)]
    sides = [matches[0].participant1_id, matches[2].participant2_id, None, 10**12]

    found = set(Match.objects.filter(any_of("participant1_id", sides) | any_of("participant2_id", sides)))

    assert found == {matches[0], matches[2]}
    by_in = Match.objects.filter(participant1_id__in=sides) | Match.objects.filter(participant2_id__in=sides)
    assert found == set(by_in)


def test_it_finds_text_values_too():
    players = [PlayerFactory(membership_number=number) for number in ("7001", "7002", "7003")]

    assert set(Player.objects.filter(any_of("membership_number", ["7003", "7001", "nobody"]))) == {
        players[0],
        players[2],
    }


def test_a_value_longer_than_the_column_finds_nothing():
    """Not the value it would be cut to in the column's type."""
    length = Player._meta.get_field("membership_number").max_length
    PlayerFactory(membership_number="7" * length)

    assert not Player.objects.filter(any_of("membership_number", ["7" * (length + 3)])).exists()


def test_no_value_finds_nothing():
    MatchFactory()

    assert not Match.objects.filter(any_of("participant1_id", [None])).exists()


@pytest.mark.skipif(connection.vendor != "postgresql", reason="the array is PostgreSQL's")
def test_the_array_has_the_columns_type():
    """psycopg sends small ints as int4[]; `bigint = ANY(int4[])` cannot be hashed, and as a filter PostgreSQL then
    compared each row with every value (1.2 s for the admin's search of a surname at ten million matches)."""
    sql, params = Match.objects.filter(any_of("participant1_id", [1, 2, 3])).query.sql_with_params()

    assert '"participant1_id" = ANY(%s::bigint[])' in sql and params == ("{1,2,3}",)


@pytest.mark.skipif(connection.vendor != "postgresql", reason="the array is PostgreSQL's")
def test_whole_numbers_are_sent_as_the_arrays_text_and_text_values_as_a_list():
    """Thousands of ids written at once rather than adapted one by one; text, which would need quoting, as is."""
    _, text_params = Player.objects.filter(any_of("membership_number", ["7,1", '"x}'])).query.sql_with_params()
    match = MatchFactory()
    ids = [-5, match.participant1_id, 10**15]

    assert list(Match.objects.filter(any_of("participant1_id", ids))) == [match]
    assert text_params == (["7,1", '"x}'],)


def placeholders_at_most() -> int:
    """How many placeholders a statement may have: SQLite's as built (32,766 by default, 250,000 in Debian's);
    PostgreSQL's protocol counts them in 16 bits."""
    if connection.vendor == "sqlite":
        connection.ensure_connection()
        return connection.connection.getlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER)
    return 65_535


def test_it_takes_more_values_than_a_statement_has_placeholders():
    """A past list's search names every participant today's list finds for a common name, which at ten million
    matches may be more than a statement can hold as placeholders."""
    matches = [MatchFactory() for _ in range(2)]
    many = [*range(10**12, 10**12 + placeholders_at_most()), matches[1].participant1_id]

    assert list(Match.objects.filter(any_of("participant1_id", many))) == [matches[1]]
    assert list(Match.objects.exclude(any_of("participant1_id", many))) == [matches[0]]


@pytest.mark.skipif(connection.vendor != "sqlite", reason="the JSON array is SQLite's")
def test_the_values_are_one_json_parameter():
    sql, params = Match.objects.filter(any_of("participant1_id", [1, 2, 3])).query.sql_with_params()

    assert '"participant1_id" IN (SELECT value FROM json_each(%s))' in sql and params == ("[1, 2, 3]",)
