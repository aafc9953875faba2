"""Lookups and expressions Django lacks."""

import json

from django.core.exceptions import EmptyResultSet
from django.db.models import F, Func
from django.db.models.lookups import In


class AnyOf(In):
    """`field IN (values)` with the values as one parameter however many: an array on PostgreSQL, a JSON
    array on SQLite.

    Django's IN has one placeholder per value: for the 900 participants of a
    big event, writing, parsing and sending them cost 10 ms, twice the query
    itself, and SQLite refuses a statement of more than 32,766 of them. Other
    databases get the IN of Django's own lookup.
    """

    lookup_name = "any"

    def as_postgresql(self, compiler, connection):
        values = [value for value in self.rhs if value is not None]  # as In: NULL is never equal
        if not values:
            raise EmptyResultSet
        lhs, lhs_params = self.process_lhs(compiler, connection)
        # The array in the column's own type. psycopg sends ints that fit as int4[], and `bigint = ANY(int4[])`
        # has no hashed form: where the array filters rows rather than leading an index, each row was compared
        # with every value (the admin's match search for a surname at ten million matches, 3,443 participants:
        # 1.2 s; with the array as bigint[], PostgreSQL hashes it once: 20 ms).
        # The type without its length: cast to varchar(20), a longer value would be cut to one that matches.
        column_type = (self.lhs.output_field.cast_db_type(connection) or "").split("(")[0]
        array = f"%s::{column_type}[]" if column_type else "%s"
        if column_type and all(type(value) is int for value in values):
            # Whole numbers as the array's text, written at once: psycopg adapts a list value by value (5 ms for
            # the 10,823 participants a past list's search for "David" finds at ten million matches; 2 ms so).
            values = "{" + ",".join(map(str, values)) + "}"
        return f"{lhs} = ANY({array})", (*lhs_params, values)

    def as_sqlite(self, compiler, connection):
        values = [value for value in self.rhs if value is not None]
        if not values:
            raise EmptyResultSet
        if not all(type(value) in (int, str) for value in values):  # JSON keeps these two as SQLite stores them
            return super().as_sql(compiler, connection)
        lhs, lhs_params = self.process_lhs(compiler, connection)
        # A subquery on the array's elements, which SQLite reads as a list of values: the column's index still
        # finds each one, as with IN (...).
        return f"{lhs} IN (SELECT value FROM json_each(%s))", (*lhs_params, json.dumps(values))


def any_of(field: str, values) -> AnyOf:
    """A filter(): `field` is one of `values` (a list, set or tuple of plain values)."""
    return AnyOf(F(field), list(values))


class Unindexed(Func):
    """A text column's own value, in an expression no index matches: `order_by(Unindexed("name"))` sorts the
    rows a filter found instead of walking an index in that order and filtering as it goes.

    PostgreSQL reckons a walk along the order's index meets a LIMIT's rows as soon as if the rows it wants
    were spread evenly through it. A search for a first name ("Sofía") finds players whose names all start
    with other letters: walking the players in name order read 87,000 of them for a page of 50 (123 ms),
    where the trigram index finds the 688 and sorting them takes 1.5 ms. Appending the empty string keeps
    the value and its collation, so the order is the column's.
    """

    template = "(%(expressions)s || '')"
