"""Lists built by the database: derived lists (composite: SPEC 3.1) from their components' lists, writing only
the rows that differ; and a list of players from its standings (those a full recompute ends with, say).

Both give, row for row and bit for bit, what current_rows_from_standings makes in Python (tests hold them
equal): the ranks are rank_sql's windows, the names and places the players' table's.
"""

from datetime import date

from django.db import connection, transaction

from players import geography
from players.models import Player
from ratings import category_tables
from ratings.models import Category, CurrentRank, CurrentRating, Ruleset
from ratings.selectors.lists import RANK_LEVELS, rank_sql
from ratings.services.list_fields import CURRENT_FIELDS, LIST_FILLFACTOR, RANK_FIELDS, list_column


def derived_list_in_sql(category: Category) -> bool:
    """Whether the database builds the derived list from its components' lists (derived_list_sql): lists
    of players, whose names and places it reads from the players' table. A list of teams is built in Python."""
    return category.ruleset == Ruleset.DERIVED and category.team_size == 1


def _continents() -> tuple[str, list]:
    """The CTE `continents` (country, continent) of geography's table, and its parameters."""
    pairs = sorted(geography.CONTINENT_OF_COUNTRY.items())
    values = ", ".join(["(%s, %s)"] * len(pairs)) or "('', '')"
    return f"continents(country, continent) AS (VALUES {values})", [value for pair in pairs for value in pair]


def _ranks_cte(source: str) -> str:
    """The CTE `ranks`: the rows of `source` (places, today's and last month's rating and ranked) with their ranks
    as rank_sql counts them, rank0-rank3 today's and rank4-rank7 last month's, world to region."""
    ranks = [rank_sql(level) for level in RANK_LEVELS]
    ranks += [rank_sql(level, rating="previous_rating", ranked="previous_ranked") for level in RANK_LEVELS]
    return f"""ranks AS (
            SELECT participant_id, country, continent, region, rating, ranked, previous_rating, previous_ranked,
                   {", ".join(f"{rank} AS rank{number}" for number, rank in enumerate(ranks))}
            FROM {source}
        )"""


def derived_list_sql(category: Category, today: date) -> tuple[str, list]:
    """Today's list of a derived category, as one SELECT of CURRENT_FIELDS (in that order) from its
    components' lists, and its parameters: what current_rows_from_standings makes of
    _derived_standings_of_lists (SPEC 3.1: the mean of the components' ratings, the start rating for a
    missing one; ranked when ranked in any), today's and last month's, with their ranks (rank_sql).

    The arithmetic is derived_standing's, term by term: the sum of the ratings the participant has
    (0.0 added for a missing one changes no bit), plus the start rating times the number missing, divided
    by the number of components. With two components the order of the sum is immaterial (IEEE addition
    commutes), so the ratings are the Python path's to the last bit; with more, Python's order is the
    order the database returned the rows in, which is unspecified anyway.
    """
    components = list(Category.objects.filter(slug__in=category.component_list).values_list("pk", flat=True))
    count = len(components)
    players = Player._meta.db_table
    continents, params = _continents()
    pivots = []
    for number, component in enumerate(components):
        pivots.append(f"MAX(CASE WHEN category_id = %s THEN rating END) AS r{number}")
        pivots.append(f"MAX(CASE WHEN category_id = %s THEN previous_rating END) AS p{number}")
        params += [component, component]
    params += components
    now_sum = " + ".join(f"COALESCE(r{number}, 0.0)" for number in range(count)) or "0.0"
    before_sum = " + ".join(f"COALESCE(p{number}, 0.0)" for number in range(count)) or "0.0"
    start = "CAST(%s AS DOUBLE PRECISION)"
    # The ranks are windows over narrow rows (no names): eight sorts of the whole list, each in memory.
    materialized = "MATERIALIZED " if connection.vendor == "postgresql" else ""
    sql = f"""
        WITH {continents},
        parts AS (
            SELECT participant_id, {", ".join(pivots)}, COUNT(*) AS present, COUNT(previous_rating) AS present_before,
                   SUM(matches) AS matches, MAX(last_played) AS last_played,
                   MAX(CASE WHEN ranked THEN 1 ELSE 0 END) AS any_ranked,
                   MAX(CASE WHEN previous_rating IS NOT NULL AND previous_ranked THEN 1 ELSE 0 END) AS any_ranked_before
            FROM {_components_source(components)} lists WHERE category_id IN ({", ".join(["%s"] * count) or "NULL"})
            GROUP BY participant_id
        ),
        standings AS {materialized}(
            SELECT parts.participant_id, COALESCE(player.country, '') AS country,
                   COALESCE(continents.continent, '') AS continent, COALESCE(player.region, '') AS region,
                   (({now_sum}) + ({count} - present) * {start}) / {count} AS rating,
                   any_ranked = 1 AS ranked,
                   CASE WHEN present_before > 0
                        THEN (({before_sum}) + ({count} - present_before) * {start}) / {count} END AS previous_rating,
                   any_ranked_before = 1 AS previous_ranked
            FROM parts
            LEFT JOIN {players} player ON player.participant_id = parts.participant_id
            LEFT JOIN continents ON continents.country = player.country
        ),
        {_ranks_cte("standings")}
        SELECT %s, ranks.participant_id,
               COALESCE(player.membership_number, CAST(ranks.participant_id AS TEXT)),
               COALESCE(player.name, ''), ranks.country, ranks.continent, ranks.region, ranks.rating, parts.matches,
               ranks.ranked, parts.matches < %s, parts.last_played, rank0, rank1, rank2, rank3,
               ranks.previous_rating, ranks.previous_ranked, rank4, rank5, rank6, rank7, %s
        FROM ranks
        JOIN parts ON parts.participant_id = ranks.participant_id
        LEFT JOIN {players} player ON player.participant_id = ranks.participant_id
    """
    start_rating = float(category.start_rating)
    params += [start_rating, start_rating, category.pk, category.provisional_until]
    params.append(connection.ops.adapt_datefield_value(today))
    return sql, params


