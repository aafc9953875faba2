"""Lists of past dates, written as rows the first time a page asks for them (RankingSnapshot, SnapshotRating).

A past date's list used to be computed from the history and cached whole;
reading a 100,000-row list back from the cache cost more than showing a page
of it, and every process computed its own. Written as rows holding each row's
rank and position at every level, a page of a past list is an index range
like a page of today's list.

An Elo list is written by one INSERT ... SELECT: standings, names and places
(from today's list, which holds everyone ever rated in the category), ranks
and positions by window functions. The standings come from the cheapest
source at hand: the nearest earlier snapshot of the same day plus the history
between, else today's list less what was played after the date, else the
history up to the date, whichever reads fewer history rows. V:EKN
points leave their window with the days and derived lists follow their
components: those are computed whole, as `ranking_rows` has them.

A snapshot is valid for its category's history version and the day it was
written; writing one deletes those no page can ask for any more.

On PostgreSQL each snapshot's rows are a partition of their own (migration
0024): written into a fresh table, indexed once, attached. Half the time of
maintaining five indexes row by row among the other lists' rows, and a list
that goes is a table dropped (snapshot_rows_tidy), not rows to delete and
vacuum.
"""

import re
from datetime import date, timedelta

from django.db import IntegrityError, connection, transaction
from django.db.models import F, Max, Subquery
from django.utils import timezone

from lib.bulk import insert_rows
from players.models import Player, Suspension
from ratings.category_tables import elsewhere, exclusively_locked, staging_index, swaps_tables, table_like
from ratings.jobs import snapshot_tidy_enqueue
from ratings.models import Category, CurrentRating, RankingSnapshot, RatingEntry, Ruleset, SnapshotRating
from ratings.selectors.history import history_last_seq
from ratings.selectors.lists import RankingRow, place_grouping, rank_sql, ranking_rows

SNAPSHOTS_KEPT = 12  # per category: about 100,000 rows each for the largest lists

SNAPSHOT_FIELDS = [
    "snapshot", "participant", "display_id", "name", "country", "continent", "region", "rating", "matches", "ranked",
    "provisional", "last_played", "world_rank", "continent_rank", "country_rank", "region_rank", "world_position",
    "continent_position", "country_position", "region_position",
]  # fmt: skip


def end_of_previous_month(day: date) -> date:
    """The official list before `day`: a past list's movement is counted from it (SPEC 4)."""
    return day.replace(day=1) - timedelta(days=1)


def _valid_snapshots(category: Category, today: date):
    return RankingSnapshot.objects.filter(category=category, history_version=category.history_version, built_on=today)


def snapshots_kept_for_next_version(*, category: Category, before: date) -> int:
    """Key the category's past lists of dates before `before` to the history version that comes next (the
    caller bumps it in the same transaction), for a history rewritten from that day on only: those lists are
    still its lists. Returns how many."""
    current = Category.objects.filter(pk=category.pk).values("history_version")
    kept = RankingSnapshot.objects.filter(category=category, history_version=Subquery(current), as_of__lt=before)
    return kept.update(history_version=F("history_version") + 1)


def snapshot_dates_missing(*, category: Category, dates: list[date]) -> list[date]:
    """Those of `dates` whose list is not written for the category's history as it is today."""
    written = _valid_snapshots(category, timezone.localdate()).filter(as_of__in=dates).values_list("as_of", flat=True)
    return sorted(set(dates) - set(written))


def dates_written_ahead(today: date) -> list[date]:
    """The past dates whose lists are written before anyone asks: the ends of the last two months (the base of
    every past list's movement) and the end of last year (the year's final standings), earliest first."""
    last = end_of_previous_month(today)
    return sorted({date(today.year - 1, 12, 31), end_of_previous_month(last), last})


def snapshots_write_ahead(*, categories) -> int:
    """Write, where missing, each category's lists on the dates written ahead (dates_written_ahead); how many.

    The recompute job calls this once it has published, and the job workers
    once an hour (a snapshot is of one day's history): so the month ends and
    the year's end, the dates most asked for, never cost a visitor. In the
    load test, whose full recomputes make every past list stale, a visitor
    asking for the end of last year waited while its list was written: a p95
    of 1.6 s on that page.
    """
    dates = dates_written_ahead(timezone.localdate())
    written = 0
    for category in categories:
        missing = snapshot_dates_missing(category=category, dates=dates)
        if missing:
            ranking_snapshots(category=category, dates=missing)
            written += len(missing)
    return written


