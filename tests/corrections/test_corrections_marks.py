"""Where a correction shows (SPEC 5): a "Corrected" note, linked to its log entry, on the match wherever it is shown.

The world is the default test bundle (tests/bundles.py), imported and rated (`rated_default_bundle`).
Munich Open (E1, 2003-05-01) round 2: Alice Archer (1001) beat Chloé Dubois (1003) 2–0.
"""

import pytest
from django.urls import reverse
from django.utils import timezone

from corrections import services
from corrections.selectors import match_corrections
from corrections.services import Result
from ratings.models import RecomputeRun, RecomputeStatus
from ratings.services.runs import recompute_run_execute
from tests.worlds import the_match

pytestmark = pytest.mark.django_db


def run_queued():
    for run in RecomputeRun.objects.filter(status=RecomputeStatus.QUEUED).order_by("pk"):
        recompute_run_execute(run_id=run.pk)


def test_match_corrections_gives_each_corrected_match_its_records_oldest_first(rated_default_bundle, admin):
    match = the_match("E1", 2, "1001")
    first = services.match_correct(match=match, result=Result(0, 2), reason="Slips swapped.", by=admin)
    second = services.match_correct(match=match, result=Result(1, 2), reason="One game more.", by=admin)
    untouched = the_match("E1", 1, "1001")

    found = match_corrections(match_ids=[match.pk, untouched.pk])

    assert list(found) == [match.pk]
    assert [each.url for each in found[match.pk]] == [first.get_absolute_url(), second.get_absolute_url()]
    today = timezone.localdate()
    assert str(found[match.pk][0]) == (
        f"{today:%Y-%m-%d}: Alice Archer won 2–0 → Chloé Dubois won 2–0 by {admin.username}: Slips swapped."
    )


def test_a_corrected_match_is_marked_in_both_histories_head_to_head_and_on_the_event_page(
    client, rated_default_bundle, admin
):
    correction = services.match_correct(
        match=the_match("E1", 2, "1001"), result=Result(0, 2), reason="Slips swapped.", by=admin
    )
    run_queued()
    link = f'<a href="{correction.get_absolute_url()}">'

    pages = [
        "/players/1001/?category=constructed",
        "/players/1003/?category=constructed",
        "/players/1003/vs/1001/",
        reverse("events:detail", args=[correction.event_id]),
    ]
    for page in pages:
        html = client.get(page).content.decode()
        assert "Corrected" in html, page
        assert link in html, page
        assert "Slips swapped." in html, page
    # Someone whose match was not corrected sees no mark.
    assert "Corrected" not in client.get("/players/1002/?category=constructed").content.decode()
