"""Writes of the ratings app: recomputing a category's history, and queueing that work.

A recompute runs in one transaction holding a lock on its category row:
readers see the old history or the new one, never a mix, and a second
recompute of the same category waits for the first (SPEC 5). The lock is a
row lock (SELECT ... FOR NO KEY UPDATE), so it holds across machines on PostgreSQL;
SQLite serialises all writers anyway.
"""

import logging
import sys
import time
from array import array
from collections.abc import Iterator
from concurrent.futures import Future
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import date, timedelta
from operator import itemgetter

from django.conf import settings
from django.db import DatabaseError, InterfaceError, OperationalError, connection, transaction
from django.db.models import F, Min
from django.utils import timezone

from events.models import Event, EventStatus, Match, Standing
from lib.bulk import insert_rows
from players import geography
from ratings import category_tables
from ratings.engine import (
    ParticipantState,
    ruleset_for,
    vekn_event_points,
)
from ratings.engine.history import history_rows
from ratings.models import (
    Category,
    CurrentRank,
    CurrentRating,
    EventScore,
    RatingEntry,
    RecomputeRun,
    RecomputeStatus,
    Ruleset,
)
from ratings.selectors.lists import Standing as RatingStanding
from ratings.selectors.lists import chunked, elo_standings, participant_identities, ranking_rows, ranking_rows_from
from ratings.snapshots import history_last_seq

logger = logging.getLogger(__name__)

RATED_STATUSES = (EventStatus.SUBMITTED, EventStatus.RATED)
CHUNK = 50_000

ENTRY_FIELDS = [
    "category", "seq", "match", "event", "event_date", "round", "participant", "opponent", "rating_before",
    "rating_after", "opponent_rating", "expected", "score", "k", "k_reason", "matches", "provisional",
]  # fmt: skip


@dataclass
class RecomputeResult:
    category: str
    since: date | None
    matches_rated: int = 0
    entries_written: int = 0
    published_seconds: float = 0.0  # until the new history is committed and visible
    changed: set[int] | None = None  # who played from `since` on; None: everyone (a full recompute)
    standings: tuple[dict, dict] | None = None  # today's and last month's, when a full recompute has them
    changed_standings: dict | None = None  # today's standings of `changed`, when a recompute from a date has them
    # Fresh tables holding a full recompute's rows until they are swapped in (PostgreSQL): (model, table).
    stagings: list[tuple] = field(default_factory=list)


def category_events(category: Category):
    return Event.objects.filter(
        format__in=category.format_list, team_size=category.team_size, status__in=RATED_STATUSES
    )


def category_recompute(*, category: Category, since: date | None = None) -> RecomputeResult:
    """Rebuild the category's history from `since` on (everything when None); earlier history stays."""
    started = time.monotonic()
    listing: list[Future] = []  # today's list, written through a connection of its own (a full recompute)
    # Only a transaction of its own can be helped by a second connection: one inside a caller's
    # transaction may hold locks (a list swapped in earlier) that the second connection would wait for.
    alone = not connection.in_atomic_block
    try:
        with transaction.atomic():
            # FOR NO KEY UPDATE: it excludes a second recompute of the category as FOR UPDATE would, but lets
            # rows that merely reference the category (a recompute queued by a saved match) be written meanwhile.
            category = Category.objects.select_for_update(no_key=True).get(pk=category.pk)
            if category.ruleset == Ruleset.DERIVED:
                _history_changed(category)  # a derived list has no history of its own: rebuild its list
                return RecomputeResult(category.slug, since)
            result = _recompute_in_transaction(category, since, listing if alone else None)
    except BaseException:
        # Tables committed elsewhere for a list that was never swapped in.
        category_tables.scratch_drop(listing)
        raise
    result.published_seconds = time.monotonic() - started
    # Lists derived from this one follow, each under its own lock: they read
    # the lists just published, and their readers need not wait for this one.
    for derived in Category.objects.filter(ruleset=Ruleset.DERIVED):
        if category.slug in derived.component_list:
            with transaction.atomic():
                derived = Category.objects.select_for_update(no_key=True).get(pk=derived.pk)
                _history_changed(derived, since=since, changed=result.changed)
    _tidy_after_large_rewrite(category, result)
    logger.info(
        "recomputed %s since %s: %d matches, %d entries",
        category.slug,
        since or "the start",
        result.matches_rated,
        result.entries_written,
    )
    return result


