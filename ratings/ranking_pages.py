"""Reads for the ranking pages (SPEC 4): today's lists from `CurrentRating`, past dates from the history.

Today's list is what nearly every visitor asks for, so it is a plain queryset
over the precomputed ranks: filtered, ordered and paginated in the database,
a fixed number of queries whatever the size of the list. A past date is
computed from the history by `ranking_list` and cached whole; the cache key
holds the category's `history_version`, so a recompute retires it.
"""

import functools
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date, timedelta
from operator import itemgetter

from django.core.cache import cache
from django.db import connection
from django.db.models import F, Q, QuerySet
from django.utils import timezone
from django.utils.translation import get_language
from django_countries import countries
from django_countries.fields import Country

from players import geography
from ratings.models import Category, CurrentRating
from ratings.selectors import ranking_list
from ratings.services import current_ratings_refresh_if_stale

PAST_LIST_SECONDS = 60 * 60  # bounds how long renamed players keep their old names in cached lists


@dataclass(frozen=True)
class RankingFilters:
    """What a ranking page shows, validated (`ratings.forms.RankingFiltersForm` builds it from the URL)."""

    continent: str = ""
    country: str = ""  # set whenever region is: a region implies its country
    region: str = ""
    as_of: date | None = None  # None: today
    unranked: bool = False
    search: str = ""

    @property
    def level(self) -> str:
        return "region" if self.region else "country" if self.country else "continent" if self.continent else "world"

    @property
    def place(self) -> str:
        """The code of the level's place ('' for the world)."""
        return getattr(self, self.level) if self.level != "world" else ""

    def is_today(self, today: date) -> bool:
        return self.as_of is None or self.as_of >= today


@dataclass(slots=True)
class ListedRow:
    """A row of a past date's list, with the attribute names of `CurrentRating` so one table shows both."""

    rank: int | None
    previous_rank: int | None
    participant_id: int
    display_id: str
    name: str
    country: str
    region: str
    rating: float
    matches: int
    ranked: bool
    provisional: bool


# Today's list -------------------------------------------------------------------------------------------


def current_ranking_queryset(*, category: Category, filters: RankingFilters) -> QuerySet[CurrentRating]:
    """Today's list at the filters' level, best first, with `rank` and `previous_rank` at that level.

    Ordered by rating rather than by rank: the order is the same (ranks follow
    ratings) and it is the order of the level's index, so a page is read
    without sorting the whole list.
    """
    _refresh_if_stale(category)
    level = filters.level
    rows = CurrentRating.objects.filter(category=category, ranked=not filters.unranked)
    if level != "world":
        rows = rows.filter(**{level: filters.place})
    if filters.search:
        rows = rows.filter(_search_condition(category, filters.search))
    return rows.annotate(rank=F(f"{level}_rank"), previous_rank=F(f"previous_{level}_rank")).order_by(
        "-rating", "name", "display_id"
    )


def _refresh_if_stale(category: Category) -> None:
    """Rebuild a list built before today, judging by one row read through the list's index.

    A rebuild writes the whole list with one date, so one row tells it; the
    service's own check reads every row (30 ms at 100,000 players), on every page.
    """
    built_on = (
        CurrentRating.objects.filter(category=category)
        .order_by("ranked", "-rating")
        .values_list("built_on", flat=True)
        .first()
    )
    if built_on is not None and built_on != timezone.localdate():
        current_ratings_refresh_if_stale(category=category)


def _search_condition(category: Category, text: str) -> Q:
    # A team's id is its members' numbers joined by "+": any member's number finds it.
    number = Q(display_id__icontains=text) if category.team_size > 1 else Q(display_id__istartswith=text)
    return Q(name__icontains=text) | number


# Past dates -----------------------------------------------------------------------------------------------


def end_of_previous_month(day: date) -> date:
    return day.replace(day=1) - timedelta(days=1)


def _list_key(kind: str, category: Category, as_of: date, filters: RankingFilters) -> str:
    return f"{kind}:{category.pk}:{category.history_version}:{as_of.isoformat()}:{filters.level}:{filters.place}"


def _cached_ranking_list(category: Category, as_of: date, filters: RankingFilters) -> list[tuple]:
    """ranking_list() for a past date as compact tuples (LISTED_FIELDS), cached until the category is recomputed."""
    key = _list_key("ranking-list", category, as_of, filters)
    rows = cache.get(key)
    if rows is None:
        level, place = filters.level, filters.place
        at_level = {level: place} if place else {}
        rows = [
            (row.rank, row.participant, row.player_id, row.name, row.country, row.region, row.rating, row.matches,
             row.ranked)
            for row in ranking_list(category=category, as_of=as_of, **at_level)
        ]  # fmt: skip
        cache.set(key, rows, PAST_LIST_SECONDS)
    return rows


