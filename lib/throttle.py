"""A budget of costly requests per client and time window, counted in the cache.

Each window is a fixed span of time (a bucket of WINDOW seconds); a client
spends from the bucket of now and waits for the next one when it is empty.
With the default per-process cache each web process counts for itself; a
shared cache (Redis, the database: docs/deployment.md) counts for the site.
"""

import time

from django.core.cache import cache


def budget_spend(*, scope: str, client: str, limit: int, window: int) -> int:
    """Spend one from `client`'s budget of `limit` per `window` seconds: 0 when allowed, else the seconds to wait."""
    now = time.time()
    bucket = int(now // window)
    key = f"budget:{scope}:{client}:{bucket}"
    cache.add(key, 0, timeout=window + 1)
    try:
        spent = cache.incr(key)
    except ValueError:  # evicted between add and incr: count this one as the first
        cache.set(key, 1, timeout=window + 1)
        spent = 1
    if spent <= limit:
        return 0
    return max(1, int((bucket + 1) * window - now) + 1)
