"""The indexes and unique constraints of the database are those Django's models declare, on SQLite and PostgreSQL.

Django's migration state is the models' declarations (makemigrations --check
keeps them equal). A migration that drops or replaces an index with RunSQL or
RunPython must tell the state too (SeparateDatabaseAndState), or the state
describes indexes that are not there, and a later migration fails on them or
a rebuilt table loses them. Named indexes and constraints (Meta.indexes,
Meta.constraints) are compared by name, then by columns; a field's own index
or key (db_index, unique, a foreign key's index, unique_together), whose name
Django or the database makes up, by its columns. On PostgreSQL a named index
is also compared whole with the one Django would make from the declaration
(its expressions, operator classes, method, order and condition).

On PostgreSQL the history and today's lists are partitioned by category
(ratings migrations 0011, 0012, 0015), the past dates' lists by snapshot (0024): the parent table's indexes are what
Django's state describes, and each partition holds one attached to each of
them. Some indexes live on the partitions only, on purpose (see
test_on_postgresql_each_partition_has_its_parents_indexes_and_its_own_on_purpose).

The name searches' trigram indexes are declared for every database and made on
PostgreSQL only (lib.indexes.PostgresOnlyGinIndex): SQLite lacks them on
purpose (DECLARED_NOT_MADE).
"""

import re
from datetime import date

import pytest
from django.apps import apps
from django.db import connection, models, transaction

from lib.bulk import table_indexes
from ratings import category_tables
from ratings.models import Category, SnapshotRating
from ratings.snapshots import ranking_snapshots

APPS = ["players", "events", "ratings", "corrections", "accounts"]

# The history's indexes that SQLite's plain table has and Django's state does not declare (ratings
# migration 0017): on PostgreSQL the history is partitioned by category and these live on each partition,
# the default one under other names, a category's own without the category (category_tables.OWN_INDEXES).
PLAIN_TABLE_ONLY = {
    ("ratings_ratingentry", "rating_entry_by_participant"): ["category_id", "participant_id", "seq"],
    ("ratings_ratingentry", "rating_entry_order"): ["category_id", "seq"],
}

# Indexes one database has on purpose outside Django's state, made by a migration for that database only:
# (table, name) -> the columns, or None for an index on expressions.
VENDOR_ONLY = {
    "sqlite": PLAIN_TABLE_ONLY,
}

# Indexes Django's state declares that one database lacks on purpose: (table, name). The trigram indexes
# of the name searches, GIN on UPPER(...) or fold_name(...) gin_trgm_ops (players migrations 0002, 0004
# and 0005, ratings 0010, 0018, 0027 and 0028, events 0004), are lib.indexes.PostgresOnlyGinIndex: SQLite
# has neither GIN nor pg_trgm, and Django writes nothing for them there, not even when it rebuilds the table.
DECLARED_NOT_MADE = {
    "sqlite": {
        ("players_player", "player_search_trgm"),
        ("players_player", "player_name_folded_trgm"),
        ("ratings_currentrating", "current_search_trgm"),
        ("events_event", "event_search_trgm"),
        ("players_team", "team_search_trgm"),
    },
}


def own_models():
    for label in APPS:
        for model in apps.get_app_config(label).get_models(include_auto_created=True):
            if model._meta.managed and not model._meta.proxy and not model._meta.swapped:
                yield model


def columns(model, field_names) -> list[str]:
    return [model._meta.get_field(name.removeprefix("-")).column for name in field_names]


def declared_by_name(model) -> dict[str, dict]:
    """Meta.indexes and the unique constraints of Meta.constraints: name -> columns (None: expressions), orders."""
    declared = {}
    for index in model._meta.indexes:
        declared[index.name] = {
            "columns": columns(model, index.fields) if index.fields else None,
            "orders": [order or "ASC" for _, order in index.fields_orders] if index.fields else None,
            "unique": False,
            "index": index,
        }
    for constraint in model._meta.constraints:
        if isinstance(constraint, models.UniqueConstraint):
            declared[constraint.name] = {
                "columns": columns(model, constraint.fields) if constraint.fields else None,
                "orders": None,
                "unique": True,
            }
    return declared


