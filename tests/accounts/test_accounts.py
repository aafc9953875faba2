"""Accounts: signing in and out, the sign-in rate limit, password reset, roles, and the player link."""

import re

import pytest
from django.contrib.auth.models import Group
from django.core import mail
from django.test import Client
from django.urls import reverse

from accounts.models import Profile
from accounts.roles import ADMINS, ORGANIZERS
from accounts.selectors import user_can_organize, user_manages_all_events
from tests.factories import PASSWORD, AdminFactory, OrganizerFactory, PlayerFactory, UserFactory

pytestmark = pytest.mark.django_db

LOGIN = "/accounts/login/"


def sign_in(client, username, password=PASSWORD, **extra):
    return client.post(LOGIN, {"username": username, "password": password}, **extra)


def signed_in_user(client):
    return client.get("/accounts/").wsgi_request.user


# Roles ------------------------------------------------------------------------------------------


def test_the_migration_creates_both_roles_with_their_permissions():
    organizers = {p.codename for p in Group.objects.get(name=ORGANIZERS).permissions.all()}
    admins = {p.codename for p in Group.objects.get(name=ADMINS).permissions.all()}

    assert organizers == {"organize_events"}
    assert {"organize_events", "manage_all_events", "change_event", "change_match", "change_profile"} <= admins
    assert "delete_user" not in admins  # admins manage results and links, not accounts wholesale


@pytest.mark.parametrize(
    ("factory", "organizes", "manages_all"),
    [(UserFactory, False, False), (OrganizerFactory, True, False), (AdminFactory, True, True)],
)
def test_each_role_may_do_what_it_says(factory, organizes, manages_all):
    user = factory()

    assert user_can_organize(user=user) is organizes
    assert user_manages_all_events(user=user) is manages_all


# Signing in and out --------------------------------------------------------------------------


def test_an_organizer_signs_in_and_lands_on_their_events(client, organizer):
    response = sign_in(client, organizer.username)

    assert response.status_code == 302
    assert response["Location"] == "/organize/"
    assert signed_in_user(client) == organizer


def test_a_player_signs_in_and_lands_on_their_account(client):
    player = UserFactory()

    response = sign_in(client, player.username)

    assert response["Location"] == "/accounts/"


def test_signing_in_returns_to_the_page_asked_for(client, organizer):
    response = client.post(
        LOGIN, {"username": organizer.username, "password": PASSWORD, "next": "/organize/events/new/"}
    )

    assert response["Location"] == "/organize/events/new/"


def test_a_wrong_password_is_refused_with_a_message(client):
    user = UserFactory()

    response = sign_in(client, user.username, "not the password")

    assert response.status_code == 200
    assert "Please enter a correct username and password" in response.content.decode()
    assert not signed_in_user(client).is_authenticated


def test_signing_out_is_a_post_and_ends_the_session(client):
    client.force_login(UserFactory())

    assert client.get("/accounts/logout/").status_code == 405  # a link could sign anyone out
    response = client.post("/accounts/logout/")

    assert response["Location"] == "/"
    assert not signed_in_user(client).is_authenticated


def test_the_sign_in_form_needs_its_csrf_token():
    user = UserFactory()
    client = Client(enforce_csrf_checks=True)

    response = sign_in(client, user.username)

    assert response.status_code == 403


def test_the_test_clients_login_still_works_without_a_request(client):
    """Sign-ins without a request (scripts, tests) skip the rate limit rather than fail."""
    user = UserFactory()

    assert client.login(username=user.username, password=PASSWORD)


# Rate limit -------------------------------------------------------------------------------------


def test_sign_in_is_paused_for_an_address_after_five_failures(client, settings):
    user = UserFactory()
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        assert sign_in(client, user.username, "wrong").status_code == 200

    locked = sign_in(client, user.username, "wrong again")
    even_right = sign_in(client, user.username)

    assert locked.status_code == 429
    assert "Too many sign-in attempts" in locked.content.decode()
    assert "try again in 15 minutes" in locked.content.decode()
    assert even_right.status_code == 429
    assert not signed_in_user(client).is_authenticated


def test_another_address_may_still_sign_in(client, settings):
    user = UserFactory()
    for _ in range(settings.AXES_FAILURE_LIMIT):
        sign_in(client, user.username, "wrong", REMOTE_ADDR="203.0.113.9")

    response = sign_in(client, user.username, REMOTE_ADDR="198.51.100.4")

    assert response.status_code == 302


def test_a_successful_sign_in_clears_the_failures(client, settings):
    user = UserFactory()
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        sign_in(client, user.username, "wrong")
    assert sign_in(client, user.username).status_code == 302
    client.post("/accounts/logout/")

    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        assert sign_in(client, user.username, "wrong").status_code == 200
    assert sign_in(client, user.username).status_code == 302


# Password reset ------------------------------------------------------------------------------


def test_a_forgotten_password_is_reset_through_an_emailed_link(client):
    user = UserFactory(email="organizer@example.org")

    response = client.post("/accounts/password_reset/", {"email": "organizer@example.org"})
    assert response["Location"] == "/accounts/password_reset/done/"
    assert len(mail.outbox) == 1
    message = mail.outbox[0]
    assert message.to == ["organizer@example.org"]
    link = re.search(r"http://testserver(/accounts/reset/\S+/)", message.body).group(1)

    form_page = client.get(link, follow=True)
    assert "Choose a new password" in form_page.content.decode()
    done = client.post(
        form_page.redirect_chain[-1][0],
        {"new_password1": "a new long passphrase", "new_password2": "a new long passphrase"},
    )
    assert done["Location"] == "/accounts/reset/done/"

    assert sign_in(Client(), user.username, "a new long passphrase").status_code == 302


