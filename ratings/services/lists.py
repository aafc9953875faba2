"""Today's lists (CurrentRating) and their ranks (CurrentRank): written whole, updated in part, recounted.

A full recompute writes its list from the standings it ends with; a
recompute from a date updates the rows of those who played since and
recounts the ranks, writing back those that moved; a list built on an earlier day (its
previous columns are last month's, and V:EKN points age by the day) is
rebuilt by the job workers just after midnight (current_lists_refresh_stale),
never by a page that reads it.
"""

from datetime import date
from operator import itemgetter

from django.db import connection, transaction
from django.db.models import F
from django.utils import timezone

from lib.bulk import chunked, insert_rows, rows_read
from lib.lookups import any_of
from players import geography
from ratings import category_tables
from ratings.engine import level_ranks
from ratings.models import Category, CurrentRank, CurrentRating, Ruleset
from ratings.selectors.lists import (
    RANK_LEVELS,
    Standing,
    category_standings,
    derived_standing,
    elo_standings,
    list_built_on,
    participant_identities,
    ranking_rows,
    ranking_rows_from,
    vekn_standings,
)
from ratings.services.derived_lists import (
    derived_list_in_sql,
    derived_list_rebuild,
    list_in_sql,
    list_staged_from_standings,
)
from ratings.services.list_fields import CURRENT_FIELDS, LIST_FILLFACTOR, RANK_FIELDS, RANK_FIELDS_AT, list_column
from ratings.snapshots import end_of_previous_month


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
    if rows is None and standings is None and derived_list_in_sql(category):
        return derived_list_rebuild(category, today, stagings)
    if rows is None and list_in_sql(category):
        # The database ranks and names the list: Python reads the standings only.
        standings = standings or _standings_read(category, today)
        fresh = list_staged_from_standings(category, standings, today, indexed=stagings is None)
        _fresh_swapped_or_kept(category, fresh, stagings)
        return len(standings[0])
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
    _fresh_swapped_or_kept(category, fresh, stagings)
    return len(rows)


def _fresh_swapped_or_kept(category: Category, fresh: list[tuple], stagings: list | None) -> None:
    """Swap the list's fresh tables in now, or leave them to the caller's `stagings` (swapped with its history)."""
    if stagings is None:
        category_tables.stagings_swap(category.pk, fresh)
    else:
        stagings.extend(fresh)


def _standings_read(category: Category, today: date) -> tuple[dict, dict]:
    """Today's and last month's standings, read from the history (or a V:EKN list's scores)."""
    return (
        category_standings(category=category, as_of=today),
        category_standings(category=category, as_of=end_of_previous_month(today)),
    )


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


def _rank_rows(rows: list[tuple]) -> list[tuple]:
    """The CurrentRank rows of today's list rows: one per row with a rank."""
    world_at = CURRENT_FIELDS.index("world_rank")
    return [tuple(row[at] for at in RANK_FIELDS_AT) for row in rows if row[world_at] is not None]


def _current_rows_read(category: Category, today: date) -> list[tuple]:
    """Today's list as rows, read from the history (or a derived list's components' lists)."""
    if category.ruleset == Ruleset.DERIVED:
        standings = _derived_standings_of_lists(category)
        identities = participant_identities(category, set(standings[0]) | set(standings[1]))
        return current_rows_from_standings(category, standings, identities, today)
    current = ranking_rows(category=category, as_of=today)
    previous = ranking_rows(category=category, as_of=end_of_previous_month(today))
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


# Where CURRENT_FIELDS hold the ranks (today's and last month's), and last month's standing.
RANKS_AT = [at for at, name in enumerate(CURRENT_FIELDS) if name.endswith("_rank")]
TODAY_RANKS_AT = [CURRENT_FIELDS.index(f"{level}_rank") for level in RANK_LEVELS]
PLACES_AT = slice(CURRENT_FIELDS.index("country"), CURRENT_FIELDS.index("region") + 1)
PREVIOUS_AT = slice(CURRENT_FIELDS.index("previous_rating"), CURRENT_FIELDS.index("previous_region_rank") + 1)
PREVIOUS_RANKED_AT = CURRENT_FIELDS.index("previous_ranked")
PREVIOUS_RANKS_AT = [CURRENT_FIELDS.index(f"previous_{level}_rank") for level in RANK_LEVELS]