def declared_unnamed(model) -> list[dict]:
    """The keys and indexes of fields (unique, db_index, a foreign key's index) and of unique_together."""
    declared = []
    for field in model._meta.local_concrete_fields:
        if field.primary_key:
            continue
        if field.unique or field.db_index:
            db_type = field.db_type(connection) or ""
            declared.append(
                {
                    "columns": [field.column],
                    "unique": field.unique,
                    # PostgreSQL gives a text column's index or key a second index, for LIKE (name ..._like).
                    "like": connection.vendor == "postgresql" and db_type.startswith(("varchar", "text")),
                }
            )
    for fields in model._meta.unique_together:
        declared.append({"columns": columns(model, fields), "unique": True, "like": False})
    return declared


def partition_key(cursor, table: str) -> list[str]:
    """The columns `table` is partitioned by, none for a plain table."""
    if connection.vendor != "postgresql":
        return []
    cursor.execute(
        "SELECT pg_get_partkeydef(c.oid) FROM pg_class c WHERE c.oid = %s::regclass AND c.relkind = 'p'", [table]
    )
    row = cursor.fetchone()
    return re.fullmatch(r"\w+ \((.*)\)", row[0]).group(1).split(", ") if row else []


def postgresql_definition(cursor, name: str) -> str:
    """PostgreSQL's definition of the index `name`, the name left out."""
    cursor.execute("SELECT pg_get_indexdef(%s::regclass)", [name])
    return re.sub(r"^CREATE (UNIQUE )?INDEX \S+ ", r"CREATE \1INDEX ", cursor.fetchone()[0], count=1)


def declared_postgresql_definition(model, index, cursor) -> str:
    """PostgreSQL's definition of the index Django makes from `index`: a copy made, read, and rolled back."""
    copy = index.clone()
    copy.name = "schema_test_declared"
    with transaction.atomic():
        with connection.schema_editor() as editor:
            editor.add_index(model, copy)
        definition = postgresql_definition(cursor, copy.name)
        transaction.set_rollback(True)
    return definition


def differences(model, cursor) -> list[str]:
    table = model._meta.db_table
    found = connection.introspection.get_constraints(cursor, table)
    problems = []

    # The primary key: the model's, and on a partitioned table the partition key too (a partitioned
    # table's keys must contain it; ids still come from one sequence).
    primary = [entry["columns"] for entry in found.values() if entry["primary_key"]]
    expected = [model._meta.pk.column] + [c for c in partition_key(cursor, table) if c != model._meta.pk.column]
    if primary != [expected]:
        problems.append(f"{table}: primary key {primary}, expected {expected}")

    entries = {
        name: entry
        for name, entry in found.items()
        if not entry["primary_key"] and not entry["check"] and (entry["index"] or entry["unique"])
    }
    vendor_only = {name: cols for (t, name), cols in VENDOR_ONLY.get(connection.vendor, {}).items() if t == table}
    declared = declared_by_name(model)

    not_made = {name for t, name in DECLARED_NOT_MADE.get(connection.vendor, ()) if t == table}
    for name in sorted(not_made):
        if name not in declared:
            problems.append(f"{table}: {name} is listed as not made on {connection.vendor}, but is not declared")
        elif entries.pop(name, None) is not None:
            problems.append(f"{table}: {name} is in the database, though not made on {connection.vendor}")
    declared = {name: want for name, want in declared.items() if name not in not_made}

    for name, want in {**declared, **{n: {"columns": c} for n, c in vendor_only.items()}}.items():
        entry = entries.pop(name, None)
        where = "declared" if name not in vendor_only else f"made on {connection.vendor} only"
        if entry is None:
            problems.append(f"{table}: {name} ({where}) is missing from the database")
            continue
        if want["columns"] is not None and entry["columns"] != want["columns"]:
            problems.append(f"{table}: {name} is on {entry['columns']}, {where} on {want['columns']}")
        if "unique" in want and entry["unique"] != want["unique"]:
            problems.append(f"{table}: {name} is {'' if entry['unique'] else 'not '}unique in the database")
        if want.get("orders") and entry.get("orders") and entry["orders"] != want["orders"]:
            problems.append(f"{table}: {name} sorts {entry['orders']}, declared {want['orders']}")
        if connection.vendor == "postgresql" and "index" in want:
            made = postgresql_definition(cursor, name)
            meant = declared_postgresql_definition(model, want["index"], cursor)
            if made != meant:
                problems.append(f"{table}: {name} is `{made}`, declared `{meant}`")

    for want in declared_unnamed(model):
        match = next(
            (
                name
                for name, entry in entries.items()
                if entry["columns"] == want["columns"] and entry["unique"] == want["unique"]
                and not name.endswith("_like")
            ),
            None,
        )  # fmt: skip
        if match is None:
            kind = "unique key" if want["unique"] else "index"
            problems.append(f"{table}: the {kind} on {want['columns']} (declared by the field) is missing")
            continue
        del entries[match]
        if want["like"]:
            like = next(
                (n for n, e in entries.items() if n.endswith("_like") and e["columns"] == want["columns"]), None
            )
            if like:
                del entries[like]

    for name, entry in sorted(entries.items()):
        kind = "unique key" if entry["unique"] else "index"
        problems.append(f"{table}: {kind} {name} on {entry['columns']} is not declared by the model")
    return problems


