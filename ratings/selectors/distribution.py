"""How a list's ratings are spread: its histogram at any level, and where one rating stands in it.

A list's histogram counts its rows in bins of BIN_WIDTH rating points, at the
level and place a ranking page shows (world, a continent, a country, a
region), ranked or unranked, today or at a past date. It is one GROUP BY
over the list's rows at that place, read through the list's index, and
kept in the cache for as long as the list is what it was (today's: its
version and the day; a past date's: its history's version and the day,
as its snapshot).

Where a player stands ("better than 87 % of ranked players in Germany") is
worked out from the ranks the list has already and the sizes of the
histograms: of the N ranked at a place, rank - 1 are rated higher, the
players tied with them (the same rating) share their rank, and the rest are
rated lower. The ties are one read of the list's index at that rating.
"""

import math
from dataclasses import dataclass
from datetime import date

from django.core.cache import cache
from django.db.models import Count, F, IntegerField, QuerySet
from django.db.models.functions import Cast, Floor
from django.utils import timezone

from ratings.models import Category, CurrentRating, SnapshotRating
from ratings.snapshots import ranking_snapshots

BIN_WIDTH = 25
DISTRIBUTION_SECONDS = 24 * 3600  # the key changes with the list; this only bounds what a cache holds
LEVELS = ("world", "continent", "country", "region")


@dataclass(frozen=True, slots=True)
class Distribution:
    """Counts of a list's rows by rating: `bins` are (lowest rating of the bin, rows), lowest first, with every
    bin between the first and the last (empty ones too, so that a chart's gaps are real)."""

    bins: tuple[tuple[int, int], ...]

    @property
    def total(self) -> int:
        return sum(count for _, count in self.bins)

    @property
    def tallest(self) -> int:
        return max((count for _, count in self.bins), default=0)


def bin_start(rating: float) -> int:
    return math.floor(rating / BIN_WIDTH) * BIN_WIDTH


def bins_filled(counts: dict[int, int]) -> tuple[tuple[int, int], ...]:
    """(bin, count) for every bin from the lowest to the highest of `counts` (bins keyed by their lowest rating)."""
    if not counts:
        return ()
    return tuple((start, counts.get(start, 0)) for start in range(min(counts), max(counts) + BIN_WIDTH, BIN_WIDTH))


def better_than_percent(*, total: int, rank: int, tied: int) -> int | None:
    """The share of the `total` ranked at a place whose rating is lower than a player's, in whole percent
    rounded down (never "better than 100 %" while someone is level): `rank` is the player's rank there
    (1 + those rated higher), `tied` how many have the same rating, the player included. None for a place
    of one."""
    if total <= 1:
        return None
    lower = total - (rank - 1) - tied
    return lower * 100 // total


def _counted(rows: QuerySet) -> dict[int, int]:
    binned = rows.order_by().annotate(bin=Cast(Floor(F("rating") / BIN_WIDTH), IntegerField()))
    return {
        start * BIN_WIDTH: count
        for start, count in binned.values("bin").annotate(n=Count("pk")).values_list("bin", "n")
    }


def _at_place(rows: QuerySet, level: str, place: str) -> QuerySet:
    return rows if level == "world" else rows.filter(**{level: place})


def current_distribution(
    *, category: Category, level: str = "world", place: str = "", ranked: bool = True
) -> Distribution:
    """Today's list at a place, ranked or unranked."""
    today = timezone.localdate().isoformat()
    key = f"distribution:{category.pk}:{category.list_version}:{today}:{level}:{place}:{int(ranked)}"
    bins = cache.get(key)
    if bins is None:
        rows = _at_place(CurrentRating.objects.filter(category=category, ranked=ranked), level, place)
        bins = bins_filled(_counted(rows))
        cache.set(key, bins, DISTRIBUTION_SECONDS)
    return Distribution(bins)


def past_distribution(
    *, category: Category, as_of: date, level: str = "world", place: str = "", ranked: bool = True
) -> Distribution:
    """A past date's list at a place, ranked or unranked: counted from the date's snapshot, which is valid for
    the category's history version and the day (ratings.snapshots), and so is the count."""
    today = timezone.localdate().isoformat()
    key = f"distribution-past:{category.pk}:{category.history_version}:{today}:{as_of}:{level}:{place}:{int(ranked)}"
    bins = cache.get(key)
    if bins is None:
        snapshot_id = ranking_snapshots(category=category, dates=[as_of], tidy_later=True)[as_of]
        rows = _at_place(SnapshotRating.objects.filter(snapshot_id=snapshot_id, ranked=ranked), level, place)
        bins = bins_filled(_counted(rows))
        cache.set(key, bins, DISTRIBUTION_SECONDS)
    return Distribution(bins)


def standing_better_than(*, row: CurrentRating, category: Category) -> dict[str, int | None]:
    """level -> the percent of the ranked players at the row's place at that level rated lower than the row
    (`better_than_percent`), for a ranked row of today's list; {} for an unranked one."""
    if not row.ranked:
        return {}
    tied = dict.fromkeys(LEVELS, 0)
    for continent, country, region in CurrentRating.objects.filter(
        category=category, ranked=True, rating=row.rating
    ).values_list("continent", "country", "region"):
        tied["world"] += 1
        tied["continent"] += continent == row.continent
        tied["country"] += country == row.country
        tied["region"] += region == row.region
    percents = {}
    for level in LEVELS:
        place = "" if level == "world" else getattr(row, level)
        rank = getattr(row, f"{level}_rank")
        if (level != "world" and not place) or rank is None:
            continue
        total = current_distribution(category=category, level=level, place=place).total
        percents[level] = better_than_percent(total=total, rank=rank, tied=tied[level])
    return percents


def list_distribution(*, category: Category, filters) -> Distribution:
    """The histogram of the list a ranking page shows (`filters`: its RankingFilters; a search does not narrow
    it: the histogram is of the list at that place)."""
    ranked = not filters.unranked
    if filters.is_today(timezone.localdate()):
        return current_distribution(category=category, level=filters.level, place=filters.place, ranked=ranked)
    return past_distribution(
        category=category, as_of=filters.as_of, level=filters.level, place=filters.place, ranked=ranked
    )


def participant_list_rating(*, category: Category, filters, participant_id: int) -> float | None:
    """The participant's rating in the list a ranking page shows, when they are in it at its place; else None."""
    ranked = not filters.unranked
    if filters.is_today(timezone.localdate()):
        rows = CurrentRating.objects.filter(category=category)
    else:
        snapshot_id = ranking_snapshots(category=category, dates=[filters.as_of], tidy_later=True)[filters.as_of]
        rows = SnapshotRating.objects.filter(snapshot_id=snapshot_id)
    rows = _at_place(rows.filter(participant_id=participant_id, ranked=ranked), filters.level, filters.place)
    return rows.values_list("rating", flat=True).first()
