"""lib.skip_scans: a column's distinct values, and a date's years, read along its index a probe each in one
query: the same values as a DISTINCT, in order, with or without the DISTINCT that reads what is left past
PROBES_AT_MOST."""

from datetime import date

import pytest
from django.db import connection
from django.db.models import QuerySet
from django.test.utils import CaptureQueriesContext

from events.models import Event, EventStatus
from lib import skip_scans
from lib.skip_scans import values_along_index, years_along_index
from tests.factories import EventFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def events():
    """Events of four formats over years with gaps (2001, 2003, 2010 twice); a draft alone in 1999."""
    return [
        EventFactory(date=date(2010, 12, 31), format="vintage", status=EventStatus.RATED),
        EventFactory(date=date(2001, 1, 1), format="booster-draft", status=EventStatus.RATED),
        EventFactory(date=date(2003, 6, 15), format="standard", status=EventStatus.RATED),
        EventFactory(date=date(2010, 1, 1), format="standard", status=EventStatus.SUBMITTED),
        EventFactory(date=date(1999, 5, 5), format="alchemy", status=EventStatus.DRAFT),
    ]


@pytest.mark.parametrize("probes", [60, 2, 1], ids=["probes only", "then a DISTINCT", "a DISTINCT at once"])
def test_a_columns_values_are_those_of_a_distinct_in_order(events, probes, monkeypatch):
    monkeypatch.setattr(skip_scans, "PROBES_AT_MOST", probes)

    assert values_along_index(Event.objects.all(), "format") == ["alchemy", "booster-draft", "standard", "vintage"]
    assert values_along_index(Event.objects.public(), "format") == ["booster-draft", "standard", "vintage"]
    assert values_along_index(Event.objects.filter(format="nothing"), "format") == []


@pytest.mark.parametrize("probes", [60, 2, 1], ids=["probes only", "then a DISTINCT", "a DISTINCT at once"])
def test_a_dates_years_are_those_of_a_distinct_in_order(events, probes, monkeypatch):
    monkeypatch.setattr(skip_scans, "PROBES_AT_MOST", probes)
    distinct = list(QuerySet.dates(Event.objects.public(), "date", "year"))

    assert (
        years_along_index(Event.objects.public(), "date")
        == distinct
        == [date(2001, 1, 1), date(2003, 1, 1), date(2010, 1, 1)]
    )
    assert years_along_index(Event.objects.all(), "date")[0] == date(1999, 1, 1)
    assert years_along_index(Event.objects.none(), "date") == []


def test_the_events_years_are_read_in_one_query_without_a_distinct_in_either_order(events):
    with CaptureQueriesContext(connection) as queries:
        years = Event.objects.public().dates("date", "year", order="DESC")

    assert years == [date(2010, 1, 1), date(2003, 1, 1), date(2001, 1, 1)]
    assert len(queries) == 1  # a probe a year, in one recursive query
    assert not any("DISTINCT" in query["sql"] for query in queries.captured_queries)
    assert [day.month for day in Event.objects.dates("date", "month")] == [5, 1, 6, 1, 12]  # other kinds as Django's
