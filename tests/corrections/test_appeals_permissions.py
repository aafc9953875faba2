"""Who may use the appeal and correction pages: anonymous, unlinked user, the match's player, another player,
organizer, admin.

Anonymous visitors are sent to sign in (the correction log is public). Appeals
are for the player who played the match, once an admin linked their account;
everyone else gets 403. The queue, reviews and direct corrections are for
admins only. Every form needs its CSRF token.
"""

import pytest
from django.test import Client
from django.urls import reverse

from corrections import services
from corrections.models import Appeal, Correction
from events.models import Event, Match
from organize.importer import results_import
from tests.bundles import Bundle
from tests.factories import UserFactory
from tests.worlds import account_of, the_match

pytestmark = pytest.mark.django_db

SIGN_IN = 302
PERSONAS = ("anonymous", "unlinked", "the player", "another player", "organizer", "admin")

PUBLIC = dict.fromkeys(PERSONAS, 200)
SIGNED_IN = {**dict.fromkeys(PERSONAS, 200), "anonymous": SIGN_IN}
ADMIN_PAGES = {**dict.fromkeys(PERSONAS, 403), "anonymous": SIGN_IN, "admin": 200}
ADMIN_POSTS = {**ADMIN_PAGES, "admin": 302}
APPEAL_PAGE = {**dict.fromkeys(PERSONAS, 403), "anonymous": SIGN_IN, "the player": 200}
APPEAL_POST = {**APPEAL_PAGE, "the player": 302}

APPEAL = {"own_games": 0, "opponent_games": 2, "draws": 0, "explanation": "I lost that one."}
CORRECT = {"games1": 0, "games2": 2, "draws": 0, "reason": "Swapped.", "action": "apply"}
CORRECT_FROM = {"was_games1": 2, "was_games2": 0, "was_draws": 0, "was_elimination": "False"}
ADD = {"round": 2, "side1": "1002", "side2": "1006", "games1": 2, "games2": 0, "draws": 0, "reason": "Missing.",
       "action": "apply"}  # fmt: skip

# view: (method, url from the fixture's ids, data, expected status per persona)
VIEWS = {
    "correction log": ("get", "/corrections/", None, PUBLIC),
    "correction entry": ("get", "/corrections/{correction}/", None, PUBLIC),
    "my appeals": ("get", "/appeals/", None, SIGNED_IN),
    "appeal form": ("get", "/appeals/new/{match}/", None, APPEAL_PAGE),
    "appeal filed": ("post", "/appeals/new/{match}/", APPEAL, APPEAL_POST),
    "queue": ("get", "/appeals/queue/", None, ADMIN_PAGES),
    "review": ("get", "/appeals/{appeal}/review/", None, ADMIN_PAGES),
    "decision": ("post", "/appeals/{appeal}/review/", {"decision": "reject", "reason": "No."}, ADMIN_POSTS),
    "correct form": ("get", "/corrections/matches/{match}/correct/", None, ADMIN_PAGES),
    "correct applied": ("post", "/corrections/matches/{match}/correct/", {**CORRECT, **CORRECT_FROM}, ADMIN_POSTS),
    "remove form": ("get", "/corrections/matches/{match}/remove/", None, ADMIN_PAGES),
    "remove applied": (
        "post",
        "/corrections/matches/{other_match}/remove/",
        {"reason": "Never played.", "action": "apply", **CORRECT_FROM, "was_games1": 0, "was_games2": 2},
        ADMIN_POSTS,
    ),  # fmt: skip
    "add form": ("get", "/corrections/events/{event}/add-match/", None, ADMIN_PAGES),
    "add applied": ("post", "/corrections/events/{event}/add-match/", ADD, ADMIN_POSTS),
}


@pytest.fixture
def personas_and_ids(tmp_path, admin, organizer):
    """The default bundle imported (not rated), someone of each persona, and the ids the pages are asked for:
    Chloé's open appeal of her E1 round 2 loss to Alice (1001 beat 1003 2–0), and a correction of E1 round 1."""
    results_import(source=Bundle(tmp_path).write())
    match = the_match("E1", 2, "1001")
    other_match = Match.objects.get(event__code="E1", round=2, participant2__player__membership_number="1005")
    chloe = account_of("1003")
    filed = services.appeal_file(user=chloe, match=match, own_games=2, opponent_games=1, draws=0, explanation="Won.")
    correction = services.match_correct(
        match=the_match("E1", 1, "1001"), result=services.Result(1, 2), reason="Swapped.", by=admin
    )
    people = {
        "anonymous": None,
        "unlinked": UserFactory(),
        "the player": account_of("1001"),
        "another player": account_of("1006"),
        "organizer": organizer,
        "admin": admin,
    }
    ids = {
        "match": match.pk,
        "other_match": other_match.pk,
        "appeal": filed.pk,
        "correction": correction.pk,
        "event": Event.objects.get(code="E1").pk,
    }
    return people, ids


def request(client, method, url, data):
    return client.post(url, data) if method == "post" else client.get(url)


@pytest.mark.parametrize("persona", PERSONAS)
@pytest.mark.parametrize("view", VIEWS)
def test_who_may_use_each_page(client, personas_and_ids, view, persona):
    people, ids = personas_and_ids
    method, url, data, expected = VIEWS[view]
    if people[persona] is not None:
        client.force_login(people[persona])

    response = request(client, method, url.format(**ids), data)

    assert response.status_code == expected[persona], response.content.decode()[:500]
    if expected[persona] == SIGN_IN and persona == "anonymous":
        assert response.url.startswith(reverse("accounts:login"))


def test_what_is_refused_leaves_nothing_behind(client, personas_and_ids):
    people, ids = personas_and_ids
    appeals, corrections, matches = Appeal.objects.count(), Correction.objects.count(), Match.objects.count()
    for persona in ("anonymous", "unlinked", "another player", "organizer"):
        client.logout()
        if people[persona] is not None:
            client.force_login(people[persona])
        for method, url, data, _ in VIEWS.values():
            if method == "post":
                request(client, method, url.format(**ids), data)

    assert (Appeal.objects.count(), Correction.objects.count(), Match.objects.count()) == (
        appeals,
        corrections,
        matches,
    )
    assert Appeal.objects.get(pk=ids["appeal"]).is_open


@pytest.mark.parametrize("view", [name for name, (method, *_) in VIEWS.items() if method == "post"])
def test_every_form_needs_its_csrf_token(personas_and_ids, view):
    people, ids = personas_and_ids
    _, url, data, expected = VIEWS[view]
    persona = "the player" if expected["the player"] == 302 else "admin"
    client = Client(enforce_csrf_checks=True)
    client.force_login(people[persona])

    response = client.post(url.format(**ids), data)

    assert response.status_code == 403
    assert "CSRF" in response.content.decode()


def test_the_admin_site_pages_of_appeals_and_corrections_are_for_admins(client, personas_and_ids):
    people, _ = personas_and_ids
    for path in (reverse("admin:corrections_correction_changelist"), reverse("admin:corrections_appeal_changelist")):
        client.force_login(people["admin"])
        assert client.get(path).status_code == 200
        client.force_login(people["organizer"])
        assert client.get(path).status_code == 302  # not staff: sent to the admin sign-in