def ranking_snapshots(*, category: Category, dates: list[date], tidy_later: bool = False) -> dict[date, int]:
    """date -> id of the snapshot of the category's list on that date, each written first when missing.

    On PostgreSQL, outside a transaction (a page, a job), two lists or more
    are written side by side: the last in this transaction, the others one
    after the other in a transaction on a connection of their own. A new past
    date needs its own list and the month end's before it (its movement); at
    a million matches each takes about 0.65 s, one core's work.

    `tidy_later`, for a visitor's request: the statistics of the lists written
    and dropping the lists they replaced are left to a job
    (ratings.jobs.snapshot_tidy_enqueue) instead of delaying the page. A list
    that another one is written from in the same transaction gets its
    statistics at once (without them the next one takes twice as long).
    """
    today = timezone.localdate()
    found = dict(_valid_snapshots(category, today).filter(as_of__in=dates).values_list("as_of", "pk"))
    missing = sorted(set(dates) - set(found))  # earliest first: a later list starts from an earlier one
    if not missing:
        return found
    with transaction.atomic():
        pruned = _snapshots_prune(category, today, room=len(missing))
    *others, last = missing
    if others and swaps_tables() and not connection.in_atomic_block:
        beside = elsewhere(_snapshots_write, category, others, today, last_analyzed=not tidy_later)
        try:
            found[last] = _snapshot_write(category, last, today, analyze=not tidy_later)
        finally:
            found |= beside.result()  # waits for them; raises what failed there
    else:
        found |= _snapshots_write(category, missing, today, last_analyzed=not tidy_later)
    if tidy_later:
        snapshot_tidy_enqueue()
    elif pruned:
        snapshot_rows_tidy()
    return found


def _snapshots_write(category: Category, days: list[date], today: date, *, last_analyzed: bool) -> dict[date, int]:
    """Write the lists of `days` (earliest first) one after the other: each with the statistics the next one
    is written from, the last with its own only if `last_analyzed`."""
    return {day: _snapshot_write(category, day, today, analyze=last_analyzed or day != days[-1]) for day in days}


def _snapshot_write(category: Category, as_of: date, today: date, *, analyze: bool) -> int:
    """The id of the snapshot of the category's list on `as_of`, written now."""
    key = {"category": category, "as_of": as_of, "history_version": category.history_version, "built_on": today}
    try:
        with transaction.atomic():
            snapshot = RankingSnapshot.objects.create(**key)
            table = _rows_table_create(snapshot.pk)
            if category.ruleset in (Ruleset.VEKN, Ruleset.DERIVED):
                rows = ranking_rows(category=category, as_of=as_of)
                insert_rows(SnapshotRating, SNAPSHOT_FIELDS, _positioned(snapshot.pk, category, rows), table=table)
            else:
                earlier = RankingSnapshot.objects.filter(
                    category=category, history_version=category.history_version, built_on=today, as_of__lt=as_of
                )
                _elo_snapshot_insert(snapshot.pk, table, category, as_of, earlier.order_by("-as_of").first())
            _rows_table_attach(snapshot.pk, table, analyze=analyze)
    except IntegrityError:  # written meanwhile by another request: the unique key waited for it to commit
        return RankingSnapshot.objects.get(**key).pk
    return snapshot.pk


# A snapshot's rows: on PostgreSQL a partition of their own -------------------------------------------------

_HISTORY = RatingEntry._meta.db_table
_CURRENT = CurrentRating._meta.db_table
_ROWS = SnapshotRating._meta.db_table
_SUSPENSIONS = Suspension._meta.db_table
_PLAYERS = Player._meta.db_table

_PARTITION = re.compile(rf"^{_ROWS}_s(\d+)$")  # a snapshot's partition, named after its id


def _partition_name(snapshot_id: int) -> str:
    return f"{_ROWS}_s{int(snapshot_id)}"


def _rows_table_create(snapshot_id: int) -> str:
    """The table the snapshot's rows are written into: a fresh one on PostgreSQL, the rows' table elsewhere."""
    if not swaps_tables():
        return _ROWS
    return table_like(SnapshotRating, _partition_name(snapshot_id))


