"""Reads for the ranking pages (SPEC 4): today's lists from `CurrentRating`, past dates from snapshots.

Every list is read a page at a time, in a fixed number of queries whatever
the size of the list or the page asked for. A page of a list in its own order
(best first) is found by rank or position through an index rather than by
skipping rows: skipping to the last page of a list of 40,000 cost 80 ms. A
past date's list is written as rows the first time it is asked for
(`ratings.snapshots`) and read like today's.
"""

import functools
from dataclasses import dataclass
from datetime import date

from django.conf import settings
from django.core.cache import cache
from django.db import connection
from django.db.models import Count, F, Max, OuterRef, Q, QuerySet, Subquery
from django.utils import timezone
from django.utils.translation import get_language
from django_countries import countries
from django_countries.fields import Country

from lib.throttle import budget_spend
from players import geography
from ratings.models import Category, CurrentRank, CurrentRating, SnapshotRating
from ratings.services import current_ratings_refresh_if_stale
from ratings.snapshots import end_of_previous_month, ranking_snapshots, snapshot_dates_missing

PLACES_SECONDS = 60 * 60
LENGTH_SECONDS = 60 * 60
SEARCH_LISTED = 5000  # a past list's search names at most this many participants in its query


@dataclass(frozen=True)
class RankingFilters:
    """What a ranking page shows, validated (`public.ranking_forms.RankingFiltersForm` builds it from the URL)."""

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


# Reading a list a page at a time ------------------------------------------------------------------------

# A list's own order: ranks follow ratings, so this is rank order with ties by name and number.
BEST_FIRST = ("-rating", "name", "display_id")


class RankSeek:
    """A page of today's ranked list read by rank, through the narrow rows of CurrentRank.

    Equal ratings share a rank (1, 2, 2, 4), so exactly rank - 1 rows come
    before the first row of a rank. The row at position p (from 0) is in the
    tie group of the largest rank not above p + 1: a page starts at that rank
    and skips only the rest of its group, and no row of the page ranks below
    its last position. The list's length is its last rank plus the rows tied
    with it, less one. Each is a probe of the level's rank index, whatever the page.
    """

    def __init__(self, level: str, ranks: QuerySet):
        self.field = f"{level}_rank"
        self.ranks = ranks  # the list's CurrentRank rows: the category's, at the level's place
        self.order = (self.field, "name", "display_id")  # BEST_FIRST, as ranks and ties read

    def count(self, rows: QuerySet) -> int:
        last = self.ranks.order_by(f"-{self.field}").values(self.field)[:1]
        tied = self.ranks.filter(**{self.field: Subquery(last)})
        return tied.aggregate(length=Count("pk") + Max(self.field) - 1)["length"] or 0

    def page(self, rows: QuerySet, start: int, stop: int) -> list:
        field = self.field
        if start == 0:
            first = 1
        else:
            first = self.ranks.filter(**{f"{field}__lte": start + 1}).order_by(f"-{field}")
            first = first.values_list(field, flat=True).first()
            if first is None:
                return []
        skip = start - (first - 1)
        on_page = self.ranks.filter(**{f"{field}__gte": first, f"{field}__lte": stop}).values("participant_id")
        ordered = rows.filter(participant_id__in=on_page).order_by(*self.order)
        return list(ordered[skip : skip + stop - start])


class PositionSeek:
    """A page of a past date's list read by position (1, 2, 3, ... in the order shown, stored per level)."""

    def __init__(self, field: str):
        self.field = field
        self.order = (field,)  # BEST_FIRST, as the positions were counted

    def count(self, rows: QuerySet) -> int:
        return rows.aggregate(length=Max(self.field))["length"] or 0

    def page(self, rows: QuerySet, start: int, stop: int) -> list:
        return list(rows.filter(**{f"{self.field}__gt": start, f"{self.field}__lte": stop}).order_by(*self.order))


