"""What the API reads (query parameters) and returns (JSON bodies); the OpenAPI document is generated from these."""

import builtins
import datetime
from typing import Annotated, Literal

from ninja import Field, Path, Schema
from pydantic import BaseModel, field_validator

DEFAULT_LIMIT = 50
MAX_LIMIT = 500
MAX_OFFSET = 1_000_000_000

Level = Literal["world", "continent", "country", "region"]
ListKind = Literal["ranked", "unranked"]


class Body(BaseModel):
    """A response body (or a part of one), validated from the plain dicts api.serializers builds: by pydantic
    itself, not through ninja's Schema, which wraps every nested object to read it as a model would be read
    (70 % of the largest event's answer, 3,745 matches)."""


# Errors -----------------------------------------------------------------


class ErrorDetail(Body):
    parameter: str = Field(description="The query or path parameter at fault.")
    message: str


class Error(Body):
    """Every error has this shape, whatever the status."""

    status: int = Field(examples=[404])
    error: str = Field(description="`bad_request`, `not_found`, ...", examples=["not_found"])
    message: str = Field(examples=["No player has the membership number 42."])
    details: builtins.list[ErrorDetail] = Field(default_factory=builtins.list)


# Path and query parameters ------------------------------------------------

CategorySlug = Annotated[str, Path(description="The category's slug, e.g. `constructed`.")]
MembershipNumber = Annotated[str, Path(description="The player's membership number (the DCI number).")]
EventId = Annotated[int, Path(description="The event's `id`, as in the event list.")]


def _blank_is_none(value):
    """An HTML form sends an empty field as `name=`: read that as "not given"."""
    return None if value == "" else value


class PageParams(Schema):
    limit: int = Field(DEFAULT_LIMIT, ge=1, le=MAX_LIMIT, description=f"Rows per page, 1 to {MAX_LIMIT}.")
    # Bounded so that it fits the database's integers (2^63 and more were a server error); no list is longer.
    offset: int = Field(0, ge=0, le=MAX_OFFSET, description=f"Rows to skip, 0 to {MAX_OFFSET:,}.")


class SearchParams(PageParams):
    q: str = Field("", max_length=100, description="Part of a name, or the start of a membership number.")


class RankingParams(SearchParams):
    # Parsed here; the places and the date are then checked as the ranking pages check theirs
    # (ratings.selectors.ranking_filters), so both refuse the same lists in the same words.
    q: str = Field(
        "", max_length=100, description="Part of a name, or the start of a membership number (a team: any member's)."
    )
    continent: str = Field("", description="Continent code: AF, AN, AS, EU, NA, OC or SA.")
    country: str = Field("", description="ISO 3166-1 alpha-2 country code, e.g. `DE`.")
    region: str = Field("", description="ISO 3166-2 region code, e.g. `DE-BY`.")
    as_of: datetime.date | None = Field(None, description="A past date (YYYY-MM-DD); today's list when left out.")
    list: ListKind = Field("ranked", description="The ranked list, or the players not ranked yet.")

    _as_of_blank = field_validator("as_of", mode="before")(_blank_is_none)

    @field_validator("continent", "country", "region", mode="before")
    @classmethod
    def _upper(cls, value):
        return value.strip().upper() if isinstance(value, str) else value


class HistoryParams(PageParams):
    category: str = Field(description="The category's slug, e.g. `constructed`.")


class EventParams(SearchParams):
    q: str = Field("", max_length=100, description="Part of the event's name.")
    format: str = Field("", max_length=40, description="Only events of this format, e.g. `standard`.")
    country: str = Field("", max_length=2, description="Only events held in this country (ISO 3166-1 alpha-2).")

    @field_validator("country", mode="before")
    @classmethod
    def _upper(cls, value):
        return value.strip().upper() if isinstance(value, str) else value


# Bodies -------------------------------------------------------------------


class Page(Body):
    """The envelope of every list: `results` holds this page's rows."""

    count: int = Field(description="Rows in the whole list, on every page.")
    limit: int
    offset: int
    next: str | None = Field(description="The next page's URL; null on the last page.")
    previous: str | None = Field(description="The previous page's URL; null on the first page.")


class CategoryRef(Body):
    slug: str
    name: str
    ruleset: str
    display_rounding: Literal["truncate", "round"]


