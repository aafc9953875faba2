"""The admin site's edits of events and standings ask for their recomputes (corrections/results_admin.py), once per
change, as the services do; a match is changed there through the correction services (test_results_changed.py).

The world is the default test bundle (tests/bundles.py), imported (nothing queued): E1 Munich Open (standard,
2003-05-01: constructed), E2 Paris Draft (booster-draft, 2003-06-14: limited), E3 Team Cup (standard, teams of 3,
2003-07-05: team-constructed), E4 Vampire Night (vtes, 2003-08-02: vtes).
"""

from datetime import date

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from events.models import Event, EventStatus, Standing
from organize.importer import results_import
from ratings.models import RecomputeRun
from tests.bundles import Bundle
from tests.ratings.recompute_worlds import E1_DATE, E2_DATE, E3_DATE, E4_DATE, participant, queued_runs

pytestmark = pytest.mark.django_db

EVENT_FORM_FIELDS = [
    "name", "code", "date", "format", "team_size", "structure", "player_count", "k", "level2_judge", "level",
    "country", "city", "organizer", "status",
]  # fmt: skip


@pytest.fixture
def events(tmp_path):
    """The default bundle, imported (no runs)."""
    results_import(source=Bundle(tmp_path).write())
    return {event.code: event for event in Event.objects.all()}


def event_form(event: Event, **changes) -> dict:
    """The admin's change form of `event` as it is filled in, with `changes`."""
    values = {name: getattr(event, name) for name in EVENT_FORM_FIELDS} | changes
    data = {}
    for name, value in values.items():
        if name == "level2_judge":
            if value:
                data[name] = "on"
        elif name == "organizer":
            data[name] = value.pk if value else ""
        elif name == "country":
            data[name] = getattr(value, "code", value) or ""
        else:
            data[name] = "" if value is None else str(value)
    return data


def admin_saves(client, event: Event, **changes):
    response = client.post(reverse("admin:events_event_change", args=[event.pk]), event_form(event, **changes))
    assert response.status_code == 302, response.context["adminform"].form.errors
    return response


def test_moving_an_event_later_recomputes_from_its_old_date(admin_client, events):
    admin_saves(admin_client, events["E1"], date=date(2003, 9, 1))

    assert queued_runs() == [("constructed", E1_DATE)]
    run = RecomputeRun.objects.get()
    assert run.reason == "Munich Open (2003-09-01) changed"
    assert run.requested_by == get_user_model().objects.get(username="admin")


def test_moving_an_event_earlier_recomputes_from_its_new_date(admin_client, events):
    admin_saves(admin_client, events["E2"], date=date(2002, 12, 24))

    assert queued_runs() == [("limited", date(2002, 12, 24))]


def test_changing_an_events_format_and_date_recomputes_its_old_and_new_lists_from_the_earlier_date(
    admin_client, events
):
    admin_saves(admin_client, events["E1"], format="sealed", date=date(2003, 6, 1))

    assert queued_runs() == [("constructed", E1_DATE), ("limited", E1_DATE)]
    assert RecomputeRun.objects.count() == 2


@pytest.mark.parametrize(("field", "value"), [("k", 48), ("player_count", 40), ("level2_judge", False)])
def test_changing_a_rated_field_of_an_event_queues_a_recompute(admin_client, events, field, value):
    admin_saves(admin_client, events["E1"], **{field: value})

    assert queued_runs() == [("constructed", E1_DATE)]


def test_renaming_an_event_queues_nothing(admin_client, events):
    admin_saves(admin_client, events["E1"], name="Munich Open 2003", city="München")

    assert queued_runs() == []


