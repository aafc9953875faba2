"""Rewriting one category's rows on PostgreSQL: a fresh table, indexed once, swapped in at the end.

The history (RatingEntry) and today's lists (CurrentRating) are partitioned by
category (migrations 0011 and 0012). Rewriting a category in place means
deleting its old rows, maintaining every index row by row (nine on today's
list, a trigram index among them) and vacuuming the dead rows afterwards. A
fresh table takes the rows unindexed, builds each index in one sort, and
replaces the category's partition in a few catalogue updates.

Everything happens inside the caller's transaction: until it commits, readers
see the old partition; a failure drops the new table with the rest of the work.
"""

import re
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager

from django.db import OperationalError, connection, transaction
from psycopg import errors

from lib.bulk import table_indexes

# Indexes each category's partition has of its own, beyond the keys it shares with the parent table.
# Inside a partition the category is constant: an index led by it sorts on a column that never differs
# (a third of the time the history's indexes took). The default partition, which holds several
# categories, has the same indexes led by the category (migration 0016).
OWN_INDEXES = {
    "ratings_ratingentry": ["(participant_id, seq)", "(seq)"],
}


def own_indexes(table: str) -> list[str]:
    return OWN_INDEXES.get(table, [])


def swaps_tables() -> bool:
    return connection.vendor == "postgresql"


# Swapping partitions in takes turns across transactions, under this lock (released at the commit).
# A category's first swap deletes its rows from the default partition, and attaching a partition locks
# the default one exclusively: two first swaps at once would each wait for the other's delete. And a
# transaction that rebuilds a list alone (a derived or V:EKN list, a list refreshed for the new day)
# reads the list table every category shares before it swaps its own partition in: two at once would
# each wait for the other's read lock to swap. Such a transaction takes its turn before its first read;
# a full recompute, which touches the shared tables only when it swaps (ratings.services.recompute),
# takes it at its first swap. Either way no transaction holding the turn waits for one waiting for it.
SWAPS_LOCK = (0x4C_52, 1)  # "LR": pg_advisory_xact_lock's two keys


def swaps_take_turns() -> None:
    """Wait for any other transaction swapping partitions in to commit; the turn lasts until this one ends."""
    if swaps_tables():
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s, %s)", SWAPS_LOCK)


def partition_name(model, category_id: int) -> str:
    return f"{model._meta.db_table}_c{int(category_id)}"


def staging_create(model, category_id: int, *, fillfactor: int = 100) -> str:
    """An empty table shaped like `model`'s, numbering its rows from the same sequence.

    `fillfactor` below 100 leaves room in each page for rows updated later,
    which PostgreSQL then rewrites in place when no indexed column changed.
    """
    return table_like(model, staging_name(model, category_id), fillfactor=fillfactor)


def staging_name(model, category_id: int) -> str:
    """The name of the category's fresh table of `model` (staging_create) until it is swapped in."""
    return f"{partition_name(model, category_id)}_next"


def table_like(model, name: str, *, fillfactor: int = 100) -> str:
    """A new empty table `name` shaped like `model`'s (one of that name is dropped first), numbering its rows
    from the same sequence; staging_index then gives it the indexes and keys a partition must have."""
    parent, staging = model._meta.db_table, name
    with connection.cursor() as cursor:
        cursor.execute(f"DROP TABLE IF EXISTS {staging}")
        cursor.execute(
            # Generated columns as well (today's lists' folded names): a partition must compute them as its parent.
            f"CREATE TABLE {staging} (LIKE {parent} INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING GENERATED)"
            f" WITH (fillfactor = {int(fillfactor)})"
        )
        # The sequence's name is looked up once: as part of the default it
        # would be looked up again for every row (6 s of a 2-million-row COPY).
        cursor.execute("SELECT pg_get_serial_sequence(%s, 'id')", [parent])
        (sequence,) = cursor.fetchone()
        cursor.execute(f"ALTER TABLE {staging} ALTER COLUMN id SET DEFAULT nextval(%s::regclass)", [sequence])
    return staging


def staging_index(model, staging: str) -> None:
    """Give `staging` the indexes and keys of `model`'s table, each built in one pass over the rows."""
    with connection.cursor() as cursor:
        _staging_index_with(cursor, model, staging)


