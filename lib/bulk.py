"""Bulk writes and reads that stay fast at a million rows: COPY on PostgreSQL, batched inserts elsewhere; reads
in binary on PostgreSQL."""

from collections.abc import Iterable
from contextlib import contextmanager
from itertools import islice

from django.db import connection

SQLITE_BATCH = 5000
# Above this many rows, PostgreSQL foreign keys are validated once, as a set,
# instead of row by row at commit (3 million trigger checks cost ~25 s; one
# validation join per key costs well under a second).
BULK_FOREIGN_KEY_THRESHOLD = 50_000
# After a write of this many rows to a table, and a tenth of it or more, its statistics are taken again at once
# (statistics_refresh): autovacuum's rule for its ANALYZE, with a floor.
STATISTICS_AFTER_ROWS = 1_000
STATISTICS_AFTER_SHARE = 0.1


def _quoted(model, fields: list[str]) -> tuple[str, list[str]]:
    quote = connection.ops.quote_name
    return quote(model._meta.db_table), [quote(model._meta.get_field(name).column) for name in fields]


def _copy_type(field) -> str:
    """The PostgreSQL type name psycopg needs for a binary COPY of `field` (varchar(120) -> varchar)."""
    return field.db_type(connection).split("(")[0].strip()


def insert_rows(model, fields: list[str], rows: Iterable[tuple], *, table: str | None = None) -> int:
    """Insert `rows` (tuples in `fields` order) into `model`'s table (or `table`, shaped like it); returns how many.

    Bypasses the ORM's per-object work (no signals, no ids returned): for
    rows whose ids are known already or not needed.
    """
    model_table, columns = _quoted(model, fields)
    table = connection.ops.quote_name(table) if table else model_table
    count = 0
    # A raw COPY raises the driver's own errors: wrapped, a duplicate key is Django's IntegrityError as elsewhere.
    with connection.cursor() as cursor, connection.wrap_database_errors:
        if connection.vendor == "postgresql":
            # Binary COPY with the column types declared up front: psycopg then
            # encodes each row in C without looking up an adapter per value.
            from psycopg.copy import QueuedLibpqWriter

            # The queued writer sends in a thread: the caller's generator keeps producing rows meanwhile.
            statement = f"COPY {table} ({', '.join(columns)}) FROM STDIN (FORMAT BINARY)"
            with cursor.cursor.copy(statement, writer=QueuedLibpqWriter(cursor.cursor)) as copy:
                copy.set_types([_copy_type(model._meta.get_field(name)) for name in fields])
                for row in rows:
                    copy.write_row(row)
                    count += 1
        else:
            sql = f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({', '.join(['%s'] * len(columns))})"
            iterator = iter(rows)
            while batch := list(islice(iterator, SQLITE_BATCH)):
                cursor.executemany(sql, batch)
                count += len(batch)
    return count


def rows_read(cursor, sql: str, params) -> list[tuple]:
    """Every row of the read `sql`, on `cursor` (Django's), as tuples.

    On PostgreSQL the values come in binary, with the parameters bound by the
    server: numbers as their bytes rather than text for Python to parse (the
    30,000 ranked rows of a list: 50 -> 42 ms).
    """
    if connection.vendor != "postgresql":
        cursor.execute(sql, params)
        return cursor.fetchall()
    import psycopg

    # A server-side binding cursor: Django's own (client-side binding) cannot ask for binary results. Its errors
    # are Django's, as those of every other read.
    with connection.wrap_database_errors, psycopg.Cursor(cursor.connection) as binary:
        binary.execute(sql, params, binary=True)
        return binary.fetchall()


def allocate_ids(model, count: int) -> list[int]:
    """Reserve `count` primary keys for rows about to be inserted with insert_rows.

    Must run inside the transaction that inserts them. On SQLite that
    transaction holds the write lock, so nobody else can take the same ids.
    """
    if count == 0:
        return []
    table, (pk,) = _quoted(model, [model._meta.pk.name])
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            # The sequence is looked up once, in FROM: as nextval's argument it was looked up for every id
            # (100,000 ids: 0.65 s, against 0.12-0.19 s).
            cursor.execute(
                "SELECT nextval(sequence::regclass)"
                " FROM pg_get_serial_sequence(%s, %s) AS sequence, generate_series(1, %s)",
                [model._meta.db_table, model._meta.pk.column, count],
            )
            return [row[0] for row in cursor.fetchall()]
        # Django's SQLite tables use AUTOINCREMENT: ids are never reused, so
        # start past both the highest id and the highest ever handed out.
        cursor.execute(
            f"SELECT MAX(COALESCE((SELECT seq FROM sqlite_sequence WHERE name = %s), 0), "
            f"COALESCE((SELECT MAX({pk}) FROM {table}), 0))",
            [model._meta.db_table],
        )
        start = cursor.fetchone()[0] + 1
        return list(range(start, start + count))


