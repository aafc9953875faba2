"""Recomputing several lists at once: one process per core, the derived lists built once after them.

The lists are independent: each is its own history, its own partitions and
its own lock (ratings.services.recompute). A full recompute of a list is
Python work on one core (the Elo loop) beside PostgreSQL's work (COPY, index
builds, today's list) on another; on a machine with more cores, each of a few
processes takes the next list as it finishes its last, the largest lists
first, so the cores are all busy until the end. A derived list reads its
components' published lists: it is built once, as soon as the last of them
has published, on a connection of its own while the other lists go on.

Processes, not threads: the Elo loop is Python, which runs one thread at a
time. They are forked from this one, so they need no start-up of their own,
and each opens its own database connection. On SQLite, inside a caller's
transaction (which the other processes could not see) or with one worker, the
lists are recomputed here, one after the other, with the same results.
"""

import logging
import multiprocessing
import os
import time
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor, ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from datetime import date

from django.conf import settings
from django.db import connection, connections

from events.models import Match
from ratings import category_tables
from ratings.models import Category, RatingEntry, Ruleset
from ratings.services.recompute import (
    RecomputeResult,
    category_recompute,
    derived_list_follow,
    derived_lists_follow,
    lists_vacuum,
    recompute_tidy,
)

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class ListRecomputed:
    """One list's recompute as the caller reports it."""

    category: Category
    result: RecomputeResult
    seconds: float  # the whole of it, from its start in its process to its end


@dataclass(frozen=True)
class ListsRecomputed:
    done: list[ListRecomputed]  # in the order they finished
    derived: list[Category]  # the derived lists built after them
    derived_seconds: float  # building those


def lists_recompute(
    *,
    categories: list[Category],
    since: date | None = None,
    workers: int | None = None,
    on_done: Callable[[ListRecomputed], None] | None = None,
) -> ListsRecomputed:
    """Recompute `categories` from `since` (everything when None), then the lists derived from them, once each.

    `workers`: processes at most (default: default_workers). `on_done` hears of each list as it ends.
    A list that fails does not stop the others; the first failure is raised once they have all ended
    (the lists derived from it are then not built).
    """
    derived = [category for category in categories if category.ruleset == Ruleset.DERIVED]
    recomputed = [category for category in categories if category.ruleset != Ruleset.DERIVED]
    # Where other connections see what each list publishes, a derived list is built beside the lists that
    # do not feed it; its components come first, the largest first.
    follow = _DerivedFollow(recomputed, beside=_processes_possible())
    sizes: dict[int, float] = {}
    if follow.beside:
        sizes = _history_sizes([category.pk for category in recomputed])
        recomputed = _largest_first(recomputed, sizes)
    if not workers:
        workers = default_workers(_history_estimates(recomputed, sizes, _matches_stored() if follow.beside else 0))
    workers = min(workers, len(recomputed))

    def done_one(one: ListRecomputed) -> None:
        follow.published(one)
        if on_done is not None:
            on_done(one)

    try:
        if workers > 1 and follow.beside:
            done = _in_processes(recomputed, since, workers, done_one)
        else:
            done = []
            for category in recomputed:
                # Its statistics taken beside the next list, where it has a connection for that.
                one = _list_recompute(category, since, tidy=not follow.beside)
                if follow.beside:
                    follow.tidy(one)
                done.append(one)
                done_one(one)
        followed, seconds = follow.rest_built()
    finally:
        follow.wait()  # a derived list being built when a list failed is committed or not before the failure
    built = {each.pk for each in followed}
    for each in derived:
        if each.pk not in built:  # none of its components was recomputed: its list is rebuilt alone
            started = time.monotonic()
            category_recompute(category=each, since=since)
            seconds += time.monotonic() - started
            followed.append(each)
    if since is not None:  # lists rewritten in part, whose pages no job after this marks (recompute_tidy)
        lists_vacuum(categories=[one.category for one in done] + followed)
    return ListsRecomputed(done, followed, seconds)


class _DerivedFollow:
    """The lists derived from those recomputed, each built once after its components recomputed here.

    `beside`: each is built as soon as the last of them has published, on a
    thread with a connection of its own, while the lists that do not feed it
    go on (its work is the database's: the composite of a million matches is
    a second of it, which would otherwise come after every list). Otherwise
    (SQLite, a caller's transaction that other connections cannot see) they
    are built after all the lists, here.

    With processes, the thread starts with the first list done, after the
    pool has forked every worker (a fork start spawns them all at its first
    submit): no worker is forked from a process whose thread holds a connection.
    """

    def __init__(self, recomputed: list[Category], *, beside: bool):
        self.beside = beside
        slugs = {category.slug for category in recomputed}
        self.waiting = {
            derived.pk: (derived, slugs & set(derived.component_list))
            for derived in Category.objects.filter(ruleset=Ruleset.DERIVED)
            if slugs & set(derived.component_list)
        }
        self.results: list[RecomputeResult] = []
        self.building: list[tuple[Category, Future]] = []
        self.tidying: list[Future] = []
        self.executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="derived") if beside else None

    def published(self, one: ListRecomputed) -> None:
        self.results.append(one.result)
        if not self.beside:
            return
        for pk, (derived, left) in list(self.waiting.items()):
            left.discard(one.category.slug)
            if not left:
                del self.waiting[pk]
                mine = [result for result in self.results if result.category in derived.component_list]
                self.building.append((derived, self.executor.submit(_derived_built, derived, mine)))

    def tidy(self, one: ListRecomputed) -> None:
        """Take the statistics of a list just published (recompute_tidy) on the thread, beside the next list."""
        self.tidying.append(self.executor.submit(recompute_tidy, category=one.category, result=one.result))

    def rest_built(self) -> tuple[list[Category], float]:
        """Once every list has published: the derived lists built (those not built beside now, here) and the
        seconds their building took."""
        if not self.beside:
            started = time.monotonic()
            return derived_lists_follow(results=self.results), time.monotonic() - started
        for future in self.tidying:
            future.result()  # raises what failed there
        return [derived for derived, future in self.building], sum(future.result() for _, future in self.building)

    def wait(self) -> None:
        if self.executor is not None:
            self.executor.submit(connection.close)  # the thread's connection, opened by its first work
            self.executor.shutdown(wait=True)


