"""Reads for the player and team pages: today's standings, the rating history, its chart and opponents.

Each function costs a fixed number of queries whatever the size of the
history, and reaches rating history through the (category, participant, seq)
index: a participant's rows in one category are one index range.
"""

from collections import defaultdict
from dataclasses import dataclass, field, replace
from datetime import date

from django.core.cache import cache
from django.db.models import Count, OuterRef, Q, Subquery
from django.utils import timezone
from django.utils.translation import gettext
from django_countries import countries

from players import geography
from players.formatting import outcome, region_name
from players.models import Player, Team
from ratings.formatting import rating_shown
from ratings.models import Category, CurrentRating, RatingEntry, Ruleset
from ratings.selectors.distribution import standing_better_than

# A history longer than this many chart points is thinned before it is sent to the browser.
CHART_MAX_POINTS = 5000


def current_ratings_by_participant(*, participant_ids) -> dict[int, list[CurrentRating]]:
    """participant id -> their rows of today's lists, in category order (two queries).

    The categories are read first and their ids given as values: each list's
    partition is then read through its (category, participant) index. Given
    as a subquery they left PostgreSQL no index to use: it scanned every list
    whole (60 ms for a page of players at 100,000 players).
    """
    categories = {category.pk: category for category in Category.objects.all()}
    rows = CurrentRating.objects.filter(category_id__in=sorted(categories), participant_id__in=participant_ids)
    found: dict[int, list[CurrentRating]] = defaultdict(list)
    for row in rows:
        row.category = categories[row.category_id]
        found[row.participant_id].append(row)
    for each in found.values():  # a participant has one row per list: the lists' order is the rows' order
        each.sort(key=lambda row: (row.category.position, row.category.slug))
    return found


def categories_by_slug(*, slugs) -> list[Category]:
    found = {category.slug: category for category in Category.objects.filter(slug__in=slugs)}
    return [found[slug] for slug in slugs if slug in found]


# Current standing per category -------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Rank:
    scope: str  # world, continent, country, region
    place: str  # "World", "Europe", "Germany", "Bavaria"
    rank: int
    better_than: int | None = None  # percent of the ranked players there rated lower (standing_placed)

    @property
    def where(self) -> str:
        return gettext("in the world") if self.scope == "world" else gettext("in %(place)s") % {"place": self.place}


@dataclass(slots=True)
class CategoryStanding:
    """A participant's place in one category today, as the rankings show it."""

    category: Category
    rating: float
    matches: int  # rated matches; events for V:EKN
    ranked: bool
    provisional: bool
    last_played: date | None
    ranks: list[Rank]
    row: CurrentRating | None = None  # the row of today's list it was read from

    @property
    def shown(self) -> str:
        return rating_shown(self.rating, self.category.display_rounding)

    @property
    def still_needed(self) -> int:
        """Matches (events for V:EKN) still needed to be ranked."""
        return max(0, self.category.ranked_after - self.matches)

    @property
    def is_vekn(self) -> bool:
        return self.category.ruleset == Ruleset.VEKN

    @property
    def is_derived(self) -> bool:
        return self.category.ruleset == Ruleset.DERIVED


def _ranks(row: CurrentRating) -> list[Rank]:
    levels = (
        ("world", gettext("World"), row.world_rank),
        ("continent", str(geography.CONTINENT_NAMES.get(row.continent, "")), row.continent_rank),
        ("country", countries.name(row.country) if row.country else "", row.country_rank),
        ("region", region_name(row.region), row.region_rank),
    )
    return [Rank(scope, place, rank) for scope, place, rank in levels if place and rank]


def participant_standings(*, participant_id: int) -> list[CategoryStanding]:
    """Every category the participant has a rating in, with today's rating, status and ranks."""
    # As the lists are (the job workers rebuild those of yesterday just after midnight): the numbers the
    # rankings pages show.
    rows = current_ratings_by_participant(participant_ids=[participant_id]).get(participant_id, [])
    return [
        CategoryStanding(
            category=row.category,
            rating=row.rating,
            matches=row.matches,
            ranked=row.ranked,
            provisional=row.provisional,
            last_played=row.last_played,
            ranks=_ranks(row) if row.ranked else [],
            row=row,
        )
        for row in rows
    ]


def standing_placed(standing: CategoryStanding) -> None:
    """Each rank of the standing learns the share of the ranked players at its place rated lower (two
    queries at most; the sizes of the places come from their histograms, which are kept)."""
    if standing.row is None or not standing.ranks:
        return
    percents = standing_better_than(row=standing.row, category=standing.category)
    standing.ranks = [replace(rank, better_than=percents.get(rank.scope)) for rank in standing.ranks]