def _components_source(components: list[int]) -> str:
    """Where the components' lists are read: their own partitions, when each has one, so that the read locks
    those alone (a swap of another list, which locks the table every list shares, is not waited for: see
    derived_list_rebuild_aside); else that table."""
    table = CurrentRating._meta.db_table
    if not category_tables.swaps_tables() or not components:
        return table
    if not all(category_tables.partition_exists(CurrentRating, pk) for pk in components):
        return table
    partitions = [category_tables.partition_name(CurrentRating, pk) for pk in components]
    return "(" + " UNION ALL ".join(f"SELECT {_COMPONENT_COLUMNS} FROM {partition}" for partition in partitions) + ")"


# What derived_list_sql reads of a component's list.
_COMPONENT_COLUMNS = ", ".join(
    list_column(name)
    for name in ("participant", "category", "rating", "previous_rating", "matches", "last_played", "ranked",
                 "previous_ranked")
)  # fmt: skip


# A derived list is rewritten in place when at most this share of its rows differ from the rows it should
# have (a full recompute that changed little: few rows move), written afresh and swapped in above it.
DERIVED_REWRITE_ABOVE = 0.25


def derived_list_rebuild(category: Category, today: date, stagings: list | None) -> int:
    """A derived category's list rewritten by the database from its components' lists (derived_list_sql);
    returns its rows. On PostgreSQL only the rows that differ are written, unless many do (or the caller
    swaps the list in itself, `stagings`): then it is written to fresh tables, as current_list_staged."""
    select, params = derived_list_sql(category, today)
    current, ranks = CurrentRating._meta.db_table, CurrentRank._meta.db_table
    columns = ", ".join(list_column(name) for name in CURRENT_FIELDS)
    rank_columns = ", ".join(list_column(name) for name in RANK_FIELDS)
    world_rank = list_column("world_rank")
    with connection.cursor() as cursor:
        if not category_tables.swaps_tables():
            CurrentRating.objects.filter(category=category).delete()
            CurrentRank.objects.filter(category=category).delete()
            cursor.execute(f"INSERT INTO {current} ({columns}) {select}", params)
            written = cursor.rowcount
            cursor.execute(
                f"INSERT INTO {ranks} ({rank_columns}) SELECT {rank_columns}"
                f" FROM {current} WHERE category_id = %s AND {world_rank} IS NOT NULL",
                [category.pk],
            )
            return written
        # Memory for the ranks' sorts (the default spills them to disk), for this statement only.
        cursor.execute("SELECT current_setting('work_mem'), set_config('work_mem', '64MB', true)")
        (work_mem, _) = cursor.fetchone()
        cursor.execute("DROP TABLE IF EXISTS derived_rows")
        cursor.execute(f"CREATE TEMP TABLE derived_rows ({columns}) ON COMMIT DROP AS {select}", params)
        written = cursor.rowcount
        cursor.execute("SELECT set_config('work_mem', %s, true)", [work_mem])
        stored, differing = _derived_rows_differing(cursor, category, "derived_rows", current)
        if stagings is None and stored and differing <= stored * DERIVED_REWRITE_ABOVE:
            if differing:  # none differs after a full recompute that changed nothing: nothing to write
                _derived_rows_replace(cursor, category, "derived_rows")
            cursor.execute("DROP TABLE derived_rows")
            return written
        fresh = _list_staged_from(cursor, category, "derived_rows")
        cursor.execute("DROP TABLE derived_rows")
    for model, table in fresh:
        category_tables.staging_index(model, table)
    if stagings is not None:
        stagings.extend(fresh)
        return written
    category_tables.stagings_swap(category.pk, fresh)
    return written


