"""Lists of past dates, written as rows the first time a page asks for them (RankingSnapshot, SnapshotRating).

A past date's list used to be computed from the history and cached whole;
reading a 100,000-row list back from the cache cost more than showing a page
of it, and every process computed its own. Written as rows holding each row's
rank and position at every level, a page of a past list is an index range
like a page of today's list.

An Elo list is written by one INSERT ... SELECT: standings, names and places
(from today's list, which holds everyone ever rated in the category), ranks
and positions by window functions. The standings come from the cheapest
source at hand: an earlier snapshot of the same day plus the history between
(the end of the month before a date is always written first: its ranks are
the movement column), else today's list less what was played after the date,
else the history up to the date, whichever reads fewer history rows. V:EKN
points leave their window with the days and derived lists follow their
components: those are computed whole, as `ranking_rows` has them.

A snapshot is valid for its category's history version and the day it was
written; writing one deletes those no page can ask for any more.
"""

from datetime import date

from django.db import IntegrityError, connection, transaction
from django.db.models import Max
from django.utils import timezone

from lib.bulk import insert_rows
from ratings.models import Category, CurrentRating, RankingSnapshot, RatingEntry, Ruleset, SnapshotRating
from ratings.selectors import RankingRow, ranking_rows

SNAPSHOTS_KEPT = 12  # per category: about 100,000 rows each for the largest lists

SNAPSHOT_FIELDS = [
    "snapshot", "participant", "display_id", "name", "country", "continent", "region", "rating", "matches", "ranked",
    "provisional", "world_rank", "continent_rank", "country_rank", "region_rank", "world_position",
    "continent_position", "country_position", "region_position",
]  # fmt: skip


def ranking_snapshots(*, category: Category, dates: list[date]) -> dict[date, int]:
    """date -> id of the snapshot of the category's list on that date, each written first when missing."""
    today = timezone.localdate()
    valid = RankingSnapshot.objects.filter(category=category, history_version=category.history_version, built_on=today)
    found = dict(valid.filter(as_of__in=dates).values_list("as_of", "pk"))
    for day in sorted(set(dates) - set(found)):  # earliest first: a later list starts from an earlier one
        found[day] = _snapshot_write(category, day, today)
    return found


def _snapshot_write(category: Category, as_of: date, today: date) -> int:
    key = {"category": category, "as_of": as_of, "history_version": category.history_version, "built_on": today}
    try:
        with transaction.atomic():
            snapshot = RankingSnapshot.objects.create(**key)
            _snapshots_prune(category, today)
            if category.ruleset in (Ruleset.VEKN, Ruleset.DERIVED):
                rows = ranking_rows(category=category, as_of=as_of)
                insert_rows(SnapshotRating, SNAPSHOT_FIELDS, _positioned(snapshot.pk, category, rows))
            else:
                earlier = RankingSnapshot.objects.filter(
                    category=category, history_version=category.history_version, built_on=today, as_of__lt=as_of
                )
                _elo_snapshot_insert(snapshot.pk, category, as_of, earlier.order_by("-as_of").first())
    except IntegrityError:  # written meanwhile by another request: the unique key waited for it to commit
        return RankingSnapshot.objects.get(**key).pk
    return snapshot.pk


# Elo lists, in the database ------------------------------------------------------------------------------

_HISTORY = RatingEntry._meta.db_table
_CURRENT = CurrentRating._meta.db_table
_ROWS = SnapshotRating._meta.db_table

# The last history row of each participant among those with seq in (%s, %s].
_LAST_ENTRIES = f"""
    SELECT e.participant_id, e.rating_after AS rating, e.matches
    FROM {_HISTORY} e
    JOIN (
        SELECT participant_id, MAX(seq) AS seq FROM {_HISTORY}
        WHERE category_id = %s AND seq > %s AND seq <= %s GROUP BY participant_id
    ) last ON e.participant_id = last.participant_id AND e.seq = last.seq
    WHERE e.category_id = %s
"""


def _elo_snapshot_insert(snapshot_id: int, category: Category, as_of: date, base: RankingSnapshot | None) -> None:
    history = RatingEntry.objects.filter(category=category)
    last_seq = history.filter(event_date__lte=as_of).aggregate(last=Max("seq"))["last"] or 0
    if base is not None:
        base_seq = history.filter(event_date__lte=base.as_of).aggregate(last=Max("seq"))["last"] or 0
        standings, params = _standings_from_snapshot(category, base.pk, base_seq, last_seq)
    else:
        total = history.aggregate(last=Max("seq"))["last"] or 0
        if total - last_seq < last_seq:
            standings, params = _standings_from_today(category, last_seq)
        else:
            standings, params = _standings_from_history(category, last_seq)
    _ranked_insert(snapshot_id, category, standings, params)


def _standings_from_history(category: Category, last_seq: int) -> tuple[str, list]:
    """Everyone's last history row up to `last_seq`."""
    return _LAST_ENTRIES, [category.pk, 0, last_seq, category.pk]


