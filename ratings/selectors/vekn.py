"""Reads for a V:EKN player's page: counted events, the rating over the window and its chart."""

from collections import defaultdict
from dataclasses import dataclass
from datetime import date, timedelta

from django.utils import timezone
from django.utils.translation import gettext

from ratings.engine import months_before, vekn_counting_events, vekn_is_active, vekn_rating
from ratings.engine.vekn import in_window
from ratings.formatting import rating_shown
from ratings.models import Category, EventScore

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
            changes[score.leaves_window].append(gettext("%(event)s leaves the window") % {"event": score.event_name})
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
        "label": gettext("%(list)s rating points") % {"list": category.label},
        "dates": [day.isoformat() for day in days],
        "events": ["; ".join(changes.get(day, [gettext("Today")])) for day in days],
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