@contextmanager
def foreign_keys_checked_as_a_set(model, *, rows: int):
    """Around a large insert into `model` on PostgreSQL, check its foreign keys in one pass.

    The keys are dropped, then re-created NOT VALID and validated, all inside
    the caller's transaction: a violation still aborts everything. The table
    is locked against readers meanwhile, which is why small loads keep the
    ordinary row-by-row checks.
    """
    if connection.vendor != "postgresql" or rows < BULK_FOREIGN_KEY_THRESHOLD:
        yield
        return
    table, _ = _quoted(model, [])
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint"
            " WHERE conrelid = %s::regclass AND contype = 'f'",
            [model._meta.db_table],
        )
        keys = cursor.fetchall()
        # Altering a table's keys also alters the referenced tables, which
        # PostgreSQL refuses while their deferred checks are pending: run those now.
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        cursor.execute("SET CONSTRAINTS ALL DEFERRED")
        for name, _ in keys:
            cursor.execute(f"ALTER TABLE {table} DROP CONSTRAINT {connection.ops.quote_name(name)}")
    yield
    with connection.cursor() as cursor:
        for name, definition in keys:
            quoted = connection.ops.quote_name(name)
            cursor.execute(f"ALTER TABLE {table} ADD CONSTRAINT {quoted} {definition} NOT VALID")
            cursor.execute(f"ALTER TABLE {table} VALIDATE CONSTRAINT {quoted}")


def table_indexes(cursor, table: str) -> list[tuple[str, str, str | None]]:
    """(name, definition, definition of the key it backs or None) of each index of `table`, oldest first."""
    cursor.execute(
        """
        SELECT ic.relname, pg_get_indexdef(i.indexrelid), pg_get_constraintdef(c.oid)
        FROM pg_index i
        JOIN pg_class ic ON ic.oid = i.indexrelid
        LEFT JOIN pg_constraint c ON c.conindid = i.indexrelid AND c.conrelid = i.indrelid AND c.contype IN ('p', 'u')
        WHERE i.indrelid = %s::regclass
        ORDER BY i.indexrelid
        """,
        [table],
    )
    return cursor.fetchall()


def _unique_keys_unreferenced(cursor, table: str) -> list[tuple[str, str]]:
    """(name, definition) of `table`'s unique constraints that no foreign key refers to, oldest first."""
    cursor.execute(
        """
        SELECT c.conname, pg_get_constraintdef(c.oid)
        FROM pg_constraint c
        WHERE c.conrelid = %s::regclass AND c.contype = 'u'
          AND NOT EXISTS (SELECT 1 FROM pg_constraint f WHERE f.contype = 'f' AND f.conindid = c.conindid)
        ORDER BY c.conindid
        """,
        [table],
    )
    return cursor.fetchall()


@contextmanager
def indexes_built_after(model, *, rows: int):
    """Around an insert of `rows` rows into `model`'s table on PostgreSQL, build its indexes afterwards.

    When the rows outnumber those already stored (a first import, say), each
    plain index is dropped and built again in one sort after the insert,
    instead of taking a million rows one at a time (a trigram index among
    them). So are the unique keys no foreign key refers to: added again after
    the insert, each is checked as a set in its index's one sort, and a
    duplicate still fails the load, at its end (a million matches: their
    COPY 5.5 -> 1.7 s with the two seat keys dropped; built again in about a
    second). The primary key stays: foreign keys refer to it.
    Like foreign_keys_checked_as_a_set, this locks the table against readers
    until the caller's transaction ends; a failure restores everything.
    """
    if connection.vendor != "postgresql" or rows < BULK_FOREIGN_KEY_THRESHOLD:
        yield
        return
    table, _ = _quoted(model, [])
    quote = connection.ops.quote_name
    with connection.cursor() as cursor:
        # Counting stops at `rows`: the question is only whether the table holds fewer.
        cursor.execute(f"SELECT COUNT(*) FROM (SELECT 1 FROM {table} LIMIT %s) stored", [rows])
        if cursor.fetchone()[0] >= rows:
            indexes, unique_keys = [], []
        else:
            stored = table_indexes(cursor, model._meta.db_table)
            indexes = [(name, definition) for name, definition, key in stored if key is None]
            unique_keys = _unique_keys_unreferenced(cursor, model._meta.db_table)
        for name, _ in indexes:
            cursor.execute(f"DROP INDEX {quote(name)}")
        for name, _ in unique_keys:
            cursor.execute(f"ALTER TABLE {table} DROP CONSTRAINT {quote(name)}")
    yield
    if not indexes and not unique_keys:
        return
    with connection.cursor() as cursor:
        # PostgreSQL builds no index on a table with key checks pending: run them now, not at the commit.
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        cursor.execute("SET CONSTRAINTS ALL DEFERRED")
        # One sort per index, with memory enough to keep it off the disk.
        cursor.execute("SET LOCAL maintenance_work_mem = '256MB'")
        for name, definition in unique_keys:
            cursor.execute(f"ALTER TABLE {table} ADD CONSTRAINT {quote(name)} {definition}")
        for _, definition in indexes:
            cursor.execute(definition)


