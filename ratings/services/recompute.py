"""Recomputing a category's history, from a date or from the start, and publishing it with today's list.

A recompute runs in one transaction holding a lock on its category row:
readers see the old history or the new one, never a mix, and a second
recompute of the same category waits for the first (SPEC 5). The lock is a
row lock (SELECT ... FOR NO KEY UPDATE), so it holds across machines on PostgreSQL;
SQLite serialises all writers anyway.
"""

import logging
import time
from concurrent.futures import Future
from dataclasses import dataclass, field
from datetime import date

from django.db import connection, transaction
from django.db.models import F
from django.utils import timezone

from events.models import Event, EventStatus, Match, Standing
from lib.bulk import insert_rows, statistics_refresh
from lib.timing import Phases
from players.selectors import suspended_participants
from ratings import category_tables
from ratings.engine import ParticipantState, ruleset_for, vekn_event_points
from ratings.engine.history import history_rows
from ratings.models import Category, CurrentRating, EventScore, RatingEntry, Ruleset
from ratings.selectors.history import (
    FETCH_ROWS,
    category_events,
    event_facts,
    history_start_seq,
    matches_in_rating_order,
    states_before,
)
from ratings.selectors.lists import Standing as RatingStanding
from ratings.selectors.lists import list_built_on, participant_identities
from ratings.services.derived_lists import (
    derived_list_in_sql,
    derived_list_rebuild_aside,
    list_in_sql,
    list_staged_from_standings,
)
from ratings.services.lists import (
    current_list_staged,
    current_ratings_rebuild,
    current_ratings_update,
    current_rows_from_standings,
)
from ratings.snapshots import end_of_previous_month, snapshots_kept_for_next_version

logger = logging.getLogger(__name__)

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
    events_marked: int = 0  # events the recompute marked rated (submitted until then)
    phases: Phases = field(default_factory=Phases)


def category_recompute(
    *, category: Category, since: date | None = None, derived_follow: bool = True, tidy: bool = True
) -> RecomputeResult:
    """Rebuild the category's history from `since` on (everything when None); earlier history stays.

    The lists derived from it follow unless `derived_follow` is False: a caller recomputing several
    components of a derived list builds it once, after all of them (derived_lists_follow). Without `tidy`
    the caller tidies after it (recompute_tidy), on a connection of its own, say.
    """
    started = time.monotonic()
    # Fresh tables of a full recompute made through connections of their own: the history's, today's list.
    listing: list[Future] = []
    # Only a transaction of its own can be helped by a second connection: one inside a caller's
    # transaction may hold locks (a list swapped in earlier) that the second connection would wait for.
    alone = not connection.in_atomic_block
    phases = Phases()
    try:
        with transaction.atomic():
            # FOR NO KEY UPDATE: it excludes a second recompute of the category as FOR UPDATE would, but lets
            # rows that merely reference the category (a recompute queued by a saved match) be written meanwhile.
            category = Category.objects.select_for_update(no_key=True).get(pk=category.pk)
            phases.lap("locked")
            if category.ruleset == Ruleset.DERIVED:
                # A derived list has no history of its own: its list is rebuilt.
                _derived_list_refresh(category, aside=alone)
                return RecomputeResult(category.slug, since)
            result = _recompute_in_transaction(category, since, listing if alone else None, phases)
    except BaseException:
        # Tables committed elsewhere for a list that was never swapped in.
        category_tables.scratch_drop(listing)
        raise
    result.published_seconds = time.monotonic() - started
    phases.lap("committed")
    if derived_follow:
        derived_lists_follow(results=[result])
        phases.lap("derived lists built")
    if tidy:
        recompute_tidy(category=category, result=result)
        phases.lap("tidied")
    logger.info(
        "recomputed %s since %s: %d matches, %d entries",
        category.slug,
        since or "the start",
        result.matches_rated,
        result.entries_written,
    )
    return result


