"""Reads for the player, team and head-to-head pages.

Each function costs a fixed number of queries whatever the size of the
history, and reaches rating history through the (category, participant, seq)
index: a participant's rows in one category are one index range.
"""

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date, timedelta

from django.core.cache import cache
from django.db.models import Count, OuterRef, Q, QuerySet, Subquery
from django.utils import timezone
from django_countries import countries

from players import geography
from players.formatting import outcome, rating_shown, region_name
from players.models import Participant, Player, Team
from ratings.engine import months_before, vekn_counting_events, vekn_is_active, vekn_rating
from ratings.engine.vekn import in_window
from ratings.models import Category, CurrentRating, EventScore, RatingEntry, Ruleset
from ratings.services import current_ratings_refresh_if_stale

# A history longer than this many chart points is thinned before it is sent to the browser.
CHART_MAX_POINTS = 5000


# Search ------------------------------------------------------------------------------


def player_search(*, query: str) -> QuerySet[Player]:
    """Players whose name contains `query` or whose membership number starts with it, in any case.

    On PostgreSQL both are answered by a trigram index (players migration 0002).
    """
    players = Player.objects.public().order_by("name", "membership_number")
    query = query.strip()
    if not query:
        return players
    return players.filter(Q(name__icontains=query) | Q(membership_number__istartswith=query))


def player_by_number(*, number: str) -> Player | None:
    return Player.objects.public().filter(membership_number=number.strip()).first()


def current_ratings_by_participant(*, participant_ids) -> dict[int, list[CurrentRating]]:
    """participant id -> their rows of today's lists, in category order (one query)."""
    rows = (
        CurrentRating.objects.filter(category__in=Category.objects.values("pk"), participant_id__in=participant_ids)
        .select_related("category")
        .order_by("category__position", "category__slug")
    )
    found: dict[int, list[CurrentRating]] = defaultdict(list)
    for row in rows:
        found[row.participant_id].append(row)
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
        ("world", "World", row.world_rank),
        ("continent", geography.CONTINENT_NAMES.get(row.continent, ""), row.continent_rank),
        ("country", countries.name(row.country) if row.country else "", row.country_rank),
        ("region", region_name(row.region), row.region_rank),
    )
    return [Rank(scope, place, rank) for scope, place, rank in levels if place and rank]


def participant_standings(*, participant_id: int) -> list[CategoryStanding]:
    """Every category the participant has a rating in, with today's rating, status and ranks."""
    rows = current_ratings_by_participant(participant_ids=[participant_id]).get(participant_id, [])
    today = timezone.localdate()
    stale = [row.category for row in rows if row.built_on != today]
    if stale:
        # A list ages with the calendar (V:EKN windows, last month's ranks): the rankings pages would
        # rebuild it on their next read, so read the same numbers they will show.
        for category in stale:
            current_ratings_refresh_if_stale(category=category)
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
        )
        for row in rows
    ]


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


def elo_chart_data(*, category: Category, timeline: Timeline) -> dict:
    """What the rating chart plots: one point per event (date, event, rating as shown)."""
    points = timeline.points
    peak_index = max(range(len(points)), key=lambda i: points[i].rating_after, default=0)
    indexes = _thinned(
        list(range(len(points))), {0, peak_index, len(points) - 1} if points else set(), CHART_MAX_POINTS
    )
    rounding = category.display_rounding
    return {
        "kind": "elo",
        "label": f"{category.name} rating",
        "dates": [points[i].date.isoformat() for i in indexes],
        "events": [points[i].event_name for i in indexes],
        "event_ids": [points[i].event_id for i in indexes],
        "ratings": [int(rating_shown(points[i].rating_after, rounding)) for i in indexes],
        "changes": [round(points[i].change, 2) for i in indexes],
    }


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


# V:EKN --------------------------------------------------------------------------------


def first_day_outside(event_date: date, months: int) -> date:
    """The first day an event no longer falls in a window of `months` months (event date + months)."""
    day = months_before(event_date, -months)  # `months` later, clamped to the month's end
    # Clamping can land a day early or late (31 Aug + 18 months): settle on the exact boundary.
    while in_window(event_date, day, months):
        day += timedelta(days=1)
    while not in_window(event_date, day - timedelta(days=1), months):
        day -= timedelta(days=1)
    return day


@dataclass(slots=True)
class VeknScore:
    event_id: int
    event_name: str
    date: date
    points: float
    vp: object
    gw: int
    final: str
    players: int
    coefficient: float
    bonus: float
    leaves_window: date  # the first day it no longer counts
    in_window: bool = False
    counts: bool = False  # one of the best events in the window today


@dataclass(slots=True)
class VeknSummary:
    scores: list[VeknScore]  # newest first
    counting: list[VeknScore]  # best first
    rating: float
    active: bool
    drop_off: date | None  # the day the participant leaves the rankings unless they play again
    window_months: int
    best_of: int
    inactivity_months: int | None
    chart: dict

    @property
    def peak(self) -> tuple[int, date] | None:
        """The best rating (as shown) it ever had, and the day it first reached it."""
        ratings = self.chart["ratings"]
        if not ratings:
            return None
        best = max(ratings)
        return best, date.fromisoformat(self.chart["dates"][ratings.index(best)])