def _recompute_in_transaction(category: Category, since: date | None, listing: list | None) -> RecomputeResult:
    """A recompute's work in its transaction. A full one on PostgreSQL writes today's list through a
    second connection and appends that work to `listing`, unless `listing` is None (one connection)."""
    recompute = _vekn_recompute if category.ruleset == Ruleset.VEKN else _elo_recompute
    result = recompute(category, since)
    events = category_events(category).filter(status=EventStatus.SUBMITTED)
    if since is not None:
        events = events.filter(date__gte=since)
    events.update(status=EventStatus.RATED)
    indexed, listed = 0, False
    if result.stagings and result.standings is not None:
        # Today's list is Python work on the standings in memory: it is computed while PostgreSQL builds
        # the new history's indexes, then written and indexed through a connection of its own while they finish.
        today = timezone.localdate()
        identities = participant_identities(category, set(result.standings[0]) | set(result.standings[1]))
        with category_tables.staging_indexed_meanwhile(result.stagings):
            rows = current_rows_from_standings(category, result.standings, identities, today)
            if listing is not None:
                listing.append(category_tables.elsewhere(current_list_staged, category, rows, indexed=True))
        indexed = len(result.stagings)  # the history's, indexed meanwhile
        if listing is not None:
            result.stagings += listing[0].result()  # indexed by the second connection
            indexed = len(result.stagings)
        else:
            result.stagings += current_list_staged(category, rows, indexed=False)
        listed = True
    _history_changed(
        category, since=since, changed=result.changed, standings=result.standings, stagings=result.stagings,
        changed_standings=result.changed_standings, listed=listed,
    )  # fmt: skip
    # Last: indexes first, then the swaps, which lock their tables for every category until the commit.
    for model, staging in result.stagings[indexed:]:
        category_tables.staging_index(model, staging)
    for model, staging in result.stagings:
        category_tables.staging_swap(model, category.pk, staging)
    return result


def _history_changed(
    category: Category,
    *,
    since: date | None = None,
    changed: set[int] | None = None,
    standings=None,
    stagings=None,
    changed_standings=None,
    listed: bool = False,
) -> None:
    """Bring today's list up to date and bump the version that keys cached lists of past dates.

    A recompute from a date changes only the ratings of those who played since:
    their rows (and last month's standing, when the date reaches into it) are
    refreshed and the ranks recounted. A full recompute, or a V:EKN list (whose
    points age by the day), rebuilds the list.
    """
    today = timezone.localdate()
    built_on = CurrentRating.objects.filter(category=category).values_list("built_on", flat=True).first()
    incremental = changed is not None and since is not None and built_on == today and category.ruleset != Ruleset.VEKN
    if incremental:
        current_ratings_update(category=category, participants=changed, since=since, now=changed_standings)
    elif not listed:  # `listed`: the caller has written the list already, to swap it in with its history
        current_ratings_rebuild(category=category, standings=standings, stagings=stagings)
    Category.objects.filter(pk=category.pk).update(history_version=F("history_version") + 1)


VACUUM_AFTER_ROWS = 100_000


def _tidy_after_large_rewrite(category: Category, result: RecomputeResult) -> None:
    """Statistics for a swapped-in history; dead rows cleared after a large rewrite in place.

    Otherwise the next recompute of the category writes the same keys again
    and PostgreSQL's indexes check each one against its dead predecessor.
    Runs once the new history is committed (VACUUM cannot run in a transaction).
    """
    if connection.vendor != "postgresql" or connection.in_atomic_block:
        return
    if result.stagings:
        category_tables.analyze(RatingEntry, category.pk)
    elif result.entries_written >= VACUUM_AFTER_ROWS:
        with connection.cursor() as cursor:
            cursor.execute(f"VACUUM (ANALYZE) {RatingEntry._meta.db_table}")


def _elo_recompute(category: Category, since: date | None) -> RecomputeResult:
    result = RecomputeResult(category.slug, since)
    history = RatingEntry.objects.filter(category=category)
    table = None
    if since is None:
        start_seq = 1
        states: dict[int, ParticipantState] = {}
        if category_tables.swaps_tables():
            table = category_tables.staging_create(RatingEntry, category.pk)
            result.stagings.append((RatingEntry, table))
        else:
            history.delete()
    else:
        start_seq = history_start_seq(category, since)
        later = history.filter(seq__gte=start_seq)
        # Whoever loses history is rated again too: a removed match may leave one with fewer matches, or none.
        unrated = set(later.values_list("participant_id", flat=True).distinct())
        later.delete()

    ruleset = ruleset_for(
        category.ruleset, provisional_until=category.provisional_until, start_rating=category.start_rating
    )
    matches = Match.objects.filter(event__in=category_events(category), participant2__isnull=False)
    if since is not None:
        matches = matches.filter(event__date__gte=since)
        playing = set(matches.values_list("participant1_id", flat=True).distinct())
        playing |= set(matches.values_list("participant2_id", flat=True).distinct())
        states = states_before(category, start_seq, playing | unrated)
    events = {
        pk: (day, k, players, judge)
        for pk, day, k, players, judge in category_events(category)
        .filter(pk__in=matches.values("event_id"))
        .values_list("pk", "date", "k", "player_count", "level2_judge")
    }
    ordered = matches_in_rating_order(matches)
    # A full recompute ends with everyone's standing in memory: keep today's and
    # last month's, so today's list needs no second pass over the history.
    today = timezone.localdate()
    boundaries = [_end_of_last_month(today), today] if since is None else []
    snapshots: list[dict[int, RatingStanding]] = []

    def event_starts(day: date) -> None:
        while boundaries and day > boundaries[0]:
            boundaries.pop(0)
            snapshots.append(_standings_now(category, states))

    rows = history_rows(
        ruleset, ordered, events, states, category_id=category.pk, first_seq=start_seq, event_starts=event_starts
    )
    # One COPY for the whole history: the database stores rows while the engine computes the next ones.
    result.entries_written = insert_rows(RatingEntry, ENTRY_FIELDS, rows, table=table)
    result.matches_rated = result.entries_written // 2
    while boundaries:
        boundaries.pop(0)
        snapshots.append(_standings_now(category, states))
    if since is None:
        result.standings = (snapshots[1], snapshots[0])
    else:
        # Those with no history left have no standing: they leave today's list.
        result.changed = set(states) | unrated
        result.changed_standings = _standings_now(category, states)
    return result


