"""Organizers report an event: create it, submit it once its results are in, see it rated; admins correct it."""

import datetime
import re

import pytest
from django.test import Client

from corrections.models import Correction, CorrectionSource
from events.models import Event, EventStatus, Match
from ratings.models import RecomputeRun, RecomputeStatus
from ratings.services.runs import recompute_run_execute
from tests.factories import AdminFactory, EventFactory, MatchFactory
from tests.organize.pages import MATCH_HEADER, VALID_MATCHES, results_of, upload

pytestmark = pytest.mark.django_db


# Creating an event --------------------------------------------------------------------------------


def test_an_organizer_creates_a_draft_event_they_own(organizer_client, organizer):
    response = organizer_client.post(
        "/organize/events/new/",
        {
            "name": "Munich Open",
            "date": "2024-05-01",
            "format": "standard",
            "team_size": "1",
            "k": "32",
            "player_count": "24",
            "level2_judge": "on",
            "structure": "swiss-top8",
            "country": "DE",
            "city": "Munich",
            "level": "",
        },
    )

    event = Event.objects.get(name="Munich Open")
    assert response["Location"] == f"/organize/events/{event.pk}/"
    assert (event.organizer, event.status, event.k, event.player_count, event.level2_judge) == (
        organizer,
        EventStatus.DRAFT,
        32,
        24,
        True,
    )
    assert (event.country.code, event.city, event.structure, event.date) == (
        "DE",
        "Munich",
        "swiss-top8",
        datetime.date(2024, 5, 1),
    )


def test_the_form_explains_each_k_class_as_the_rules_do(organizer_client):
    html = organizer_client.get("/organize/events/new/").content.decode()

    for meaning in [
        "8: casual (e.g. Friday Night Magic)",
        "16: default for every event",
        "32: qualifier (e.g. Pro Tour Qualifier)",
        "40: premier (e.g. Grand Prix, National Championship)",
        "48: Pro Tour, World Championship",
        "new rating = old + K × (result − expected result)",
    ]:
        assert meaning in html


@pytest.mark.parametrize(
    ("change", "field", "message"),
    [
        ({"format": "vtes", "team_size": "3"}, "team_size", "No rating list takes V:TES events with teams of 3"),
        ({"format": "chess"}, "format", "Select a valid choice"),
        ({"k": "20"}, "k", "Select a valid choice"),
        ({"player_count": "0"}, "player_count", "greater than or equal to 1"),
        ({"level": "national"}, "level", "Only V:EKN events have a level"),
        ({"name": ""}, "name", "This field is required"),
    ],
)
def test_a_bad_event_is_refused_next_to_the_field(organizer_client, change, field, message):
    data = {"name": "Open", "date": "2024-05-01", "format": "standard", "team_size": "1", "k": "16"}
    data.update({"player_count": "8", "structure": "swiss", "country": "", "city": "", "level": ""})
    data.update(change)

    response = organizer_client.post("/organize/events/new/", data)

    assert response.status_code == 200
    assert any(message in error for error in response.context["form"].errors[field])
    assert not Event.objects.exists()


# Submitting --------------------------------------------------------------------------------------------


def test_submitting_queues_the_rating_and_the_organizer_sees_it_rated(organizer_client, event, players):
    upload(organizer_client, event, matches=VALID_MATCHES)

    response = organizer_client.post(f"/organize/events/{event.pk}/submit/", {"confirm": "yes"})

    assert response["Location"] == f"/organize/events/{event.pk}/"
    event.refresh_from_db()
    assert event.status == EventStatus.SUBMITTED
    [run] = RecomputeRun.objects.all()
    assert (run.category.slug, run.status, run.since) == ("constructed", RecomputeStatus.QUEUED, event.date)
    page = organizer_client.get(f"/organize/events/{event.pk}/")
    assert page.context["jobs"] == [run]
    assert "Queued" in page.content.decode()

    recompute_run_execute(run_id=run.pk)  # what the job worker does

    event.refresh_from_db()
    assert event.status == EventStatus.RATED
    page = organizer_client.get(f"/organize/events/{event.pk}/").content.decode()
    assert "Status: <span data-status-text>Rated</span>" in page
    assert "Done" in page
    listed = organizer_client.get("/organize/").content.decode()
    assert 'class="tag tag-yes">Rated</span>' in listed


