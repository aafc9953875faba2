"""Matches in the admin site: a result changed or a match added only with a reason, recorded as a correction;
deleting one leads to the removal page, which asks why and shows the impact first.

The world is the default test bundle (tests/bundles.py), imported and rated (`rated_default_bundle`).
"""

import pytest
from django.db.models import Q
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


# finding matches ----------------------------------------------------------------------------------------------------


def listed_matches(client, **params) -> set[int]:
    response = client.get(admin_url("changelist"), params)
    assert response.status_code == 200
    return {match.pk for match in response.context["cl"].result_list}


def matches_where(condition) -> set[int]:
    return set(Match.objects.filter(condition).values_list("pk", flat=True))


def playing(number: str) -> Q:
    return Q(participant1_id=participant(number)) | Q(participant2_id=participant(number))


def in_team_of(number: str) -> Q:
    return Q(participant1__team__members__membership_number=number) | Q(
        participant2__team__members__membership_number=number
    )


@pytest.mark.parametrize(
    ("search", "expected"),
    [
        ("e1", lambda: Q(event__code="E1")),
        ("team cup", lambda: Q(event__name="Team Cup")),
        ("BECKER", lambda: playing("1002")),  # either side, any case
        ("1005", lambda: playing("1005") | in_team_of("1005")),  # a membership number: byes and teams included
        (
            "dragons",
            lambda: Q(participant1__team__name="Bavarian Dragons") | Q(participant2__team__name="Bavarian Dragons"),
        ),
        ("alice E1", lambda: playing("1001") & Q(event__code="E1")),  # every word, each anywhere
        ('"Alice Archer"', lambda: playing("1001")),  # a quoted phrase is one word
        ("nobody", lambda: Q(pk__in=[])),
    ],
)
def test_the_admin_finds_matches_by_event_and_by_either_side(client, rated_default_bundle, admin, search, expected):
    client.force_login(admin)

    found = listed_matches(client, q=search)

    assert found == matches_where(expected())
    assert found or search == "nobody"


def test_the_round_filter_offers_the_rounds_of_the_event_chosen(client, rated_default_bundle, admin):
    client.force_login(admin)
    event = Event.objects.get(code="E1")

    def round_choices(**params):
        response = client.get(admin_url("changelist"), params)
        specs = [spec for spec in response.context["cl"].filter_specs if getattr(spec, "parameter_name", "") == "round"]
        return [label for value, label in specs[0].lookup_choices] if specs else None

    assert round_choices() is None  # no event chosen: no rounds read
    assert round_choices(event=event.pk) == ["1", "2", "3"]
    assert listed_matches(client, event=event.pk, round=2) == matches_where(Q(event=event, round=2))