MATCH_COLUMNS = ("id", "event_id", "round", "participant1_id", "participant2_id", "games1", "games2")


def matches_in_rating_order(matches) -> list[array]:
    """`matches` in rating order, as one array of 8-byte integers per column of MATCH_COLUMNS.

    Read in full before any history is written (one connection cannot stream
    matches and COPY at once); arrays keep a million matches in about 56 MB.
    On PostgreSQL the rows come as one binary string of 8-byte big-endian
    integers, seven per match, which the arrays take in C: 1.4 s for a
    million matches instead of 3 s as a million Python tuples.
    """
    ordered = matches.order_by("event__date", "event_id", "round", "id").values_list(*MATCH_COLUMNS)
    sql, params = ordered.query.sql_with_params()
    if connection.vendor == "postgresql":
        return _matches_packed(sql, params)
    columns = [array("q") for _ in MATCH_COLUMNS]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        while chunk := cursor.fetchmany(CHUNK):
            for column, values in zip(columns, zip(*chunk, strict=True), strict=True):
                column.extend(values)
    return columns


def _matches_packed(sql: str, params) -> list[array]:
    import psycopg

    packed_row = " || ".join(f"int8send(m.{column}::bigint)" for column in MATCH_COLUMNS)
    with transaction.atomic(), connection.cursor() as cursor:
        # The sort of a million matches fits in memory instead of spilling to disk.
        cursor.execute("SET LOCAL work_mem = '256MB'")
        # A server-side binding cursor: only it returns the bytes as they are (no hex text to decode).
        with psycopg.Cursor(cursor.connection) as binary:
            binary.execute(f"SELECT string_agg({packed_row}, ''::bytea) FROM ({sql}) m", params, binary=True)
            packed = binary.fetchone()[0] or b""
    values = array("q")
    values.frombytes(packed)
    if sys.byteorder == "little":
        values.byteswap()
    width = len(MATCH_COLUMNS)
    return [values[start::width] for start in range(width)]


def _standings_now(category: Category, states: dict[int, ParticipantState]) -> dict[int, RatingStanding]:
    threshold = category.ranked_after
    return {
        participant: RatingStanding(
            participant, state.rating, state.matches, state.matches >= threshold, state.last_played
        )
        for participant, state in states.items()
    }


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
    table = RatingEntry._meta.db_table
    states: dict[int, ParticipantState] = {}
    ordered = sorted(participants)
    with connection.cursor() as cursor:
        for start in range(0, len(ordered), 5000):
            chunk = ordered[start : start + 5000]
            # Each participant's last entry is one probe of the participant index (a MAX over
            # a GROUP BY read every entry of theirs: 157 ms instead of 11 for 850 players).
            values = ", ".join(["(%s)"] * len(chunk))
            cursor.execute(
                f"""
                SELECT e.participant_id, e.rating_after, e.matches, e.event_date
                FROM (
                    SELECT wanted.column1 AS participant_id, (
                        SELECT MAX(x.seq) FROM {table} x
                        WHERE x.category_id = %s AND x.participant_id = wanted.column1 AND x.seq < %s
                    ) AS seq
                    FROM (VALUES {values}) wanted
                ) last
                JOIN {table} e ON e.category_id = %s AND e.participant_id = last.participant_id AND e.seq = last.seq
                """,
                [category.pk, start_seq, *chunk, category.pk],
            )
            for participant, rating, matches, last_played in cursor.fetchall():
                states[participant] = ParticipantState(rating=rating, matches=matches, last_played=last_played)
        # The 1997 provisional formula needs the running totals of whoever is still provisional.
        provisional = sorted(p for p, state in states.items() if state.matches < category.provisional_until)
        for start in range(0, len(provisional), 5000):
            chunk = provisional[start : start + 5000]
            marks = ", ".join(["%s"] * len(chunk))
            cursor.execute(
                f"""
                SELECT participant_id,
                       SUM(CASE WHEN score = 1 THEN 1 ELSE 0 END),
                       SUM(CASE WHEN score = 0 THEN 1 ELSE 0 END),
                       SUM(opponent_rating)
                FROM {table}
                WHERE category_id = %s AND seq < %s AND provisional = %s AND participant_id IN ({marks})
                GROUP BY participant_id
                """,
                [category.pk, start_seq, True, *chunk],
            )
            for participant, wins, losses, opponent_sum in cursor.fetchall():
                state = states[participant]
                state.wins, state.losses, state.opponent_rating_sum = wins, losses, float(opponent_sum)
    return states


def _vekn_recompute(category: Category, since: date | None) -> RecomputeResult:
    result = RecomputeResult(category.slug, since)
    scores = EventScore.objects.filter(category=category)
    standings = Standing.objects.filter(event__in=category_events(category))
    if since is not None:
        scores = scores.filter(event_date__gte=since)
        standings = standings.filter(event__date__gte=since)
    scores.delete()
    rows = []
    for event_id, day, players, level, participant, vp, gw, final in standings.values_list(
        "event_id", "event__date", "event__player_count", "event__level", "participant_id", "vp", "gw", "final"
    ).iterator(chunk_size=CHUNK):
        points = vekn_event_points(vp=vp, gw=gw, final=final, players=players, level=level)
        rows.append(
            (category.pk, event_id, day, participant, points.points, vp, gw, final, players, points.coefficient,
             points.bonus)
        )  # fmt: skip
    result.matches_rated = len(rows)
    result.entries_written = insert_rows(
        EventScore,
        ["category", "event", "event_date", "participant", "points", "vp", "gw", "final", "players", "coefficient",
         "bonus"],
        rows,
    )  # fmt: skip
    return result