def _derived_built(derived: Category, results: list[RecomputeResult]) -> float:
    """Build the derived list on this thread's connection; the seconds it took."""
    started = time.monotonic()
    derived_list_follow(derived=derived, results=results)
    return time.monotonic() - started


# At its peak a list's recompute holds about this much per row of its history: its matches packed, its
# participants' states (1,103 MB for constructed's 9.4 million rows at ten million matches, 791 MB for limited's
# 6.6 million).
PEAK_BYTES_PER_HISTORY_ROW = 120


def default_workers(sizes: list[float]) -> int:
    """Processes recomputing lists at once: one per core, while the largest lists that would run at once fit in
    settings.RECOMPUTE_MEMORY_MB together (`sizes`: each list's history rows).

    A list's recompute keeps a core busy with its Python (the Elo loop) and another at times with its
    database's work (COPY, index builds, today's list), while its Python waits: on two cores, every list at a
    million matches took 7.0-7.6 s two at a time, 7.9-8.2 s one after the other. At ten million matches the
    two largest would hold 1.9 GB together: there they go one after the other.
    """
    budget = settings.RECOMPUTE_MEMORY_MB * 1024 * 1024
    largest = sorted(sizes, reverse=True)
    workers = max(1, os.cpu_count() or 1)
    while workers > 1 and sum(largest[:workers]) * PEAK_BYTES_PER_HISTORY_ROW > budget:
        workers -= 1
    return workers


def _processes_possible() -> bool:
    # Other processes see only what is committed; SQLite takes one writer at a time anyway.
    return connection.vendor == "postgresql" and not connection.in_atomic_block


def _list_recompute(category: Category, since: date | None, *, tidy: bool = True) -> ListRecomputed:
    started = time.monotonic()
    result = category_recompute(category=category, since=since, derived_follow=False, tidy=tidy)
    return ListRecomputed(category, _slim(result), time.monotonic() - started)


def _slim(result: RecomputeResult) -> RecomputeResult:
    """What the caller needs of a published recompute (the derived lists' `changed`), without its standings."""
    return RecomputeResult(
        result.category,
        result.since,
        matches_rated=result.matches_rated,
        entries_written=result.entries_written,
        published_seconds=result.published_seconds,
        changed=result.changed,
        stagings=result.stagings,  # names of tables swapped in: recompute_tidy asks whether there were any
        events_marked=result.events_marked,
        phases=result.phases,
    )


def _in_processes(categories, since, workers, on_done) -> list[ListRecomputed]:
    # `categories` come the largest first (lists_recompute): the last list to start is then a small one, and no
    # core waits long at the end.
    # A forked process must not inherit an open connection (closing its copy would end this process's
    # session too): closed here, and nothing reads the database until the first submit has forked them all.
    connections.close_all()
    done, failures = [], []
    context = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        futures = {pool.submit(_list_recompute, category, since): category for category in categories}
        for future in as_completed(futures):
            try:
                one = future.result()
            except Exception as failure:  # the others go on: each list is published or not on its own
                logger.error("recompute of %s failed: %r", futures[future].slug, failure)
                failures.append(failure)
                continue
            done.append(one)
            if on_done is not None:
                on_done(one)
    if failures:
        raise failures[0]
    return done


def _history_estimates(categories: list[Category], sizes: dict[int, float], matches: float) -> list[float]:
    """Each list's history rows for default_workers: as stored; for a list never recomputed (none stored, as
    after a first import) as many as two for every match stored, which no list can exceed."""
    return [sizes.get(category.pk, 0.0) or 2 * matches for category in categories]


def _matches_stored() -> float:
    """The matches stored, as PostgreSQL's statistics estimate them: no count read."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT GREATEST(reltuples, 0) FROM pg_class WHERE oid = %s::regclass", [Match._meta.db_table])
        return cursor.fetchone()[0]


def _largest_first(categories: list[Category], sizes: dict[int, float]) -> list[Category]:
    """`categories` by the size of their stored history (`sizes`), largest first (as stored, in the position order)."""
    return sorted(categories, key=lambda category: -sizes.get(category.pk, 0))


def _history_sizes(category_ids: list[int]) -> dict[int, float]:
    """Each category's history rows as PostgreSQL's statistics estimate them (its partition's): no count read."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT c.relname, c.reltuples FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid"
            " WHERE i.inhparent = %s::regclass",
            [RatingEntry._meta.db_table],
        )
        by_name = dict(cursor.fetchall())
    # reltuples is -1 for a table never analysed
    return {pk: max(by_name.get(category_tables.partition_name(RatingEntry, pk), 0.0), 0.0) for pk in category_ids}