def derived_list_rebuild_aside(category: Category, today: date) -> int | None:
    """As derived_list_rebuild (PostgreSQL), the rows computed and written by a second connection, each statement
    committed as it ends, so that this transaction takes the swaps' turn only to publish them. Returns the rows,
    or None when a component's list changed meanwhile: then nothing is published and the caller rebuilds under
    the turn. For a caller whose transaction holds no list's table (the derived category's row lock, say).

    derived_list_rebuild takes the turn before its first read of the lists and keeps it to its commit: in a run
    of every list, vintage's swap waited 0.77 s of 9.8 s for the composite's. Here the components are read
    from their own partitions (_components_source), the stored list from its own, and the fresh tables are made
    and indexed outside this transaction: another list's swap, which locks the tables every list shares and
    its own partitions, waits for none of it.
    """
    before = _components_state(category)
    building = category_tables.elsewhere(_derived_rows_aside, category, today, in_transaction=False)
    try:
        rows_table, written, fresh, differing = building.result()
    except BaseException:
        # What its statements committed before it failed (the next build would drop them too).
        with connection.cursor() as cursor:
            for table in _aside_tables(category):
                cursor.execute(f"DROP TABLE IF EXISTS {table}")
        raise
    try:
        if fresh is None and not differing:  # the stored list is the list already: nothing to publish
            return written if _components_state(category) == before else None
        category_tables.swaps_take_turns()
        if _components_state(category) != before:
            return None
        if fresh is None:
            with connection.cursor() as cursor:
                _derived_rows_replace(cursor, category, rows_table)
        else:
            category_tables.stagings_swap(category.pk, fresh)
            fresh = None
        return written
    finally:
        with connection.cursor() as cursor:
            for table in [rows_table, *(table for _, table in fresh or [])]:
                cursor.execute(f"DROP TABLE IF EXISTS {table}")


def _aside_tables(category: Category) -> list[str]:
    """The tables _derived_rows_aside makes: its rows' and the fresh ones."""
    fresh = [category_tables.staging_name(model, category.pk) for model in (CurrentRating, CurrentRank)]
    return [_rows_table(category), *fresh]


def _rows_table(category: Category) -> str:
    return f"derived_rows_c{int(category.pk)}"


def _components_state(category: Category) -> list[tuple]:
    """What the derived list's components' lists are at: a recompute, an edit of the list alone, a new day."""
    return list(
        Category.objects.filter(slug__in=category.component_list)
        .order_by("pk")
        .values_list("pk", "history_version", "list_edits", "list_refreshed_on")
    )


def _derived_rows_aside(category: Category, today: date) -> tuple[str, int, list[tuple] | None, int | None]:
    """On a connection of its own, each statement committed as it ends (its locks with it): the derived list's
    rows in a table of their own, and unless few differ from the stored list's, fresh tables made of them and
    indexed. Returns (the rows' table, their number, the fresh tables, None for a rewrite in place; and then how
    many rows differ)."""
    select, params = derived_list_sql(category, today)
    rows_table = _rows_table(category)
    columns = ", ".join(list_column(name) for name in CURRENT_FIELDS)
    stored_list = category_tables.partition_name(CurrentRating, category.pk)
    with connection.cursor() as cursor:
        # For this connection's session, which ends with the work: memory for the ranks' sorts and the indexes.
        cursor.execute("SET work_mem = '64MB'")
        cursor.execute("SET maintenance_work_mem = '256MB'")
        cursor.execute(f"DROP TABLE IF EXISTS {rows_table}")
        cursor.execute(f"CREATE UNLOGGED TABLE {rows_table} ({columns}) AS {select}", params)
        written = cursor.rowcount
        if category_tables.partition_exists(CurrentRating, category.pk):
            stored, differing = _derived_rows_differing(cursor, category, rows_table, stored_list)
            if stored and differing <= stored * DERIVED_REWRITE_ABOVE:
                return rows_table, written, None, differing
        fresh = _list_staged_from(cursor, category, rows_table)
    for model, table in fresh:
        category_tables.staging_index(model, table)
    return rows_table, written, fresh, None