def test_adding_a_submitted_event_queues_its_list_and_a_draft_queues_nothing(admin_client, events):
    fields = {"name": "Late report", "date": date(2003, 4, 1), "format": "standard", "player_count": 8, "k": 32}
    added = Event(code="", team_size=1, structure="swiss", level="", country="", city="", organizer=None, **fields)
    for status in (EventStatus.DRAFT, EventStatus.SUBMITTED):
        data = event_form(added, status=status, name=f"{fields['name']} ({status})")
        assert admin_client.post(reverse("admin:events_event_add"), data).status_code == 302

    assert queued_runs() == [("constructed", date(2003, 4, 1))]
    assert RecomputeRun.objects.get().reason == "Late report (submitted) (2003-04-01) added"


def test_deleting_a_submitted_event_queues_its_list(admin_client, events):
    response = admin_client.post(reverse("admin:events_event_delete", args=[events["E2"].pk]), {"post": "yes"})

    assert response.status_code == 302
    assert not Event.objects.filter(code="E2").exists()
    assert queued_runs() == [("limited", E2_DATE)]
    assert RecomputeRun.objects.get().reason == "Paris Draft (2003-06-14) removed"


def test_deleting_events_together_queues_one_run_per_list(admin_client, events):
    Event.objects.filter(code="E2").update(format="standard")  # E1 and E2 both rated in constructed now
    selected = [events[code].pk for code in ("E1", "E2", "E3")]

    response = admin_client.post(
        reverse("admin:events_event_changelist"),
        {"action": "delete_selected", "_selected_action": selected, "post": "yes"},
    )

    assert response.status_code == 302
    assert Event.objects.count() == 1
    assert queued_runs() == [("constructed", E1_DATE), ("team-constructed", E3_DATE)]
    assert set(RecomputeRun.objects.values_list("reason", flat=True)) == {"3 events removed"}


def test_a_draft_event_queues_nothing_until_it_is_submitted(admin_client, events):
    draft = events["E1"]
    Event.objects.filter(pk=draft.pk).update(status=EventStatus.DRAFT)
    draft.refresh_from_db()
    admin_saves(admin_client, draft, date=date(2003, 3, 1))
    assert queued_runs() == []

    draft.refresh_from_db()
    admin_saves(admin_client, draft, status=EventStatus.SUBMITTED)

    assert queued_runs() == [("constructed", date(2003, 3, 1))]


def test_deleting_a_draft_event_queues_nothing(admin_client, events):
    Event.objects.filter(code="E1").update(status=EventStatus.DRAFT)

    admin_client.post(reverse("admin:events_event_delete", args=[events["E1"].pk]), {"post": "yes"})

    assert not Event.objects.filter(code="E1").exists()
    assert queued_runs() == []


def test_withdrawing_a_submitted_event_to_draft_queues_its_list(admin_client, events):
    admin_saves(admin_client, events["E2"], status=EventStatus.DRAFT)

    assert queued_runs() == [("limited", E2_DATE)]


def test_a_vtes_standing_changed_or_deleted_queues_vtes_once_per_change(admin_client, events):
    standing = Standing.objects.get(event__code="E4", participant_id=participant("1006"))
    data = {"event": standing.event_id, "participant": standing.participant_id, "rank": 3, "vp": "1", "gw": 0}
    change = reverse("admin:events_standing_change", args=[standing.pk])
    assert admin_client.post(change, {**data, "final": ""}).status_code == 302
    delete = reverse("admin:events_standing_delete", args=[standing.pk])
    assert admin_client.post(delete, {"post": "yes"}).status_code == 302

    assert queued_runs() == [("vtes", E4_DATE), ("vtes", E4_DATE)]
    assert set(RecomputeRun.objects.values_list("reason", flat=True)) == {
        "result changed in Vampire Night (2003-08-02)",
        "result removed in Vampire Night (2003-08-02)",
    }


def test_deleting_standings_together_queues_one_run_per_list(admin_client, events):
    selected = list(Standing.objects.values_list("pk", flat=True))

    admin_client.post(
        reverse("admin:events_standing_changelist"),
        {"action": "delete_selected", "_selected_action": selected, "post": "yes"},
    )

    assert not Standing.objects.exists()
    assert queued_runs() == [("vtes", E4_DATE)]
    assert RecomputeRun.objects.get().reason == "3 standings removed"
