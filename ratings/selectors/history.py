"""Reads of the rated history that the recompute, the previews and a correction's impact share.

Which lists an event feeds and which events a list rates, the matches in
rating order (SPEC 3: event date, then the order events were recorded, then
round), where the history reaches a day, and each participant's state at a
point of it: where a recompute from a date starts, and where a preview or a
correction's replay starts too.
"""

import sys
from array import array
from collections.abc import Iterator
from datetime import date, timedelta

from django.db import connection, transaction
from django.db.models import Min, QuerySet

from events.models import Event, EventStatus, Match
from lib.bulk import chunked, int_rows, rows_read
from lib.lookups import any_of
from ratings.engine import ParticipantState
from ratings.models import Category, RatingEntry

RATED_STATUSES = (EventStatus.SUBMITTED, EventStatus.RATED)
FETCH_ROWS = 50_000  # rows fetched at a time when a whole history's worth is read


def categories_rating(*, format: str, team_size: int) -> list[Category]:
    """The stored categories an event of this format and team size feeds (derived ones excluded)."""
    return Category.objects.rating(format=format, team_size=team_size)


def category_events(category: Category):
    """The events the category rates: of its formats and team size, submitted or rated."""
    return Event.objects.filter(
        format__in=category.format_list, team_size=category.team_size, status__in=RATED_STATUSES
    )


MATCH_COLUMNS = ("id", "event_id", "round", "participant1_id", "participant2_id", "games1", "games2")
_WIDTH = len(MATCH_COLUMNS)


class MatchesInOrder:
    """Matches in rating order, packed: each match's MATCH_COLUMNS one after the other in one array of
    8-byte integers (56 bytes a match). Iterating gives each match as a tuple in MATCH_COLUMNS order."""

    __slots__ = ("values",)

    def __init__(self, values: array):
        self.values = values

    def __len__(self) -> int:
        return len(self.values) // _WIDTH

    def __iter__(self) -> Iterator[tuple[int, ...]]:
        # One iterator zipped with itself: tuples straight from the array, no copy of it per column.
        values = iter(self.values)
        return zip(*[values] * _WIDTH, strict=True)

    def participants(self) -> set[int]:
        """Everyone who plays in these matches."""
        return set(self.values[3::_WIDTH]) | set(self.values[4::_WIDTH])


def matches_in_rating_order(matches) -> MatchesInOrder:
    """`matches` in rating order, packed.

    Read in full before any history is written (one connection cannot stream
    matches and COPY at once). On PostgreSQL the rows come as one binary string
    of 8-byte big-endian integers, seven per match, which the array takes in C:
    1.4 s for a million matches instead of 3 s as a million Python tuples.
    """
    ordered = matches.order_by("event__date", "event_id", "round", "id").values_list(*MATCH_COLUMNS)
    sql, params = ordered.query.sql_with_params()
    if connection.vendor == "postgresql":
        return MatchesInOrder(_matches_packed(sql, params))
    values = array("q")
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        while chunk := cursor.fetchmany(FETCH_ROWS):
            for row in chunk:
                values.extend(row)
    return MatchesInOrder(values)


def _matches_packed(sql: str, params) -> array:
    packed_row = " || ".join(f"int8send(m.{column}::bigint)" for column in MATCH_COLUMNS)
    with transaction.atomic(), connection.cursor() as cursor:
        # The sort of a million matches fits in memory instead of spilling to disk.
        cursor.execute("SET LOCAL work_mem = '256MB'")
        # Read in binary: the bytes as they are, no hex text to decode.
        ((packed,),) = rows_read(cursor, f"SELECT string_agg({packed_row}, ''::bytea) FROM ({sql}) m", params)
    packed = packed or b""
    values = array("q")
    values.frombytes(packed)
    del packed  # the array holds them now: at most two copies at once, never three
    if sys.byteorder == "little":
        values.byteswap()
    return values


def history_start_seq(category: Category, day: date, *, event_id: int | None = None) -> int:
    """The seq where the category's history reaches `day` (with `event_id`: that event, among the day's).

    The history is in rating order along seq (date, then the order events
    were recorded): the day is found by bisection rather than by scanning
    every row's date, and the event among the rows of that one day.
    """
    start = history_last_seq(category, day - timedelta(days=1)) + 1
    if event_id is None:
        return start
    end = history_last_seq(category, day)
    later_that_day = RatingEntry.objects.filter(
        category=category, seq__gte=start, seq__lte=end, event_id__gte=event_id
    ).aggregate(first=Min("seq"))["first"]
    return end + 1 if later_that_day is None else later_that_day