# Today's lists -------------------------------------------------------------------

CURRENT_FIELDS = [
    "category", "participant", "display_id", "name", "country", "continent", "region", "rating", "matches", "ranked",
    "provisional", "last_played", "world_rank", "continent_rank", "country_rank", "region_rank",
    "previous_rating", "previous_ranked", "previous_world_rank", "previous_continent_rank", "previous_country_rank",
    "previous_region_rank", "built_on",
]  # fmt: skip


def current_ratings_rebuild(
    *,
    category: Category,
    today: date | None = None,
    standings: tuple[dict, dict] | None = None,
    stagings: list | None = None,
    rows: list[tuple] | None = None,
) -> int:
    """Rewrite the category's list for `today` (default: today), with last month's ranks beside it.

    `standings` (today's, last month's) spares reading them back from the
    history when the caller has them: a full recompute ends with them in memory.
    `rows` (from current_rows_from_standings) spares computing the list at all.
    On PostgreSQL the list is written to a fresh table and swapped in: at once,
    or by the caller when it passes `stagings` (to swap it with its history).
    """
    today = today or timezone.localdate()
    if rows is None and standings is None:
        rows = _current_rows_read(category, today)
    elif rows is None:
        identities = participant_identities(category, set(standings[0]) | set(standings[1]))
        rows = current_rows_from_standings(category, standings, identities, today)
    if not category_tables.swaps_tables():
        CurrentRating.objects.filter(category=category).delete()
        CurrentRank.objects.filter(category=category).delete()
        insert_rows(CurrentRank, RANK_FIELDS, _rank_rows(rows))
        return insert_rows(CurrentRating, CURRENT_FIELDS, rows)
    fresh = current_list_staged(category, rows, indexed=stagings is None)
    if stagings is None:
        for model, table in fresh:
            category_tables.staging_swap(model, category.pk, table)
    else:
        stagings.extend(fresh)
    return len(rows)


def current_list_staged(category: Category, rows: list[tuple], *, indexed: bool) -> list[tuple]:
    """Today's list and its ranks in fresh tables, ready to swap in (PostgreSQL): [(model, table), ...]."""
    # Room in each page of the list for its rows' ranks to move in place (their columns are in no index),
    # and the rows stored by participant, not by rank: the ranks a correction moves are a run of the list,
    # which would otherwise fill the free space of a few pages and overflow it.
    staging = category_tables.staging_create(CurrentRating, category.pk, fillfactor=LIST_FILLFACTOR)
    participant_at = CURRENT_FIELDS.index("participant")
    insert_rows(CurrentRating, CURRENT_FIELDS, sorted(rows, key=itemgetter(participant_at)), table=staging)
    rank_staging = category_tables.staging_create(CurrentRank, category.pk)
    insert_rows(CurrentRank, RANK_FIELDS, _rank_rows(rows), table=rank_staging)
    fresh = [(CurrentRating, staging), (CurrentRank, rank_staging)]
    with connection.cursor() as cursor:
        # Fresh statistics let the planner read a page of the list from its index instead of sorting it all.
        for _, table in fresh:
            cursor.execute(f"ANALYZE {table}")
    if indexed:
        for model, table in fresh:
            category_tables.staging_index(model, table)
    return fresh


# Today's ranks as CurrentRank rows hold them, and where list rows (CURRENT_FIELDS) hold the same values.
RANK_FIELDS = [
    "category", "participant", "continent", "country", "region", "world_rank", "continent_rank", "country_rank",
    "region_rank",
]  # fmt: skip
_RANK_FIELDS_AT = [CURRENT_FIELDS.index(name) for name in RANK_FIELDS]
# A fifth of each page of the list left free: a correction's moved ranks then mostly stay in their page.
LIST_FILLFACTOR = 80


def _rank_rows(rows: list[tuple]) -> list[tuple]:
    """The CurrentRank rows of today's list rows: one per row with a rank."""
    world_at = CURRENT_FIELDS.index("world_rank")
    return [tuple(row[at] for at in _RANK_FIELDS_AT) for row in rows if row[world_at] is not None]


def _current_rows_read(category: Category, today: date) -> list[tuple]:
    """Today's list as rows, read from the history (or a derived list's components' lists)."""
    if category.ruleset == Ruleset.DERIVED:
        standings = _derived_standings_of_lists(category)
        identities = participant_identities(category, set(standings[0]) | set(standings[1]))
        return current_rows_from_standings(category, standings, identities, today)
    current = ranking_rows(category=category, as_of=today)
    previous = ranking_rows(category=category, as_of=_end_of_last_month(today))
    return _current_rows(category, current, previous, today)


def current_rows_from_standings(
    category: Category, standings: tuple[dict, dict], identities: dict, today: date
) -> list[tuple]:
    """Today's list as rows (CURRENT_FIELDS) from today's and last month's standings: no database."""
    now, before = standings
    return _current_rows(
        category, ranking_rows_from(category, now, identities), ranking_rows_from(category, before, identities), today
    )