def test_the_event_list_counts_each_events_results(organizer_client, organizer, event, players):
    upload(organizer_client, event, matches=VALID_MATCHES)
    EventFactory(organizer=organizer, name="Saturday Draft", player_count=8)

    page = organizer_client.get("/organize/").content.decode()

    rows = re.findall(r'<a href="/organize/events/\d+/">([^<]+)</a>.*?data-label="Results"[^>]*>([^<]*)</td>', page)
    assert dict(rows) == {"Friday Standard": "4 matches", "Saturday Draft": "none yet"}


def test_the_results_are_checked_again_before_submitting(organizer_client, event, players):
    upload(organizer_client, event, matches=VALID_MATCHES)
    Event.objects.filter(pk=event.pk).update(player_count=3)

    response = organizer_client.post(f"/organize/events/{event.pk}/submit/", {"confirm": "yes"}, follow=True)

    event.refresh_from_db()
    assert event.status == EventStatus.DRAFT
    assert "Not submitted: the results have 1 problem(s)" in response.content.decode()
    assert "3 players, but the results name 4 participants" in response.content.decode()
    assert not RecomputeRun.objects.exists()


def test_stored_results_that_no_longer_fit_are_shown_by_round_and_pairing(organizer_client, event, players):
    upload(organizer_client, event, matches=VALID_MATCHES)
    Event.objects.filter(pk=event.pk).update(team_size=3)  # the details changed after the upload

    response = organizer_client.get(f"/organize/events/{event.pk}/")

    problems = [(error.file, error.column, error.message) for error in response.context["problems"]]
    assert (
        "Round 2, 1002 vs 1004",
        "player2_id",
        "unknown team '1004': team events name teams from teams.csv",
    ) in problems
    assert "Round 2, 1002 vs 1004 (player2_id): unknown team" in response.content.decode()


def test_the_draft_page_shows_the_problems_of_the_results_as_they_are_at_every_view(organizer_client, event, players):
    upload(organizer_client, event, matches=VALID_MATCHES)
    page = f"/organize/events/{event.pk}/"

    def problems(**headers) -> list[str]:
        return [error.message for error in organizer_client.get(page, **headers).context["problems"]]

    assert problems() == problems() == []
    Event.objects.filter(pk=event.pk).update(player_count=3)  # the details changed, not through the site
    assert problems() == ["3 players, but the results name 4 participants"]
    assert problems(HTTP_ACCEPT_LANGUAGE="de") == ["3 Spieler, aber die Ergebnisse nennen 4 Teilnehmer"]
    # The results changed behind the page's back: the fourth player's matches taken out, three are named.
    Match.objects.filter(event=event, participant2__player__membership_number="1004").delete()
    assert problems() == []


def test_an_event_without_results_cannot_be_submitted(organizer_client, event):
    organizer_client.post(f"/organize/events/{event.pk}/submit/", {"confirm": "yes"})

    event.refresh_from_db()
    assert event.status == EventStatus.DRAFT


def test_an_event_in_the_future_cannot_be_submitted(organizer_client, organizer, players):
    event = EventFactory(organizer=organizer, date=datetime.date.today() + datetime.timedelta(days=3))
    upload(organizer_client, event, matches=VALID_MATCHES)

    response = organizer_client.post(f"/organize/events/{event.pk}/submit/", {"confirm": "yes"}, follow=True)

    assert "its date is in the future" in response.content.decode()
    event.refresh_from_db()
    assert event.status == EventStatus.DRAFT


