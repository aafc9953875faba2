"""Ranking lists, read a page at a time (SPEC 4): today's from `CurrentRating`, past dates' from snapshots.

The one read path of the lists: the ranking pages, their CSV and JSON
exports and the API all ask `ranking_page_rows` with a `RankingFilters`
(`ratings.selectors.ranking_filters`) and page through what it gives.

Every list is read a page at a time, in a fixed number of queries whatever
the size of the list or the page asked for. A page of a list in its own order
(best first) is found by rank or position through an index rather than by
skipping rows: skipping to the last page of a list of 40,000 cost 80 ms. A
past date's list is written as rows the first time it is asked for
(`ratings.snapshots`) and read like today's.
"""

from datetime import date

from django.conf import settings
from django.core.cache import cache
from django.db.models import CharField, Count, F, Max, OrderBy, OuterRef, Q, QuerySet, Subquery, Value, Window
from django.db.models.functions import Concat
from django.utils import timezone

from lib.lookups import any_of
from lib.throttle import budget_spend
from players.models import Player, Team
from players.search import query_words
from players.selectors import player_matches
from ratings.models import Category, CurrentRank, CurrentRating, SnapshotRating
from ratings.selectors.lists import LEVEL_RANK
from ratings.selectors.ranking_filters import RankingFilters
from ratings.snapshots import end_of_previous_month, ranking_snapshots, snapshot_dates_missing

LENGTH_SECONDS = 60 * 60
SEARCH_LISTED = 5000  # a search by names like the one typed (a typo) names at most this many participants


# A listed row, field by field: written here once. CurrentRating and SnapshotRating both have these fields, and a
# list read here adds `rank` (at the list's level; None when unranked) and `previous_rank`; the ranks at every
# level are LEVEL_RANK's. The exports and the API take their columns from ROW_FIELDS through `row_columns`.
ROW_FIELDS = ("rank", "display_id", "name", "country", "continent", "region", "rating", "matches", "ranked",
              "provisional", "last_played")  # fmt: skip


def row_columns(*, leave_out: tuple[str, ...] = (), rename: dict[str, str] | None = None) -> dict[str, str]:
    """Column name -> the row's field, for the ROW_FIELDS not left out, in their order (`rename`: field -> name)."""
    rename = rename or {}
    return {rename.get(field, field): field for field in ROW_FIELDS if field not in leave_out}


# The exports' columns (the pages' CSV and JSON, `manage.py export_ratings`): their header, in this order.
EXPORT_COLUMNS = row_columns(leave_out=("continent", "provisional", "last_played"), rename={"display_id": "player_id"})


# Reading a list a page at a time ------------------------------------------------------------------------

# A list's own order: ranks follow ratings, so this is rank order with ties by name and number.
BEST_FIRST = ("-rating", "name", "display_id")

# A search that finds this many rows or fewer has them read whole through its own index and sorted, rather
# than found one by one along the list's order: at ten million matches the first 50 of 1,000 "Guillaume"s
# were found after 37,000 rows of the ratings index checked one by one (83 ms; read whole and sorted: 9 ms).
# A search that finds more finds its first page soon along the list's order.
SORTED_WHOLE_UP_TO = 5_000
# A past list has no index of names: its search reads the whole list whatever it finds, so it reads every row
# found in order, and counts them, in that one pass, where there are up to this many; the page is then read
# by their keys. More are counted in that pass, and a page is read by a second.
PAST_SORTED_WHOLE_UP_TO = 10_000