def states_before(category: Category, start_seq: int, participants: set[int]) -> dict[int, ParticipantState]:
    """The state of each of `participants` after the history kept before `start_seq`.

    Only those who play again are looked up, through the participant index,
    so a recompute from last week costs what follows it, not the whole history.
    """
    return states_before_each(category, dict.fromkeys(participants, start_seq))


def states_before_each(category: Category, seqs: dict[int, int]) -> dict[int, ParticipantState]:
    """The state of each participant of `seqs` after the history kept before their own seq there."""
    table = RatingEntry._meta.db_table
    states: dict[int, ParticipantState] = {}
    with connection.cursor() as cursor:
        for chunk in chunked(sorted(seqs.items()), 5000):
            cursor.execute(*_last_entries_before(category, chunk))
            for participant, rating, matches, last_played in cursor.fetchall():
                states[participant] = ParticipantState(rating=rating, matches=matches, last_played=last_played)
        # The 1997 provisional formula needs the running totals of whoever is still provisional.
        provisional = sorted((p, seqs[p]) for p, state in states.items() if state.matches < category.provisional_until)
        for chunk in chunked(provisional, 5000):
            wanted, params = int_rows(chunk, 2)
            cursor.execute(
                f"""
                SELECT e.participant_id,
                       SUM(CASE WHEN e.score = 1 THEN 1 ELSE 0 END),
                       SUM(CASE WHEN e.score = 0 THEN 1 ELSE 0 END),
                       SUM(e.opponent_rating)
                FROM {wanted}
                JOIN {table} e ON e.category_id = %s AND e.participant_id = wanted.column1 AND e.seq < wanted.column2
                WHERE e.provisional = %s
                GROUP BY e.participant_id
                """,
                [*params, category.pk, True],
            )
            for participant, wins, losses, opponent_sum in cursor.fetchall():
                state = states[participant]
                state.wins, state.losses, state.opponent_rating_sum = wins, losses, float(opponent_sum)
    return states


def _last_entries_before(category: Category, seqs: list[tuple[int, int]]) -> tuple[str, list]:
    """The query of (participant, rating after, matches, date) of each participant's last history row before their
    seq in `seqs` (participant, seq), and its parameters: one probe of the participant index each.

    PostgreSQL reads the row where the probe stops (LATERAL); SQLite, which has
    no LATERAL, finds the seq first and then joins its row: two probes (a MAX
    over a GROUP BY read every entry of theirs: 157 ms instead of 11 for 850
    players). At 900 participants, 2.4 ms instead of 5.5.
    """
    table = RatingEntry._meta.db_table
    wanted, params = int_rows(seqs, 2)
    if connection.vendor == "postgresql":
        sql = f"""
            SELECT wanted.column1, e.rating_after, e.matches, e.event_date
            FROM {wanted} CROSS JOIN LATERAL (
                SELECT x.rating_after, x.matches, x.event_date FROM {table} x
                WHERE x.category_id = %s AND x.participant_id = wanted.column1 AND x.seq < wanted.column2
                ORDER BY x.seq DESC LIMIT 1
            ) e
        """
        return sql, [*params, category.pk]
    sql = f"""
        SELECT e.participant_id, e.rating_after, e.matches, e.event_date
        FROM (
            SELECT wanted.column1 AS participant_id, (
                SELECT MAX(x.seq) FROM {table} x
                WHERE x.category_id = %s AND x.participant_id = wanted.column1 AND x.seq < wanted.column2
            ) AS seq
            FROM {wanted}
        ) last
        JOIN {table} e ON e.category_id = %s AND e.participant_id = last.participant_id AND e.seq = last.seq
    """
    return sql, [category.pk, *params, category.pk]


def rows_from(category: Category, seqs: dict[int, int], *, at_most: int) -> list[tuple[int, int, int, int]] | None:
    """(participant, seq, opponent, match) of each history row of every participant of `seqs` from their seq
    there on, through the participant index; None when there are more than `at_most`."""
    table = RatingEntry._meta.db_table
    if not seqs:
        return []
    wanted, params = int_rows(sorted(seqs.items()), 2)
    with connection.cursor() as cursor:
        cursor.execute(
            f"""
            SELECT x.participant_id, x.seq, x.opponent_id, x.match_id FROM {wanted}
            JOIN {table} x ON x.category_id = %s AND x.participant_id = wanted.column1 AND x.seq >= wanted.column2
            LIMIT %s
            """,
            [*params, category.pk, at_most + 1],
        )
        rows = cursor.fetchall()
    return None if len(rows) > at_most else rows