def _cached_ranks(category: Category, as_of: date, filters: RankingFilters) -> dict[int, int]:
    """participant -> rank in the list of a past date, for the movement column: a dict reads back from the
    cache far faster than the whole list."""
    key = _list_key("ranking-ranks", category, as_of, filters)
    ranks = cache.get(key)
    if ranks is None:
        ranks = {row[1]: row[0] for row in _cached_ranking_list(category, as_of, filters) if row[0]}
        cache.set(key, ranks, PAST_LIST_SECONDS)
    return ranks


# Where each field is in the cached tuples, by the names of ListedRow (and of CurrentRating).
LISTED_FIELDS = {
    name: index
    for index, name in enumerate(
        ("rank", "participant_id", "display_id", "name", "country", "region", "rating", "matches", "ranked")
    )
}


class PastList:
    """A past date's list, filtered: the cached tuples, made ListedRows only when read (a page at a time).

    Making a ListedRow of each of the list's rows on every request cost more
    than showing the page; sorting sorts the tuples.
    """

    def __init__(self, rows: list[tuple], *, previous: dict[int, int], provisional_until: int):
        self._rows = rows
        self._previous = previous
        self._provisional_until = provisional_until

    def _listed(self, row: tuple) -> ListedRow:
        rank, participant, player_id, name, country, region, rating, matches, ranked = row
        return ListedRow(
            rank, self._previous.get(participant), participant, player_id, name, country, region, rating, matches,
            ranked, matches < self._provisional_until,
        )  # fmt: skip

    def __len__(self) -> int:
        return len(self._rows)

    def __getitem__(self, key: int | slice) -> ListedRow | list[ListedRow]:
        if isinstance(key, slice):
            return [self._listed(row) for row in self._rows[key]]
        return self._listed(self._rows[key])

    def __iter__(self) -> Iterator[ListedRow]:
        return map(self._listed, self._rows)

    def sort_by(self, field: str, *, descending: bool = False) -> None:
        """A stable sort by one field of ListedRow: sort by the least significant key first."""
        self._rows.sort(key=itemgetter(LISTED_FIELDS[field]), reverse=descending)


def past_ranking_rows(*, category: Category, filters: RankingFilters) -> PastList:
    """The list on `filters.as_of` (a past date), with movement since the end of the month before it."""
    as_of = filters.as_of
    wanted = not filters.unranked
    rows = [row for row in _cached_ranking_list(category, as_of, filters) if row[8] == wanted]
    if filters.search:
        text = filters.search.casefold()
        rows = [row for row in rows if _matches_search(category, text, row[3], row[2])]
    previous = _cached_ranks(category, end_of_previous_month(as_of), filters)
    return PastList(rows, previous=previous, provisional_until=category.provisional_until)


def _matches_search(category: Category, text: str, name: str, player_id: str) -> bool:
    number = player_id.casefold()
    return text in name.casefold() or (text in number if category.team_size > 1 else number.startswith(text))


# Either ----------------------------------------------------------------------------------------------------


def ranking_page_rows(*, category: Category, filters: RankingFilters) -> QuerySet[CurrentRating] | PastList:
    """The rows of the list the filters ask for, best first: a queryset for today, a list for a past date."""
    if filters.is_today(timezone.localdate()):
        return current_ranking_queryset(category=category, filters=filters)
    return past_ranking_rows(category=category, filters=filters)


EXPORT_COLUMNS = ("rank", "player_id", "name", "country", "region", "rating", "matches", "ranked")


def ranking_export_rows(*, category: Category, filters: RankingFilters) -> Iterator[tuple]:
    """The whole filtered list as tuples in EXPORT_COLUMNS order (streamed from the database for today)."""
    rows = ranking_page_rows(category=category, filters=filters)
    if isinstance(rows, QuerySet):
        return rows.values_list(
            "rank", "display_id", "name", "country", "region", "rating", "matches", "ranked"
        ).iterator(chunk_size=2000)
    return (
        (row.rank, row.display_id, row.name, row.country, row.region, row.rating, row.matches, row.ranked)
        for row in rows
    )


# Leaders and places -----------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Leader:
    category_id: int
    rank: int
    participant_id: int
    display_id: str
    name: str
    country: str
    rating: float
    provisional: bool
    is_team: bool = False

    @property
    def url(self) -> str:
        return f"/teams/{self.participant_id}/" if self.is_team else f"/players/{self.display_id}/"

    @property
    def flag(self) -> str:
        return flag_url(self.country)

    @property
    def country_name(self) -> str:
        return country_name(self.country)


_LEADER_FIELDS = ("category_id", "world_rank", "participant_id", "display_id", "name", "country", "rating",
                  "provisional", "built_on")  # fmt: skip