def derived_lists_follow(*, results: list[RecomputeResult]) -> list[Category]:
    """Bring up to date, once each, the lists derived from the categories recomputed in `results`;
    returns them (derived_list_follow)."""
    return [
        derived
        for derived in Category.objects.filter(ruleset=Ruleset.DERIVED)
        if derived_list_follow(derived=derived, results=results)
    ]


def derived_list_follow(*, derived: Category, results: list[RecomputeResult]) -> bool:
    """Bring the derived list up to date after the recomputes in `results` of its components; False when none
    of them feeds it (nothing done).

    It is built under its own lock, after its components' recomputes have
    published: it reads their lists, and its readers need not wait for them.
    Where every component recomputed was recomputed from a date, only the
    participants whose ratings those recomputes changed are built again (the
    union of theirs, from the earliest date); otherwise the whole list.
    """
    mine = [result for result in results if result.category in derived.component_list]
    if not mine:
        return False
    since, changed = None, None
    if all(result.since is not None and result.changed is not None for result in mine):
        since = min(result.since for result in mine)
        changed = set().union(*(result.changed for result in mine))
    alone = not connection.in_atomic_block
    with transaction.atomic():
        derived = Category.objects.select_for_update(no_key=True).get(pk=derived.pk)
        _derived_list_refresh(derived, since=since, changed=changed, aside=alone)
    if changed is None:  # swapped in whole; rows rewritten in place are left to lists_vacuum, as its components'
        lists_vacuum(categories=[derived])
    return True


def _derived_list_refresh(
    category: Category, *, since: date | None = None, changed: set[int] | None = None, aside: bool = False
) -> None:
    """A derived list brought up to date: whole, or for `changed` only (after a recompute from `since`). `aside`:
    in a transaction that holds no list's table, whose rows a second connection may build (_list_changed)."""
    started = time.monotonic()
    _history_changed(category, since=since, changed=changed, aside=aside)
    logger.info(
        "derived list %s: %s in %.2f s",
        category.slug,
        "rebuilt" if changed is None else f"{len(changed)} participants refreshed",
        time.monotonic() - started,
    )


def _recompute_in_transaction(
    category: Category, since: date | None, listing: list | None, phases: Phases
) -> RecomputeResult:
    """A recompute's work in its transaction. A full one on PostgreSQL writes today's list through a
    second connection and appends that work to `listing`, unless `listing` is None (one connection)."""
    if category.ruleset == Ruleset.VEKN:
        result = _vekn_recompute(category, since)
    else:
        result = _elo_recompute(category, since, listing, phases)
    result.phases = phases
    phases.lap("rated")
    events = category_events(category).filter(status=EventStatus.SUBMITTED)
    if since is not None:
        events = events.filter(date__gte=since)
    result.events_marked = events.update(status=EventStatus.RATED)
    phases.lap("events marked rated")
    indexed, listed = 0, False
    if result.stagings and result.standings is not None:  # a full recompute on PostgreSQL: its list beside it
        staged = _list_staged_by_database if list_in_sql(category) else _list_staged_in_python
        indexed = staged(category, result, listing, phases)
        listed = True
    _list_changed(
        category, since=since, changed=result.changed, standings=result.standings, stagings=result.stagings,
        changed_standings=result.changed_standings, listed=listed,
    )  # fmt: skip
    _version_bump(category, since=since)
    phases.lap("list published")
    # Last: indexes first, then the swaps, which lock their tables for every category until the commit.
    for model, staging in result.stagings[indexed:]:
        category_tables.staging_index(model, staging)
    category_tables.stagings_swap(category.pk, result.stagings)
    phases.lap("swapped")
    return result


def _history_changed(
    category: Category, *, since: date | None = None, changed: set[int] | None = None, aside: bool = False
) -> None:
    """Bring today's list up to date and bump the version that keys cached lists of past dates."""
    _list_changed(category, since=since, changed=changed, aside=aside)
    _version_bump(category, since=since)


