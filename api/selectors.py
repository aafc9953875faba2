"""Reads behind the API: each runs a fixed number of queries, however long the page.

Ranking lists are read through the site's one read path
(`ratings.selectors.rankings`), with the same filters checked the same way
(`ratings.selectors.ranking_filters`) as the ranking pages and their
exports: the same rows, ranks, searches and refusals. Player search is
`players.selectors.player_matches`, as on the players page (its `near`: names like the query).
"""

import datetime
from dataclasses import dataclass

from django.db.models import QuerySet
from django.utils import timezone

from events.models import Event, EventStatus, Match, Standing
from events.selectors import rows_per_event
from players.links import NamedParticipant
from players.models import Player
from players.selectors import participant_names
from ratings.models import Category, CurrentRating, RatingEntry, Ruleset, SnapshotRating
from ratings.selectors.ranking_filters import RankingFilters, RankingFiltersInvalid, ranking_filters
from ratings.selectors.rankings import ranking_page_rows

PUBLIC_EVENT_STATUSES = (EventStatus.SUBMITTED, EventStatus.RATED)  # drafts are the organizer's, not the public's
HISTORY_RULESETS = (Ruleset.DCI_2001, Ruleset.DCI_1997, Ruleset.MATCH_POINTS)  # rulesets rated match by match

PARTICIPANT_IDENTITY = ("player", "team")  # the reverse one-to-ones that name a participant


class NotFound(Exception):
    pass


class BadRequest(Exception):
    """A 400: `details` maps each parameter at fault to why (the message says it all in one)."""

    def __init__(self, message: str, parameter: str = "", *, details: dict[str, str] | None = None):
        super().__init__(message)
        self.details = details if details is not None else ({parameter: message} if parameter else {})


@dataclass(frozen=True, slots=True)
class RankingPage:
    as_of: datetime.date
    level: str
    count: int
    rows: list[CurrentRating | SnapshotRating]  # with `rank` at the level (ratings.selectors.rankings.ROW_FIELDS)
    near: bool  # searched, and found by names like the search: nobody in the list is called that


def category_get(*, slug: str) -> Category:
    category = Category.objects.filter(slug=slug).first()
    if category is None:
        raise NotFound(f"No rating category has the slug {slug!r}.")
    return category


def ranking_filters_of(
    *, continent: str, country: str, region: str, as_of: datetime.date | None, ranked: bool, q: str
) -> RankingFilters:
    """The ranking pages' filters for these parameters, or a BadRequest in the pages' words."""
    try:
        return ranking_filters(
            continent=continent, country=country, region=region, as_of=as_of, unranked=not ranked, search=q
        )
    except RankingFiltersInvalid as invalid:
        raise BadRequest(" ".join(invalid.errors.values()), details=invalid.errors) from None


def ranking_page(*, category: Category, filters: RankingFilters, limit: int, offset: int) -> RankingPage:
    """A page of the list, read as the ranking pages read theirs: by rank or position where the list allows.

    The rows carry no movement (the month before's list is neither read nor written).
    """
    rows = ranking_page_rows(category=category, filters=filters, with_movement=False)
    count = len(rows)
    page = rows[offset : offset + limit]
    return RankingPage(filters.as_of or timezone.localdate(), filters.level, count, page, rows.near and count > 0)


# Players ------------------------------------------------------------------


def player_get(*, membership_number: str) -> Player:
    player = Player.objects.public().filter(membership_number=membership_number).first()
    if player is None:
        raise NotFound(f"No player has the membership number {membership_number!r}.")
    return player


def player_current_ratings(*, player: Player) -> list[CurrentRating]:
    """Today's rating in every individual category the player is rated in, in category order."""
    categories = list(Category.objects.filter(team_size=1))
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


def events_match_counted(events: list[Event]) -> list[Event]:
    """`events` (read already), each given its `match_count`."""
    counts = rows_per_event(Match, event_ids=[event.pk for event in events])
    for event in events:
        event.match_count = counts.get(event.pk, 0)
    return events


def event_page(events: QuerySet, *, offset: int, limit: int) -> list[Event]:
    """Events `offset` to `offset + limit` of `events`, each with its `match_count`."""
    return events_match_counted(list(events[offset : offset + limit]))


def event_get(*, event_id: int) -> Event:
    found = events_match_counted(list(Event.objects.filter(pk=event_id, status__in=PUBLIC_EVENT_STATUSES)))
    if not found:
        raise NotFound(f"No published event has the id {event_id}.")
    return found[0]


def event_standings(*, event: Event) -> QuerySet:
    identities = [f"participant__{identity}" for identity in PARTICIPANT_IDENTITY]
    return Standing.objects.filter(event=event).select_related(*identities).order_by("rank", "id")


MATCH_ROW = ("id", "round", "participant1_id", "participant2_id", "games1", "games2", "draws", "elimination")


def event_matches(*, event: Event) -> tuple[list[tuple], dict[int, NamedParticipant]]:
    """The event's matches as MATCH_ROW tuples in round order, and each side that plays in them, read as plain
    values: the largest event's 3,745 matches read as models with their players and teams (seven models a
    match) took a third of its answer."""
    rows = list(Match.objects.filter(event=event).order_by("round", "id").values_list(*MATCH_ROW))
    sides = {row[2] for row in rows} | {row[3] for row in rows if row[3] is not None}
    return rows, participant_names(participant_ids=sides)
