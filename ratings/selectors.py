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


@dataclass(slots=True)
class RankingRow:
    rank: int | None
    participant: int
    player_id: str  # membership number; for a team, its members' numbers
    name: str
    country: str
    region: str
    rating: float
    matches: int
    ranked: bool


def _elo_standings(category: Category, as_of: date | None) -> dict[int, Standing]:
    """Each participant's last history entry up to `as_of`, in one grouped query."""
    entries = RatingEntry.objects.filter(category=category)
    if as_of is not None:
        entries = entries.filter(event_date__lte=as_of)
    last_seq = entries.aggregate(last=Max("seq"))["last"]
    if last_seq is None:
        return {}
    table = RatingEntry._meta.db_table
    sql = f"""
        SELECT e.participant_id, e.rating_after, e.matches
        FROM {table} e
        JOIN (
            SELECT participant_id, MAX(seq) AS seq FROM {table}
            WHERE category_id = %s AND seq <= %s GROUP BY participant_id
        ) last ON e.participant_id = last.participant_id AND e.seq = last.seq
        WHERE e.category_id = %s
    """
    threshold = category.ranked_after
    with connection.cursor() as cursor:
        cursor.execute(sql, [category.pk, last_seq, category.pk])
        return {
            participant: Standing(participant, rating, matches, matches >= threshold)
            for participant, rating, matches in cursor.fetchall()
        }


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
        standings[participant] = Standing(participant, rating, len(events), ranked)
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
        standings[participant] = Standing(participant, rating, matches, ranked)
    return standings


def category_standings(*, category: Category, as_of: date | None = None) -> dict[int, Standing]:
    """participant id -> Standing for everyone with a rating in `category` on `as_of` (default: now)."""
    if category.ruleset == Ruleset.DERIVED:
        return _derived_standings(category, as_of)
    if category.ruleset == Ruleset.VEKN:
        return _vekn_standings(category, as_of)
    return _elo_standings(category, as_of)


def _identities(category: Category, participants) -> dict[int, tuple[str, str, str, str]]:
    """participant id -> (id shown, name, country, region)."""
    ids = list(participants)
    found = {}
    for start in range(0, len(ids), 10_000):
        chunk = ids[start : start + 10_000]
        if category.team_size > 1:
            for team in Team.objects.filter(participant_id__in=chunk):
                found[team.participant_id] = (team.member_key.replace(" ", "+"), str(team), "", "")
        else:
            for participant, number, name, country, region in Player.objects.filter(
                participant_id__in=chunk
            ).values_list("participant_id", "membership_number", "name", "country", "region"):
                found[participant] = (number, name, country, region)
    return found


def ranking_list(
    *,
    category: Category,
    as_of: date | None = None,
    continent: str = "",
    country: str = "",
    region: str = "",
) -> list[RankingRow]:
    """Everyone rated in the category at one level: ranked first (ties share a rank), then the unranked."""
    standings = category_standings(category=category, as_of=as_of)
    identities = _identities(category, standings)
    rows = []
    countries = set(geography.countries_in(continent)) if continent else None
    for participant, standing in standings.items():
        number, name, player_country, player_region = identities.get(participant, (str(participant), "", "", ""))
        if country and player_country != country:
            continue
        if region and player_region != region:
            continue
        if countries is not None and player_country not in countries:
            continue
        rows.append(
            RankingRow(None, participant, number, name, player_country, player_region, standing.rating,
                       standing.matches, standing.ranked)
        )  # fmt: skip
    rows.sort(key=lambda row: (not row.ranked, -row.rating, row.name, row.player_id))
    ranked = [row for row in rows if row.ranked]
    for row, rank in zip(ranked, competition_ranks([row.rating for row in ranked]), strict=True):
        row.rank = rank
    return rows