def _current_rows(category: Category, current: list, previous: list, today: date) -> list[tuple]:
    previous_of = {row.participant: row for row in previous}
    rows = []
    for row in current:
        before = previous_of.get(row.participant)
        rows.append(
            (
                category.pk, row.participant, row.player_id, row.name, row.country, row.continent, row.region,
                row.rating, row.matches, row.ranked, row.matches < category.provisional_until, row.last_played,
                row.world_rank, row.continent_rank, row.country_rank, row.region_rank,
                before and before.rating, bool(before and before.ranked),
                before and before.world_rank, before and before.continent_rank, before and before.country_rank,
                before and before.region_rank, today,
            )
        )  # fmt: skip
    return rows


def _end_of_last_month(today: date) -> date:
    return today.replace(day=1) - timedelta(days=1)


RANK_LEVELS = ("world", "continent", "country", "region")
# Where CURRENT_FIELDS hold the ranks (today's and last month's), and last month's standing.
RANKS_AT = [at for at, name in enumerate(CURRENT_FIELDS) if name.endswith("_rank")]
TODAY_RANKS_AT = [CURRENT_FIELDS.index(f"{level}_rank") for level in RANK_LEVELS]
PLACES_AT = slice(CURRENT_FIELDS.index("country"), CURRENT_FIELDS.index("region") + 1)
PREVIOUS_AT = slice(CURRENT_FIELDS.index("previous_rating"), CURRENT_FIELDS.index("previous_region_rank") + 1)


def current_ratings_update(
    *, category: Category, participants: set[int], since: date, now: dict[int, RatingStanding] | None = None
) -> None:
    """Refresh the rows of `participants` in today's list (and last month's standing when `since`
    reaches into it), then recount the ranks. `now`: their standings today, when the caller has them;
    a participant without one (no rated match left) leaves the list.

    Only rows that differ are rewritten: a recompute from a correction rates
    everyone who played since again, but most of them come out the same.
    """
    if not participants:
        return
    today = timezone.localdate()
    end_of_last_month = _end_of_last_month(today)
    if now is None:
        now = _standings_of(category, participants, as_of=None)
    before = _standings_of(category, participants, as_of=end_of_last_month) if since <= end_of_last_month else None
    stored = {}
    for chunk in chunked(sorted(participants), 5000):
        for row_id, *values in CurrentRating.objects.filter(category=category, participant__in=chunk).values_list(
            "id", *CURRENT_FIELDS
        ):
            stored[values[1]] = (row_id, tuple(values))
    identities = participant_identities(category, set(now))
    rows, replaced = [], []
    for participant, current in now.items():
        row_id, old = stored.get(participant, (None, None))
        number, name, country, region = identities.get(participant, (str(participant), "", "", ""))
        if before is not None:
            last = before.get(participant)
            previous = (last and last.rating, bool(last and last.ranked), None, None, None, None)
        elif old is not None:
            previous = old[PREVIOUS_AT]
        else:
            previous = (None, False, None, None, None, None)
        row = [
            category.pk, participant, number, name, country, geography.continent_of(country), region,
            current.rating, current.matches, current.ranked, current.matches < category.provisional_until,
            current.last_played, None, None, None, None, *previous, today,
        ]  # fmt: skip
        if old is not None:
            for at in RANKS_AT:  # the ranks stay until the recount finds they moved
                row[at] = old[at]
            if tuple(row[PLACES_AT]) != old[PLACES_AT]:  # moved away: ranked afresh where it is now
                for at in TODAY_RANKS_AT:
                    row[at] = None
            if tuple(row) == old:
                continue
            replaced.append(row_id)
        rows.append(tuple(row))
    gone = {participant: row_id for participant, (row_id, _) in stored.items() if participant not in now}
    for chunk in chunked(replaced + list(gone.values()), 5000):
        CurrentRating.objects.filter(category=category, pk__in=chunk).delete()
    _current_ranks_replace(category, list(gone), [])
    insert_rows(CurrentRating, CURRENT_FIELDS, rows)
    current_ranks_recount(category=category, previous=before is not None)


def _standings_of(category: Category, participants: set[int], *, as_of: date | None) -> dict:
    if category.ruleset == Ruleset.DERIVED:
        return _derived_standings_from_lists(category, participants, previous=as_of is not None)
    return elo_standings(category, as_of, participants)


def _derived_standings_of_lists(category: Category) -> tuple[dict, dict]:
    """Today's and last month's standings of a derived list, from its components' lists."""
    components = Category.objects.filter(slug__in=category.component_list)
    everyone = set(CurrentRating.objects.filter(category__in=components).values_list("participant_id", flat=True))
    return (
        _derived_standings_from_lists(category, everyone, previous=False),
        _derived_standings_from_lists(category, everyone, previous=True),
    )