# Elo history -------------------------------------------------------------------------


class RatingHistory:
    """The participant's rated matches in the category, newest first, with what each row links to.

    A sequence read a slice (a page) at a time. The history's seqs (from the
    cached Timeline) give the page's keys in the participant's index, so a
    page is read by key and joined with its events, matches and opponents:
    nothing is counted or skipped (skipping to page 40 of 80 read 1,000 rows).
    """

    def __init__(self, *, category: Category, participant_id: int, seqs: list[int]):
        self._entries = RatingEntry.objects.filter(category=category, participant_id=participant_id)
        self._newest_first = seqs[::-1]

    def count(self) -> int:
        return len(self._newest_first)

    def __len__(self) -> int:
        return self.count()

    def __getitem__(self, key: slice) -> list[RatingEntry]:
        if not isinstance(key, slice):
            raise TypeError("read a history by slices (pages)")
        return list(
            self._entries.filter(seq__in=self._newest_first[key])
            .select_related("event", "match", "opponent__player", "opponent__team")
            .order_by("-seq")
        )

    def __iter__(self):
        return iter(self[:])


def rating_history(*, category: Category, participant_id: int, seqs: list[int] | None = None) -> RatingHistory:
    """The participant's rated matches in the category, newest first, with what each row links to.

    `seqs`: the history's seqs, oldest first (Timeline.seqs); read from the timeline when not given.
    """
    if seqs is None:
        seqs = rating_timeline(category=category, participant_id=participant_id).seqs
    return RatingHistory(category=category, participant_id=participant_id, seqs=seqs)


# What reads the whole history is cached until the category's next recompute (the key holds its
# history_version, which every recompute bumps): a busy player's 2,000 rows are read once, not per visit.
HISTORY_SECONDS = 60 * 60  # bounds how long a renamed event or opponent keeps its old name here


def _per_history(name: str, category: Category, participant_id: int, compute):
    key = f"{name}:{category.pk}:{category.history_version}:{participant_id}"
    value = cache.get(key)
    if value is None:
        value = compute()
        cache.set(key, value, HISTORY_SECONDS)
    return value


@dataclass(slots=True)
class Record:
    wins: int = 0
    draws: int = 0
    losses: int = 0

    def add(self, score: float) -> None:
        letter = outcome(score)
        if letter == "W":
            self.wins += 1
        elif letter == "L":
            self.losses += 1
        else:
            self.draws += 1

    @property
    def matches(self) -> int:
        return self.wins + self.draws + self.losses


@dataclass(slots=True)
class EventPoint:
    """Where a participant's rating stood after one event: a point of the rating chart."""

    date: date
    event_id: int
    event_name: str
    rating_before: float
    rating_after: float
    record: Record = field(default_factory=Record)

    @property
    def change(self) -> float:
        return self.rating_after - self.rating_before


@dataclass(slots=True)
class YearSummary:
    year: int
    rating_start: float
    rating_end: float
    high: float
    low: float
    events: int = 0
    record: Record = field(default_factory=Record)

    @property
    def change(self) -> float:
        return self.rating_end - self.rating_start


@dataclass(slots=True)
class Timeline:
    """A participant's whole history in an Elo category, summed up for the chart and the headline numbers."""

    points: list[EventPoint]
    record: Record
    years: list[YearSummary]
    peak: float | None = None
    peak_date: date | None = None
    seqs: list[int] = field(default_factory=list)  # the history's rows, oldest first: the history table's pages


def rating_timeline(*, category: Category, participant_id: int) -> Timeline:
    """Rating after each event, the peak, the W/D/L record and a year-by-year summary (one query, one pass;
    cached until the next recompute)."""
    return _per_history("timeline", category, participant_id, lambda: _timeline_read(category, participant_id))


def _timeline_read(category: Category, participant_id: int) -> Timeline:
    rows = (
        RatingEntry.objects.filter(category=category, participant_id=participant_id)
        .order_by("seq")
        .values_list("seq", "event_date", "event_id", "event__name", "rating_before", "rating_after", "score")
    )
    timeline = Timeline(points=[], record=Record(), years=[])
    points, years, total, seqs = timeline.points, timeline.years, timeline.record, timeline.seqs
    point = year = None
    peak, peak_date = None, None
    for seq, day, event_id, event_name, before, after, score in rows:
        seqs.append(seq)
        new_event = point is None or point.event_id != event_id
        if new_event:
            point = EventPoint(day, event_id, event_name or "", before, after)
            points.append(point)
        if year is None or year.year != day.year:
            year = YearSummary(day.year, before, after, after, after)
            years.append(year)
        if new_event:
            year.events += 1
        point.rating_after = after
        year.rating_end = after
        if after > year.high:
            year.high = after
        elif after < year.low:
            year.low = after
        if peak is None or after > peak:
            peak, peak_date = after, day
        # Record.add, inlined: three records per match, 2,000 matches.
        if score >= 1:
            point.record.wins += 1
            year.record.wins += 1
            total.wins += 1
        elif score <= 0:
            point.record.losses += 1
            year.record.losses += 1
            total.losses += 1
        else:
            point.record.draws += 1
            year.record.draws += 1
            total.draws += 1
    timeline.peak, timeline.peak_date = peak, peak_date
    years.reverse()  # newest first, like the history table
    return timeline