def _vekn_chart(category: Category, scores: list[VeknScore], today: date, window: int, best_of: int) -> dict:
    """The rating on every day it changed: at each event, and when an event left the window."""
    changes: dict[date, list[str]] = defaultdict(list)
    for score in scores:
        changes[score.date].append(score.event_name)
        if score.leaves_window <= today:
            changes[score.leaves_window].append(f"{score.event_name} leaves the window")
    pairs = [(score.date, score.points) for score in scores]
    days = sorted(changes)
    if days and days[-1] < today:
        days.append(today)
    rounding = category.display_rounding
    ratings = [
        int(rating_shown(vekn_rating(pairs, on=day, window_months=window, best_of=best_of), rounding)) for day in days
    ]
    return {
        "kind": "vekn",
        "label": f"{category.name} rating points",
        "dates": [day.isoformat() for day in days],
        "events": ["; ".join(changes.get(day, ["Today"])) for day in days],
        "event_ids": [None] * len(days),
        "ratings": ratings,
        "changes": [round(b - a, 2) for a, b in zip([0, *ratings], ratings, strict=False)],
    }


def vekn_summary(*, category: Category, participant_id: int, today: date | None = None) -> VeknSummary:
    """Event scores, which events make up today's rating, when each leaves the window and when the
    participant drops off the rankings (SPEC 3.4); one query."""
    today = today or timezone.localdate()
    window = category.window_months or 18
    best_of = category.best_of or 8
    inactivity = category.inactivity_months
    rows = (
        EventScore.objects.filter(category=category, participant_id=participant_id, event_date__lte=today)
        .select_related("event")
        .order_by("event_date", "event_id")
    )
    scores = [
        VeknScore(
            row.event_id, row.event.name, row.event_date, row.points, row.vp, row.gw, row.final, row.players,
            row.coefficient, row.bonus, first_day_outside(row.event_date, window),
            in_window(row.event_date, today, window),
        )
        for row in rows
    ]  # fmt: skip
    counting_keys = vekn_counting_events(
        [(score.date, score.points, score.event_id) for score in scores],
        on=today,
        window_months=window,
        best_of=best_of,
    )
    by_event = {score.event_id: score for score in scores}
    counting = [by_event[event_id] for _, _, event_id in counting_keys]
    for score in counting:
        score.counts = True
    last_played = scores[-1].date if scores else None
    active = bool(scores) and (
        inactivity is None or vekn_is_active([score.date for score in scores], on=today, inactivity_months=inactivity)
    )
    drop_off = first_day_outside(last_played, inactivity) if last_played and inactivity else None
    return VeknSummary(
        scores=list(reversed(scores)),
        counting=counting,
        rating=sum(score.points for score in counting),
        active=active,
        drop_off=drop_off,
        window_months=window,
        best_of=best_of,
        inactivity_months=inactivity,
        chart=_vekn_chart(category, scores, today, window, best_of),
    )


# Teams --------------------------------------------------------------------------------


def player_teams(*, player: Player) -> list[Team]:
    return list(player.teams.order_by("name", "member_key"))


def team_by_participant(*, participant_id: int) -> Team | None:
    """The team, once it has been rated: a team only an organizer's draft names (with a name of the organizer's
    choosing) is not shown, as the draft's new players are not (Player.public)."""
    if not RatingEntry.objects.filter(participant_id=participant_id).exists():
        return None
    return Team.objects.filter(participant_id=participant_id).prefetch_related("members").first()


# Head-to-head -------------------------------------------------------------------------


@dataclass(slots=True)
class Meeting:
    """One rated match between two players in one category, from the first player's side."""

    entry: RatingEntry  # the first player's history row
    opponent_change: float | None

    @property
    def outcome(self) -> str:
        return outcome(self.entry.score)

    @property
    def event(self):
        return self.entry.event

    @property
    def event_id(self) -> int:
        return self.entry.event_id

    @property
    def category(self):
        return self.entry.category

    @property
    def category_id(self) -> int:
        return self.entry.category_id


@dataclass(slots=True)
class HeadToHead:
    meetings: list[Meeting]  # newest first
    record: Record  # over distinct matches
    categories: list[Category]
    net_change: float  # the first player's rating gained against the second, all categories


def head_to_head(*, player: Participant | int, opponent: Participant | int) -> HeadToHead:
    """Every rated match between two participants, in every category, with both sides' changes (two queries)."""
    player_id = getattr(player, "pk", player)
    opponent_id = getattr(opponent, "pk", opponent)
    categories = Category.objects.exclude(ruleset__in=[Ruleset.DERIVED, Ruleset.VEKN]).values("pk")
    ours = (
        RatingEntry.objects.filter(category__in=categories, participant_id=player_id, opponent_id=opponent_id)
        .select_related("event", "match", "category")
        .order_by("-event_date", "-event_id", "category__position", "category_id", "-round")
    )
    theirs = {
        (category_id, match_id): after - before
        for category_id, match_id, before, after in RatingEntry.objects.filter(
            category__in=categories, participant_id=opponent_id, opponent_id=player_id
        )
        .order_by()
        .values_list("category_id", "match_id", "rating_before", "rating_after")
    }
    meetings, record, seen, used = [], Record(), set(), {}
    for entry in ours:
        meetings.append(Meeting(entry, theirs.get((entry.category_id, entry.match_id))))
        used[entry.category_id] = entry.category
        if entry.match_id not in seen:  # a match rated in two categories is still one match
            seen.add(entry.match_id)
            record.add(entry.score)
    net = sum(meeting.entry.change for meeting in meetings)
    ordered = sorted(used.values(), key=lambda category: (category.position, category.slug))
    return HeadToHead(meetings, record, ordered, net)
