"""Reads of the ratings app: ratings as of any date, and ranked lists at every level (SPEC 3, 4)."""

from dataclasses import dataclass
from datetime import date

from django.db import connection
from django.db.models import Max, QuerySet
from django.utils import timezone

from lib.bulk import chunked, estimated_rows
from lib.lookups import any_of
from players import geography
from players.models import Player, Team
from players.selectors import suspended_participants
from ratings.category_tables import partition_name
from ratings.engine import level_ranks, vekn_is_active, vekn_rating
from ratings.models import Category, CurrentRating, EventScore, RatingEntry, Ruleset


@dataclass(frozen=True, slots=True)
class Standing:
    """A participant's place in a category on a date."""

    participant: int
    rating: float
    matches: int  # rated matches; events for V:EKN
    ranked: bool
    last_played: date | None = None


@dataclass(slots=True)
class RankingRow:
    rank: int | None  # at the level asked for
    participant: int
    player_id: str  # membership number; for a team, its members' numbers
    name: str
    country: str
    region: str
    rating: float
    matches: int
    ranked: bool
    continent: str = ""
    last_played: date | None = None
    world_rank: int | None = None
    continent_rank: int | None = None
    country_rank: int | None = None
    region_rank: int | None = None


RANK_LEVELS = ("world", "continent", "country", "region")


def rank_levels(rows: list[RankingRow]) -> None:
    """Give every ranked row its world, continent, country and region rank (SPEC 4: ties share a rank).

    A row is ranked at a level among the ranked rows of its place there; a
    blank place ranks nowhere (ratings.engine.ranking.level_ranks, which
    today's lists' recount uses too). The same rule in SQL is rank_sql, below:
    a change to one is a change to both.
    """
    ranked = sorted((row for row in rows if row.ranked), key=lambda row: -row.rating)
    counted = level_ranks((row.rating, (row.continent, row.country, row.region)) for row in ranked)
    for row, (world, continent, country, region) in zip(ranked, counted, strict=True):
        row.world_rank, row.continent_rank, row.country_rank, row.region_rank = world, continent, country, region


def place_grouping() -> str:
    """How a window groups places: in byte order on PostgreSQL (COLLATE "C"). Places are grouped, never
    ordered, and the database's collation made a third of every rank window's sort."""
    return ' COLLATE "C"' if connection.vendor == "postgresql" else ""


def rank_sql(level: str, *, rating: str = "rating", ranked: str | None = "ranked") -> str:
    """rank_levels in SQL: a row's competition rank at `level` (the column holding its place there) as a
    window over the rows of a list, NULL when the row is unranked or its place blank.

    `rating` and `ranked` name the columns (a list's previous ones, say; a
    ranked row always has its rating); `ranked` None: the window's rows are
    the ranked ones only (one sort key less). Places are grouped as
    place_grouping() says.
    """
    collate = place_grouping()
    if ranked is None:
        if level == "world":
            return f"RANK() OVER (ORDER BY {rating} DESC)"
        return f"CASE WHEN {level} <> '' THEN RANK() OVER (PARTITION BY {level}{collate} ORDER BY {rating} DESC) END"
    if level == "world":
        return f"CASE WHEN {ranked} THEN RANK() OVER (PARTITION BY {ranked} ORDER BY {rating} DESC) END"
    ranks = f"RANK() OVER (PARTITION BY {ranked}, {level}{collate} ORDER BY {rating} DESC)"
    return f"CASE WHEN {ranked} AND {level} <> '' THEN {ranks} END"