class ListRows:
    """One list's rows for the ranking table: counted and read a slice (a page) at a time.

    In the list's own order (BEST_FIRST) a page is read through `seek` when
    there is one. Sorted by another column, or searched, it is the plain
    queryset: counted, sorted and skipped to in the database, from whichever
    end of the list is nearer the page.
    """

    def __init__(
        self,
        rows: QuerySet,
        *,
        annotations: dict,
        seek: RankSeek | PositionSeek | None,
        length_key: str | None = None,
        few: bool = False,
    ):
        self._rows = rows  # filtered, unordered
        self._annotations = annotations  # rank and previous_rank at the list's level
        self._seek = seek
        self._length_key = length_key  # where the length is cached, when counting costs a scan
        self._few = few  # a few thousand rows at most: their keys are read once, in order, then a page by key
        self._keys: list | None = None
        self.ordering: tuple[str, ...] = BEST_FIRST
        self._length: int | None = None

    def order_by(self, *fields: str) -> None:
        """Sort by `fields` (model field names, '-' for descending); the pages read from then on follow it."""
        self.ordering = tuple(fields)
        self._keys = None

    @property
    def _seeking(self) -> bool:
        return self._seek is not None and self.ordering == BEST_FIRST

    def __len__(self) -> int:
        if self._few:
            return len(self._ordered_keys())
        if self._length is None:
            if self._seek is not None:  # the same rows in any order
                self._length = self._seek.count(self._rows)
            elif self._length_key is not None:
                self._length = cache.get_or_set(self._length_key, self._rows.count, LENGTH_SECONDS)
            else:
                self._length = self._rows.count()
        return self._length

    def __getitem__(self, key: slice) -> list:
        if not isinstance(key, slice):
            raise TypeError("read a list by slices (pages)")
        if self._few:
            keys = self._ordered_keys()[key]
            found = {row.pk: row for row in self._rows.annotate(**self._annotations).filter(pk__in=keys)}
            return [found[pk] for pk in keys]
        length = len(self)
        start, stop, _ = key.indices(length)
        if start >= stop:
            return []
        if self._seeking:
            return self._seek.page(self._rows.annotate(**self._annotations), start, stop)
        ordered = self.queryset()
        if start > length - stop:  # nearer the end: skip fewer rows from there
            return list(ordered.reverse()[length - stop : length - start])[::-1]
        return list(ordered[start:stop])

    def __iter__(self):
        return iter(self.queryset())

    def _ordered_keys(self) -> list:
        """Every row's key in the current order (the annotations, a subquery per row, only for the page)."""
        if self._keys is None:
            self._keys = list(self._rows.order_by(*self.ordering, "pk").values_list("pk", flat=True))
        return self._keys

    def queryset(self) -> QuerySet:
        """Every row in the current order, annotated with `rank` and `previous_rank`."""
        # The primary key last: reading from either end must give one order, whatever the ties.
        order = self._seek.order if self._seeking else (*self.ordering, "pk")
        return self._rows.annotate(**self._annotations).order_by(*order)


# Today's list -------------------------------------------------------------------------------------------


def current_ranking_rows(*, category: Category, filters: RankingFilters) -> ListRows:
    """Today's list at the filters' level, best first, with `rank` and `previous_rank` at that level."""
    _refresh_if_stale(category)
    level = filters.level
    rows = CurrentRating.objects.filter(category=category, ranked=not filters.unranked)
    if level != "world":
        rows = rows.filter(**{level: filters.place})
    if filters.search:
        rows = rows.filter(_search_condition(category, filters.search))
    seek = None
    if not (filters.unranked or filters.search):
        ranks = CurrentRank.objects.filter(category=category)
        if level != "world":
            ranks = ranks.filter(**{level: filters.place})
        seek = RankSeek(level, ranks)
    annotations = {"rank": F(f"{level}_rank"), "previous_rank": F(f"previous_{level}_rank")}
    # An unranked list has no ranks to count by: its length is counted once per state of the list (a
    # recompute bumps the version, the daily rebuild changes the day), not on every page (40 ms at 18,000).
    length_key = None
    if filters.unranked and not filters.search:
        today = timezone.localdate().isoformat()
        length_key = f"ranking-length:{category.pk}:{category.history_version}:{today}:{level}:{filters.place}"
    return ListRows(rows, annotations=annotations, seek=seek, length_key=length_key)


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
    # On PostgreSQL both are answered by a trigram index (migration 0010).
    number = Q(display_id__icontains=text) if category.team_size > 1 else Q(display_id__istartswith=text)
    return Q(name__icontains=text) | number


# Past dates -----------------------------------------------------------------------------------------------