def category_leaders(*, categories: list[Category], limit: int) -> dict[int, list[Leader]]:
    """category id -> its `limit` best ranked participants today, for all categories in one query.

    One index-ordered LIMIT per category joined with UNION ALL, so each
    category costs a few index reads however long its list. A list built
    before today is rebuilt first (the rows say when they were built).
    """
    if not categories:
        return {}
    rows = _leader_rows(categories, limit)
    today = timezone.localdate()
    stale = {category_id for category_id, *_, built_on in rows if built_on != today}
    if stale:
        for category in categories:
            if category.pk in stale:
                current_ratings_refresh_if_stale(category=category)
        rows = _leader_rows(categories, limit)
    teams = {category.pk for category in categories if category.team_size > 1}
    leaders: dict[int, list[Leader]] = {category.pk: [] for category in categories}
    for *fields, _built_on in rows:
        leaders[fields[0]].append(Leader(*fields, is_team=fields[0] in teams))
    for members in leaders.values():
        members.sort(key=lambda leader: (leader.rank, leader.name, leader.display_id))
    return leaders


def _leader_rows(categories: list[Category], limit: int) -> list[tuple]:
    parts, params = [], []
    for number, category in enumerate(categories):
        best = (
            CurrentRating.objects.filter(category=category, ranked=True)
            .order_by("-rating", "name", "display_id")
            .values_list(*_LEADER_FIELDS)[:limit]
        )
        sql, part_params = best.query.sql_with_params()
        # Wrapped: SQLite refuses ORDER BY and LIMIT directly inside a UNION.
        parts.append(f"SELECT * FROM ({sql}) AS leaders_{number}")
        params.extend(part_params)
    with connection.cursor() as cursor:
        cursor.execute(" UNION ALL ".join(parts), params)
        return [(*row[:-1], _as_date(row[-1])) for row in cursor.fetchall()]


def _as_date(value) -> date | None:
    return date.fromisoformat(value) if isinstance(value, str) else value


@dataclass(frozen=True)
class Places:
    """The continents, countries and regions that occur in a category's list, for the level chooser."""

    continents: list[tuple[str, str]]  # (code, name)
    countries: list[tuple[str, list[tuple[str, str]]]]  # (continent name, [(code, name)])
    regions: dict[str, list[tuple[str, str]]]  # country code -> [(code, name)]

    def __bool__(self) -> bool:
        return bool(self.continents)


def category_places(*, category: Category) -> Places:
    """Where the category's players come from (cached: it only changes when the list is rebuilt)."""
    key = f"ranking-places:{category.pk}:{category.history_version}:{timezone.localdate().isoformat()}"
    places = cache.get(key)
    if places is None:
        pairs = CurrentRating.objects.filter(category=category).values_list("country", "region").distinct()
        places = _places_from(set(pairs))
        cache.set(key, places, PAST_LIST_SECONDS)
    return places


def _places_from(pairs: set[tuple[str, str]]) -> Places:
    country_codes = {country for country, _ in pairs if country}
    by_continent: dict[str, list[tuple[str, str]]] = {}
    for code in country_codes:
        by_continent.setdefault(geography.continent_of(code), []).append((code, country_name(code)))
    continents = sorted(
        ((code, geography.CONTINENT_NAMES[code]) for code in by_continent if code), key=lambda item: item[1]
    )
    grouped = [
        (name, sorted(by_continent[code], key=lambda item: item[1]))
        for code, name in continents
    ]  # fmt: skip
    if "" in by_continent:
        grouped.append(("Elsewhere", sorted(by_continent[""], key=lambda item: item[1])))
    regions: dict[str, list[tuple[str, str]]] = {}
    for country, region in pairs:
        if country and region:
            regions.setdefault(country, []).append((region, geography.region_name(region)))
    for members in regions.values():
        members.sort(key=lambda item: item[1])
    return Places(continents, grouped, regions)


def country_name(code: str) -> str:
    return _country_name(code, get_language())


@functools.cache
def _country_name(code: str, language: str | None) -> str:
    """Cached by code and language: django-countries takes 50 µs a name, 100 times on a page of 50 players."""
    # django-countries leaves out Kosovo, which players may still give (a user-assigned code).
    return countries.name(code) or {"XK": "Kosovo"}.get(code, code)


@functools.cache
def flag_url(code: str) -> str:
    return Country(code).flag


def place_name(filters: RankingFilters) -> str:
    """'World', 'Europe', 'Germany', 'Bavaria, Germany'."""
    if filters.region:
        return f"{geography.region_name(filters.region)}, {country_name(filters.country)}"
    if filters.country:
        return country_name(filters.country)
    if filters.continent:
        return geography.CONTINENT_NAMES[filters.continent]
    return "World"
