"""Who manages whose account in the admin site: superusers everyone, admins only organizers and players.

Each attack an admin (the Admins role, staff, not superuser) could try on a
superuser or another admin is posted as the admin site would post it, and
must change nothing.
"""

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.test import Client
from django.urls import reverse

from accounts.roles import ADMINS, ORGANIZERS
from players.models import Participant, Player
from tests.clients import client_of
from tests.factories import PASSWORD, AdminFactory, ProfileFactory, UserFactory

pytestmark = pytest.mark.django_db

User = get_user_model()
NEW_PASSWORD = "a brand new passphrase 77"


def change_form_data(user, **changes) -> dict:
    """What the admin's change form of `user` posts: its current values, with `changes`."""
    data = {
        "username": user.username,
        "first_name": user.first_name,
        "last_name": user.last_name,
        "email": user.email,
        "groups": [group.pk for group in user.groups.all()],
        "user_permissions": [],
        "date_joined_0": user.date_joined.strftime("%Y-%m-%d"),
        "date_joined_1": user.date_joined.strftime("%H:%M:%S"),
        "profile-TOTAL_FORMS": "0",
        "profile-INITIAL_FORMS": "0",
        "profile-MIN_NUM_FORMS": "0",
        "profile-MAX_NUM_FORMS": "1",
    }
    for flag in ("is_active", "is_staff", "is_superuser"):
        if changes.pop(flag, getattr(user, flag)):
            data[flag] = "on"
    data.update(changes)
    return data


def password_post(client, user):
    return client.post(
        reverse("admin:auth_user_password_change", args=[user.pk]),
        {"password1": NEW_PASSWORD, "password2": NEW_PASSWORD, "usable_password": "true"},
    )


def can_sign_in(user, password) -> bool:
    return Client().login(username=user.username, password=password)


# An admin against a superuser --------------------------------------------------------------------------------------


def test_an_admin_cannot_set_a_superusers_password(admin, superuser):
    response = password_post(client_of(admin), superuser)

    assert response.status_code == 403
    assert not can_sign_in(superuser, NEW_PASSWORD)
    assert can_sign_in(superuser, PASSWORD)


@pytest.mark.parametrize(
    "change", [{"email": "attacker@evil.example"}, {"is_active": False}, {"username": "root2"}], ids=str
)
def test_an_admin_cannot_change_a_superusers_email_active_flag_or_name(admin, superuser, change):
    client = client_of(admin)
    data = change_form_data(superuser, **change)

    response = client.post(reverse("admin:auth_user_change", args=[superuser.pk]), data)

    assert response.status_code == 403
    superuser.refresh_from_db()
    assert (superuser.username, superuser.email, superuser.is_active) == ("root", "root@example.org", True)


def test_an_admin_sees_a_superusers_account_read_only(admin, superuser):
    page = client_of(admin).get(reverse("admin:auth_user_change", args=[superuser.pk]))

    assert page.status_code == 200
    assert not page.context["has_change_permission"]
    assert reverse("admin:auth_user_password_change", args=[superuser.pk]) not in page.content.decode()


def test_an_admin_cannot_relink_a_superusers_player(admin, superuser):
    profile = ProfileFactory(user=superuser)
    player = Player.objects.create(
        participant=Participant.objects.create(kind="player"), membership_number="777", name="Someone"
    )
    client = client_of(admin)

    response = client.post(
        reverse("admin:accounts_profile_change", args=[profile.pk]),
        {"user": superuser.pk, "player": player.pk},
    )

    assert response.status_code == 403
    profile.refresh_from_db()
    assert profile.player is None


# An admin against another admin ------------------------------------------------------------------------------------


def test_an_admin_cannot_set_another_admins_password(admin):
    other = AdminFactory()

    assert password_post(client_of(admin), other).status_code == 403
    assert can_sign_in(other, PASSWORD)


@pytest.mark.parametrize("change", ["email", "is_active", "groups"])
def test_an_admin_cannot_change_another_admins_email_active_flag_or_roles(admin, change):
    other = AdminFactory()
    client = client_of(admin)
    changes = {"email": {"email": "attacker@evil.example"}, "is_active": {"is_active": False}, "groups": {}}[change]
    data = change_form_data(other, **changes)
    if change == "groups":
        data["groups"] = []

    response = client.post(reverse("admin:auth_user_change", args=[other.pk]), data)

    assert response.status_code == 403
    other.refresh_from_db()
    assert other.email.endswith("@example.org") and other.is_active
    assert list(other.groups.values_list("name", flat=True)) == [ADMINS]


def test_an_admin_cannot_promote_anyone_or_themselves(admin):
    player = UserFactory()
    client = client_of(admin)
    admins = Group.objects.get(name=ADMINS)

    promoted = client.post(
        reverse("admin:auth_user_change", args=[player.pk]),
        change_form_data(player, is_staff=True, groups=[admins.pk]),
    )
    own = client.post(
        reverse("admin:auth_user_change", args=[admin.pk]),
        change_form_data(admin, is_superuser=True, groups=[admins.pk, Group.objects.get(name=ORGANIZERS).pk]),
    )

    assert promoted.status_code == 200  # the form again: the Admins role is not among the choices
    assert "groups" in promoted.context["adminform"].form.errors
    player.refresh_from_db()
    admin.refresh_from_db()
    assert not player.is_staff and not player.groups.exists()
    assert own.status_code == 302  # their own details saved, their roles and flags as they were
    assert not admin.is_superuser and list(admin.groups.values_list("name", flat=True)) == [ADMINS]


# What admins do ----------------------------------------------------------------------------------------------------


def test_an_admin_creates_an_organizer_account(admin):
    client = client_of(admin)

    added = client.post(
        reverse("admin:auth_user_add"),
        {
            "username": "olivia",
            "password1": NEW_PASSWORD,
            "password2": NEW_PASSWORD,
            "usable_password": "true",
            **{f"profile-{count}": "0" for count in ("TOTAL_FORMS", "INITIAL_FORMS", "MIN_NUM_FORMS")},
        },
    )
    olivia = User.objects.get(username="olivia")
    organizers = Group.objects.get(name=ORGANIZERS)
    changed = client.post(
        reverse("admin:auth_user_change", args=[olivia.pk]),
        change_form_data(olivia, email="olivia@example.org", groups=[organizers.pk]),
    )

    assert (added.status_code, changed.status_code) == (302, 302)
    olivia.refresh_from_db()
    assert olivia.email == "olivia@example.org" and list(olivia.groups.all()) == [organizers]
    assert not olivia.is_staff and not olivia.is_superuser
    assert can_sign_in(olivia, NEW_PASSWORD)


def test_an_admin_manages_organizer_and_player_accounts(admin, organizer):
    client = client_of(admin)

    assert password_post(client, organizer).status_code == 302
    assert can_sign_in(organizer, NEW_PASSWORD)
    response = client.post(
        reverse("admin:auth_user_change", args=[organizer.pk]), change_form_data(organizer, is_active=False)
    )
    assert response.status_code == 302
    organizer.refresh_from_db()
    assert not organizer.is_active


def test_a_superuser_manages_admins(superuser, admin):
    client = client_of(superuser)

    assert password_post(client, admin).status_code == 302
    response = client.post(
        reverse("admin:auth_user_change", args=[admin.pk]), change_form_data(admin, groups=[], is_staff=False)
    )

    assert response.status_code == 302
    admin.refresh_from_db()
    assert not admin.is_staff and not admin.groups.exists()
    assert can_sign_in(admin, NEW_PASSWORD)
