"""Where the rated history reaches a day: the seq a recompute from that day starts at, and a preview's."""

from datetime import date, timedelta

import pytest
from django.db.models import Max

from ratings.models import RatingEntry
from ratings.selectors.history import history_last_seq
from ratings.services.recompute import category_recompute
from tests.ratings.recompute_worlds import a_world, category

pytestmark = pytest.mark.django_db


def test_the_last_seq_up_to_a_day_is_the_last_match_rated_by_then_on_every_day_around_the_history():
    """Before the first match, on each match day and between them, and after the last match (where the
    last match answers at once)."""
    a_world(events=5)
    constructed = category("constructed")
    category_recompute(category=constructed)
    days = sorted(set(RatingEntry.objects.filter(category=constructed).values_list("event_date", flat=True)))

    for offset in range((days[-1] - days[0]).days + 6):
        day = days[0] - timedelta(days=2) + timedelta(days=offset)
        expected = RatingEntry.objects.filter(category=constructed, event_date__lte=day).aggregate(last=Max("seq"))
        assert history_last_seq(constructed, day) == (expected["last"] or 0), day


def test_a_list_without_history_reaches_no_day():
    assert history_last_seq(category("constructed"), date(2026, 1, 1)) == 0