def _derived_standings_from_lists(
    category: Category, participants: set[int], *, previous: bool
) -> dict[int, RatingStanding]:
    """A derived rating from its components' lists (today's, or last month's with `previous`)."""
    components = list(Category.objects.filter(slug__in=category.component_list))
    rating, ranked = ("previous_rating", "previous_ranked") if previous else ("rating", "ranked")
    parts: dict[int, list] = {participant: [] for participant in participants}
    rows = CurrentRating.objects.filter(category__in=components, participant__in=participants).values_list(
        "participant_id", rating, "matches", ranked, "last_played"
    )
    for participant, *values in rows:
        if values[0] is not None:
            parts[participant].append(values)
    standings = {}
    for participant, found in parts.items():
        if not found:
            continue
        missing = len(components) - len(found)
        value = (sum(part[0] for part in found) + missing * category.start_rating) / len(components)
        last_played = max((part[3] for part in found if part[3]), default=None)
        standings[participant] = RatingStanding(
            participant, value, sum(part[1] for part in found), any(part[2] for part in found), last_played
        )
    return standings


def current_ranks_recount(*, category: Category, previous: bool = False) -> int:
    """Recount today's ranks at every level (and last month's with `previous`); returns the rows rewritten.

    The database ranks the list (a window per level) and returns only the
    rows whose ranks moved; each is written once. A correction moves a few
    thousand of 60,000 rows: Python never sees the others.
    """
    lists = [("rating", "ranked", "")] + ([("previous_rating", "previous_ranked", "previous_")] if previous else [])
    rank_columns = [f"{prefix}{level}_rank" for _, _, prefix in lists for level in RANK_LEVELS]
    # Places are grouped, not ordered: byte order spares PostgreSQL the locale's collation (a third of the time).
    collated = ' COLLATE "C"' if connection.vendor == "postgresql" else ""
    counted, concerned = [], []
    for rating, ranked, prefix in lists:
        concerned.append(f"{ranked} OR {prefix}world_rank IS NOT NULL")  # ranked, or ranked until now
        for level in RANK_LEVELS:
            # Competition ranks (1, 2, 2, 4) among the ranked rows of the same place; a blank place ranks nowhere.
            place = "" if level == "world" else f", {level}{collated}"
            placed = "" if level == "world" else f" AND {level} <> ''"
            counted.append(
                f"CASE WHEN {ranked} AND {rating} IS NOT NULL{placed}"
                f" THEN RANK() OVER (PARTITION BY {ranked}, {rating} IS NULL{place} ORDER BY {rating} DESC) END"
                f" AS new_{prefix}{level}_rank"
            )
    differs = "IS DISTINCT FROM" if connection.vendor == "postgresql" else "IS NOT"
    moved_where = " OR ".join(f"new_{column} {differs} {column}" for column in rank_columns)
    today_moved = " OR ".join(f"new_{level}_rank {differs} {level}_rank" for level in RANK_LEVELS)
    table = CurrentRating._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(
            f"""
            SELECT id, {", ".join(f"new_{column}" for column in rank_columns)},
                   participant_id, continent, country, region, ({today_moved}) AS today_moved
            FROM (
                SELECT id, participant_id, continent, country, region, {", ".join(rank_columns)}, {", ".join(counted)}
                FROM {table} WHERE category_id = %s AND ({" OR ".join(concerned)})
            ) ranked
            WHERE {moved_where}
            """,
            [category.pk],
        )
        moved = cursor.fetchall()
    width = 1 + len(rank_columns)
    _ranks_write(category, rank_columns, [row[:width] for row in moved])
    replaced, ranks = [], []
    for row in moved:
        participant, continent, country, region, today_moved = row[width:]
        if today_moved:
            replaced.append(participant)
            if row[1] is not None:  # still ranked
                ranks.append((category.pk, participant, continent, country, region, *row[1 : 1 + len(RANK_LEVELS)]))
    _current_ranks_replace(category, replaced, ranks)
    return len(moved)


def _current_ranks_replace(category: Category, participants: list[int], ranks: list[tuple]) -> None:
    """Replace the CurrentRank rows of `participants` with `ranks` (RANK_FIELDS; none for the unranked)."""
    for chunk in chunked(participants, 5000):
        CurrentRank.objects.filter(category=category, participant__in=chunk).delete()
    insert_rows(CurrentRank, RANK_FIELDS, ranks)


def _ranks_write(category: Category, rank_columns: list[str], moved: list[tuple]) -> None:
    table = CurrentRating._meta.db_table
    assignments = ", ".join(f"{column} = %s" for column in rank_columns)
    with connection.cursor() as cursor:
        if connection.vendor != "postgresql":
            cursor.executemany(
                f"UPDATE {table} SET {assignments} WHERE id = %s", [(*ranks, row_id) for row_id, *ranks in moved]
            )
            return
        # One statement per chunk: the new ranks as arrays, unnested into rows beside their ids.
        columns = ", ".join(["id", *rank_columns])
        arrays = ", ".join(["%s::bigint[]"] + ["%s::integer[]"] * len(rank_columns))
        assignments = ", ".join(f"{column} = moved.{column}" for column in rank_columns)
        for chunk in chunked(moved, 20_000):
            cursor.execute(
                f"UPDATE {table} SET {assignments} FROM unnest({arrays}) AS moved({columns})"
                f" WHERE {table}.id = moved.id AND {table}.category_id = %s",
                [*(list(values) for values in zip(*chunk, strict=True)), category.pk],
            )