def _rows_table_attach(snapshot_id: int, table: str, *, analyze: bool) -> None:
    """Index the snapshot's fresh table and attach it as its partition (PostgreSQL; nothing to do elsewhere).

    Attaching locks the table of every snapshot's rows only against other
    attaches and drops, not against the pages reading it.
    """
    if not swaps_tables():
        return
    staging_index(SnapshotRating, table)
    with connection.cursor() as cursor:
        cursor.execute(f"ALTER TABLE {_ROWS} ATTACH PARTITION {table} FOR VALUES IN ({int(snapshot_id)})")
        if analyze:
            # Statistics of the new list: a search reads its matches by participant, and without statistics
            # of that column PostgreSQL expects half the list to match and reads all of it (15 ms instead of 4).
            # The next list written from this one reads it whole by its snapshot: without statistics of that
            # column PostgreSQL expects a two-hundredth of it and names it row by row (6.1 s instead of 5.6 s
            # for a list of 430,000 rows).
            cursor.execute(f"ANALYZE {table} (snapshot_id, participant_id)")


# Elo lists, in the database ------------------------------------------------------------------------------

# Exclusions below are NOT EXISTS, not NOT IN: PostgreSQL checks a NOT IN list too large for its
# working memory row by row, which took minutes at 100,000 participants.


def _elo_snapshot_insert(
    snapshot_id: int, table: str, category: Category, as_of: date, base: RankingSnapshot | None
) -> None:
    last_seq = history_last_seq(category, as_of)
    if base is not None:
        standings = _standings_from_snapshot(category, base.pk, history_last_seq(category, base.as_of), last_seq)
    else:
        total = RatingEntry.objects.filter(category=category).aggregate(last=Max("seq"))["last"] or 0
        if total - last_seq < last_seq:
            standings = _standings_from_today(category, last_seq)
        else:
            standings = _last_entries(category, 0, last_seq)
    _ranked_insert(snapshot_id, table, category, as_of, standings)


def _last_entries(category: Category, after: int, up_to: int) -> str:
    """The last history row of each participant who played in (after, up_to] (seqs): (participant_id, rating,
    matches, last_played)."""
    c = int(category.pk)
    last = f"""(
        SELECT participant_id, MAX(seq) AS seq FROM {_HISTORY}
        WHERE category_id = {c} AND seq > {int(after)} AND seq <= {int(up_to)} GROUP BY participant_id
    )"""
    return _one_row_each(last, f"x.category_id = {c} AND x.participant_id = p.participant_id AND x.seq = p.seq")


def _standings_from_snapshot(category: Category, snapshot_id: int, base_seq: int, last_seq: int) -> str:
    """An earlier snapshot's standings, replaced by the last rows of those who played since (up to `last_seq`)."""
    return f"""
        WITH changed AS ({_last_entries(category, base_seq, last_seq)})
        SELECT participant_id, rating, matches, last_played FROM changed
        UNION ALL
        SELECT participant_id, rating, matches, last_played FROM {_ROWS} b
        WHERE snapshot_id = {int(snapshot_id)}
        AND NOT EXISTS (SELECT 1 FROM changed WHERE changed.participant_id = b.participant_id)
    """


def _standings_from_today(category: Category, last_seq: int) -> str:
    """Today's standings, except for those who played after `last_seq`: their last row up to it.

    Today's list holds everyone's last history row, so only those who played
    since the date are looked up (those who had not played by then have no
    row up to it and drop out). The history since is read once: PostgreSQL
    keeps the result of a WITH query used twice.
    """
    c, last = int(category.pk), int(last_seq)
    up_to_date = f"x.category_id = {c} AND x.participant_id = p.participant_id AND x.seq <= {last} ORDER BY x.seq DESC"
    return f"""
        WITH later AS (SELECT DISTINCT participant_id FROM {_HISTORY} WHERE category_id = {c} AND seq > {last})
        SELECT participant_id, rating, matches, last_played FROM {_CURRENT} c
        WHERE category_id = {c} AND NOT EXISTS (SELECT 1 FROM later WHERE later.participant_id = c.participant_id)
        UNION ALL
        {_one_row_each("later", up_to_date)}
    """


