"""Reads for pages: each returns what a template needs in a fixed number of queries."""

from django.db.models import Count

from events.models import Event
from players.models import Player


def event_list_recent(*, limit: int = 10):
    return Event.objects.annotate(match_count=Count("matches")).order_by("-date", "-id")[:limit]


def world_summary() -> dict:
    """Headline counts for the home page."""
    return {
        "players": Player.objects.count(),
        "countries": Player.objects.exclude(country="").values("country").distinct().count(),
        "events": Event.objects.count(),
        "matches": Event.objects.aggregate(total=Count("matches"))["total"],
    }