# No list before this day: older than any tournament, and the end of the month before it (a past
# list's movement is measured against it) is still a date.
EARLIEST_AS_OF = date(1900, 1, 1)


def as_of_refusal(day: date, *, today: date) -> str:
    """Why a past list cannot be asked for on `day` ("" when it can): the pages and the API say the same."""
    if day > today:
        return f"Rankings are known up to today ({today.isoformat()}), not for {day.isoformat()}."
    if day < EARLIEST_AS_OF:
        return f"Rankings start on {EARLIEST_AS_OF.isoformat()}: give a later date than {day.isoformat()}."
    return ""


def new_past_date_wait(
    *, category: Category, as_of: date | None, client: str, unlimited: bool, with_movement: bool = True
) -> int:
    """0 when the list of `as_of` may be shown now; else the seconds `client` waits before asking for a new one.

    `with_movement`: the page shows each row's movement since the end of the
    month before, whose list is needed too (the API's rows carry none).

    A past date's list is written the first time it is asked for (1 to 5 s
    at a million matches, and everyone's pages slow down meanwhile), so dates
    not written yet are limited per client: PAST_DATES_NEW_PER_CLIENT per
    PAST_DATES_WINDOW_SECONDS. Dates written already (the month ends always
    are: snapshots.month_end_snapshots_write) and today's list cost nothing.
    """
    today = timezone.localdate()
    if as_of is None or as_of >= today or unlimited:
        return 0
    dates = [as_of, end_of_previous_month(as_of)] if with_movement else [as_of]
    if not snapshot_dates_missing(category=category, dates=dates):
        return 0
    return budget_spend(
        scope="past-dates",
        client=client,
        limit=settings.PAST_DATES_NEW_PER_CLIENT,
        window=settings.PAST_DATES_WINDOW_SECONDS,
    )


def past_ranking_rows(*, category: Category, filters: RankingFilters) -> ListRows:
    """The list on `filters.as_of` (a past date), with movement since the end of the month before it."""
    as_of, before = filters.as_of, end_of_previous_month(filters.as_of)
    snapshots = ranking_snapshots(category=category, dates=[as_of, before])
    level = filters.level
    rows = SnapshotRating.objects.filter(snapshot=snapshots[as_of], ranked=not filters.unranked)
    if level != "world":
        rows = rows.filter(**{level: filters.place})
    if filters.search:
        # A snapshot's names and numbers are those of today's list: today's list finds who matches through
        # its trigram index, and their rows are read by participant, rather than every row of the past list
        # being tested (40 ms at 35,000 rows). Given as a subquery, PostgreSQL sorted the whole list first.
        found = CurrentRating.objects.filter(_search_condition(category, filters.search), category=category)
        participants = list(found.order_by().values_list("participant_id", flat=True)[: SEARCH_LISTED + 1])
        few = len(participants) <= SEARCH_LISTED
        rows = rows.filter(participant__in=participants if few else found.values("participant_id"))
    previous = SnapshotRating.objects.filter(snapshot=snapshots[before], participant=OuterRef("participant_id"))
    annotations = {"rank": F(f"{level}_rank"), "previous_rank": Subquery(previous.values(f"{level}_rank")[:1])}
    if filters.search:
        return ListRows(rows, annotations=annotations, seek=None, few=few)
    return ListRows(rows, annotations=annotations, seek=PositionSeek(f"{level}_position"))


# Either ----------------------------------------------------------------------------------------------------


def ranking_page_rows(*, category: Category, filters: RankingFilters) -> ListRows:
    """The rows of the list the filters ask for, best first: today's, or a past date's."""
    if filters.is_today(timezone.localdate()):
        return current_ranking_rows(category=category, filters=filters)
    return past_ranking_rows(category=category, filters=filters)


EXPORT_COLUMNS = ("rank", "player_id", "name", "country", "region", "rating", "matches", "ranked")


def ranking_export_rows(*, category: Category, filters: RankingFilters):
    """The whole filtered list as tuples in EXPORT_COLUMNS order, streamed from the database."""
    rows = ranking_page_rows(category=category, filters=filters).queryset()
    return rows.values_list("rank", "display_id", "name", "country", "region", "rating", "matches", "ranked").iterator(
        chunk_size=2000
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
        cache.set(key, places, PLACES_SECONDS)
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