def _one_row_each(participants: str, row: str) -> str:
    """(participant_id, rating, matches, last_played) of each participant of `participants` (a table or a
    subquery, `p` in `row`) that has a history row `row` finds (conditions on `x` and an order; the first
    found), read through the participant index: joined instead, PostgreSQL misjudged the sizes and read the
    whole history.

    PostgreSQL reads that row once (LATERAL), where it read it once for each
    column and once more to leave out those without one; SQLite, which has no
    LATERAL, still does.
    """
    if connection.vendor == "postgresql":
        return f"""
            SELECT p.participant_id, x.rating_after AS rating, x.matches, x.event_date AS last_played
            FROM {participants} p CROSS JOIN LATERAL (
                SELECT x.rating_after, x.matches, x.event_date FROM {_HISTORY} x WHERE {row} LIMIT 1
            ) x
        """
    columns = ", ".join(
        f"(SELECT x.{column} FROM {_HISTORY} x WHERE {row} LIMIT 1) AS {name}"
        for column, name in (("rating_after", "rating"), ("matches", "matches"), ("event_date", "last_played"))
    )
    return f"""
        SELECT participant_id, rating, matches, last_played
        FROM (SELECT p.participant_id, {columns} FROM {participants} p) looked_up
        WHERE rating IS NOT NULL
    """


def _ranked_insert(snapshot_id: int, table: str, category: Category, as_of: date, standings: str) -> None:
    """Write the standings (participant_id, rating, matches, last_played) into `table` as the snapshot's rows,
    ranked.

    Names and places come from today's list, which holds everyone ever rated
    in the category. Ranks: equal ratings share one, among the ranked at each
    level (`rank_sql`, the SQL twin of `rank_levels`); a player suspended on `as_of` is not ranked
    (players.models.Suspension), as elo_standings has it. Positions count each
    list (level, place, ranked or not) in the order its pages show; each
    position's window sorts as its level's rank does, plus a tie-break, so
    one sort serves both.
    """

    tuned = connection.vendor == "postgresql"
    collated = place_grouping()  # as rank_sql groups them: one sort serves a level's rank and position

    def place_position(level: str) -> str:
        # The world position breaks ties of rating: the order of names and numbers without comparing them again.
        counted = f"ROW_NUMBER() OVER (PARTITION BY ranked, {level}{collated} ORDER BY rating DESC, world_position)"
        return f"CASE WHEN {level} <> '' THEN {counted} END"

    levels = ("continent", "country", "region")
    with connection.cursor() as cursor:
        if tuned:
            # Four sorts of 100,000 rows: in memory rather than in temporary files. Compiling the plan
            # (JIT) cost more than it saved. The standings come through WITH queries and aggregates whose
            # sizes PostgreSQL cannot tell (it expects 200 rows where there are 40,000): it then named them
            # through today's list one index lookup at a time (160 ms at 1M) instead of one hash (50 ms).
            # All for this statement only.
            cursor.execute("SET LOCAL work_mem = '64MB'")
            cursor.execute("SET LOCAL jit = off")
            cursor.execute("SET LOCAL enable_nestloop = off")
        cursor.execute(
            f"""
            INSERT INTO {table} (
                snapshot_id, participant_id, display_id, name, country, continent, region, rating, matches, ranked,
                provisional, last_played, world_rank, world_position, continent_rank, country_rank, region_rank,
                continent_position, country_position, region_position
            )
            SELECT
                %s, participant_id, display_id, name, country, continent, region, rating, matches, ranked,
                matches < %s, last_played, world_rank, world_position,
                {", ".join(rank_sql(level) for level in levels)},
                {", ".join(place_position(level) for level in levels)}
            FROM (
                SELECT
                    s.participant_id, COALESCE(c.display_id, CAST(s.participant_id AS VARCHAR(20))) AS display_id,
                    COALESCE(c.name, '') AS name, COALESCE(c.country, '') AS country,
                    COALESCE(c.continent, '') AS continent, COALESCE(c.region, '') AS region,
                    s.rating, s.matches, s.ranked, s.last_played,
                    {rank_sql("world", rating="s.rating", ranked="s.ranked")} AS world_rank,
                    ROW_NUMBER() OVER (
                        PARTITION BY s.ranked ORDER BY s.rating DESC, COALESCE(c.name, ''), COALESCE(c.display_id, '')
                    ) AS world_position
                FROM (
                    SELECT participant_id, rating, matches, last_played,
                           matches >= %s AND NOT EXISTS (
                               SELECT 1 FROM {_SUSPENSIONS} suspension JOIN {_PLAYERS} player
                               ON player.id = suspension.player_id
                               WHERE player.participant_id = standings.participant_id AND suspension.starts_on <= %s
                               AND (suspension.ends_on IS NULL OR suspension.ends_on >= %s)
                           ) AS ranked
                    FROM ({standings}) standings
                ) s
                LEFT JOIN {_CURRENT} c ON c.category_id = %s AND c.participant_id = s.participant_id
            ) listed
            """,
            [snapshot_id, category.provisional_until, category.ranked_after, as_of, as_of, category.pk],
        )
        if tuned:
            cursor.execute("SET LOCAL work_mem TO DEFAULT")
            cursor.execute("SET LOCAL jit TO DEFAULT")
            cursor.execute("SET LOCAL enable_nestloop TO DEFAULT")