def _version_bump(category: Category, *, since: date | None = None) -> None:
    """A new version of the category's history: it keys cached lists of past dates and the pages' ETags.

    `since`: the history was rewritten from that day on only, so the lists of past dates before it are still
    its lists: they are kept for the new version instead of being written again when next asked for (after a
    correction of last week's event, the first visitor of each earlier date would wait a second for it, and
    count it against their allowance of new dates).
    """
    if since is not None:
        snapshots_kept_for_next_version(category=category, before=since)
    Category.objects.filter(pk=category.pk).update(history_version=F("history_version") + 1)


def _list_staged_by_database(category: Category, result: RecomputeResult, listing: list | None, phases: Phases) -> int:
    """Today's list built by the database from the standings, through a connection of its own when there is one,
    while this one indexes the new history, then indexed by both; added to `result.stagings`. Returns how many of
    those are indexed."""
    today = timezone.localdate()
    if listing is None:
        result.stagings += list_staged_from_standings(category, result.standings, today, indexed=False)
        phases.lap("list written")
        return 0
    listing.append(
        category_tables.elsewhere(list_staged_from_standings, category, result.standings, today, indexed=False)
    )
    for model, staging in result.stagings:
        category_tables.staging_index(model, staging)
    phases.lap("history indexed")
    fresh = listing[-1].result()
    phases.lap("list written (after the history indexed)")
    # Its indexes on both connections: on one alone, the other would wait for it with nothing to do.
    category_tables.stagings_indexed_beside(fresh)
    result.stagings += fresh
    phases.lap("list indexed")
    return len(result.stagings)


def _list_staged_in_python(category: Category, result: RecomputeResult, listing: list | None, phases: Phases) -> int:
    """Today's list computed in Python from the standings (teams) while PostgreSQL builds the new history's
    indexes, then written and indexed through a connection of its own while they finish; added to
    `result.stagings`. Returns how many of those are indexed."""
    today = timezone.localdate()
    identities = participant_identities(category, set(result.standings[0]) | set(result.standings[1]))
    phases.lap("identities read")
    with category_tables.staging_indexed_meanwhile(result.stagings):
        rows = current_rows_from_standings(category, result.standings, identities, today)
        phases.lap("list computed")
        if listing is not None:
            listing.append(category_tables.elsewhere(current_list_staged, category, rows, indexed=True))
    phases.lap("history indexed (after the list computed)")
    indexed = len(result.stagings)  # the history's, indexed meanwhile
    if listing is not None:
        result.stagings += listing[-1].result()  # indexed by the second connection
        indexed = len(result.stagings)
    else:
        result.stagings += current_list_staged(category, rows, indexed=False)
    phases.lap("list written (after the history indexed)")
    return indexed


def _list_changed(
    category: Category,
    *,
    since: date | None = None,
    changed: set[int] | None = None,
    standings=None,
    stagings=None,
    changed_standings=None,
    listed: bool = False,
    aside: bool = False,
) -> None:
    """Bring today's list up to date.

    A recompute from a date changes only the ratings of those who played since:
    their rows (and last month's standing, when the date reaches into it) are
    refreshed and the ranks recounted. A full recompute rebuilds the list, and
    so does one from a date when the list was built on an earlier day: a V:EKN
    list's points age by the day, and last month's standings move with the month.
    """
    today = timezone.localdate()
    incremental = changed is not None and since is not None
    if incremental:
        # Read only here: a full recompute's transaction touches the shared list table first when it swaps.
        incremental = list_built_on(category) == today
    if incremental:
        current_ratings_update(category=category, participants=changed, since=since, now=changed_standings)
    elif not listed:  # `listed`: the caller has written the list already, to swap it in with its history
        # A derived list's rows built by a second connection, the turn taken only to publish them, where the
        # caller's transaction holds no list's table (`aside`); built again under the turn if a component's
        # list changed meanwhile.
        aside = aside and stagings is None and derived_list_in_sql(category) and category_tables.swaps_tables()
        if aside and derived_list_rebuild_aside(category, today) is not None:
            return
        category_tables.swaps_take_turns()
        current_ratings_rebuild(category=category, standings=standings, stagings=stagings)