def matches_by_id(ids: list[int]) -> list[tuple[int, ...]]:
    """The matches of `ids` as tuples in MATCH_COLUMNS order, in no particular order."""
    if not ids:
        return []
    return list(Match.objects.filter(any_of("id", ids)).order_by().values_list(*MATCH_COLUMNS))


def event_facts(events) -> dict[int, tuple[date, int, int, bool]]:
    """Event id -> (date, K, players, Level II judge present) of each of `events` (a queryset of events), as the
    rating engine takes them (ratings.engine.history.EventFacts)."""
    return {
        pk: (day, k, players, judge)
        for pk, day, k, players, judge in events.order_by().values_list(
            "pk", "date", "k", "player_count", "level2_judge"
        )
    }


def events_of(ids) -> QuerySet:
    """The events of `ids`, as one array however many."""
    return Event.objects.filter(any_of("pk", ids))


def history_last_entry_seq(category: Category) -> int:
    """The seq of the category's last history row (0 without one)."""
    last = RatingEntry.objects.filter(category=category).order_by("-seq").values_list("seq", flat=True).first()
    return last or 0


def entry_seqs(category: Category, matches: dict[int, tuple[int, int]]) -> dict[int, int]:
    """Participant -> the seq of their history entry for a match, given as participant -> (the match, a seq its
    entry is not before); those with no such entry are left out. From that seq on, the entry is found among
    the first few of theirs: the match alone had each participant's entries read until it turned up."""
    table = RatingEntry._meta.db_table
    seqs: dict[int, int] = {}
    with connection.cursor() as cursor:
        for chunk in chunked(sorted(matches.items()), 5000):
            wanted, params = int_rows([(participant, match, seq) for participant, (match, seq) in chunk], 3)
            cursor.execute(
                f"""
                SELECT wanted.column1, (
                    SELECT MIN(e.seq) FROM {table} e WHERE e.category_id = %s AND e.participant_id = wanted.column1
                    AND e.seq >= wanted.column3 AND e.match_id = wanted.column2
                ) FROM {wanted}
                """,
                [category.pk, *params],
            )
            seqs.update((participant, seq) for participant, seq in cursor.fetchall() if seq is not None)
    return seqs


def history_last_seq(category: Category, day: date) -> int:
    """The seq of the category's last match up to `day` (0 before the first), by bisection of the rating order.

    Matches are rated in date order, so dates never decrease along seq: some
    twenty steps through the (category, seq) index find the day's end, where
    MAX(seq) ... WHERE event_date <= day read every row after it (0.7 s a year
    back at a million matches). Each step reads the first seq at or after the
    middle, so gaps in seq do no harm.
    """
    history = RatingEntry._meta.db_table
    first = f"FROM {history} WHERE category_id = %s AND seq >= (low + high + 1) / 2 ORDER BY seq LIMIT 1"
    reached = f"(SELECT event_date {first}) <= %s"
    # A day at or after the last match's (a draft's preview, a recent past date) is answered by that match.
    sql = f"""
        WITH RECURSIVE last_match(seq, day) AS (
            SELECT seq, event_date FROM {history} WHERE category_id = %s ORDER BY seq DESC LIMIT 1
        ), bisection(low, high) AS (
            SELECT
                CAST(COALESCE((SELECT seq FROM last_match WHERE day <= %s), 0) AS BIGINT),
                COALESCE((SELECT seq FROM last_match), 0)
            UNION ALL
            SELECT CASE WHEN {reached} THEN (SELECT seq {first}) ELSE low END,
                   CASE WHEN {reached} THEN high ELSE (low + high + 1) / 2 - 1 END
            FROM bisection WHERE low < high
        )
        SELECT low FROM bisection WHERE low >= high
    """
    pk = category.pk
    with connection.cursor() as cursor:
        day = day.isoformat()
        cursor.execute(sql, [pk, day, pk, day, pk, pk, day])
        return cursor.fetchone()[0]