@pytest.mark.django_db
def test_the_database_has_the_indexes_and_unique_keys_the_models_declare_and_no_others():
    with connection.cursor() as cursor:
        tables = set(connection.introspection.table_names(cursor))
        problems = [
            f"{model._meta.db_table}: no such table" for model in own_models() if model._meta.db_table not in tables
        ]
        for model in own_models():
            if model._meta.db_table in tables:
                problems += differences(model, cursor)

    assert not problems, "The database and the models differ:\n" + "\n".join(problems)


def partition_indexes(cursor, partition: str) -> tuple[set[str], set[str]]:
    """The parent's indexes `partition` has one of (their names), and its own indexes' columns: '(a, b)'."""
    cursor.execute(
        """
        SELECT parent.relname, pg_get_indexdef(i.indexrelid)
        FROM pg_index i
        LEFT JOIN pg_inherits h ON h.inhrelid = i.indexrelid
        LEFT JOIN pg_class parent ON parent.oid = h.inhparent
        WHERE i.indrelid = %s::regclass
        """,
        [partition],
    )
    attached, own = set(), set()
    for parent, definition in cursor.fetchall():
        if parent is not None:
            attached.add(parent)
        else:
            own.add(re.search(r" USING \w+ (\(.*\))$", definition).group(1))
    return attached, own


