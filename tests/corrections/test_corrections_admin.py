"""Matches in the admin site: a result changed or a match added only with a reason, recorded as a correction;
deleting one leads to the removal page, which asks why and shows the impact first.

The world is the default test bundle (tests/bundles.py), imported and rated (`rated_default_bundle`).
"""

import pytest
from django.urls import reverse

from corrections.models import Correction, CorrectionKind
from events.models import Event, Match
from tests.worlds import participant, the_match

pytestmark = pytest.mark.django_db


def admin_url(view, *args):
    return reverse(f"admin:events_match_{view}", args=args)


def test_changing_a_result_in_the_admin_records_a_correction_with_its_reason(client, rated_default_bundle, admin):
    client.force_login(admin)
    match = the_match("E1", 2, "1001")
    data = {"games1": 1, "games2": 2, "draws": 0, "correction_reason": "Scorekeeper error."}

    response = client.post(admin_url("change", match.pk), data)

    assert response.status_code == 302
    [correction] = Correction.objects.all()
    assert (correction.match, correction.new_games1, correction.new_games2, correction.reason) == (
        match,
        1,
        2,
        "Scorekeeper error.",
    )
    assert correction.corrected_by == admin
    match.refresh_from_db()
    assert (match.event.code, match.participant1_id, match.games1) == ("E1", participant("1001"), 1)


def test_the_admin_refuses_a_change_without_a_reason_or_without_a_change(client, rated_default_bundle, admin):
    client.force_login(admin)
    match = the_match("E1", 2, "1001")

    no_reason = client.post(admin_url("change", match.pk), {"games1": 1, "games2": 2, "draws": 0})
    no_change = client.post(
        admin_url("change", match.pk), {"games1": 2, "games2": 0, "draws": 0, "correction_reason": "Hm."}
    )

    assert "This field is required." in no_reason.content.decode()
    assert "nothing to correct" in no_change.content.decode()
    assert not Correction.objects.exists()


def test_adding_a_match_in_the_admin_records_an_addition(client, rated_default_bundle, admin):
    client.force_login(admin)
    data = {
        "event": Event.objects.get(code="E1").pk, "round": 2, "participant1": participant("1002"),
        "participant2": participant("1006"), "games1": 0, "games2": 2, "draws": 0,
        "correction_reason": "Missing from the report.",
    }  # fmt: skip

    response = client.post(admin_url("add"), data)

    assert response.status_code == 302
    [correction] = Correction.objects.all()
    assert correction.kind == CorrectionKind.ADDITION
    assert correction.match.participant2_id == participant("1006")


def test_deleting_a_match_in_the_admin_goes_to_the_removal_page_that_asks_why(client, rated_default_bundle, admin):
    client.force_login(admin)
    match = the_match("E1", 2, "1001")

    response = client.get(admin_url("delete", match.pk))

    assert response.status_code == 302
    assert response.url == reverse("corrections:match_remove", args=[match.pk])
    assert Match.objects.filter(pk=match.pk).exists()
