"""Reads of the ratings app: ratings as of any date, and ranked lists at every level (SPEC 3, 4)."""

from dataclasses import dataclass
from datetime import date

from django.db import connection
from django.db.models import Max
from django.utils import timezone

from players import geography
from players.models import Player, Team
from ratings.engine import competition_ranks, vekn_is_active, vekn_rating
from ratings.models import Category, EventScore, RatingEntry, Ruleset


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


def rank_levels(rows: list[RankingRow]) -> None:
    """Give every ranked row its world, continent, country and region rank (ties share a rank)."""
    ranked = sorted((row for row in rows if row.ranked), key=lambda row: -row.rating)
    for field, key in (
        ("world_rank", lambda row: ""),
        ("continent_rank", lambda row: row.continent),
        ("country_rank", lambda row: row.country),
        ("region_rank", lambda row: row.region),
    ):
        groups: dict[str, list[RankingRow]] = {}
        for row in ranked:
            group = key(row)
            if group or field == "world_rank":
                groups.setdefault(group, []).append(row)
        for members in groups.values():
            for row, rank in zip(members, competition_ranks([row.rating for row in members]), strict=True):
                setattr(row, field, rank)


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
                standings[participant] = Standing(participant, rating, matches, matches >= threshold, _as_date(day))
    return standings


def chunked(items: list, size: int) -> list[list]:
    return [items[start : start + size] for start in range(0, len(items), size)]


def _as_date(value) -> date:
    return value if isinstance(value, date) else date.fromisoformat(value)


def _vekn_standings(category: Category, as_of: date | None) -> dict[int, Standing]:
    scores = EventScore.objects.filter(category=category)
    if as_of is None:
        as_of = timezone.localdate()  # points age out of the window, so "now" is today
    by_participant: dict[int, list[tuple[date, float]]] = {}
    for participant, day, points in scores.filter(event_date__lte=as_of).values_list(
        "participant_id", "event_date", "points"
    ):
        by_participant.setdefault(participant, []).append((day, points))
    window, best_of = category.window_months or 18, category.best_of or 8
    inactivity = category.inactivity_months
    standings = {}
    for participant, events in by_participant.items():
        rating = vekn_rating(events, on=as_of, window_months=window, best_of=best_of)
        active = inactivity is None or vekn_is_active(
            (day for day, _ in events), on=as_of, inactivity_months=inactivity
        )
        ranked = active and len(events) >= category.ranked_after
        standings[participant] = Standing(participant, rating, len(events), ranked, max(day for day, _ in events))
    return standings


def _derived_standings(category: Category, as_of: date | None) -> dict[int, Standing]:
    """The mean of the component ratings (the start rating for a missing one); ranked when ranked in any."""
    components = [
        category_standings(category=component, as_of=as_of)
        for component in Category.objects.filter(slug__in=category.component_list)
    ]
    participants = set().union(*components) if components else set()
    standings = {}
    for participant in participants:
        parts = [component.get(participant) for component in components]
        rating = sum(part.rating if part else category.start_rating for part in parts) / len(parts)
        matches = sum(part.matches for part in parts if part)
        ranked = any(part.ranked for part in parts if part)
        last_played = max((part.last_played for part in parts if part and part.last_played), default=None)
        standings[participant] = Standing(participant, rating, matches, ranked, last_played)
    return standings


def category_standings(*, category: Category, as_of: date | None = None) -> dict[int, Standing]:
    """participant id -> Standing for everyone with a rating in `category` on `as_of` (default: now)."""
    if category.ruleset == Ruleset.DERIVED:
        return _derived_standings(category, as_of)
    if category.ruleset == Ruleset.VEKN:
        return _vekn_standings(category, as_of)
    return elo_standings(category, as_of)


WHOLE_TABLE_ABOVE = 20_000


def participant_identities(category: Category, participants) -> dict[int, tuple[str, str, str, str]]:
    """participant id -> (id shown, name, country, region)."""
    wanted = set(participants)
    found = {}
    # A whole list's worth is read as the whole table: 100,000 ids spelled
    # out in IN clauses cost more to send and parse than the rows they select.
    chunks = [None] if len(wanted) > WHOLE_TABLE_ABOVE else chunked(sorted(wanted), 10_000)
    for chunk in chunks:
        if category.team_size > 1:
            teams = Team.objects.all() if chunk is None else Team.objects.filter(participant_id__in=chunk)
            for team in teams:
                if team.participant_id in wanted:
                    found[team.participant_id] = (team.member_key.replace(" ", "+"), str(team), "", "")
        else:
            players = Player.objects.all() if chunk is None else Player.objects.filter(participant_id__in=chunk)
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