def _derived_rows_differing(cursor, category: Category, rows_table: str, stored_table: str) -> tuple[int, int]:
    """(the stored list's rows, the rows of `rows_table` and the stored list that differ, or are in one only)."""
    values = [list_column(name) for name in CURRENT_FIELDS if name not in ("category", "participant")]
    cursor.execute(
        f"""
        SELECT COUNT(s.participant_id),
               COUNT(*) FILTER (WHERE s.participant_id IS NULL OR n.participant_id IS NULL OR {_differs(values)})
        FROM {rows_table} n FULL JOIN (SELECT * FROM {stored_table} WHERE category_id = %s) s
        ON s.participant_id = n.participant_id
        """,
        [category.pk],
    )
    return cursor.fetchone()


def _differs(values: list[str]) -> str:
    """SQL: row n (new) and row s (stored) differ in one of the columns `values`."""
    return " IS DISTINCT FROM ".join(f"ROW({', '.join(f'{row}.{c}' for c in values)})" for row in "ns")


def _list_staged_from(cursor, category: Category, rows_table: str) -> list[tuple]:
    """As current_list_staged, from a table of list rows (CURRENT_FIELDS' columns): fresh tables, the rows by
    participant in pages with room, their ranks beside them, with statistics; not yet indexed."""
    columns = ", ".join(list_column(name) for name in CURRENT_FIELDS)
    rank_columns = ", ".join(list_column(name) for name in RANK_FIELDS)
    staging = category_tables.staging_create(CurrentRating, category.pk, fillfactor=LIST_FILLFACTOR)
    cursor.execute(f"INSERT INTO {staging} ({columns}) SELECT {columns} FROM {rows_table} ORDER BY participant_id")
    rank_staging = category_tables.staging_create(CurrentRank, category.pk)
    cursor.execute(
        f"INSERT INTO {rank_staging} ({rank_columns}) SELECT {rank_columns} FROM {staging}"
        f" WHERE {list_column('world_rank')} IS NOT NULL"
    )
    fresh = [(CurrentRating, staging), (CurrentRank, rank_staging)]
    for _, table in fresh:
        cursor.execute(f"ANALYZE {table}")
    return fresh


def list_in_sql(category: Category) -> bool:
    """Whether the database builds the list from its standings (list_staged_from_standings): an Elo or V:EKN list
    of players on PostgreSQL, whose names and places it reads from the players' table. Teams are listed in Python."""
    return category_tables.swaps_tables() and category.team_size == 1 and category.ruleset != Ruleset.DERIVED


# A list's standings, today's and last month's side by side, as list_staged_from_standings sends them.
STANDINGS_TABLE = """
    CREATE TEMP TABLE list_standings (
        participant_id bigint, rating float8, matches int, ranked bool, last_played date,
        previous_rating float8, previous_ranked bool
    ) ON COMMIT DROP
"""
STANDINGS_TYPES = ["int8", "float8", "int4", "bool", "date", "float8", "bool"]


def list_staged_from_standings(
    category: Category, standings: tuple[dict, dict], today: date, *, indexed: bool
) -> list[tuple]:
    """Today's list of a category of players in fresh tables, ready to swap in, from its standings (today's, last
    month's: as a full recompute ends with them, say): [(model, table), ...], as current_list_staged.

    Python sends the standings (one binary COPY of a few columns); the database joins the players' names and
    places and ranks every level with rank_sql's windows: current_rows_from_standings's rows, bit for bit.
    """
    now, before = standings
    rows = []
    for participant, standing in now.items():
        last = before.get(participant)
        rows.append(
            (participant, standing.rating, standing.matches, standing.ranked, standing.last_played,
             last and last.rating, bool(last and last.ranked))
        )  # fmt: skip
    select, params = _list_from_standings_sql(category, today)
    # A transaction (or a savepoint in the caller's): the scratch tables live until its end, not a statement's.
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("DROP TABLE IF EXISTS list_standings")
        cursor.execute(STANDINGS_TABLE)
        with cursor.cursor.copy("COPY list_standings FROM STDIN (FORMAT BINARY)") as copy:
            copy.set_types(STANDINGS_TYPES)
            for row in rows:
                copy.write_row(row)
        cursor.execute("DROP TABLE IF EXISTS list_rows")
        # Memory for the ranks' sorts (the default spills them to disk), for this transaction only.
        cursor.execute("SET LOCAL work_mem = '64MB'")
        cursor.execute(f"CREATE TEMP TABLE list_rows ON COMMIT DROP AS {select}", params)
        fresh = _list_staged_from(cursor, category, "list_rows")
        cursor.execute("DROP TABLE list_rows")
        cursor.execute("DROP TABLE list_standings")
    if indexed:
        for model, table in fresh:
            category_tables.staging_index(model, table)
    return fresh