def test_a_reset_for_an_unknown_address_sends_nothing_and_says_nothing(client):
    response = client.post("/accounts/password_reset/", {"email": "nobody@example.org"})

    assert response["Location"] == "/accounts/password_reset/done/"  # no hint whether the address exists
    assert mail.outbox == []


# Navigation ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("factory", "sees_organize", "sees_admin"),
    [(None, False, False), (UserFactory, False, False), (OrganizerFactory, True, False), (AdminFactory, True, True)],
)
def test_the_navigation_offers_what_the_user_may_use(client, factory, sees_organize, sees_admin):
    if factory:
        client.force_login(factory())

    html = client.get("/").content.decode()

    assert ('href="/organize/"' in html) is sees_organize
    assert ('href="/admin/"' in html) is sees_admin
    assert ('action="/accounts/logout/"' in html) is bool(factory)
    assert ('href="/accounts/login/"' in html) is (factory is None)


# The account page and the player link ---------------------------------------------------------------


def test_the_account_page_is_for_signed_in_users(client):
    response = client.get("/accounts/")

    assert response.status_code == 302
    assert response["Location"] == "/accounts/login/?next=/accounts/"


def test_a_malformed_membership_number_is_refused_next_to_the_field(client):
    client.force_login(UserFactory())

    response = client.post("/accounts/", {"membership_number": "47 11!"})

    assert response.status_code == 200
    assert response.context["form"].errors["membership_number"] == ["1 to 32 characters: letters, digits and hyphens."]


def test_an_admin_links_a_player_on_the_users_page_and_is_recorded(admin_client):
    player = PlayerFactory()
    user = UserFactory()
    page = admin_client.get(reverse("admin:auth_user_change", args=[user.pk]))
    assert page.status_code == 200
    form = page.context["adminform"].form
    data = {name: value for name, value in form.initial.items() if value is not None and name != "password"}
    data.update(
        {
            "username": user.username,
            "date_joined_0": user.date_joined.strftime("%Y-%m-%d"),
            "date_joined_1": user.date_joined.strftime("%H:%M:%S"),
            "profile-TOTAL_FORMS": "1",
            "profile-INITIAL_FORMS": "0",
            "profile-MIN_NUM_FORMS": "0",
            "profile-MAX_NUM_FORMS": "1",
            "profile-0-player": str(player.pk),
            "profile-0-user": str(user.pk),
        }
    )
    data.pop("groups", None)
    data.pop("user_permissions", None)
    data.pop("last_login", None)

    response = admin_client.post(reverse("admin:auth_user_change", args=[user.pk]), data)

    assert response.status_code == 302, response.context["adminform"].form.errors if response.context else response
    profile = Profile.objects.get(user=user)
    assert profile.player == player
    assert profile.linked_by is not None and profile.linked_at is not None


# Demo accounts ------------------------------------------------------------------------------------


def test_the_demo_world_comes_with_a_demo_organizer_and_admin(client, capsys):
    from django.core.management import call_command

    call_command("seed_demo", players=60, events=5, seed=2)

    assert "organizer / organizer-demo (organizer)" in capsys.readouterr().out
    assert sign_in(client, "organizer", "organizer-demo")["Location"] == "/organize/"
    admin = Client()
    assert sign_in(admin, "admin", "admin-demo").status_code == 302
    assert admin.get("/admin/").status_code == 200
    assert admin.get("/organize/").status_code == 200


@pytest.mark.parametrize(
    "permission", ["corrections.view_correction", "corrections.change_appeal", "ratings.view_rankingsnapshot"]
)
def test_admins_hold_the_permissions_of_models_added_after_the_roles(permission):
    app_label, codename = permission.split(".")
    # As the migrations left the groups, before any factory completes them.
    admins = Group.objects.get(name=ADMINS).permissions
    assert admins.filter(content_type__app_label=app_label, codename=codename).exists()
    assert not OrganizerFactory().has_perm(permission)


def test_an_admin_cannot_make_anyone_a_superuser_or_hand_out_permissions(admin):
    client = Client()
    client.force_login(admin)
    url = reverse("admin:auth_user_change", args=[admin.pk])
    page = client.get(url)
    assert page.status_code == 200
    form = page.context["adminform"].form
    data = {name: value for name, value in form.initial.items() if value is not None and name != "password"}
    data.update(
        {
            "username": admin.username,
            "groups": [group.pk for group in admin.groups.all()],
            "is_superuser": "on",
            "user_permissions": [],
            "date_joined_0": "2026-01-01",
            "date_joined_1": "00:00:00",
            "profile-TOTAL_FORMS": "1",
            "profile-INITIAL_FORMS": "0",
            "profile-MIN_NUM_FORMS": "0",
            "profile-MAX_NUM_FORMS": "1",
        }
    )

    client.post(url, data)

    admin.refresh_from_db()
    assert not admin.is_superuser
    assert "is_superuser" not in form.fields  # shown, not editable
    assert "user_permissions" not in form.fields