class CategoryOut(CategoryRef):
    formats: builtins.list[str]
    components: builtins.list[str] = Field(description="Derived categories: the slugs averaged.")
    team_size: int
    start_rating: float
    ranked_after: int = Field(description="Rated matches (events for V:EKN) needed to be ranked.")
    provisional_until: int = Field(description="Matches rated provisionally (dci-1997); 0 for none.")
    rankings_url: str


class CategoryPage(Page):
    results: builtins.list[CategoryOut]


class Ranks(Body):
    """Rank among the ranked players at each level; null when unranked or the place is unknown."""

    world: int | None
    continent: int | None
    country: int | None
    region: int | None


class RankingRow(Body):
    rank: int | None = Field(description="At the level asked for; equal ratings share a rank (1, 2, 2, 4).")
    id: str = Field(description="Membership number; for a team its members' numbers joined by `+`.")
    name: str
    country: str
    continent: str
    region: str
    rating: float = Field(description="Unrounded.")
    rating_display: int = Field(description="As the category shows it (truncated or rounded).")
    matches: int = Field(description="Rated matches; events for V:EKN.")
    ranked: bool
    provisional: bool
    last_played: datetime.date | None
    ranks: Ranks
    player_url: str | None = Field(description="The player's API resource; null for a team.")


class RankingPage(Page):
    category: CategoryRef
    as_of: datetime.date = Field(description="The date the list is for.")
    level: Level = Field(description="The level of `rank`: the narrowest place filter given.")
    list: ListKind
    continent: str
    country: str
    region: str
    q: str
    near: bool = Field(description="`q` found nobody as written: the rows are those with names like it (a typo).")
    results: builtins.list[RankingRow]


class PlayerOut(Body):
    membership_number: str
    name: str
    country: str
    continent: str
    region: str
    url: str


class PlayerPage(Page):
    near: bool = Field(description="`q` found nobody as written: the players are those with names like it (a typo).")
    results: builtins.list[PlayerOut]


class PlayerRating(Body):
    category: CategoryRef
    rating: float
    rating_display: int
    matches: int
    ranked: bool
    provisional: bool
    last_played: datetime.date | None
    ranks: Ranks
    history_url: str | None = Field(description="The match history; null for rulesets without one (V:EKN, derived).")


class PlayerDetail(PlayerOut):
    ratings: builtins.list[PlayerRating] = Field(description="Today's rating in every category the player is in.")


class EventRef(Body):
    id: int
    name: str
    url: str


class Participant(Body):
    kind: Literal["player", "team"]
    id: str = Field(description="Membership number; for a team its members' numbers joined by `+`.")
    name: str
    url: str | None = Field(description="The player's API resource; null for a team.")


class HistoryEntry(Body):
    date: datetime.date
    event: EventRef
    round: int
    opponent: Participant
    opponent_rating: float = Field(description="The opponent's rating when the match was played.")
    result: Literal["win", "draw", "loss"]
    score: float = Field(description="S: 1, 0.5 (1/3 under match points) or 0.")
    expected: float = Field(description="We, the expected score.")
    k: float | None = Field(description="Null while the provisional formula sets the rating.")
    k_reason: str
    change: float
    rating_before: float
    rating_after: float
    provisional: bool


class HistoryPage(Page):
    player: PlayerOut
    category: CategoryRef
    results: builtins.list[HistoryEntry]


class EventOut(Body):
    id: int
    code: str | None = Field(description="The event's id in imported results bundles.")
    name: str
    date: datetime.date
    format: str
    team_size: int
    k: int
    player_count: int
    level2_judge: bool
    structure: str
    country: str
    city: str
    level: str = Field(description="V:EKN level: `national`, `continental-qualifier`, `continental` or empty.")
    status: Literal["submitted", "rated"]
    matches: int
    url: str


class EventPage(Page):
    results: builtins.list[EventOut]


class StandingOut(Body):
    rank: int
    participant: Participant
    vp: float
    gw: int
    final: Literal["winner", "finalist", ""]


class MatchOut(Body):
    id: int
    participant1: Participant
    participant2: Participant | None = Field(description="Null for a bye.")
    games1: int
    games2: int
    draws: int
    result: Literal["win", "loss", "draw", "bye"] = Field(description="Participant 1's result.")
    elimination: bool


class RoundOut(Body):
    round: int
    matches: builtins.list[MatchOut]


class EventDetail(EventOut):
    standings: builtins.list[StandingOut]
    rounds: builtins.list[RoundOut]