def _list_from_standings_sql(category: Category, today: date) -> tuple[str, list]:
    """The list's rows (CURRENT_FIELDS' columns, in that order) from list_standings, with their ranks."""
    players = Player._meta.db_table
    continents, params = _continents()
    names = [list_column(name) for name in CURRENT_FIELDS]
    sql = f"""
        WITH {continents},
        placed AS MATERIALIZED (
            SELECT s.participant_id, COALESCE(player.country, '') AS country,
                   COALESCE(continents.continent, '') AS continent, COALESCE(player.region, '') AS region,
                   s.rating, s.ranked, s.previous_rating, s.previous_ranked
            FROM list_standings s
            LEFT JOIN {players} player ON player.participant_id = s.participant_id
            LEFT JOIN continents ON continents.country = player.country
        ),
        {_ranks_cte("placed")}
        SELECT %s AS {names[0]}, ranks.participant_id AS {names[1]},
               COALESCE(player.membership_number, CAST(ranks.participant_id AS TEXT)) AS {names[2]},
               COALESCE(player.name, '') AS {names[3]}, ranks.country AS {names[4]}, ranks.continent AS {names[5]},
               ranks.region AS {names[6]}, ranks.rating AS {names[7]}, s.matches AS {names[8]},
               ranks.ranked AS {names[9]}, s.matches < %s AS {names[10]}, s.last_played AS {names[11]},
               rank0 AS {names[12]}, rank1 AS {names[13]}, rank2 AS {names[14]}, rank3 AS {names[15]},
               ranks.previous_rating AS {names[16]}, ranks.previous_ranked AS {names[17]},
               rank4 AS {names[18]}, rank5 AS {names[19]}, rank6 AS {names[20]}, rank7 AS {names[21]},
               %s AS {names[22]}
        FROM ranks
        JOIN list_standings s ON s.participant_id = ranks.participant_id
        LEFT JOIN {players} player ON player.participant_id = ranks.participant_id
    """
    params += [category.pk, category.provisional_until, today]
    return sql, params


def _derived_rows_replace(cursor, category: Category, rows_table: str) -> None:
    """The derived list's rows (and its CurrentRank rows) made those of `rows_table`, writing only the
    rows that differ: those gone deleted, those changed updated, those new inserted."""
    current, ranks = CurrentRating._meta.db_table, CurrentRank._meta.db_table
    columns = ", ".join(list_column(name) for name in CURRENT_FIELDS)
    values = [list_column(name) for name in CURRENT_FIELDS if name not in ("category", "participant")]
    differs = _differs(values)
    rank_columns = [list_column(name) for name in RANK_FIELDS]
    cursor.execute(
        f"DELETE FROM {current} s WHERE category_id = %s"
        f" AND NOT EXISTS (SELECT 1 FROM {rows_table} n WHERE n.participant_id = s.participant_id)",
        [category.pk],
    )
    cursor.execute(
        f"UPDATE {current} s SET {', '.join(f'{c} = n.{c}' for c in values)} FROM {rows_table} n"
        f" WHERE s.category_id = %s AND s.participant_id = n.participant_id AND {differs}",
        [category.pk],
    )
    cursor.execute(
        f"INSERT INTO {current} ({columns}) SELECT {columns} FROM {rows_table} n WHERE NOT EXISTS"
        f" (SELECT 1 FROM {current} s WHERE s.category_id = %s AND s.participant_id = n.participant_id)",
        [category.pk],
    )
    # CurrentRank: a row per ranked row of the list, with its places and ranks; the others go, then the missing come.
    same = " AND ".join(
        f"n.{c} IS NOT DISTINCT FROM r.{c}" for c in rank_columns if c not in ("category_id", "participant_id")
    )
    cursor.execute(
        f"DELETE FROM {ranks} r WHERE category_id = %s AND NOT EXISTS (SELECT 1 FROM {rows_table} n"
        f" WHERE n.participant_id = r.participant_id AND n.world_rank IS NOT NULL AND {same})",
        [category.pk],
    )
    cursor.execute(
        f"INSERT INTO {ranks} ({', '.join(rank_columns)}) SELECT {', '.join(rank_columns)} FROM {rows_table} n"
        f" WHERE n.world_rank IS NOT NULL AND NOT EXISTS"
        f" (SELECT 1 FROM {ranks} r WHERE r.category_id = %s AND r.participant_id = n.participant_id)",
        [category.pk],
    )