@contextmanager
def staging_indexed_meanwhile(stagings: list[tuple]):
    """Build the indexes of `stagings` ((model, table), ...) while the body runs; done when it ends.

    For Python work that needs no database meanwhile (today's list from the
    standings in memory): PostgreSQL sorts on one core while Python computes
    on the other. The indexes are built on this transaction's own connection,
    from a thread, so the body must not use the connection.
    """
    raw = connection.connection
    failures: list[BaseException] = []

    def build() -> None:
        try:
            with raw.cursor() as cursor:
                for model, staging in stagings:
                    _staging_index_with(cursor, model, staging)
        except BaseException as failure:  # handed to the caller's thread below
            failures.append(failure)

    builder = threading.Thread(target=build, name="staging-indexes")
    builder.start()
    try:
        yield
    finally:
        builder.join()
    if failures:
        raise failures[0]


def elsewhere(work, *args, in_transaction: bool = True, **kwargs) -> Future:
    """Run `work(*args, **kwargs)` in a thread, in a transaction on a database connection of its own.

    For fresh tables that the caller's transaction swaps in later: they are
    written and indexed beside that transaction's own work instead of after
    it. They are committed when `work` returns; if the caller fails before
    swapping them in, it drops them (scratch_drop). Without `in_transaction`
    each of work's statements is committed as it ends, and the locks it took
    with it: a read of a list, or a table shaped like the one every list
    shares, holds nothing until the work ends.
    """

    def run():
        try:
            if not in_transaction:
                return work(*args, **kwargs)
            with transaction.atomic():  # this thread's connection, not the caller's
                return work(*args, **kwargs)
        finally:
            connection.close()

    executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="staging")
    future = executor.submit(run)
    executor.shutdown(wait=False)  # the thread ends with `work`; the caller waits on the future
    return future


def scratch_drop(futures: list[Future]) -> None:
    """Drop the tables `elsewhere` work committed ([(model, table), ...]) for a transaction that failed."""
    for future in futures:
        if future.exception() is not None:
            continue  # its own transaction rolled back: nothing was committed
        with connection.cursor() as cursor:
            for _, table in future.result():
                cursor.execute(f"DROP TABLE IF EXISTS {table}")


def _staging_index_with(cursor, model, staging: str) -> None:
    keys, indexes = _staging_index_statements(cursor, model, staging)
    _executed(cursor, keys + indexes)


def _staging_index_statements(cursor, model, staging: str) -> tuple[list[str], list[str]]:
    """The statements that give `staging` the indexes and keys of `model`'s table: (keys, plain indexes).

    The keys are ALTER TABLEs, which lock the table against every other use
    until their transaction ends; a plain CREATE INDEX lets other
    connections build theirs on the same table at the same time.
    """
    keys, indexes = [f"ALTER TABLE {staging} ALTER COLUMN id DROP DEFAULT"], []
    # ATTACH adopts indexes and key constraints equal to the parent's instead of building others.
    for number, (definition, constraint) in enumerate(_parent_indexes(cursor, model._meta.db_table)):
        name = f"{staging}_{number}"
        if constraint:
            keys.append(f"ALTER TABLE {staging} ADD CONSTRAINT {name} {constraint}")
        else:
            indexes.append(_index_on(definition, name, staging))
    for number, columns in enumerate(own_indexes(model._meta.db_table)):
        indexes.append(f"CREATE INDEX {staging}_own{number} ON {staging} {columns}")
    return keys, indexes


def _executed(cursor, statements: list[str]) -> None:
    # Each index is built in one sort; memory for it is the difference between one pass and several.
    cursor.execute("SET LOCAL maintenance_work_mem = '256MB'")
    for statement in statements:
        cursor.execute(statement)


# What building an index costs, relative to a b-tree over as many rows: a trigram index writes an entry
# for every trigram of every name (0.5 s against 60-100 ms for the b-trees of a list of 48,000 rows).
INDEX_COST = {"gin": 6, "btree": 1}


