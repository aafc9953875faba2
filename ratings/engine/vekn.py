"""V:EKN rating points (SPEC 3.4): points per event, and a rating from the best recent events."""

import functools
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import date

FINAL_BONUS = {"winner": 90, "finalist": 30, "": 0}
LEVEL_BONUS = {"national": 0.25, "continental-qualifier": 0.25, "continental": 1.0, "": 0.0}


def vekn_coefficient(players: int, level: str = "") -> float:
    """log15(N^2) - 1 + level bonus, never below 0 (15 players give 1)."""
    if players < 1:
        return 0.0
    return max(0.0, math.log(players**2, 15) - 1.0 + LEVEL_BONUS[level])


@dataclass(frozen=True, slots=True)
class EventPoints:
    points: float
    coefficient: float
    bonus: float


def vekn_event_points(*, vp: float, gw: int, final: str, players: int, level: str = "") -> EventPoints:
    """5 for attending, 4 per victory point, 8 per game win, plus the finalist bonus x coefficient."""
    coefficient = vekn_coefficient(players, level)
    bonus = FINAL_BONUS[final] * coefficient
    return EventPoints(5.0 + 4.0 * float(vp) + 8.0 * gw + bonus, coefficient, bonus)


@functools.lru_cache(maxsize=256)  # a list's standings ask it for the same day once per player
def months_before(day: date, months: int) -> date:
    """The same day `months` calendar months earlier, clamped to the month's end (31 Aug - 6 = 28/29 Feb)."""
    month_index = day.year * 12 + day.month - 1 - months
    year, month = divmod(month_index, 12)
    month += 1
    next_month = date(year + (month == 12), month % 12 + 1, 1)
    last_day = (next_month - date.resolution).day
    return date(year, month, min(day.day, last_day))


def window(on: date, months: int) -> Callable[[date], bool]:
    """Whether an event day counts on date `on`: in the `months` months up to and including `on`. The window's
    start is found once, for every event tested against it (a list's standings test every player's events)."""
    start = months_before(on, months)
    return lambda event_date: start < event_date <= on


def in_window(event_date: date, on: date, months: int) -> bool:
    """Whether an event counts on date `on` (window)."""
    return window(on, months)(event_date)


def vekn_rating(scores: Iterable[tuple[date, float]], *, on: date, window_months: int = 18, best_of: int = 8) -> float:
    """The sum of the best `best_of` event scores among events in the window ending on `on`."""
    counts = window(on, window_months)
    counted = sorted((points for day, points in scores if counts(day)), reverse=True)
    return sum(counted[:best_of])


def vekn_counting_events(
    scores: Iterable[tuple[date, float, int]], *, on: date, window_months: int = 18, best_of: int = 8
) -> list[tuple[date, float, int]]:
    """The (date, points, event id) that make up the rating on `on`, best first."""
    counts = window(on, window_months)
    counted = [score for score in scores if counts(score[0])]
    return sorted(counted, key=lambda score: (-score[1], score[0]))[:best_of]


def vekn_is_active(event_dates: Iterable[date], *, on: date, inactivity_months: int = 12) -> bool:
    """Ranked on `on` only with an event in the `inactivity_months` months up to `on`."""
    return any(map(window(on, inactivity_months), event_dates))