VACUUM_AFTER_ROWS = 100_000


def recompute_tidy(*, category: Category, result: RecomputeResult) -> None:
    """Statistics for a swapped-in history, and for the events when many were marked rated; dead rows
    cleared after a large rewrite in place; today's list's pages marked all visible (category_tables.vacuum).

    Otherwise the next recompute of the category writes the same keys again
    and PostgreSQL's indexes check each one against its dead predecessor.
    Runs once the new history is committed (VACUUM cannot run in a transaction).
    Today's list rewritten in part (a recompute from a date) is left to
    lists_vacuum, which the job after the publication calls
    (ratings.tasks.published_list_extras_task): the run ends, and the next
    correction queued starts, without waiting for it.
    """
    if connection.vendor != "postgresql" or connection.in_atomic_block:
        return
    statistics_refresh({Event: result.events_marked})  # the events' statuses, as PostgreSQL plans reads by them
    if result.stagings:
        category_tables.analyze(RatingEntry, category.pk)
    elif result.entries_written >= VACUUM_AFTER_ROWS:
        with connection.cursor() as cursor:
            cursor.execute(f"VACUUM (ANALYZE) {RatingEntry._meta.db_table}")
    if result.since is None:
        lists_vacuum(categories=[category])


def lists_vacuum(*, categories) -> None:
    """Mark the pages of today's lists of `categories` all visible (category_tables.vacuum), so that deep pages
    read by their keys find them in the index without visiting each row: after a list is swapped in (no page
    marked) or rewritten in part (the pages touched unmarked). Outside a transaction, on PostgreSQL."""
    if not category_tables.swaps_tables() or connection.in_atomic_block:
        return
    for category in categories:
        category_tables.vacuum(CurrentRating, category.pk)


def _elo_recompute(
    category: Category, since: date | None, listing: list | None = None, phases: Phases | None = None
) -> RecomputeResult:
    phases = phases or Phases()
    result = RecomputeResult(category.slug, since)
    history = RatingEntry.objects.filter(category=category)
    table = None
    if since is None:
        start_seq = 1
        states: dict[int, ParticipantState] = {}
        if category_tables.swaps_tables():
            table = _history_staging_create(category, listing)
            result.stagings.append((RatingEntry, table))
            phases.lap("history table made")
        else:
            history.delete()
    else:
        start_seq = history_start_seq(category, since)
        later = history.filter(seq__gte=start_seq)
        # Whoever loses history is rated again too: a removed match may leave one with fewer matches, or none.
        unrated = set(later.order_by().values_list("participant_id", flat=True).distinct())
        later.delete()

    ruleset = ruleset_for(
        category.ruleset, provisional_until=category.provisional_until, start_rating=category.start_rating
    )
    matches = Match.objects.filter(event__in=category_events(category), participant2__isnull=False)
    if since is not None:
        matches = matches.filter(event__date__gte=since)
        # order_by(): the models' own orders would make every row distinct (and join the events to sort them).
        playing = set(matches.order_by().values_list("participant1_id", flat=True).distinct())
        playing |= set(matches.order_by().values_list("participant2_id", flat=True).distinct())
        states = states_before(category, start_seq, playing | unrated)
    events = event_facts(category_events(category).filter(pk__in=matches.values("event_id")))
    ordered = matches_in_rating_order(matches)
    phases.lap("matches read")
    # A full recompute ends with everyone's standing in memory: keep today's and
    # last month's, so today's list needs no second pass over the history.
    today = timezone.localdate()
    boundaries = [end_of_previous_month(today), today] if since is None else []
    # Who is suspended on each boundary, read now: during the COPY below the connection carries rows only.
    suspended = {day: suspended_participants(on=day) for day in [*boundaries, today]}
    snapshots: list[dict[int, RatingStanding]] = []

    def event_starts(day: date) -> None:
        while boundaries and day > boundaries[0]:
            boundary = boundaries.pop(0)
            snapshots.append(_standings_now(category, states, suspended[boundary]))

    rows = history_rows(
        ruleset, ordered, events, states, category_id=category.pk, first_seq=start_seq, event_starts=event_starts
    )
    # One COPY for the whole history: the database stores rows while the engine computes the next ones.
    result.entries_written = insert_rows(RatingEntry, ENTRY_FIELDS, rows, table=table)
    result.matches_rated = result.entries_written // 2
    phases.lap("rated and copied")
    while boundaries:
        boundary = boundaries.pop(0)
        snapshots.append(_standings_now(category, states, suspended[boundary]))
    if since is None:
        result.standings = (snapshots[1], snapshots[0])
    else:
        # Those with no history left have no standing: they leave today's list.
        result.changed = set(states) | unrated
        result.changed_standings = _standings_now(category, states, suspended[today])
    return result


