"""Numbers of rows kept for a while: a paginated table counts what its filters find on every page."""

import hashlib

from django.core.cache import cache
from django.db.models import QuerySet


class CountKept:
    """Rows (a queryset, filtered and ordered) for a paginated table, their number read from the cache.

    Counting them reads every row the filters find, paid by every page of the
    table (a scan of every event for the event list; ten thousand players for
    a search of a common first name among a million). The number is kept for
    `seconds` per `name` (what the filters are) and under the newest row's id,
    so that a new row counts at once; a row edited into or out of the filters
    changes the number (and the pages') at most `seconds` later. The rows
    themselves are always read afresh.

    A number under `kept_from` is not kept: a few rows cost little to count,
    and a search that finds one player, just published, must say so at once.
    """

    def __init__(self, rows: QuerySet, *, name: str, seconds: int, kept_from: int = 0):
        self.rows = rows
        self.name = name
        self.seconds = seconds
        self.kept_from = kept_from
        self._length: int | None = None

    def __len__(self) -> int:
        if self._length is None:
            model = self.rows.model
            newest = model._default_manager.order_by("-pk").values_list("pk", flat=True).first()
            digest = hashlib.sha256(self.name.encode()).hexdigest()[:32]
            key = f"count:{model._meta.label_lower}:{newest}:{digest}"
            length = cache.get(key)
            if length is None:
                length = self.rows.count()
                if length >= self.kept_from:
                    cache.set(key, length, self.seconds)
            self._length = length
        return self._length

    def __getitem__(self, key: slice) -> list:
        return list(self.rows[key])

    def __iter__(self):
        return iter(self.rows)