def current_ratings_update(
    *, category: Category, participants: set[int], since: date, now: dict[int, Standing] | None = None
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
    end_of_last_month = end_of_previous_month(today)
    if now is None:
        now = _standings_of(category, participants, as_of=None)
    before = _standings_of(category, participants, as_of=end_of_last_month) if since <= end_of_last_month else None
    stored = {}
    for chunk in chunked(sorted(participants), 5000):
        for row_id, *values in CurrentRating.objects.filter(
            any_of("participant_id", chunk), category=category
        ).values_list("id", *CURRENT_FIELDS):
            stored[values[1]] = (row_id, tuple(values))
    identities = participant_identities(category, set(now))
    rows, replaced, moved_away = [], [], []
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
            moved = tuple(row[PLACES_AT]) != old[PLACES_AT]
            if moved or not current.ranked:
                # Moved away, or no longer ranked: no ranks (and no CurrentRank row) until the recount, which
                # counts the ranked rows only, ranks it where it is now, if ranked.
                if moved or any(row[at] is not None for at in TODAY_RANKS_AT):
                    moved_away.append(participant)
                for at in TODAY_RANKS_AT:
                    row[at] = None
            if not row[PREVIOUS_RANKED_AT]:  # not ranked at last month's end: no ranks then
                for at in PREVIOUS_RANKS_AT:
                    row[at] = None
            if tuple(row) == old:
                continue
            replaced.append(row_id)
        rows.append(tuple(row))
    gone = {participant: row_id for participant, (row_id, _) in stored.items() if participant not in now}
    if not rows and not gone:
        return  # no row differs, so no rank moves: the recount (the whole list ranked again) is spared
    for chunk in chunked(replaced + list(gone.values()), 5000):
        CurrentRating.objects.filter(any_of("pk", chunk), category=category).delete()
    # Their ranks rows go; the recount writes those of the moved away who are still ranked.
    _current_ranks_replace(category, [*gone, *moved_away], [])
    insert_rows(CurrentRating, CURRENT_FIELDS, rows)
    current_ranks_recount(category=category, previous=before is not None)


def _standings_of(category: Category, participants: set[int], *, as_of: date | None) -> dict:
    if category.ruleset == Ruleset.DERIVED:
        return _derived_standings_from_lists(category, participants, previous=as_of is not None)
    if category.ruleset == Ruleset.VEKN:
        return vekn_standings(category, as_of, participants)
    return elo_standings(category, as_of, participants)


def _derived_standings_of_lists(category: Category) -> tuple[dict, dict]:
    """Today's and last month's standings of a derived list, from its components' lists."""
    components = Category.objects.filter(slug__in=category.component_list)
    everyone = set(CurrentRating.objects.filter(category__in=components).values_list("participant_id", flat=True))
    return (
        _derived_standings_from_lists(category, everyone, previous=False),
        _derived_standings_from_lists(category, everyone, previous=True),
    )


def _derived_standings_from_lists(category: Category, participants: set[int], *, previous: bool) -> dict[int, Standing]:
    """A derived rating from its components' lists (today's, or last month's with `previous`)."""
    components = list(Category.objects.filter(slug__in=category.component_list))
    rating, ranked = ("previous_rating", "previous_ranked") if previous else ("rating", "ranked")
    parts: dict[int, list] = {participant: [] for participant in participants}
    rows = CurrentRating.objects.filter(any_of("participant_id", participants), category__in=components).values_list(
        "participant_id", rating, "matches", ranked, "last_played"
    )
    for participant, value, matches, is_ranked, last_played in rows:
        if value is not None:
            parts[participant].append(Standing(participant, value, matches, is_ranked, last_played))
    return {
        participant: derived_standing(category, participant, found, len(components))
        for participant, found in parts.items()
        if found
    }


def current_ranks_recount(*, category: Category, previous: bool = False) -> None:
    """Recount today's ranks at every level (and last month's with `previous`).

    The list's ranked rows are read best first and counted in one pass
    (ratings.engine.ranking.level_ranks); only the rows whose ranks moved are
    written back, and those participants' CurrentRank rows with them. A
    correction moves a few thousand ranks of 30,000-60,000 ranked rows: in
    Python the count took about half as long as the database's four rank
    windows (a window per level, each sorting the list), 110 against 200-250 ms
    for constructed at a million matches. A row not ranked has no ranks already
    (current_ratings_update writes it so): the count has only the ranked to read.
    """
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            # Memory for sorting last month's ratings (today's are read along the list's index), for this
            # transaction: with the default 4 MB a list of 50,000 rows spills to disk.
            cursor.execute("SELECT set_config('work_mem', '64MB', true)")
        _ranks_moved(cursor, category, rating="rating", ranked="ranked", prefix="", copied=True)
        if previous:  # last month's ranks have no CurrentRank rows
            _ranks_moved(cursor, category, rating="previous_rating", ranked="previous_ranked", prefix="previous_")


MOVED_RANKS = "moved_ranks"  # a scratch table shaped like CurrentRank's rows, for the ranks a recount moved


def _ranks_moved(cursor, category: Category, rating: str, ranked: str, prefix: str, *, copied: bool = False) -> None:
    """Rewrite the ranks (the columns `prefix`world_rank ...) of the list's ranked rows where they moved, and with
    `copied` their CurrentRank rows."""
    table = CurrentRating._meta.db_table
    columns = [f"{prefix}{level}_rank" for level in RANK_LEVELS]
    places = [list_column(level) for level in RANK_LEVELS[1:]]
    rows = rows_read(
        cursor,
        f"SELECT participant_id, {', '.join(places)}, {rating}, {', '.join(columns)} FROM {table}"
        f" WHERE category_id = %s AND {ranked} ORDER BY {rating} DESC",
        [category.pk],
    )
    counted = level_ranks((row[4], row[1:4]) for row in rows)
    # As CurrentRank's rows (RANK_FIELDS): the category, the participant, its places and its ranks.
    moved = [
        (category.pk, row[0], *row[1:4], *ranks) for row, ranks in zip(rows, counted, strict=True) if ranks != row[5:]
    ]
    if not moved:
        return
    ranks_table = CurrentRank._meta.db_table
    names = [list_column(name) for name in RANK_FIELDS]
    cursor.execute(f"DROP TABLE IF EXISTS {MOVED_RANKS}")
    cursor.execute(f"CREATE TEMP TABLE {MOVED_RANKS} AS SELECT {', '.join(names)} FROM {ranks_table} WHERE 1 = 0")
    insert_rows(CurrentRank, RANK_FIELDS, moved, table=MOVED_RANKS)
    ranks = names[-len(RANK_LEVELS) :]
    cursor.execute(
        f"UPDATE {table} SET {', '.join(f'{column} = m.{rank}' for column, rank in zip(columns, ranks, strict=True))}"
        f" FROM {MOVED_RANKS} m WHERE {table}.category_id = %s AND {table}.participant_id = m.participant_id",
        [category.pk],
    )
    if copied:
        updated = ", ".join(f"{name} = excluded.{name}" for name in names[2:])
        cursor.execute(
            f"INSERT INTO {ranks_table} ({', '.join(names)}) SELECT {', '.join(names)} FROM {MOVED_RANKS} WHERE true"
            f" ON CONFLICT (category_id, participant_id) DO UPDATE SET {updated}"
        )
    cursor.execute(f"DROP TABLE {MOVED_RANKS}")


def _current_ranks_replace(category: Category, participants: list[int], ranks: list[tuple]) -> None:
    """Replace the CurrentRank rows of `participants` with `ranks` (RANK_FIELDS; none for the unranked)."""
    for chunk in chunked(participants, 5000):
        CurrentRank.objects.filter(any_of("participant_id", chunk), category=category).delete()
    insert_rows(CurrentRank, RANK_FIELDS, ranks)


def current_lists_refresh_stale() -> list[Category]:
    """Rebuild every list built before today; the lists rebuilt. The job workers call this just after
    midnight and hourly (ratings/management/commands/db_worker.py): one row read per list when none is stale.

    Lists derived from others come last: they are computed from their components' lists.
    """
    refreshed = []
    for category in sorted(Category.objects.all(), key=lambda category: category.ruleset == Ruleset.DERIVED):
        if current_ratings_refresh_if_stale(category=category):
            refreshed.append(category)
    return refreshed


def current_ratings_refresh_if_stale(*, category: Category) -> bool:
    """Lists age with the calendar (last month's ranks, the V:EKN windows): rebuild one built before today.

    True when this call rebuilt it. Called by the job workers (current_lists_refresh_stale), never by a page.
    """
    today = timezone.localdate()
    built_on = list_built_on(category)
    if built_on is None or built_on == today:
        return False
    # The list is read before the transaction that swaps it in: held in the
    # transaction, the history's read lock met a full recompute swapping the
    # history while it waited for the lists (a deadlock PostgreSQL broke by
    # failing one). A recompute meanwhile bumps the version: then it has
    # rebuilt the list itself and these rows are not written.
    version = Category.objects.filter(pk=category.pk).values_list("history_version", flat=True).get()
    rows = _current_rows_read(category, today)
    with transaction.atomic():
        locked = Category.objects.select_for_update(no_key=True).get(pk=category.pk)
        category_tables.swaps_take_turns()
        stale = CurrentRating.objects.filter(category=category).exclude(built_on=today).exists()
        if stale and locked.history_version == version:
            current_ratings_rebuild(category=locked, today=today, rows=rows)
            # The pages' ETags (public/conditional.py) read the categories, not the lists: without this, a page
            # served between midnight and this rebuild would keep its ETag until the next recompute.
            Category.objects.filter(pk=category.pk).update(list_refreshed_on=today)
            return True
    return False


def participant_lists_refresh(
    *, participant_id: int, past_dates_too: bool = False, since: date | None = None
) -> list[Category]:
    """Today's lists holding the participant take its name and place again, and rank it where it now is.

    For a player's details corrected (corrections.services.detail_request_accept): the lists copy names
    and places, and the daily rebuild would only move the player tomorrow. `past_dates_too`: the change
    reaches past dates' lists as well (a suspension): they are written again when next asked for. `since`: the
    change holds from that day (a suspension's first), so last month's column is counted again when it is
    before this month.
    """
    # Which lists hold the participant, read before the transaction: a read of the table every list shares holds
    # it until the transaction ends, and a recompute's swap, holding the swaps' turn, would wait for that while
    # this waited for the turn. A list rebuilt meanwhile copies the participant's details as they are now.
    held = list(CurrentRating.objects.filter(participant_id=participant_id).values_list("category_id", flat=True))
    with transaction.atomic():  # the lists, their ranks and the bump of list_edits are seen together or not at all
        return _participant_lists_refreshed(participant_id, held, past_dates_too=past_dates_too, since=since)


def _participant_lists_refreshed(
    participant_id: int, category_ids: list[int], *, past_dates_too: bool, since: date | None
) -> list[Category]:
    # The lists' rows locked first, in one order, then the swaps' turn: as a recompute takes them (its list's row
    # from its start, the turn at its swap). Holding the turn while waiting for a recompute's row, this would
    # wait for the recompute and the recompute for it.
    categories = list(Category.objects.select_for_update(no_key=True).filter(pk__in=category_ids).order_by("pk"))
    today = timezone.localdate()
    category_tables.swaps_take_turns()  # as every transaction that rewrites a list, before its first read
    # Derived lists last: they are read from their components' lists.
    for category in sorted(categories, key=lambda category: category.ruleset == Ruleset.DERIVED):
        current_ratings_update(category=category, participants={participant_id}, since=min(since or today, today))
    # The pages' ETags (public/conditional.py) read the categories, not the lists: a page kept from before would
    # show the player where they were until the next recompute.
    changed = Category.objects.filter(pk__in=[category.pk for category in categories])
    changed.update(list_edits=F("list_edits") + 1)
    if past_dates_too:
        # Past lists are kept for their history's version (ratings.snapshots): a new version has them written
        # again. Official lists stay as published.
        changed.update(history_version=F("history_version") + 1)
    return categories
