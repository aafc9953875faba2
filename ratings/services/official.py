"""Publishing the official lists: each list as it stands at the end of each month (SPEC 4).

The job workers publish last month's lists just after midnight on the first
of the month, and at any hourly check that finds one missing (a worker that
was down at midnight catches up). A list is published from its month end's
snapshot (ratings.snapshots), which the workers have written already, and is
kept as published (OfficialList): later corrections recompute the history
and every past date, not what was published.

`publish_official_lists --months N` publishes the last N month ends where
missing, for a new site: they are then published with today's knowledge of
the history, on today's date.
"""

from datetime import date

from django.db import IntegrityError, transaction
from django.utils import timezone

from ratings.models import Category, OfficialList, SnapshotRating
from ratings.snapshots import end_of_previous_month, ranking_snapshots


def month_ends(*, months: int, today: date | None = None) -> list[date]:
    """The last `months` month ends before `today`, oldest first."""
    ends, day = [], today or timezone.localdate()
    for _ in range(months):
        day = end_of_previous_month(day)
        ends.append(day)
    return ends[::-1]


def official_lists_publish(*, categories=None, months: int = 1) -> list[OfficialList]:
    """Publish, where missing, each category's list at each of the last `months` month ends; those published.

    A list with nobody in it yet is not published. Workers on several
    machines may publish at once: the second finds the list published.
    """
    ends = month_ends(months=months)
    published = []
    for category in categories if categories is not None else Category.objects.all():
        done = set(OfficialList.objects.filter(category=category, as_of__in=ends).values_list("as_of", flat=True))
        for as_of in ends:
            if as_of in done:
                continue
            snapshot_id = ranking_snapshots(category=category, dates=[as_of])[as_of]
            rows = SnapshotRating.objects.filter(snapshot_id=snapshot_id)
            if not rows.exists():
                continue
            try:
                with transaction.atomic():
                    published.append(
                        OfficialList.objects.create(
                            category=category,
                            as_of=as_of,
                            snapshot_id=snapshot_id,
                            ranked=rows.filter(ranked=True).count(),
                        )
                    )
            except IntegrityError:  # published meanwhile by another worker, or its snapshot pruned meanwhile
                continue
    return published
