"""Reads behind the API: each runs a fixed number of queries, however long the page.

Rankings read today's list from `CurrentRating` (kept ready by every
recompute) and a past date's list from its snapshot (`ratings.snapshots`,
written once per date and history version), as the site's ranking pages do,
so both give the same ranks.
"""

import datetime
from dataclasses import dataclass

from django.db.models import Count, Q, QuerySet
from django.utils import timezone

from events.models import Event, EventStatus, Match, Standing
from players.models import Player
from ratings.models import Category, CurrentRating, RatingEntry, Ruleset, SnapshotRating
from ratings.ranking_pages import as_of_refusal
from ratings.selectors.lists import LEVEL_RANK
from ratings.services import current_ratings_refresh_if_stale
from ratings.snapshots import ranking_snapshots

PUBLIC_EVENT_STATUSES = (EventStatus.SUBMITTED, EventStatus.RATED)  # drafts are the organizer's, not the public's
HISTORY_RULESETS = (Ruleset.DCI_2001, Ruleset.DCI_1997, Ruleset.MATCH_POINTS)  # rulesets rated match by match

PARTICIPANT_IDENTITY = ("player", "team")  # the reverse one-to-ones that name a participant


class NotFound(Exception):
    pass


class BadRequest(Exception):
    def __init__(self, message: str, parameter: str = ""):
        super().__init__(message)
        self.parameter = parameter


@dataclass(frozen=True, slots=True)
class ListedRating:
    """One row of a ranking list, whichever way it was read."""

    rank: int | None
    id: str
    name: str
    country: str
    continent: str
    region: str
    rating: float
    matches: int
    ranked: bool
    provisional: bool
    last_played: datetime.date | None
    world_rank: int | None
    continent_rank: int | None
    country_rank: int | None
    region_rank: int | None


@dataclass(frozen=True, slots=True)
class RankingPage:
    as_of: datetime.date
    level: str
    count: int
    rows: list[ListedRating]


def category_get(*, slug: str) -> Category:
    category = Category.objects.filter(slug=slug).first()
    if category is None:
        raise NotFound(f"No rating category has the slug {slug!r}.")
    return category


def level_of(*, continent: str = "", country: str = "", region: str = "") -> str:
    """The narrowest place asked for decides which rank a list shows (as in `ranking_list`)."""
    return "region" if region else "country" if country else "continent" if continent else "world"


def ranking_page(
    *,
    category: Category,
    as_of: datetime.date | None,
    continent: str,
    country: str,
    region: str,
    ranked: bool,
    q: str,
    limit: int,
    offset: int,
) -> RankingPage:
    today = timezone.localdate()
    refusal = as_of and as_of_refusal(as_of, today=today)
    if refusal:
        raise BadRequest(refusal, "as_of")
    level = level_of(continent=continent, country=country, region=region)
    if as_of is None or as_of == today:
        current_ratings_refresh_if_stale(category=category)
        rows = _place_filtered(CurrentRating.objects.filter(category=category), continent, country, region, ranked, q)
        rows = rows.order_by("-rating", "name", "display_id")
        as_of = today
    else:
        snapshot = ranking_snapshots(category=category, dates=[as_of])[as_of]
        rows = _place_filtered(SnapshotRating.objects.filter(snapshot=snapshot), continent, country, region, ranked, q)
        # A snapshot's positions count each list in the order the pages show (rating, name, number).
        rows = rows.order_by(f"{level}_position")
    count = rows.count()
    listed = [_listed(row, level) for row in rows[offset : offset + limit]]
    return RankingPage(as_of, level, count, listed)


def _place_filtered(rows: QuerySet, continent, country, region, ranked, q) -> QuerySet:
    rows = rows.filter(ranked=ranked)
    for field, value in (("continent", continent), ("country", country), ("region", region)):
        if value:
            rows = rows.filter(**{field: value})
    if q:
        rows = rows.filter(Q(name__icontains=q) | Q(display_id__istartswith=q))
    return rows


def _listed(row: CurrentRating | SnapshotRating, level: str) -> ListedRating:
    return ListedRating(
        getattr(row, LEVEL_RANK[level]), row.display_id, row.name, row.country, row.continent, row.region,
        row.rating, row.matches, row.ranked, row.provisional, row.last_played,
        row.world_rank, row.continent_rank, row.country_rank, row.region_rank,
    )  # fmt: skip


# Players ------------------------------------------------------------------


def player_search(*, q: str) -> QuerySet:
    players = Player.objects.public().order_by("name", "membership_number")
    if q:
        players = players.filter(Q(name__icontains=q) | Q(membership_number__istartswith=q))
    return players


def player_get(*, membership_number: str) -> Player:
    player = Player.objects.public().filter(membership_number=membership_number).first()
    if player is None:
        raise NotFound(f"No player has the membership number {membership_number!r}.")
    return player


def player_current_ratings(*, player: Player) -> list[CurrentRating]:
    """Today's rating in every individual category the player is rated in, in category order."""
    categories = list(Category.objects.filter(team_size=1))
    stale = set(
        CurrentRating.objects.filter(category__in=categories)
        .exclude(built_on=timezone.localdate())
        .values_list("category_id", flat=True)
        .distinct()
    )
    for category in categories:
        if category.pk in stale:  # one query to find them rather than one per category
            current_ratings_refresh_if_stale(category=category)
    rows = CurrentRating.objects.filter(category__in=categories, participant_id=player.participant_id)
    by_category = {row.category_id: row for row in rows}
    ratings = []
    for category in categories:  # already in menu order
        row = by_category.get(category.pk)
        if row is not None:
            row.category = category  # spare a query per row
            ratings.append(row)
    return ratings


def player_history(*, player: Player, category: Category) -> QuerySet:
    """The player's rated matches in the category, newest first."""
    if category.ruleset not in HISTORY_RULESETS:
        raise BadRequest(
            f"The {category.slug} category ({category.get_ruleset_display()}) is not rated match by match, "
            "so it has no match history.",
            "category",
        )
    return (
        RatingEntry.objects.filter(category=category, participant_id=player.participant_id)
        .select_related("event", *(f"opponent__{identity}" for identity in PARTICIPANT_IDENTITY))
        .order_by("-seq")
    )


# Events -------------------------------------------------------------------


def event_search(*, q: str = "", format: str = "", country: str = "") -> QuerySet:
    events = Event.objects.filter(status__in=PUBLIC_EVENT_STATUSES)
    if q:
        events = events.filter(name__icontains=q)
    if format:
        events = events.filter(format=format)
    if country:
        events = events.filter(country=country)
    return events.order_by("-date", "-id")


def event_with_match_counts(events: QuerySet) -> QuerySet:
    return events.annotate(match_count=Count("matches"))


def event_get(*, event_id: int) -> Event:
    event = event_with_match_counts(Event.objects.filter(pk=event_id, status__in=PUBLIC_EVENT_STATUSES)).first()
    if event is None:
        raise NotFound(f"No published event has the id {event_id}.")
    return event


def event_standings(*, event: Event) -> QuerySet:
    identities = [f"participant__{identity}" for identity in PARTICIPANT_IDENTITY]
    return Standing.objects.filter(event=event).select_related(*identities).order_by("rank", "id")


def event_matches(*, event: Event) -> QuerySet:
    identities = [
        f"{side}__{identity}" for side in ("participant1", "participant2") for identity in PARTICIPANT_IDENTITY
    ]
    return Match.objects.filter(event=event).select_related(*identities).order_by("round", "id")
