"""Who may use the organizers' pages: anonymous, player, organizer (the event's own), another organizer, admin.

Anonymous visitors are sent to sign in; signed-in users without the organizer
role get 403; an organizer gets 404 for an event that is not theirs (its
existence is not given away); admins may do everything. Once an event is
submitted, only admins change it.
"""

import pytest

from events.models import EventStatus
from tests.clients import client_of
from tests.factories import EventFactory, MatchFactory, UserFactory

pytestmark = pytest.mark.django_db

PERSONAS = ("anonymous", "player", "organizer", "other organizer", "admin")

# Per page: (method, path with {id}, expected status per persona). 302 after a POST is the success redirect.
SIGN_IN = 302
OWN_EVENT_PAGES = {"anonymous": SIGN_IN, "player": 403, "organizer": 200, "other organizer": 404, "admin": 200}
OWN_EVENT_POSTS = {"anonymous": SIGN_IN, "player": 403, "organizer": 302, "other organizer": 404, "admin": 302}
LIST_PAGES = {"anonymous": SIGN_IN, "player": 403, "organizer": 200, "other organizer": 200, "admin": 200}

VIEWS = {
    "index": ("get", "/organize/", LIST_PAGES),
    "new event": ("get", "/organize/events/new/", LIST_PAGES),
    "event": ("get", "/organize/events/{id}/", OWN_EVENT_PAGES),
    "edit": ("get", "/organize/events/{id}/edit/", OWN_EVENT_PAGES),
    "upload": ("get", "/organize/events/{id}/upload/", OWN_EVENT_PAGES),
    "round": ("get", "/organize/events/{id}/rounds/1/", OWN_EVENT_PAGES),
    "standings": ("get", "/organize/events/{id}/standings/", OWN_EVENT_PAGES),
    "preview": ("get", "/organize/events/{id}/preview/", OWN_EVENT_PAGES),
    "submit": ("post", "/organize/events/{id}/submit/", OWN_EVENT_POSTS),
    "delete page": ("get", "/organize/events/{id}/delete/", OWN_EVENT_PAGES),  # asks first
    "delete": ("post", "/organize/events/{id}/delete/", OWN_EVENT_POSTS),
}
# What the forms send to say yes: irreversible actions ask first.
CONFIRMED = {"submit": {"confirm": "yes"}, "delete": {"confirm": "delete"}}

# On a submitted event the organizer may still look, but not change anything; admins may
# (a second submission is refused with a message; deleting is done in the admin site).
SUBMITTED = {
    "event": {"organizer": 200, "admin": 200},
    "preview": {"organizer": 200, "admin": 200},
    "edit": {"organizer": 403, "admin": 200},
    "upload": {"organizer": 403, "admin": 200},
    "round": {"organizer": 403, "admin": 200},
    "standings": {"organizer": 403, "admin": 200},
    "submit": {"organizer": 403, "admin": 302},
    "delete page": {"organizer": 403, "admin": 403},
    "delete": {"organizer": 403, "admin": 403},
}


@pytest.fixture
def people(organizer, second_organizer, admin):
    return {
        "anonymous": None,
        "player": UserFactory(),
        "organizer": organizer,
        "other organizer": second_organizer,
        "admin": admin,
    }


def an_event_with_results(organizer, **fields):
    event = EventFactory(organizer=organizer, **fields)
    MatchFactory(event=event)
    return event


def call(client, view, event):
    method, path, _ = VIEWS[view]
    if method == "post":
        return client.post(path.format(id=event.pk), CONFIRMED.get(view, {}))
    return client.get(path.format(id=event.pk))


@pytest.mark.parametrize("persona", PERSONAS)
@pytest.mark.parametrize("view", VIEWS)
def test_each_page_lets_in_exactly_who_it_should(people, view, persona):
    event = an_event_with_results(people["organizer"], date="2024-03-02")

    response = call(client_of(people[persona]), view, event)

    expected = VIEWS[view][2][persona]
    assert response.status_code == expected, (view, persona, response.status_code)
    if persona == "anonymous":
        assert response["Location"].startswith("/accounts/login/?next=")


@pytest.mark.parametrize("persona", ["organizer", "admin"])
@pytest.mark.parametrize("view", SUBMITTED)
def test_after_submission_only_admins_change_the_event(people, view, persona):
    event = an_event_with_results(people["organizer"], status=EventStatus.SUBMITTED)

    response = call(client_of(people[persona]), view, event)

    assert response.status_code == SUBMITTED[view][persona]
    if response.status_code == 302:
        assert response["Location"] == f"/organize/events/{event.pk}/"
    event.refresh_from_db()
    assert event.status == EventStatus.SUBMITTED


def test_the_list_shows_an_organizer_only_their_own_events_and_an_admin_all(people):
    mine = EventFactory(organizer=people["organizer"], name="Mine")
    theirs = EventFactory(organizer=people["other organizer"], name="Theirs")

    def listed(persona):
        response = client_of(people[persona]).get("/organize/")
        return {row.record.pk for row in response.context["table"].page.object_list}

    assert listed("organizer") == {mine.pk}
    assert listed("other organizer") == {theirs.pk}
    assert listed("admin") == {mine.pk, theirs.pk}


@pytest.mark.parametrize("view", [name for name, (method, _, _) in VIEWS.items() if method == "post"])
def test_every_change_needs_its_csrf_token(people, view):
    event = an_event_with_results(people["organizer"])

    response = call(client_of(people["organizer"], enforce_csrf_checks=True), view, event)

    assert response.status_code == 403
    assert event.__class__.objects.filter(pk=event.pk, status=EventStatus.DRAFT).exists()


@pytest.mark.parametrize(
    "path",
    [
        "/organize/events/new/",
        "/organize/events/{id}/edit/",
        "/organize/events/{id}/upload/",
        "/organize/events/{id}/rounds/1/",
        "/organize/events/{id}/standings/",
    ],
)
def test_every_form_post_needs_its_csrf_token(people, path):
    event = an_event_with_results(people["organizer"])
    client = client_of(people["organizer"], enforce_csrf_checks=True)

    response = client.post(path.format(id=event.pk), {})

    assert response.status_code == 403