def _thinned(indexes: list[int], keep: set[int], limit: int) -> list[int]:
    """About `limit` evenly spaced indexes, always including those in `keep`."""
    if len(indexes) <= limit:
        return indexes
    step = len(indexes) / limit
    chosen = {indexes[int(i * step)] for i in range(limit)} | keep
    return sorted(chosen)


def elo_chart_data(*, category: Category, timeline: Timeline, today: date | None = None) -> dict:
    """What the rating chart plots: one point per event (date, event, rating as shown), drawn as steps.

    Besides the events: the rating the player started from (1600, or the
    provisional start) just before their first event, today (the last rating
    holds until the next event), and the date they were first ranked (their
    `ranked_after`-th match), when they are.
    """
    points = timeline.points
    peak_index = max(range(len(points)), key=lambda i: points[i].rating_after, default=0)
    indexes = _thinned(
        list(range(len(points))), {0, peak_index, len(points) - 1} if points else set(), CHART_MAX_POINTS
    )
    rounding = category.display_rounding
    today = today or timezone.localdate()
    return {
        "kind": "elo",
        "label": gettext("%(list)s rating") % {"list": category.label},
        "dates": [points[i].date.isoformat() for i in indexes],
        "events": [points[i].event_name for i in indexes],
        "event_ids": [points[i].event_id for i in indexes],
        "ratings": [int(rating_shown(points[i].rating_after, rounding)) for i in indexes],
        "changes": [round(points[i].change, 2) for i in indexes],
        "start": int(rating_shown(points[0].rating_before, rounding)) if points else None,
        "today": max(today, points[-1].date).isoformat() if points else None,
        "ranked_from": _ranked_from(points, category.ranked_after),
        "ranked_after": category.ranked_after,
    }


def _ranked_from(points: list[EventPoint], ranked_after: int) -> str | None:
    """The date of the event in which the participant played their `ranked_after`-th match, if they did."""
    if not ranked_after:
        return None
    played = 0
    for point in points:
        played += point.record.matches
        if played >= ranked_after:
            return point.date.isoformat()
    return None


@dataclass(frozen=True, slots=True)
class Opponent:
    participant_id: int
    name: str
    number: str  # membership number; empty for a team
    record: Record


def frequent_opponents(*, category: Category, participant_id: int, limit: int = 8) -> list[Opponent]:
    """Whom the participant met most often in the category, with the record against each (one query;
    cached until the next recompute).

    The history is counted by opponent alone and only the `limit` most frequent are named: grouping by
    name joined every player and team first (13 ms for a 2,000-match history among 20,000 players).
    """
    return _per_history(
        f"opponents-{limit}", category, participant_id, lambda: _opponents_read(category, participant_id, limit)
    )


def _opponents_read(category: Category, participant_id: int, limit: int) -> list[Opponent]:
    opponent = OuterRef("opponent_id")
    rows = (
        RatingEntry.objects.filter(category=category, participant_id=participant_id)
        .values("opponent_id")
        .annotate(
            played=Count("id"),
            wins=Count("id", filter=Q(score__gte=1)),
            losses=Count("id", filter=Q(score__lte=0)),
        )
        .filter(played__gt=1)
        .annotate(
            player_name=Subquery(Player.objects.filter(participant_id=opponent).order_by().values("name")),
            number=Subquery(Player.objects.filter(participant_id=opponent).order_by().values("membership_number")),
            team_name=Subquery(Team.objects.filter(participant_id=opponent).order_by().values("name")),
        )
        .order_by("-played", "opponent_id")[:limit]
    )
    return [
        Opponent(
            row["opponent_id"],
            row["player_name"] or row["team_name"] or f"#{row['opponent_id']}",
            row["number"] or "",
            Record(row["wins"], row["played"] - row["wins"] - row["losses"], row["losses"]),
        )
        for row in rows
    ]