# Deeper than this into a list read in an order no rank serves (the unranked list, a list sorted by name), a
# page's rows are found by their keys first (ListRows._slice): at ten million matches the unranked list's
# middle page skipped 103,300 rows, each a visit to its row in the table (120 ms; by the keys, 12 ms).
KEYS_FIRST_AFTER = 1_000


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
        length: int | None = None,
        found: list | None = None,
        near: bool = False,
        searched: bool = False,
    ):
        self.near = near  # searched, and found by names like the search: nobody in the list is called that
        self._searched = searched  # filtered by a search: SORTED_WHOLE_UP_TO applies
        self._rows = rows  # filtered, unordered
        self._annotations = annotations  # rank and previous_rank at the list's level
        self._seek = seek
        self._length_key = length_key  # where the length is cached, when counting costs a scan
        # Found already, SORTED_WHOLE_UP_TO rows at most (PAST_SORTED_WHOLE_UP_TO in a past list): their keys
        # read once, in order.
        self._few = found is not None
        # A search's few rows, found already: their participants in the list's own order. The list is those of
        # `rows`, and a page of them is read by participant from `rows` itself: asked for a page's hundred beside
        # the thousands found, PostgreSQL looked up the thousands.
        self._found = found
        self._keys = found  # a few rows' keys in the current order, once read
        self.ordering: tuple[str, ...] = BEST_FIRST
        self._length = length  # counted already, or None

    def order_by(self, *fields: str) -> None:
        """Sort by `fields` (model field names, '-' for descending); the pages read from then on follow it."""
        if tuple(fields) != self.ordering:
            self._keys = None
        self.ordering = tuple(fields)

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
            return self._rows_of(self._rows.annotate(**self._annotations), self._ordered_keys()[key], "participant_id")
        length = len(self)
        start, stop, _ = key.indices(length)
        if start >= stop:
            return []
        if self._seeking:
            return self._seek.page(self._rows.annotate(**self._annotations), start, stop)
        ordered = self.queryset()
        if start > length - stop:  # nearer the end: skip fewer rows from there
            return self._slice(ordered.reverse(), length - stop, length - start)[::-1]
        return self._slice(ordered, start, stop)

    def _slice(self, ordered: QuerySet, start: int, stop: int) -> list:
        """Rows start to stop of `ordered`. Deep in an unsearched list, their keys are found first: the rows
        skipped are then entries of the index that gives the order (an index-only scan where the table's pages
        are all visible, as a recompute leaves them), not each a visit to its row."""
        if start <= KEYS_FIRST_AFTER or self._searched:
            return list(ordered[start:stop])
        return self._rows_of(ordered, list(ordered.values_list("pk", flat=True)[start:stop]))

    @staticmethod
    def _rows_of(rows: QuerySet, keys: list, field: str = "pk") -> list:
        """The rows of `rows` whose `field` is one of `keys`, in their order; a row gone meanwhile (a recompute)
        is left out."""
        found = {getattr(row, field): row for row in rows.filter(any_of(field, keys))}
        return [found[key] for key in keys if key in found]

    def __iter__(self):
        return iter(self.queryset())

    def _ordered_keys(self) -> list:
        """Every row's key in the current order (the annotations, a subquery per row, only for the page)."""
        if self._keys is None:
            self._keys = list(self._keys_in_order())
        return self._keys

    def _keys_in_order(self) -> QuerySet:
        """The keys of a few rows, found whole and then sorted, in the current order."""
        return few_in_order(self._listed(), self.ordering).values_list("participant_id", flat=True)

    def _listed(self) -> QuerySet:
        """Every row of the list: `rows`, or those of them found."""
        return self._rows if self._found is None else self._rows.filter(any_of("participant_id", self._found))

    def queryset(self) -> QuerySet:
        """Every row in the current order, annotated with `rank` and `previous_rank`."""
        # The primary key last: reading from either end must give one order, whatever the ties.
        order = self._seek.order if self._seeking else (*self.ordering, "pk")
        if self._searched and len(self) <= SORTED_WHOLE_UP_TO:
            order = [_not_by_index(self._rows.model, order[0]), *order[1:]]
        return self._listed().annotate(**self._annotations).order_by(*order)


def few_in_order(rows: QuerySet, ordering: tuple[str, ...]) -> QuerySet:
    """A few rows in `ordering` (then by key, one order whatever the ties), found whole and sorted after."""
    first, *rest = ordering
    return rows.order_by(_not_by_index(rows.model, first), *rest, "pk")


def _not_by_index(model, field: str) -> OrderBy:
    """Order by `field` (a field of `model`, "-" for descending) as no index offers it: the same order, but
    the rows are found first and sorted after. Only a list's first sort key needs it: a number plus
    nothing, a text followed by nothing, is itself."""
    name = field.removeprefix("-")
    model_field = model._meta.pk if name == "pk" else model._meta.get_field(name)
    if model_field.get_internal_type() in ("CharField", "TextField"):
        expression = Concat(F(name), Value(""), output_field=CharField())
    else:
        expression = F(name) + 0
    return expression.desc() if field.startswith("-") else expression.asc()


