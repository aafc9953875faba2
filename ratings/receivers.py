"""Changed results queue recomputes; the work itself runs in the job worker.

The one way to ask: the services that change results send
events.signals.results_changed, once per change, with the kinds of events it
touched. This receiver maps each kind to the lists it feeds and queues one run
per list, from the earliest date the change touches it. It runs inside the
sender's transaction, so a worker that sees the run also sees the change, and a
change rolled back takes its run with it.
"""

from datetime import date

from ratings.models import Category, RecomputeRun
from ratings.selectors.history import categories_rating
from ratings.services.runs import recompute_enqueue


def results_changed_queue_recomputes(
    sender, *, kinds: dict[tuple[str, int], date], reason: str, requested_by=None, **kwargs
) -> list[RecomputeRun]:
    """One queued run per list the changed kinds feed; derived lists follow their components (recompute_enqueue)."""
    earliest: dict[int, tuple[Category, date]] = {}
    for (format, team_size), since in kinds.items():
        for category in categories_rating(format=format, team_size=team_size):
            known = earliest.get(category.pk)
            if known is None or since < known[1]:
                earliest[category.pk] = (category, since)
    runs = []
    for category, since in earliest.values():
        if run := recompute_enqueue(category=category, since=since, reason=reason, requested_by=requested_by):
            runs.append(run)
    return runs