def stagings_indexed_beside(stagings: list[tuple]) -> None:
    """Index `stagings` ((model, table), ...: fresh tables committed by another connection) on this transaction's
    connection and on one of their own at once, half the work each.

    The keys come first, on the other connection, committed before either
    builds a plain index: a key locks its table exclusively until its
    transaction ends, and this transaction ends only after it has swapped
    the tables in, so a key added here would make the other connection's
    indexes wait for this one, which waits for them.
    """
    with connection.cursor() as cursor:
        statements = [_staging_index_statements(cursor, model, staging) for model, staging in stagings]
        cursor.execute(
            "SELECT relname, GREATEST(reltuples, 1) FROM pg_class WHERE relname = ANY(%s)",
            [[staging for _, staging in stagings]],
        )
        rows = dict(cursor.fetchall())
    elsewhere(_statements_committed, [key for keys, _ in statements for key in keys]).result()
    here, there = _shared_out(
        [
            (rows.get(staging, 1) * _index_cost(index), index)
            for (_, staging), (_, indexes) in zip(stagings, statements, strict=True)
            for index in indexes
        ]
    )
    building = elsewhere(_statements_committed, there)
    try:
        with connection.cursor() as cursor:
            _executed(cursor, here)
    finally:
        building.result()  # waited for even when this side failed: its transaction must end before ours


def _index_cost(statement: str) -> int:
    method = re.search(r" USING (\w+)", statement)
    return INDEX_COST.get(method.group(1) if method else "btree", 1)


def _shared_out(work: list[tuple[float, str]]) -> tuple[list[str], list[str]]:
    """The statements in two lists of about equal cost: the dearest first, each to the cheaper side so far."""
    sides: tuple[list[str], list[str]] = ([], [])
    costs = [0.0, 0.0]
    for cost, statement in sorted(work, key=lambda item: -item[0]):
        side = 0 if costs[0] <= costs[1] else 1
        sides[side].append(statement)
        costs[side] += cost
    return sides


def _statements_committed(statements: list[str]) -> None:
    with connection.cursor() as cursor:
        _executed(cursor, statements)


# How long a swap waits, at a time, for the readers of the tables it replaces partitions of. A lock
# request waiting in line stops every later reader of the table behind it: waiting behind a reader of
# several seconds (a past date's list being written, say) would stall every page for as long. So the
# swap asks briefly, steps out of the line when refused and asks again after a pause, as often as it
# takes (readers come and go), then finally waits in line like anyone.
SWAP_LOCK_TIMEOUT_MS = 100
SWAP_LOCK_PAUSES = (0.05, 0.1, 0.2, 0.4, 0.8, 1.0, 1.0, 1.0, 1.0, 1.0, 2.0, 2.0, 2.0, 4.0, 4.0, 8.0)


def stagings_swap(category_id: int, stagings: list[tuple]) -> None:
    """Swap each of `stagings` ((model, table), ...) in as the category's partition: the tables they replace
    partitions of are locked first, all at once, without stalling their readers for long."""
    if not stagings:
        return
    swaps_take_turns()
    with connection.cursor() as cursor:
        replaced = [
            partition_name(model, category_id)
            for model, _ in stagings
            if _exists(cursor, partition_name(model, category_id))
        ]
    exclusively_locked(sorted({model._meta.db_table for model, _ in stagings}), partitions=sorted(replaced))
    for model, staging in stagings:
        staging_swap(model, category_id, staging)


def exclusively_locked(tables: list[str], *, partitions: list[str] | None = None) -> None:
    """Lock `tables` for this transaction against every other use (to drop or swap their partitions), asking
    briefly and stepping out of the line while readers are at them (SWAP_LOCK_TIMEOUT_MS).

    With `partitions`, each of `tables` alone and those of its partitions: what a swap replaces. Readers come
    through the tables, so they are all waited for; a transaction reading another list's partition directly
    (a derived list reading its components', say) or taking its statistics is not.
    """
    quoted = connection.ops.quote_name
    if partitions is None:
        names = [quoted(table) for table in tables]
    else:
        names = [f"ONLY {quoted(table)}" for table in tables] + [quoted(partition) for partition in partitions]
    statement = f"LOCK TABLE {', '.join(names)} IN ACCESS EXCLUSIVE MODE"
    for pause in SWAP_LOCK_PAUSES:
        try:
            with transaction.atomic(), connection.cursor() as cursor:  # a savepoint: a refusal undoes only it
                cursor.execute(
                    "SELECT current_setting('lock_timeout'), set_config('lock_timeout', %s, true)",
                    [f"{SWAP_LOCK_TIMEOUT_MS}ms"],
                )
                (setting, _) = cursor.fetchone()
                cursor.execute(statement)
                cursor.execute("SELECT set_config('lock_timeout', %s, true)", [setting])
            return
        except OperationalError as refused:
            if not isinstance(refused.__cause__, errors.LockNotAvailable):
                raise
            time.sleep(pause)
    with connection.cursor() as cursor:
        cursor.execute(statement)