# V:EKN and derived lists, computed whole -----------------------------------------------------------------


def _positioned(snapshot_id: int, category: Category, rows: list[RankingRow]):
    """The rows as SNAPSHOT_FIELDS tuples, with each row's position in its list at every level.

    `rows` come best first, ranked before unranked, ties by name and number:
    the order of the pages, so positions are counters per (level, place, ranked).
    """
    counters: dict[tuple, int] = {}

    def position(level: str, place: str, ranked: bool) -> int | None:
        if level != "world" and not place:
            return None
        key = (level, place, ranked)
        counters[key] = counters.get(key, 0) + 1
        return counters[key]

    provisional_until = category.provisional_until
    for row in rows:
        ranked = row.ranked
        yield (
            snapshot_id, row.participant, row.player_id, row.name, row.country, row.continent, row.region,
            row.rating, row.matches, ranked, row.matches < provisional_until, row.last_played,
            row.world_rank, row.continent_rank, row.country_rank, row.region_rank,
            position("world", "", ranked), position("continent", row.continent, ranked),
            position("country", row.country, ranked), position("region", row.region, ranked),
        )  # fmt: skip


# Clean-up -------------------------------------------------------------------------------------------------


def _snapshots_prune(category: Category, today: date, *, room: int) -> int:
    """Delete the snapshots no page asks for any more (another version, another day, a deleted category),
    and this category's oldest beyond SNAPSHOTS_KEPT with `room` more to come, official lists' aside;
    returns how many went.

    Their rows go with them, except on PostgreSQL: there each one's partition
    is dropped after this transaction (snapshot_rows_tidy), since dropping one
    holds off every page of every past list until the transaction ends.
    """
    versions = dict(Category.objects.values_list("pk", "history_version"))
    # Official lists are kept as published (OfficialList): their snapshots are never pruned nor counted.
    prunable = RankingSnapshot.objects.filter(official__isnull=True)
    gone = [
        pk
        for pk, category_id, version, built_on in prunable.values_list(
            "pk", "category_id", "history_version", "built_on"
        )
        if built_on != today or versions.get(category_id) != version
    ]
    kept = prunable.filter(category=category).exclude(pk__in=gone).order_by("-pk")
    gone += kept.values_list("pk", flat=True)[max(SNAPSHOTS_KEPT - room, 0) :]
    if not gone:
        return 0
    if not swaps_tables():
        SnapshotRating.objects.filter(snapshot__in=gone).delete()
    RankingSnapshot.objects.filter(pk__in=gone).delete()
    return len(gone)


def snapshot_rows_tidy() -> None:
    """Drop the rows of deleted snapshots and take the statistics of lists written without them.

    On PostgreSQL a deleted snapshot's rows are its partition, dropped in a
    short transaction of its own: the lock that takes waits for the pages
    reading past lists and holds them off for no longer than the drop. Run
    outside a transaction (a job's, or after a page's snapshots committed).
    """
    if not swaps_tables() or connection.in_atomic_block:
        return
    with connection.cursor() as cursor:
        cursor.execute(
            """
            SELECT c.relname, COALESCE(s.last_analyze, s.last_autoanalyze) IS NULL
            FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid LEFT JOIN pg_stat_user_tables s ON s.relid = c.oid
            WHERE i.inhparent = %s::regclass
            """,
            [_ROWS],
        )
        partitions = cursor.fetchall()
    existing = set(RankingSnapshot.objects.values_list("pk", flat=True))
    orphans = [name for name, _ in partitions if (found := _PARTITION.match(name)) and int(found[1]) not in existing]
    if orphans:
        with transaction.atomic():
            exclusively_locked([_ROWS])
            with connection.cursor() as cursor:
                cursor.execute(f"DROP TABLE {', '.join(orphans)}")
    with connection.cursor() as cursor:
        for name, never_analysed in partitions:
            if never_analysed and name not in orphans:
                cursor.execute(f"ANALYZE {name}")