def elo_standings(category: Category, as_of: date | None, participants: set[int] | None = None) -> dict[int, Standing]:
    """Each participant's last history entry up to `as_of` (of `participants` only, when given)."""
    entries = RatingEntry.objects.filter(category=category)
    if as_of is not None:
        entries = entries.filter(event_date__lte=as_of)
    last_seq = entries.aggregate(last=Max("seq"))["last"]
    if last_seq is None:
        return {}
    table = RatingEntry._meta.db_table
    chunks = [None] if participants is None else chunked(sorted(participants), 5000)
    threshold = category.ranked_after
    suspended = suspended_participants(on=as_of or timezone.localdate())
    standings = {}
    with connection.cursor() as cursor:
        for chunk in chunks:
            only = "" if chunk is None else f"AND participant_id IN ({', '.join(['%s'] * len(chunk))})"
            cursor.execute(
                f"""
                SELECT e.participant_id, e.rating_after, e.matches, e.event_date
                FROM {table} e
                JOIN (
                    SELECT participant_id, MAX(seq) AS seq FROM {table}
                    WHERE category_id = %s AND seq <= %s {only} GROUP BY participant_id
                ) last ON e.participant_id = last.participant_id AND e.seq = last.seq
                WHERE e.category_id = %s
                """,
                [category.pk, last_seq, *(chunk or []), category.pk],
            )
            for participant, rating, matches, day in cursor.fetchall():
                ranked = matches >= threshold and participant not in suspended
                standings[participant] = Standing(participant, rating, matches, ranked, _as_date(day))
    return standings


def _as_date(value) -> date:
    return value if isinstance(value, date) else date.fromisoformat(value)


def vekn_standings(category: Category, as_of: date | None, participants: set[int] | None = None) -> dict[int, Standing]:
    """Each participant's V:EKN points on `as_of` (default: today) from their event scores (of `participants`
    only, when given)."""
    # Unordered: the model's order would sort every score, for nothing here.
    scores = EventScore.objects.filter(category=category).order_by()
    if as_of is None:
        as_of = timezone.localdate()  # points age out of the window, so "now" is today
    by_participant: dict[int, list[tuple[date, float]]] = {}
    for chunk in [None] if participants is None else chunked(sorted(participants), 5000):
        chosen = scores if chunk is None else scores.filter(any_of("participant_id", chunk))
        for participant, day, points in chosen.filter(event_date__lte=as_of).values_list(
            "participant_id", "event_date", "points"
        ):
            by_participant.setdefault(participant, []).append((day, points))
    window, best_of = category.window_months or 18, category.best_of or 8
    inactivity = category.inactivity_months
    suspended = suspended_participants(on=as_of)
    standings = {}
    for participant, events in by_participant.items():
        rating = vekn_rating(events, on=as_of, window_months=window, best_of=best_of)
        active = inactivity is None or vekn_is_active(
            (day for day, _ in events), on=as_of, inactivity_months=inactivity
        )
        ranked = active and len(events) >= category.ranked_after and participant not in suspended
        standings[participant] = Standing(participant, rating, len(events), ranked, max(day for day, _ in events))
    return standings


def derived_standing(category: Category, participant: int, parts: list[Standing], components: int) -> Standing:
    """A derived rating (SPEC 3.1, composite) from the participant's standings in those of the `components`
    lists they have: the mean of the component ratings, the start rating for a missing one; ranked when ranked
    in any."""
    rating = (sum(part.rating for part in parts) + (components - len(parts)) * category.start_rating) / components
    last_played = max((part.last_played for part in parts if part.last_played), default=None)
    matches, ranked = sum(part.matches for part in parts), any(part.ranked for part in parts)
    return Standing(participant, rating, matches, ranked, last_played)


def _derived_standings(category: Category, as_of: date | None) -> dict[int, Standing]:
    components = [
        category_standings(category=component, as_of=as_of)
        for component in Category.objects.filter(slug__in=category.component_list)
    ]
    participants = set().union(*components) if components else set()
    return {
        participant: derived_standing(
            category, participant, [found[participant] for found in components if participant in found], len(components)
        )
        for participant in participants
    }


def category_standings(*, category: Category, as_of: date | None = None) -> dict[int, Standing]:
    """participant id -> Standing for everyone with a rating in `category` on `as_of` (default: now)."""
    if category.ruleset == Ruleset.DERIVED:
        return _derived_standings(category, as_of)
    if category.ruleset == Ruleset.VEKN:
        return vekn_standings(category, as_of)
    return elo_standings(category, as_of)


def list_built_on(category: Category) -> date | None:
    """The day today's list of `category` was built; None when it has no rows.

    A rebuild writes the whole list at once, so one row tells the age of all: one read along the list's
    index (in the model's order, with its join to the categories, it sorted the whole list: 30-50 ms at
    100,000 players, paid by every correction).
    """
    return (
        CurrentRating.objects.filter(category=category)
        .order_by("ranked", "-rating")
        .values_list("built_on", flat=True)
        .first()
    )