def statistics_refresh(written: dict) -> list[str]:
    """ANALYZE the tables of the models in `written` (model -> rows written, updated or deleted) whose write
    changed STATISTICS_AFTER_ROWS rows or more and a tenth of the table or more (PostgreSQL); the tables analysed.

    Otherwise PostgreSQL plans reads of them from statistics taken before the
    write (or none, for tables loaded by a first import) until autovacuum gets
    to them: minutes later, or never where it is off. At 100,000 events with
    no statistics, the event list's page 50 sorted every event (130 ms)
    instead of reading 2,500 along the date index (2 ms); and with statistics
    of the matches but none of the events, a recompute from last week read
    the week's events through 491,000 probes (0.83 s instead of 10 ms).
    ANALYZE reads a sample, not the table: a fraction of a second at ten
    million rows.
    """
    if connection.vendor != "postgresql":
        return []
    counted = {model._meta.db_table: rows for model, rows in written.items() if rows >= STATISTICS_AFTER_ROWS}
    if not counted:
        return []
    with connection.cursor() as cursor:
        # reltuples: the table's size as PostgreSQL last counted it (-1: never counted).
        cursor.execute("SELECT relname, reltuples FROM pg_class WHERE relname = ANY(%s)", [list(counted)])
        sizes = dict(cursor.fetchall())
        stale = [
            table
            for table, rows in counted.items()
            if sizes.get(table, -1) <= 0 or rows >= STATISTICS_AFTER_SHARE * sizes[table]
        ]
        if stale:
            cursor.execute(f"ANALYZE {', '.join(connection.ops.quote_name(table) for table in stale)}")
    return stale


@contextmanager
def loaded_in_bulk(model, *, rows: int):
    """Around an insert of `rows` rows into `model`'s table: keys checked as a set, indexes built after."""
    with foreign_keys_checked_as_a_set(model, rows=rows), indexes_built_after(model, rows=rows):
        yield


def int_rows(rows: list[tuple[int, ...]], width: int) -> tuple[str, list]:
    """`rows` of `width` integers as a relation to select FROM, named `wanted`, its columns column1, column2...;
    with its parameters. On PostgreSQL one array per column, whatever the rows: as a VALUES list, the 80,000
    placeholders of a correction's preview took psycopg a second to find in the query. Elsewhere a VALUES list
    (SQLite's own names for its columns)."""
    if connection.vendor == "postgresql":
        columns = ", ".join(f"column{number}" for number in range(1, width + 1))
        arrays = [list(column) for column in zip(*rows, strict=True)] or [[] for _ in range(width)]
        return f"unnest({', '.join(['%s::bigint[]'] * width)}) AS wanted({columns})", arrays
    row = f"({', '.join(['%s'] * width)})"
    return f"(VALUES {', '.join([row] * len(rows))}) wanted", [value for each in rows for value in each]


def estimated_rows(table: str) -> int:
    """The planner's estimate of a table's rows: a plain table's, or the sum of a partitioned table's partitions
    (0 for a table never analyzed or missing, and on SQLite, whose statistics are not kept in rows)."""
    if connection.vendor != "postgresql":
        return 0
    with connection.cursor() as cursor:
        cursor.execute(  # a table that does not exist (a list's partition not made yet) has none
            "SELECT COALESCE(SUM(GREATEST(c.reltuples, 0)), 0) FROM pg_class c WHERE c.relkind = 'r'"
            " AND (c.oid = to_regclass(%s)"
            " OR c.oid IN (SELECT relid FROM pg_partition_tree(to_regclass(%s)) WHERE isleaf))",
            [table, table],
        )
        (rows,) = cursor.fetchone()
    return int(rows)


def chunked(items: Iterable, size: int) -> list[list]:
    """`items` in lists of at most `size`, in order: the one way this project splits IN lists and batches.

    A statement with 100,000 parameters costs more to send and plan than a few
    of some thousands, and SQLite refuses more than 32,766 in one.
    """
    items = items if isinstance(items, list) else list(items)
    return [items[start : start + size] for start in range(0, len(items), size)]


def delete_ids(model, ids: Iterable[int], *, chunk: int = 5000) -> int:
    return sum(model.objects.filter(pk__in=part).delete()[0] for part in chunked(ids, chunk))