def staging_swap(model, category_id: int, staging: str) -> None:
    """Make the indexed `staging` the category's partition, replacing the old one (stagings_swap first takes
    the turn and the locks for a transaction's swaps).

    Dropping the old partition locks the whole table until the transaction
    commits: callers index first and swap last.
    """
    parent = model._meta.db_table
    final = partition_name(model, category_id)
    with connection.cursor() as cursor:
        if _exists(cursor, final):
            cursor.execute(f"DROP TABLE {final}")
        else:  # the category's rows are still in the default partition
            cursor.execute(f"DELETE FROM {parent} WHERE category_id = %s", [category_id])
        cursor.execute(f"ALTER TABLE {staging} RENAME TO {final}")
        for number, (_, constraint) in enumerate(_parent_indexes(cursor, parent)):
            if constraint:
                cursor.execute(f"ALTER TABLE {final} RENAME CONSTRAINT {staging}_{number} TO {final}_{number}")
            else:
                cursor.execute(f"ALTER INDEX {staging}_{number} RENAME TO {final}_{number}")
        for number, _ in enumerate(own_indexes(parent)):
            cursor.execute(f"ALTER INDEX {staging}_own{number} RENAME TO {final}_own{number}")
        cursor.execute(f"ALTER TABLE {parent} ATTACH PARTITION {final} FOR VALUES IN ({int(category_id)})")


def analyze(model, category_id: int) -> None:
    """Statistics for a freshly swapped-in partition (after the commit: it reads a sample, not the table)."""
    with connection.cursor() as cursor:
        if _exists(cursor, partition_name(model, category_id)):
            cursor.execute(f"ANALYZE {partition_name(model, category_id)}")


def vacuum(model, category_id: int) -> None:
    """Mark the pages of the category's partition all visible (VACUUM, after the commit: not in a transaction),
    so that a read in an index's order finds its keys in the index without visiting each row.

    A partition swapped in has no page marked until then; one rewritten in
    place (a correction's moved ranks) has the pages it touched unmarked, and
    autovacuum, where it runs, waits for a fifth of the table to change. Pages
    marked already are skipped: after a correction only those it touched are read.
    """
    with connection.cursor() as cursor:
        if _exists(cursor, partition_name(model, category_id)):
            cursor.execute(f"VACUUM {partition_name(model, category_id)}")


def _parent_indexes(cursor, parent: str) -> list[tuple[str, str | None]]:
    """(index definition, definition of the key constraint it backs or None) for each index of `parent`."""
    return [(definition, key) for _, definition, key in table_indexes(cursor, parent)]


def _index_on(definition: str, name: str, table: str) -> str:
    """The parent's `CREATE [UNIQUE] INDEX x ON ONLY parent USING ...`, for `table` under `name`."""
    return re.sub(r"INDEX \S+ ON ONLY \S+ USING", f"INDEX {name} ON {table} USING", definition, count=1)


def partition_exists(model, category_id: int) -> bool:
    """Whether the category's rows of `model` have a partition of their own (they are in the default one until
    their first swap)."""
    with connection.cursor() as cursor:
        return _exists(cursor, partition_name(model, category_id))


def rows_table(model, category_id: int) -> str:
    """The table to read the category's rows of `model` from: its partition where it has one, else the model's
    table. A statement joining partitioned tables is planned from their partitions' statistics only when it
    names the partitions: the parents have none (PostgreSQL takes them only when a parent itself is analyzed),
    and through them a join of the history with today's list was expected to give billions of rows."""
    if partition_exists(model, category_id):
        return partition_name(model, category_id)
    return model._meta.db_table


def _exists(cursor, table: str) -> bool:
    cursor.execute("SELECT to_regclass(%s) IS NOT NULL", [table])
    return cursor.fetchone()[0]
