"""One style of dates on every page: "23 Nov 2026", and "23 Nov 2026, 20:46" with the time."""

import datetime
import re

import pytest
from django.template import Context, Template
from django.utils import timezone

from corrections import services as corrections
from tests.factories import AdminFactory
from tests.worlds import the_match

pytestmark = pytest.mark.django_db


def test_dates_and_times_without_a_format_of_their_own_are_written_one_way():
    moment = datetime.datetime(2026, 11, 23, 20, 46, tzinfo=datetime.UTC)

    written = Template("{{ day }} | {{ moment }} | {{ day|date }} | {{ moment|date:'DATETIME_FORMAT' }}").render(
        Context({"day": moment.date(), "moment": moment})
    )

    assert written == "23 Nov 2026 | 23 Nov 2026, 20:46 | 23 Nov 2026 | 23 Nov 2026, 20:46"


def test_the_correction_log_and_a_correction_write_their_times_that_way(client, rated_default_bundle):
    correction = corrections.match_correct(
        match=the_match("E1", 1, "1001"), result=corrections.Result(1, 2), reason="Swapped.", by=AdminFactory()
    )
    written = timezone.localtime(correction.corrected_at)
    expected = f"{written.day} {written:%b %Y, %H:%M}"

    for url in ("/corrections/", f"/corrections/{correction.pk}/"):
        page = client.get(url).content.decode()
        assert expected in page
        assert not re.search(r"\d{4}-\d\d-\d\d \d\d:\d\d", page)  # the old machine style is gone