# Today's list -------------------------------------------------------------------------------------------


def current_ranking_rows(*, category: Category, filters: RankingFilters) -> ListRows:
    """Today's list at the filters' level, best first, with `rank` and `previous_rank` at that level."""
    level = filters.level
    rows = CurrentRating.objects.filter(category=category, ranked=not filters.unranked)
    if level != "world":
        rows = rows.filter(**{level: filters.place})
    near, length, found_first = False, None, None
    if filters.search:
        condition, near = _search(category, filters.search)
        # Those found, counted and put in the list's order in the one pass that tests the search: when they
        # are few, the list is their rows from then on, read a page at a time by participant without testing
        # the search again. Counted by one pass and its page read by a second, limited's "Andrew" at ten
        # million matches folded the 6,225 names its trigram index offered twice (62 ms). More than a few are
        # read along the list's order, counted already.
        length, found_first = _found_in_order(rows.filter(condition), up_to=SORTED_WHOLE_UP_TO)
        if found_first is None:
            rows = rows.filter(condition)
    seek = None
    if not (filters.unranked or filters.search):
        ranks = CurrentRank.objects.filter(category=category)
        if level != "world":
            ranks = ranks.filter(**{level: filters.place})
        seek = RankSeek(level, ranks)
    annotations = {"rank": F(LEVEL_RANK[level]), "previous_rank": F(f"previous_{LEVEL_RANK[level]}")}
    # An unranked list has no ranks to count by: its length is counted once per state of the list (a
    # recompute bumps the version, the daily rebuild changes the day), not on every page (40 ms at 18,000).
    length_key = None
    if filters.unranked and not filters.search:
        today = timezone.localdate().isoformat()
        length_key = f"ranking-length:{category.pk}:{category.list_version}:{today}:{level}:{filters.place}"
    return ListRows(
        rows,
        annotations=annotations,
        seek=seek,
        length_key=length_key,
        length=length,  # a few found are counted by their keys
        found=found_first,
        near=near,
        searched=bool(filters.search),
    )


def _found_in_order(found: QuerySet, *, up_to: int) -> tuple[int, list | None]:
    """How many rows `found` has and, when they are `up_to` or fewer, their participants in the list's own order
    (BEST_FIRST), from one pass over them."""
    first = list(
        few_in_order(found.annotate(found=Window(Count("pk"))), BEST_FIRST).values_list("participant_id", "found")[
            : up_to + 1
        ]
    )
    length = first[0][1] if first else 0
    return length, ([participant for participant, _ in first] if length <= up_to else None)


def _search(category: Category, text: str) -> tuple[Q, bool]:
    """The condition on today's list that a search for `text` puts, and whether it finds names like the
    search rather than as typed: when nobody in the list is found as typed, the players the player search
    finds near (a typo forgiven: players.selectors.player_matches), or in a team list their teams."""
    condition = _search_condition(category, text)
    if CurrentRating.objects.filter(condition, category=category).exists():
        return condition, False
    matches = player_matches(query=text)
    if not matches.near:  # somebody is called that, but not in this list
        return condition, False
    players = list(matches.players.values_list("pk", flat=True)[:SEARCH_LISTED])
    if not players:
        return condition, False
    if category.team_size > 1:
        participants = Team.objects.filter(members__in=players).values_list("participant_id", flat=True)
    else:
        participants = Player.objects.filter(pk__in=players).values_list("participant_id", flat=True)
    return any_of("participant_id", participants.order_by()[:SEARCH_LISTED]), True


def _search_condition(category: Category, text: str) -> Q:
    """Every word of `text` in the name, in any order, ignoring case and accents (as the player search); or
    the start of the display id. A team's id is its members' numbers joined by "+": any member's number finds
    it. On PostgreSQL the names are answered by the list's trigram index, a number's start by a range of its
    index on UPPER(display_id) (migration 0028); a team list, as small as its teams are few, is read through."""
    number = Q(display_id__icontains=text) if category.team_size > 1 else Q(display_id__istartswith=text)
    words = query_words(text)
    if not words:
        return number
    named = Q()
    for word in words:
        named &= Q(name_folded__contains=word)
    return named | number