@pytest.mark.django_db
@pytest.mark.skipif(connection.vendor != "postgresql", reason="tables are partitioned on PostgreSQL only")
def test_on_postgresql_each_partition_has_its_parents_indexes_and_its_own_on_purpose():
    """Each partition has one index attached to each of its parent's, and besides those only its own on purpose.

    A category's own partition (swapped in by a full recompute) has category_tables.OWN_INDEXES; the
    default partition, which holds the categories not swapped in yet, has the history's indexes led by the
    category, as SQLite's plain table has them (ratings migration 0016). A past date's list is a partition
    of the snapshot rows of its own (ratings migration 0024) with nothing but the parent's indexes.
    """
    category = Category.objects.order_by("pk").first()
    with connection.cursor() as cursor:
        keys = {model: partition_key(cursor, model._meta.db_table) for model in own_models()}
    partitioned = [model for model, key in keys.items() if key == ["category_id"]]
    assert {model._meta.db_table for model in partitioned} >= {"ratings_ratingentry", "ratings_currentrating"}
    assert [model for model, key in keys.items() if key and model not in partitioned] == [SnapshotRating]
    for model in partitioned:  # a category's own partition, empty, as a full recompute swaps one in
        staging = category_tables.staging_create(model, category.pk)
        category_tables.staging_index(model, staging)
        category_tables.staging_swap(model, category.pk, staging)

    # A past date's list: its own partition (ratings.snapshots), holding only the parent's indexes.
    snapshot = ranking_snapshots(category=category, dates=[date(2020, 1, 31)])[date(2020, 1, 31)]
    problems = []
    with connection.cursor() as cursor:
        parents = {name for name, _, _ in table_indexes(cursor, SnapshotRating._meta.db_table)}
        attached, own = partition_indexes(cursor, f"{SnapshotRating._meta.db_table}_s{snapshot}")
        if attached != parents or own:
            problems.append(f"snapshot {snapshot}: indexes attached to {sorted(attached)} and own {sorted(own)}")
        for model in partitioned:
            parent = model._meta.db_table
            parents = {name for name, _, _ in table_indexes(cursor, parent)}
            own_partition = category_tables.partition_name(model, category.pk)
            for partition in (own_partition, f"{parent}_default"):
                attached, own = partition_indexes(cursor, partition)
                if attached != parents:
                    problems.append(
                        f"{partition}: indexes attached to {sorted(attached)}, the parent has {sorted(parents)}"
                    )
                if partition == own_partition:
                    expected = set(category_tables.own_indexes(parent))
                else:
                    expected = {f"({', '.join(c)})" for (t, _), c in PLAIN_TABLE_ONLY.items() if t == parent}
                if own != expected:
                    problems.append(f"{partition}: own indexes {sorted(own)}, expected {sorted(expected)}")

    assert not problems, "Partitions and their indexes differ from what is meant:\n" + "\n".join(problems)


def column_collations(cursor, table: str) -> dict[str, str | None]:
    """column -> its collation's name, None where it has the database's own."""
    cursor.execute(
        """
        SELECT a.attname, c.collname FROM pg_attribute a
        LEFT JOIN pg_collation c ON c.oid = a.attcollation AND c.collname <> 'default'
        WHERE a.attrelid = %s::regclass AND a.attnum > 0 AND NOT a.attisdropped
        """,
        [table],
    )
    return dict(cursor.fetchall())


@pytest.mark.django_db
@pytest.mark.skipif(connection.vendor != "postgresql", reason="collations are written on PostgreSQL only")
def test_on_postgresql_codes_compare_byte_by_byte_in_every_lists_partition():
    """The places and display ids of today's lists, their ranks and the past dates' lists are in byte order
    (lib.fields.BytewiseCharField) in the partitions a recompute or a past date writes, not only in the
    parent tables: each is made like its parent (category_tables.table_like). Names keep the database's
    collation, which orders them as readers expect."""
    from ratings.models import CurrentRank, CurrentRating

    category = Category.objects.order_by("pk").first()
    codes = {
        CurrentRating: {"display_id", "country", "continent", "region"},
        CurrentRank: {"country", "continent", "region"},
        SnapshotRating: {"display_id", "country", "continent", "region"},
    }
    tables = {}
    for model in (CurrentRating, CurrentRank):
        staging = category_tables.staging_create(model, category.pk)
        category_tables.staging_index(model, staging)
        category_tables.staging_swap(model, category.pk, staging)
        tables[model] = category_tables.partition_name(model, category.pk)
    snapshot = ranking_snapshots(category=category, dates=[date(2020, 1, 31)])[date(2020, 1, 31)]
    tables[SnapshotRating] = f"{SnapshotRating._meta.db_table}_s{snapshot}"
    with connection.cursor() as cursor:
        for model, table in tables.items():
            collations = column_collations(cursor, table)
            assert {column for column, name in collations.items() if name == "C"} == codes[model], table
            if "name" in collations:
                assert collations["name"] is None, table