# Participants past this share of a table's rows are read as the whole table, the caller keeping theirs: at ten
# million matches today's list of 474,000 rows takes 0.28-0.36 s whole, and by ids 2.1-2.7 µs an id (60,000 ids:
# 140 ms; 150,000: 317 ms). Without the table's statistics (SQLite, a table never analyzed), past a number.
WHOLE_TABLE_SHARE = 0.3
WHOLE_TABLE_ABOVE = 20_000


def _read_for(rows: QuerySet, wanted: set[int], *, table: str) -> QuerySet:
    """`rows` (of `table`) to read for the participants `wanted`, the caller keeping only theirs: by their ids
    (one array however many), or the whole table when they are most of it; in no order.

    Not in the model's order: read through a server-side cursor (iterator()), PostgreSQL plans for the first
    rows and walked the players' name index over all million players to keep 5,000 (0.7 s; 25 ms unordered),
    twice in each correction at ten million matches."""
    rows = rows.order_by()
    size = estimated_rows(table)
    if len(wanted) > (WHOLE_TABLE_SHARE * size if size else WHOLE_TABLE_ABOVE):
        return rows
    return rows.filter(any_of("participant_id", wanted))


def current_ratings(category: Category, participants) -> dict[int, float]:
    """participant id -> their rating in today's list (their last history row's), for those of `participants`
    rated in the category."""
    wanted = set(participants)
    if not wanted:
        return {}
    listed = CurrentRating.objects.filter(category=category)
    rows = _read_for(listed, wanted, table=partition_name(CurrentRating, category.pk))
    return {
        participant: rating
        for participant, rating in rows.values_list("participant_id", "rating")
        if participant in wanted
    }


def participant_identities(category: Category, participants) -> dict[int, tuple[str, str, str, str]]:
    """participant id -> (id shown, name, country, region)."""
    wanted = set(participants)
    found = {}
    if not wanted:
        return found
    if category.team_size > 1:
        for team in _read_for(Team.objects.all(), wanted, table=Team._meta.db_table):
            if team.participant_id in wanted:
                found[team.participant_id] = (team.member_key.replace(" ", "+"), str(team), "", "")
        return found
    players = _read_for(Player.objects.all(), wanted, table=Player._meta.db_table)
    for participant, number, name, country, region in players.values_list(
        "participant_id", "membership_number", "name", "country", "region"
    ).iterator(chunk_size=10_000):
        if participant in wanted:
            found[participant] = (number, name, country, region)
    return found


def ranking_rows(*, category: Category, as_of: date | None = None) -> list[RankingRow]:
    """Everyone rated in the category on `as_of`, with their ranks at every level, best first."""
    return ranking_rows_from(category, category_standings(category=category, as_of=as_of))


def ranking_rows_from(category: Category, standings: dict[int, Standing], identities=None) -> list[RankingRow]:
    """Ranked rows for standings already known (a recompute has them in memory)."""
    if identities is None:
        identities = participant_identities(category, standings)
    rows = []
    for participant, standing in standings.items():
        number, name, country, region = identities.get(participant, (str(participant), "", "", ""))
        rows.append(
            RankingRow(
                None, participant, number, name, country, region, standing.rating, standing.matches,
                standing.ranked, geography.continent_of(country), standing.last_played,
            )
        )  # fmt: skip
    rank_levels(rows)
    rows.sort(key=lambda row: (not row.ranked, -row.rating, row.name, row.player_id))
    return rows


LEVEL_RANK = {"world": "world_rank", "continent": "continent_rank", "country": "country_rank", "region": "region_rank"}


def ranking_list(
    *,
    category: Category,
    as_of: date | None = None,
    continent: str = "",
    country: str = "",
    region: str = "",
) -> list[RankingRow]:
    """Everyone rated in the category at one level: ranked first (ties share a rank), then the unranked."""
    level = "region" if region else "country" if country else "continent" if continent else "world"
    rows = []
    for row in ranking_rows(category=category, as_of=as_of):
        if (region and row.region != region) or (country and row.country != country):
            continue
        if continent and row.continent != continent:
            continue
        row.rank = getattr(row, LEVEL_RANK[level])
        rows.append(row)
    return rows