# Past dates -----------------------------------------------------------------------------------------------


def new_past_date_wait(
    *, category: Category, as_of: date | None, client: str, unlimited: bool, with_movement: bool = True
) -> int:
    """0 when the list of `as_of` may be shown now; else the seconds `client` waits before asking for a new one.

    `with_movement`: the page shows each row's movement since the end of the
    month before, whose list is needed too (the API's rows carry none).

    A past date's list is written the first time it is asked for (1 to 5 s
    at a million matches, and everyone's pages slow down meanwhile), so dates
    not written yet are limited per client: PAST_DATES_NEW_PER_CLIENT per
    PAST_DATES_WINDOW_SECONDS. Dates written already (the last two month ends
    and the end of last year always are: snapshots.snapshots_write_ahead) and
    today's list cost nothing.
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


def past_ranking_rows(*, category: Category, filters: RankingFilters, with_movement: bool = True) -> ListRows:
    """The list on `filters.as_of` (a past date); with movement since the end of the month before it, if asked.

    Without movement (the API) the month end's list is neither read nor
    written, and `previous_rank` is None.
    """
    as_of, before = filters.as_of, end_of_previous_month(filters.as_of)
    snapshots = ranking_snapshots(
        category=category, dates=[as_of, before] if with_movement else [as_of], tidy_later=True
    )
    level = filters.level
    rows = SnapshotRating.objects.filter(snapshot=snapshots[as_of], ranked=not filters.unranked)
    if level != "world":
        rows = rows.filter(**{level: filters.place})
    if filters.search:
        # A snapshot's names and numbers are those of today's list: today's list finds who matches through
        # its trigram index, and their rows are read by participant, rather than every row of the past list
        # being tested (40 ms at 35,000 rows). Given as a subquery, PostgreSQL sorted the whole list first.
        condition, near = _search(category, filters.search)
        found = CurrentRating.objects.filter(condition, category=category)
        participants = list(found.order_by().values_list("participant_id", flat=True))
        # The participants as one array however many (any_of): 3,700 placeholders cost 20 ms of Python to write
        # and send, and PostgreSQL tests each row of the past list against the array as a hash. Given as a
        # subquery, they were planned from the list's statistics, which a list written for this page has not
        # yet (the job that takes them comes after), and 10,823 "David"s at ten million matches were looked up
        # one row of the past list at a time, 1.1 s against 56 ms.
        searched = rows.filter(any_of("participant_id", participants))
        # Counted and put in order in one pass, as today's list's search: a count and a page each read the
        # whole past list (21 ms each for "David" at ten million matches).
        length, found_first = _found_in_order(searched, up_to=PAST_SORTED_WHOLE_UP_TO)
        if found_first is None:
            rows = searched
    annotations = {"rank": F(LEVEL_RANK[level])}
    if with_movement:
        previous = SnapshotRating.objects.filter(snapshot=snapshots[before], participant=OuterRef("participant_id"))
        annotations["previous_rank"] = Subquery(previous.values(LEVEL_RANK[level])[:1])
    if filters.search:
        return ListRows(
            rows, annotations=annotations, seek=None, length=length, found=found_first, near=near, searched=True
        )
    return ListRows(rows, annotations=annotations, seek=PositionSeek(f"{level}_position"))


# Either ----------------------------------------------------------------------------------------------------


def ranking_page_rows(*, category: Category, filters: RankingFilters, with_movement: bool = True) -> ListRows:
    """The rows of the list the filters ask for, best first: today's, or a past date's.

    Each row is a CurrentRating or SnapshotRating with ROW_FIELDS, the ranks
    at every level, and `previous_rank` (with movement) at the list's level.
    """
    if filters.is_today(timezone.localdate()):
        return current_ranking_rows(category=category, filters=filters)
    return past_ranking_rows(category=category, filters=filters, with_movement=with_movement)


def ranking_export_rows(*, category: Category, filters: RankingFilters):
    """The whole filtered list as tuples in EXPORT_COLUMNS order, streamed from the database."""
    rows = ranking_page_rows(category=category, filters=filters).queryset()
    return rows.values_list(*EXPORT_COLUMNS.values()).iterator(chunk_size=2000)