def _history_staging_create(category: Category, listing: list | None) -> str:
    """The fresh table a full recompute writes the history into (PostgreSQL).

    Made and committed through a connection of its own when the recompute is
    a transaction of its own (`listing`, where it is noted for scratch_drop):
    made in that transaction, copying the history table's shape would hold a
    read lock on the table every list shares until the commit, so that a
    recompute of another list swapping its partition in meanwhile would wait
    for all of this one (and this one, at its own swap, for it: a deadlock).
    So the lists can be recomputed side by side (ratings.services.every_list).
    """
    if listing is None:
        return category_tables.staging_create(RatingEntry, category.pk)
    made = category_tables.elsewhere(_history_staging_committed, category.pk)
    listing.append(made)
    ((_, table),) = made.result()
    return table


def _history_staging_committed(category_id: int) -> list[tuple]:
    return [(RatingEntry, category_tables.staging_create(RatingEntry, category_id))]


def _standings_now(
    category: Category, states: dict[int, ParticipantState], suspended: set[int]
) -> dict[int, RatingStanding]:
    """Each participant's standing from their state; the `suspended` are rated as anyone and ranked nowhere."""
    threshold = category.ranked_after
    return {
        participant: RatingStanding(
            participant,
            state.rating,
            state.matches,
            state.matches >= threshold and participant not in suspended,
            state.last_played,
        )
        for participant, state in states.items()
    }


def _vekn_recompute(category: Category, since: date | None) -> RecomputeResult:
    result = RecomputeResult(category.slug, since)
    scores = EventScore.objects.filter(category=category)
    standings = Standing.objects.filter(event__in=category_events(category))
    if since is not None:
        scores = scores.filter(event_date__gte=since)
        standings = standings.filter(event__date__gte=since)
        # Who had points from `since` on, and (below) who has them now: the rows of today's list that may change.
        # Unordered: no order is needed here, and a removed event's scores count too.
        result.changed = set(scores.order_by().values_list("participant_id", flat=True).distinct())
    deleted, _ = scores.delete()
    rows = []
    for event_id, day, players, level, participant, vp, gw, final in standings.values_list(
        "event_id", "event__date", "event__player_count", "event__level", "participant_id", "vp", "gw", "final"
    ).iterator(chunk_size=FETCH_ROWS):
        points = vekn_event_points(vp=vp, gw=gw, final=final, players=players, level=level)
        rows.append(
            (category.pk, event_id, day, participant, points.points, vp, gw, final, players, points.coefficient,
             points.bonus)
        )  # fmt: skip
    result.matches_rated = len(rows)
    if result.changed is not None:
        result.changed |= {row[3] for row in rows}
    result.entries_written = insert_rows(
        EventScore,
        ["category", "event", "event_date", "participant", "points", "vp", "gw", "final", "players", "coefficient",
         "bonus"],
        rows,
    )  # fmt: skip
    # The scores' statistics, as the admin's list counts them from (lib.admin_lists) and the pages plan by.
    statistics_refresh({EventScore: deleted + result.entries_written})
    return result
