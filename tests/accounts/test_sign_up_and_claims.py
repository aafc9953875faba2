"""Signing up with an e-mail confirmation, claiming a membership number, and the admins' claims queue."""

import re
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core import mail
from django.test import Client
from django.utils import timezone

from accounts.models import ClaimStatus, MembershipClaim, Profile
from accounts.selectors import user_player
from ratings.housekeeping import housekeeping_run
from tests.factories import PASSWORD, EventFactory, MatchFactory, OrganizerFactory, PlayerFactory, UserFactory

pytestmark = pytest.mark.django_db

User = get_user_model()
SIGN_UP = "/accounts/sign-up/"
QUEUE = "/claims/queue/"


def sign_up(client, username="ada", email="ada@example.org", password=PASSWORD, **extra):
    return client.post(
        SIGN_UP, {"username": username, "email": email, "password1": password, "password2": password}, **extra
    )


def link_in(message) -> str:
    return re.search(r"https?://[^/\s]+(/\S+)", message.body).group(1)


def signs_in(username, password=PASSWORD) -> bool:
    client = Client()
    client.post("/accounts/login/", {"username": username, "password": password})
    return client.get("/accounts/").status_code == 200


# Signing up ---------------------------------------------------------------------------------------------------------


def test_a_new_account_opens_only_through_the_link_e_mailed_to_its_address(client, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        response = sign_up(client)

    assert response.status_code == 302 and response["Location"] == "/accounts/sign-up/sent/"
    assert not User.objects.get(username="ada").is_active
    assert not signs_in("ada")  # not before the address is confirmed
    (message,) = mail.outbox
    assert message.to == ["ada@example.org"]
    assert message.subject == "Confirm your e-mail address for Card game ratings"
    link = link_in(message)

    # Opening the link asks for a click (mail scanners open links too); the click opens the account and signs in.
    assert "Confirm and sign in" in client.get(link).content.decode()
    assert User.objects.get(username="ada").is_active is False
    confirmed = client.post(link)
    assert confirmed["Location"] == "/accounts/"
    assert client.get("/accounts/").wsgi_request.user.username == "ada"
    assert signs_in("ada")

    # The link works once.
    again = Client().post(link)
    assert again.status_code == 400
    assert "used already or is out of date" in again.content.decode()


def test_an_old_link_does_not_reopen_an_account_an_admin_closed(client, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        sign_up(client)
    link = link_in(mail.outbox[0])
    client.post(link)
    User.objects.filter(username="ada").update(is_active=False)

    assert Client().post(link).status_code == 400
    assert not User.objects.get(username="ada").is_active


def test_an_address_with_an_account_gets_a_reminder_the_page_does_not_tell(client, django_capture_on_commit_callbacks):
    UserFactory(username="ada", email="ada@example.org")

    with django_capture_on_commit_callbacks(execute=True):
        response = sign_up(client, username="ada2", email="ADA@example.org")

    assert response["Location"] == "/accounts/sign-up/sent/"  # as for a new address
    assert not User.objects.filter(username="ada2").exists()
    (message,) = mail.outbox
    assert message.subject == "You already have an account on Card game ratings"
    assert '"ada"' in message.body and "/accounts/password_reset/" in message.body


def test_signing_up_again_before_confirming_sends_the_link_again(client, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        sign_up(client)
        sign_up(client, username="ada-again")

    assert User.objects.filter(email="ada@example.org").count() == 1
    assert len(mail.outbox) == 2
    Client().post(link_in(mail.outbox[1]))
    assert User.objects.get(username="ada").is_active


def test_a_sign_up_never_confirmed_is_deleted_once_its_link_is_long_dead_and_nothing_else_is(
    client, settings, django_capture_on_commit_callbacks
):
    settings.PASSWORD_RESET_TIMEOUT = 3 * 24 * 3600
    with django_capture_on_commit_callbacks(execute=True):
        sign_up(client, username="forgot", email="forgot@example.org")
        sign_up(client, username="recent", email="recent@example.org")
    UserFactory(username="closed", is_active=False, last_login=timezone.now())
    organizer_to_be = UserFactory(username="organizer-to-be", is_active=False)
    organizer_to_be.groups.add(Group.objects.get_or_create(name="Organizers")[0])
    long_ago = timezone.now() - timedelta(days=3 + 7, minutes=1)
    User.objects.filter(username__in=["forgot", "closed", "organizer-to-be"]).update(date_joined=long_ago)

    report = housekeeping_run()

    assert report.unconfirmed_sign_ups == 1
    assert set(User.objects.values_list("username", flat=True)) == {"recent", "closed", "organizer-to-be"}
    assert not Profile.objects.filter(user__username="forgot").exists()
    # The address is free again: whoever owns it can sign up with it.
    with django_capture_on_commit_callbacks(execute=True):
        sign_up(client, username="forgot", email="forgot@example.org")
    assert User.objects.filter(username="forgot", is_active=False).exists()


@pytest.mark.parametrize(
    ("fields", "field", "error"),
    [
        ({"email": "not an address"}, "email", "Enter a valid email address."),
        ({"password1": "short", "password2": "short"}, "password2", "This password is too short."),
        ({"password2": "something else entirely"}, "password2", "The two password fields didn’t match."),
        ({"username": "taken"}, "username", "A user with that username already exists."),
    ],
)
def test_a_bad_sign_up_is_refused_next_to_its_field_and_nothing_is_saved(client, fields, field, error):
    UserFactory(username="taken")
    data = {"username": "ada", "email": "ada@example.org", "password1": PASSWORD, "password2": PASSWORD, **fields}

    response = client.post(SIGN_UP, data)

    assert response.status_code == 200
    assert any(message.startswith(error[:-1]) for message in response.context["form"].errors[field])
    assert not User.objects.filter(email="ada@example.org").exists() or fields == {"username": "taken"}
    assert not mail.outbox


def test_sign_ups_from_one_address_are_limited(client):
    for number in range(10):
        assert sign_up(client, username=f"u{number}", email=f"u{number}@example.org").status_code == 302

    refused = sign_up(client, username="u10", email="u10@example.org")

    assert refused.status_code == 429 and int(refused["Retry-After"]) > 0
    assert "Too many sign-ups" in refused.content.decode() and "password" not in refused.content.decode()
    assert not User.objects.filter(username="u10").exists()


def test_the_sign_in_page_leads_to_signing_up(client):
    page = client.get("/accounts/login/").content.decode()

    assert 'href="/accounts/sign-up/"' in page


# Claiming a number ---------------------------------------------------------------------------------------------------


@pytest.fixture
def ada():
    """The player Ada Lovelace (4711, Germany), who played two events, and a plain account "ada"."""
    player = PlayerFactory(membership_number="4711", name="Ada Lovelace", country="DE")
    for name, day in (("Berlin Open", "2024-03-02"), ("Hamburg Cup", "2024-05-04")):
        MatchFactory(event=EventFactory(name=name, date=day, city=name.split()[0]), participant1=player.participant)
    return player


def test_a_user_claims_a_number_and_sees_it_wait(client, ada):
    user = UserFactory()
    client.force_login(user)

    response = client.post("/accounts/", {"membership_number": "4711", "note": "I won Hamburg Cup."})

    assert response["Location"] == "/accounts/"
    claim = MembershipClaim.objects.get(user=user)
    assert (claim.player, claim.status, claim.note) == (ada, ClaimStatus.OPEN, "I won Hamburg Cup.")
    assert user_player(user=user) is None  # not before an admin confirms it
    page = client.get("/accounts/").content.decode()
    assert "You claimed <strong>Ada Lovelace (4711)</strong>" in page and "Waiting for an admin" in page


def test_a_second_claim_replaces_the_open_one(client, ada):
    other = PlayerFactory(membership_number="4712")
    user = UserFactory()
    client.force_login(user)
    client.post("/accounts/", {"membership_number": "4711"})

    client.post("/accounts/", {"membership_number": "4712"})

    assert list(MembershipClaim.objects.filter(user=user).values_list("player", flat=True)) == [other.pk]


@pytest.mark.parametrize(
    ("number", "error"),
    [
        ("9999", "No player has the membership number “9999”."),
        ("4711", "That number belongs to another account. If it is yours, write to an admin."),
        ("47 11!", "1 to 32 characters: letters, digits and hyphens."),
    ],
)
def test_a_claim_that_cannot_be_is_refused_next_to_the_field(client, ada, number, error):
    Profile.objects.create(user=UserFactory(), player=ada)  # 4711 is someone else's already
    user = UserFactory()
    client.force_login(user)

    response = client.post("/accounts/", {"membership_number": number})

    assert response.status_code == 200
    assert response.context["form"].errors["membership_number"] == [error]
    assert not MembershipClaim.objects.filter(user=user).exists()


# The claims queue -----------------------------------------------------------------------------------------------------


@pytest.fixture
def claim(ada):
    user = UserFactory(username="ada-account", email="ada@example.org")
    return MembershipClaim.objects.create(user=user, player=ada, note="I won Hamburg Cup.")


def test_the_queue_shows_what_an_admin_compares(client, admin, claim):
    client.force_login(admin)

    page = client.get(QUEUE).content.decode()

    assert "1 open claim" in page
    for fact in ("ada-account", "ada@example.org", "Ada Lovelace", "4711", "Germany", "I won Hamburg Cup."):
        assert fact in page
    # The last events, newest first.
    assert page.index("Hamburg Cup</a>, 4 May 2024, Hamburg") < page.index("Berlin Open</a>, 2 Mar 2024, Berlin")
    assert 'href="/claims/queue/"' in client.get("/appeals/queue/").content.decode()  # beside the appeals


def test_the_queue_reads_the_last_events_of_every_claim_at_once(client, admin, claim, django_assert_max_num_queries):
    for _ in range(5):
        player = PlayerFactory()
        MatchFactory(participant1=player.participant)
        MembershipClaim.objects.create(user=UserFactory(), player=player)
    client.force_login(admin)

    with django_assert_max_num_queries(12):
        page = client.get(QUEUE).content.decode()

    assert "6 open claims" in page


def test_an_admin_confirms_a_claim_and_the_player_is_told(client, admin, claim, django_capture_on_commit_callbacks):
    client.force_login(admin)

    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(f"/claims/{claim.pk}/decide/", {"decision": "accept", "reason": ""})

    assert response["Location"] == QUEUE
    claim.refresh_from_db()
    assert (claim.status, claim.decided_by) == (ClaimStatus.ACCEPTED, admin)
    assert user_player(user=claim.user) == claim.player
    assert claim.user.profile.linked_by == admin
    (message,) = mail.outbox
    assert message.to == ["ada@example.org"]
    assert message.subject == "Your membership number is confirmed"
    player_client = Client()
    player_client.force_login(claim.user)
    account = player_client.get("/accounts/").content.decode()
    assert "Ada Lovelace (4711)" in account and "Confirmed" in account


def test_an_admin_refuses_with_a_reason_the_player_reads(client, admin, claim, django_capture_on_commit_callbacks):
    client.force_login(admin)
    without_reason = client.post(f"/claims/{claim.pk}/decide/", {"decision": "reject", "reason": " "}, follow=True)
    assert "Say why: the player reads it." in without_reason.content.decode()
    assert MembershipClaim.objects.get().is_open

    with django_capture_on_commit_callbacks(execute=True):
        client.post(f"/claims/{claim.pk}/decide/", {"decision": "reject", "reason": "Ada lives in Germany, not Peru."})

    claim.refresh_from_db()
    assert claim.status == ClaimStatus.REJECTED
    assert user_player(user=claim.user) is None
    assert "Ada lives in Germany, not Peru." in mail.outbox[0].body
    player_client = Client()
    player_client.force_login(claim.user)
    account = player_client.get("/accounts/").content.decode()
    assert "Not confirmed" in account and "Ada lives in Germany, not Peru." in account
    assert 'name="membership_number"' in account  # they may claim again


def test_a_claim_is_decided_once(client, admin, claim):
    client.force_login(admin)
    client.post(f"/claims/{claim.pk}/decide/", {"decision": "accept"})

    decision = {"decision": "reject", "reason": "Changed my mind."}
    again = client.post(f"/claims/{claim.pk}/decide/", decision, follow=True)

    assert "This claim is decided already." in again.content.decode()
    assert MembershipClaim.objects.get().status == ClaimStatus.ACCEPTED


@pytest.mark.parametrize("role", ["anonymous", "player", "organizer"])
def test_only_admins_see_and_decide_claims(client, claim, role):
    if role == "player":
        client.force_login(claim.user)  # not even their own
    elif role == "organizer":
        client.force_login(OrganizerFactory())

    queue = client.get(QUEUE)
    decided = client.post(f"/claims/{claim.pk}/decide/", {"decision": "accept"})

    expected = 302 if role == "anonymous" else 403
    assert (queue.status_code, decided.status_code) == (expected, expected)
    assert MembershipClaim.objects.get().is_open