def test_an_admin_corrects_a_submitted_event_and_it_is_rated_again(organizer_client, event, players):
    upload(organizer_client, event, matches=VALID_MATCHES)
    organizer_client.post(f"/organize/events/{event.pk}/submit/", {"confirm": "yes"})
    recompute_run_execute(run_id=RecomputeRun.objects.get().pk)
    admin = Client()
    admin.force_login(admin_user := AdminFactory())

    response = upload(admin, event, matches=MATCH_HEADER + "1,1002,1001,2,0,0,0\n")

    assert response.status_code == 302
    assert results_of(event) == [(1, "1001", "1002", 0, 2, 0, False)]
    queued = RecomputeRun.objects.filter(status=RecomputeStatus.QUEUED)
    assert [(run.category.slug, run.since) for run in queued] == [("constructed", event.date)]
    # Each change is a correction like any other: logged with who and why (SPEC 5).
    corrections = Correction.objects.all()
    assert {(each.source, each.corrected_by, each.event_id) for each in corrections} == {
        (CorrectionSource.ADMIN, admin_user, event.pk)
    }
    assert {
        (each.kind, each.old_games1, each.old_games2, each.new_games1, each.new_games2) for each in corrections
    } >= {("result", 2, 1, 0, 2)}


def test_an_organizer_deletes_their_draft(organizer_client, event, players):
    upload(organizer_client, event, matches=VALID_MATCHES)

    response = organizer_client.post(f"/organize/events/{event.pk}/delete/", {"confirm": "delete"})

    assert response["Location"] == "/organize/"
    assert not Event.objects.filter(pk=event.pk).exists()
    assert not RecomputeRun.objects.exists()


def test_editing_a_submitted_events_details_as_admin_queues_a_recompute(event, players):
    admin = Client()
    admin.force_login(AdminFactory())
    Event.objects.filter(pk=event.pk).update(status=EventStatus.RATED)
    Match.objects.create(event=event, round=1, participant1=players[0].participant, participant2=players[1].participant)
    page = admin.get(f"/organize/events/{event.pk}/edit/")
    data = {name: value for name, value in page.context["form"].initial.items() if value not in (None, False)}
    data.update({"date": "2024-03-02", "k": "40", "country": ""})

    response = admin.post(f"/organize/events/{event.pk}/edit/", data)

    assert response.status_code == 302
    event.refresh_from_db()
    assert event.k == 40
    assert [run.category.slug for run in RecomputeRun.objects.filter(status=RecomputeStatus.QUEUED)] == ["constructed"]


# Asking first ------------------------------------------------------------------------------------------------------


def test_deleting_a_draft_asks_first_and_says_what_goes(organizer_client, organizer):
    draft = EventFactory(organizer=organizer, name="Thursday Standard")
    MatchFactory(event=draft)

    page = organizer_client.get(f"/organize/events/{draft.pk}/delete/").content.decode()
    unconfirmed = organizer_client.post(f"/organize/events/{draft.pk}/delete/")

    assert "with its 1 match" in page and "This cannot be undone." in page
    assert unconfirmed.status_code == 200  # the question again, nothing deleted
    assert Event.objects.filter(pk=draft.pk).exists()
    organizer_client.post(f"/organize/events/{draft.pk}/delete/", {"confirm": "delete"})
    assert not Event.objects.filter(pk=draft.pk).exists()


def test_submitting_goes_through_the_preview_and_a_tick(organizer_client, organizer):
    draft = EventFactory(organizer=organizer)
    MatchFactory(event=draft)

    event_page = organizer_client.get(f"/organize/events/{draft.pk}/").content.decode()
    unticked = organizer_client.post(f"/organize/events/{draft.pk}/submit/", follow=True)

    assert f'action="/organize/events/{draft.pk}/submit/"' not in event_page  # only the preview submits
    assert f'href="/organize/events/{draft.pk}/preview/">Preview and submit' in event_page
    assert unticked.redirect_chain[-1][0] == f"/organize/events/{draft.pk}/preview/"
    assert "tick that you checked the results" in unticked.content.decode()
    assert 'name="confirm" value="yes" required' in unticked.content.decode()
    draft.refresh_from_db()
    assert draft.status == EventStatus.DRAFT
