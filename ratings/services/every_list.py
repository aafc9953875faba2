"""Recomputing several lists at once: one process per core, the derived lists built once after them.

The lists are independent: each is its own history, its own partitions and
its own lock (ratings.services.recompute). A full recompute of a list is
Python work on one core (the Elo loop) beside PostgreSQL's work (COPY, index
builds, today's list) on another; on a machine with more cores, each of a few
processes takes the next list as it finishes its last, the largest lists
first, so the cores are all busy until the end. A derived list reads its
components' published lists: it is built after all of them, once.

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
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from datetime import date

from django.db import connection, connections

from ratings import category_tables
from ratings.models import Category, RatingEntry, Ruleset
from ratings.services.recompute import RecomputeResult, category_recompute, derived_lists_follow

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
    (the derived lists are then not built).
    """
    derived = [category for category in categories if category.ruleset == Ruleset.DERIVED]
    recomputed = [category for category in categories if category.ruleset != Ruleset.DERIVED]
    workers = min(workers or default_workers(), len(recomputed))
    if workers > 1 and _processes_possible():
        done = _in_processes(recomputed, since, workers, on_done)
    else:
        done = []
        for category in recomputed:
            one = _list_recompute(category, since)
            done.append(one)
            if on_done is not None:
                on_done(one)
    started = time.monotonic()
    followed = derived_lists_follow(results=[one.result for one in done])
    built = {each.pk for each in followed}
    for each in derived:
        if each.pk not in built:  # none of its components was recomputed: its list is rebuilt alone
            category_recompute(category=each, since=since)
            followed.append(each)
    return ListsRecomputed(done, followed, time.monotonic() - started)


def default_workers() -> int:
    """One process per two cores: a list's recompute keeps two busy, its Python and its database's work on
    what Python sends (on two cores, two lists side by side took as long as one after the other)."""
    return max(1, (os.cpu_count() or 1) // 2)


def _processes_possible() -> bool:
    # Other processes see only what is committed; SQLite takes one writer at a time anyway.
    return connection.vendor == "postgresql" and not connection.in_atomic_block


def _list_recompute(category: Category, since: date | None) -> ListRecomputed:
    started = time.monotonic()
    result = category_recompute(category=category, since=since, derived_follow=False)
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
        phases=result.phases,
    )


def _in_processes(categories, since, workers, on_done) -> list[ListRecomputed]:
    # The largest first: the last list to start is then a small one, and no core waits long at the end.
    ordered = _largest_first(categories)
    # A forked process must not inherit an open connection (closing its copy would end this process's
    # session too): closed here, and nothing reads the database until the first submit has forked them all.
    connections.close_all()
    done, failures = [], []
    context = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        futures = {pool.submit(_list_recompute, category, since): category for category in ordered}
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


def _largest_first(categories: list[Category]) -> list[Category]:
    """`categories` by the size of their stored history, largest first (as stored, in the position order)."""
    sizes = _history_sizes([category.pk for category in categories])
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