def current_ratings_refresh_if_stale(*, category: Category) -> None:
    """Lists age with the calendar (last month's ranks, the V:EKN windows): rebuild one built before today."""
    today = timezone.localdate()
    # A rebuild writes the whole list at once, so one row tells the age of all.
    built_on = CurrentRating.objects.filter(category=category).values_list("built_on", flat=True).first()
    if built_on is None or built_on == today:
        return
    # The list is read before the transaction that swaps it in: held in the
    # transaction, the history's read lock met a full recompute swapping the
    # history while it waited for the lists (a deadlock PostgreSQL broke by
    # failing one). A recompute meanwhile bumps the version: then it has
    # rebuilt the list itself and these rows are not written.
    version = Category.objects.filter(pk=category.pk).values_list("history_version", flat=True).get()
    rows = _current_rows_read(category, today)
    with transaction.atomic():
        locked = Category.objects.select_for_update(no_key=True).get(pk=category.pk)
        stale = CurrentRating.objects.filter(category=category).exclude(built_on=today).exists()
        if stale and locked.history_version == version:
            current_ratings_rebuild(category=locked, today=today, rows=rows)


# Queueing -----------------------------------------------------------------


def categories_rating(*, format: str, team_size: int) -> list[Category]:
    """The stored categories an event of this format and team size feeds (derived ones excluded)."""
    return Category.objects.rating(format=format, team_size=team_size)


def recompute_enqueue(*, category: Category, since: date | None, reason: str, requested_by=None) -> RecomputeRun | None:
    """Queue a recompute of `category` from `since`; it runs in the job worker after this transaction commits."""
    if category.ruleset == Ruleset.DERIVED:
        return None
    from ratings.tasks import recompute_task

    run = RecomputeRun.objects.create(category=category, since=since, reason=reason[:200], requested_by=requested_by)
    transaction.on_commit(lambda: recompute_task.enqueue(run.pk))
    return run


def recompute_enqueue_affected(*, affected: dict[str, date], reason: str, requested_by=None) -> list[RecomputeRun]:
    """Queue recomputes for {category slug: earliest changed date}, as an import reports them."""
    runs = []
    for category in Category.objects.filter(slug__in=affected):
        since = affected[category.slug]
        run = recompute_enqueue(
            category=category, since=None if since == date.min else since, reason=reason, requested_by=requested_by
        )
        if run:
            runs.append(run)
    return runs


# A worker carrying out a category's runs holds a session-level advisory lock
# on PostgreSQL (keys: this number, the category's id) from the claim until
# the runs are done or failed. PostgreSQL releases it when the worker's
# connection ends, however it ends (SIGKILL, a lost machine, a database
# restart), so "running, and nobody holds its category's lock" means the
# worker is gone: such runs are stale and are queued again (see
# recompute_runs_recover). The recompute itself still takes the category row
# lock (category_recompute); this lock only tells live runs from dead ones.
RUNS_LOCK_SPACE = 0x52_43  # "RC"


def _runs_lock_supported() -> bool:
    return connection.vendor == "postgresql"


# On PostgreSQL a recompute may replace whole partitions of tables every list shares
# (ratings.category_tables): two at once each wait for the other's table lock, a
# deadlock PostgreSQL ends by failing one. Recompute jobs therefore take this lock
# too and run one at a time across all machines, the other workers waiting.
ALL_LISTS = 0  # no category has this id


@contextmanager
def _category_runs_lock(category_id: int) -> Iterator[None]:
    """Hold the category's runs lock for this connection's session (waits for the holder, if any)."""
    if not _runs_lock_supported():
        yield  # SQLite serialises writers, and make run starts one worker
        return
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_lock(%s, %s)", [RUNS_LOCK_SPACE, category_id])
    try:
        yield
    finally:
        try:
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_unlock(%s, %s)", [RUNS_LOCK_SPACE, category_id])
        except DatabaseError:
            # The connection is gone, and the lock with it; or it is unusable: closing it releases the lock.
            if not connection.in_atomic_block:
                connection.close()


def _category_runs_lock_try(category_id: int) -> bool:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_lock(%s, %s)", [RUNS_LOCK_SPACE, category_id])
        return cursor.fetchone()[0]


def _category_runs_unlock(category_id: int) -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_unlock(%s, %s)", [RUNS_LOCK_SPACE, category_id])


def recompute_run_execute(*, run_id: int) -> RecomputeRun:
    """Carry out a queued run, together with every other run queued for its category (one recompute serves all).

    On PostgreSQL this waits while another worker carries out a recompute (of
    any list: see ALL_LISTS), and picks up the runs a stopped worker left
    running. When the database fails in a way that passes (a lost connection,
    a restart, a deadlock) the runs are queued again to be retried shortly, up
    to ATTEMPTS_AT_MOST times; any other error marks them failed. Either way
    the previous history stays published.
    """
    run = RecomputeRun.objects.select_related("category").get(pk=run_id)
    with _category_runs_lock(run.category_id), _category_runs_lock(ALL_LISTS):
        # Holding the runs lock, any run of the category still "running" was left by a worker that stopped.
        claimable = [RecomputeStatus.QUEUED]
        if _runs_lock_supported():
            claimable.append(RecomputeStatus.RUNNING)
        with transaction.atomic():
            # Locked rows are being claimed by another worker: leave them to it.
            pending = RecomputeRun.objects.select_for_update(skip_locked=True).filter(
                category_id=run.category_id, status__in=claimable
            )
            claimed_ids = list(pending.values_list("pk", flat=True))
            if run.pk not in claimed_ids:
                run.refresh_from_db()
                return run  # carried out, or being carried out, together with another run
            RecomputeRun.objects.filter(pk__in=claimed_ids).update(
                status=RecomputeStatus.RUNNING, started_at=timezone.now()
            )
        claimed = RecomputeRun.objects.filter(pk__in=claimed_ids)
        sinces = list(claimed.values_list("since", flat=True))
        since = None if None in sinces else min(sinces)
        try:
            result = category_recompute(category=run.category, since=since)
        except _connection_errors() as error:
            _runs_requeue_when_the_database_is_back(run.category_id, error)
            raise
        except Exception as error:
            claimed.update(status=RecomputeStatus.FAILED, finished_at=timezone.now(), error=repr(error)[:2000])
            raise
        claimed.update(
            status=RecomputeStatus.DONE,
            finished_at=timezone.now(),
            computed_since=since,
            matches_rated=result.matches_rated,
            entries_written=result.entries_written,
        )
    run.refresh_from_db()
    return run