def _standings_from_snapshot(category: Category, snapshot_id: int, base_seq: int, last_seq: int) -> tuple[str, list]:
    """An earlier snapshot's standings, replaced by the last rows of those who played since (up to `last_seq`)."""
    sql = f"""
        {_LAST_ENTRIES}
        UNION ALL
        SELECT participant_id, rating, matches FROM {_ROWS}
        WHERE snapshot_id = %s AND participant_id NOT IN (
            SELECT participant_id FROM {_HISTORY} WHERE category_id = %s AND seq > %s AND seq <= %s
        )
    """
    return sql, [category.pk, base_seq, last_seq, category.pk, snapshot_id, category.pk, base_seq, last_seq]


def _standings_from_today(category: Category, last_seq: int) -> tuple[str, list]:
    """Today's standings, except for those who played after `last_seq`: their last row up to it.

    Today's list holds everyone's last history row, so only those who played
    since the date are looked up, each through the participant index (those
    who had not played by then have no row up to it and drop out).
    """
    up_to_date = f"""
        FROM {_HISTORY} x WHERE x.category_id = %s AND x.participant_id = later.participant_id AND x.seq <= %s
        ORDER BY x.seq DESC LIMIT 1
    """
    sql = f"""
        SELECT participant_id, rating, matches FROM {_CURRENT}
        WHERE category_id = %s AND participant_id NOT IN (
            SELECT participant_id FROM {_HISTORY} WHERE category_id = %s AND seq > %s
        )
        UNION ALL
        SELECT participant_id, rating, matches FROM (
            SELECT later.participant_id, (SELECT x.rating_after {up_to_date}) AS rating,
                   (SELECT x.matches {up_to_date}) AS matches
            FROM (SELECT DISTINCT participant_id FROM {_HISTORY} WHERE category_id = %s AND seq > %s) later
        ) looked_up
        WHERE rating IS NOT NULL
    """
    pk = category.pk
    return sql, [pk, pk, last_seq, pk, last_seq, pk, last_seq, pk, last_seq]


def _ranked_insert(snapshot_id: int, category: Category, standings: str, params: list) -> None:
    """Write the standings (participant_id, rating, matches) as the snapshot's rows, ranked at every level.

    Names and places come from today's list, which holds everyone ever rated
    in the category. Ranks: equal ratings share one, among the ranked at each
    level (as `rank_levels` and the recount of today's list have them).
    Positions count each list (level, place, ranked or not) in the order its
    pages show.
    """
    order = "s.rating DESC, COALESCE(c.name, ''), COALESCE(c.display_id, '')"

    def rank(level: str | None) -> str:
        partition = f"s.ranked, c.{level}" if level else "s.ranked"
        placed = f" AND c.{level} <> ''" if level else ""
        return f"CASE WHEN s.ranked{placed} THEN RANK() OVER (PARTITION BY {partition} ORDER BY s.rating DESC) END"

    def position(level: str | None) -> str:
        partition = f"s.ranked, c.{level}" if level else "s.ranked"
        counted = f"ROW_NUMBER() OVER (PARTITION BY {partition} ORDER BY {order})"
        return f"CASE WHEN c.{level} <> '' THEN {counted} END" if level else counted

    levels = (None, "continent", "country", "region")
    with connection.cursor() as cursor:
        cursor.execute(
            f"""
            INSERT INTO {_ROWS} (
                snapshot_id, participant_id, display_id, name, country, continent, region, rating, matches, ranked,
                provisional, world_rank, continent_rank, country_rank, region_rank, world_position,
                continent_position, country_position, region_position
            )
            SELECT
                %s, s.participant_id, COALESCE(c.display_id, CAST(s.participant_id AS VARCHAR(20))),
                COALESCE(c.name, ''), COALESCE(c.country, ''), COALESCE(c.continent, ''), COALESCE(c.region, ''),
                s.rating, s.matches, s.ranked, s.matches < %s,
                {", ".join(rank(level) for level in levels)},
                {", ".join(position(level) for level in levels)}
            FROM (SELECT participant_id, rating, matches, matches >= %s AS ranked FROM ({standings}) standings) s
            LEFT JOIN {_CURRENT} c ON c.category_id = %s AND c.participant_id = s.participant_id
            """,
            [snapshot_id, category.provisional_until, category.ranked_after, *params, category.pk],
        )


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
            row.rating, row.matches, ranked, row.matches < provisional_until,
            row.world_rank, row.continent_rank, row.country_rank, row.region_rank,
            position("world", "", ranked), position("continent", row.continent, ranked),
            position("country", row.country, ranked), position("region", row.region, ranked),
        )  # fmt: skip


# Clean-up -------------------------------------------------------------------------------------------------


def _snapshots_prune(category: Category, today: date) -> None:
    """Delete the snapshots no page asks for any more (another version, another day, a deleted category),
    and this category's oldest beyond SNAPSHOTS_KEPT."""
    versions = dict(Category.objects.values_list("pk", "history_version"))
    gone = [
        pk
        for pk, category_id, version, built_on in RankingSnapshot.objects.values_list(
            "pk", "category_id", "history_version", "built_on"
        )
        if built_on != today or versions.get(category_id) != version
    ]
    kept = RankingSnapshot.objects.filter(category=category).exclude(pk__in=gone).order_by("-pk")
    gone += kept.values_list("pk", flat=True)[SNAPSHOTS_KEPT:]
    if gone:
        SnapshotRating.objects.filter(snapshot__in=gone).delete()
        RankingSnapshot.objects.filter(pk__in=gone).delete()