def _connection_errors() -> tuple[type[Exception], ...]:
    """Errors that pass (a lost connection, a deadlock), as Django raises them and as the driver does (COPY)."""
    driver = connection.Database
    return (OperationalError, InterfaceError, driver.OperationalError, driver.InterfaceError)


REQUEUE_WAITS = (0, 1, 2, 4, 8)  # seconds between attempts to queue runs again while the database restarts


def _runs_requeue_when_the_database_is_back(category_id: int, error: Exception) -> None:
    """After an error that passes, queue the category's runs again, trying for a few seconds (a restart).

    Still unreachable after that? Then the runs stay "running" until recompute_runs_recover finds them.
    """
    for wait in REQUEUE_WAITS:
        time.sleep(wait)
        try:
            _category_runs_requeue(
                category_id,
                why=f"the database failed, which may pass ({error!r:.200})",
                delay=timedelta(seconds=settings.RECOMPUTE_RETRY_SECONDS),
            )
            return
        except DatabaseError:
            if not connection.in_atomic_block:
                connection.close()  # the next attempt connects afresh


ATTEMPTS_AT_MOST = 5  # a run whose worker stops this many times (killed for memory, say) is marked failed
REQUEUED = "queued again"  # the note's words, counted in `error` to know how many attempts were made


def recompute_runs_recover(*, single_worker: bool = False) -> list[RecomputeRun]:
    """Queue again the runs a stopped worker left "running"; the published history is untouched.

    A recompute is one transaction, so a worker that stops halfway leaves the
    previous history published; only its runs' status is left behind. On
    PostgreSQL a run is stale when it is running and nobody holds its
    category's runs lock. SQLite has no such lock: there, `single_worker`
    (the worker starting, with make run's one worker per database) says every
    running run is stale. Returns the runs queued again (or failed, after
    ATTEMPTS_AT_MOST attempts); one job per category carries them out.
    """
    if not _runs_lock_supported() and not single_worker:
        return []
    running = RecomputeRun.objects.filter(status=RecomputeStatus.RUNNING)
    requeued = []
    for category_id in sorted(set(running.values_list("category_id", flat=True))):
        requeued += _category_runs_requeue(category_id, why="its worker stopped, or lost the database, during the run")
    return requeued


def _category_runs_requeue(category_id: int, *, why: str, delay: timedelta | None = None) -> list[RecomputeRun]:
    """Queue again the category's running runs, unless (on PostgreSQL) a live worker holds their lock."""
    if not _runs_lock_supported():
        return _running_runs_requeue(category_id, why=why, delay=delay)
    if not _category_runs_lock_try(category_id):
        return []  # a live worker is carrying them out
    try:
        return _running_runs_requeue(category_id, why=why, delay=delay)
    finally:
        _category_runs_unlock(category_id)


@transaction.atomic
def _running_runs_requeue(category_id: int, *, why: str, delay: timedelta | None) -> list[RecomputeRun]:
    from ratings.tasks import recompute_task

    runs = list(
        RecomputeRun.objects.select_for_update(skip_locked=True)
        .filter(category_id=category_id, status=RecomputeStatus.RUNNING)
        .order_by("pk")
    )
    now = timezone.now()
    for run in runs:
        attempt = run.error.count(REQUEUED) + 1
        if attempt >= ATTEMPTS_AT_MOST:
            note = f"{now:%Y-%m-%d %H:%M:%S} UTC: {why}; failed after {attempt} attempts."
            run.status, run.finished_at = RecomputeStatus.FAILED, now
        else:
            note = f"{now:%Y-%m-%d %H:%M:%S} UTC: {why}; {REQUEUED} (attempt {attempt} of {ATTEMPTS_AT_MOST})."
            run.status, run.started_at = RecomputeStatus.QUEUED, None
        run.error = f"{run.error}\n{note}".strip()[-2000:]
    RecomputeRun.objects.bulk_update(runs, ["status", "started_at", "finished_at", "error"])
    if runs:
        logger.warning("recompute runs of category %s: %s: %s", category_id, why, runs)
    queued = [run.pk for run in runs if run.status == RecomputeStatus.QUEUED]
    if queued:
        task = recompute_task.using(run_after=timezone.now() + delay) if delay else recompute_task
        transaction.on_commit(lambda: task.enqueue(queued[0]))
    return runs
