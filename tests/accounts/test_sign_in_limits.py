"""Sign-in limits behind a proxy: one person's wrong passwords pause only them, never everybody.

The site stands behind TRUSTED_PROXY_COUNT proxies; each appends the address
it was connected from to X-Forwarded-For, and the connection itself comes
from the nearest proxy. A visitor can write anything into the header before
it reaches our proxies, so only the entries our proxies wrote count.
"""

import pytest
from django.core import mail
from django.test import Client, RequestFactory

from lib.client_address import client_address
from tests.factories import PASSWORD, UserFactory

pytestmark = pytest.mark.django_db

PROXY = "10.0.0.2"
LOGIN = "/accounts/login/"


def through_proxy(client_ip: str, forged: str = "") -> dict:
    """The request headers our one proxy gives a visitor at `client_ip` (who may have sent a header of their own)."""
    forwarded = f"{forged}, {client_ip}" if forged else client_ip
    return {"REMOTE_ADDR": PROXY, "HTTP_X_FORWARDED_FOR": forwarded}


def sign_in(username, password=PASSWORD, **headers):
    return Client().post(LOGIN, {"username": username, "password": password}, **headers)


@pytest.fixture
def behind_one_proxy(settings):
    settings.TRUSTED_PROXY_COUNT = 1
    return settings


# The visitor's address ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "proxies, remote, forwarded, expected",
    [
        (0, "203.0.113.5", "198.51.100.1", "203.0.113.5"),  # no proxy: the header is the visitor's, ignored
        (1, PROXY, "198.51.100.1", "198.51.100.1"),  # one proxy: what it appended
        (1, PROXY, "6.6.6.6, 198.51.100.1", "198.51.100.1"),  # a forged entry before it changes nothing
        (2, PROXY, "6.6.6.6, 198.51.100.1, 10.0.0.1", "198.51.100.1"),  # two proxies: second from the right
        (1, PROXY, "", PROXY),  # not through the proxy (a probe on the machine): the peer
        (1, PROXY, "not-an-address", PROXY),  # garbage is not from our proxies
        (1, PROXY, " 2001:db8::1 ", "2001:db8::1"),
    ],
)
def test_the_visitors_address_is_read_through_the_trusted_proxies_only(settings, proxies, remote, forwarded, expected):
    settings.TRUSTED_PROXY_COUNT = proxies
    request = RequestFactory().get("/", REMOTE_ADDR=remote, HTTP_X_FORWARDED_FOR=forwarded)

    assert client_address(request) == expected


# Behind the proxy ---------------------------------------------------------------------------------------------------


def test_wrong_passwords_behind_the_proxy_pause_only_that_account_from_that_visitor(behind_one_proxy):
    victim, bystander = UserFactory(), UserFactory()
    for _ in range(behind_one_proxy.AXES_FAILURE_LIMIT):
        sign_in(victim.username, "wrong", **through_proxy("198.51.100.7"))

    assert sign_in(victim.username, **through_proxy("198.51.100.7")).status_code == 429
    assert sign_in(bystander.username, **through_proxy("198.51.100.7")).status_code == 302
    assert sign_in(bystander.username, **through_proxy("203.0.113.20")).status_code == 302
    assert sign_in(victim.username, **through_proxy("203.0.113.20")).status_code == 302


def test_a_venue_sharing_one_address_keeps_signing_in_when_one_person_mistypes():
    organizer, typist = UserFactory(), UserFactory()
    for _ in range(10):
        sign_in(typist.username, "wrong", REMOTE_ADDR="192.0.2.44")

    assert sign_in(organizer.username, REMOTE_ADDR="192.0.2.44").status_code == 302


def test_an_address_guessing_many_accounts_is_paused_for_all_of_them(behind_one_proxy):
    behind_one_proxy.SIGN_IN_ADDRESS_FAILURE_LIMIT = 8
    accounts = UserFactory.create_batch(5)
    for account in accounts:
        for _ in range(2):  # under the per-account limit every time
            sign_in(account.username, "guess", **through_proxy("198.51.100.66"))

    assert sign_in(accounts[0].username, **through_proxy("198.51.100.66")).status_code == 429
    assert sign_in(UserFactory().username, **through_proxy("198.51.100.66")).status_code == 429
    assert sign_in(accounts[0].username, **through_proxy("203.0.113.1")).status_code == 302


def test_a_forged_forwarded_header_does_not_escape_the_pause_without_trusted_proxies(settings):
    settings.TRUSTED_PROXY_COUNT = 0
    account = UserFactory()
    for attempt in range(settings.AXES_FAILURE_LIMIT):
        sign_in(account.username, "wrong", REMOTE_ADDR="198.51.100.9", HTTP_X_FORWARDED_FOR=f"1.1.1.{attempt}")

    escaped = sign_in(account.username, REMOTE_ADDR="198.51.100.9", HTTP_X_FORWARDED_FOR="9.9.9.9")

    assert escaped.status_code == 429


def test_behind_the_proxy_a_forged_entry_does_not_escape_the_pause(behind_one_proxy):
    account = UserFactory()
    for attempt in range(behind_one_proxy.AXES_FAILURE_LIMIT):
        sign_in(account.username, "wrong", **through_proxy("198.51.100.9", forged=f"1.1.1.{attempt}"))

    assert sign_in(account.username, **through_proxy("198.51.100.9", forged="9.9.9.9")).status_code == 429


# Password change and reset ------------------------------------------------------------------------------------------


def test_wrong_old_passwords_on_the_password_change_page_count_as_failed_sign_ins(settings):
    account = UserFactory()
    client = Client()
    client.force_login(account)
    change = {"new_password1": "a new long passphrase 9", "new_password2": "a new long passphrase 9"}
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        response = client.post("/accounts/password_change/", {"old_password": "guess", **change})
        assert response.status_code == 200 and "old_password" in response.context["form"].errors

    paused = client.post("/accounts/password_change/", {"old_password": "guess", **change})
    right_one = client.post("/accounts/password_change/", {"old_password": PASSWORD, **change})

    assert paused.status_code == 429 and right_one.status_code == 429
    account.refresh_from_db()
    assert account.check_password(PASSWORD)
    assert sign_in(account.username).status_code == 429  # and signing in from there is paused too


def test_the_password_change_still_works_with_the_right_old_password():
    account = UserFactory()
    client = Client()
    client.force_login(account)

    new = "a new long passphrase 9"

    response = client.post(
        "/accounts/password_change/", {"old_password": PASSWORD, "new_password1": new, "new_password2": new}
    )

    assert response.status_code == 302
    account.refresh_from_db()
    assert account.check_password(new)


def reset(email, address="198.51.100.3"):
    return Client().post("/accounts/password_reset/", {"email": email}, REMOTE_ADDR=address)


def test_reset_emails_to_one_account_are_throttled_without_telling_whether_it_exists(settings):
    settings.PASSWORD_RESETS_PER_ACCOUNT = 3
    account = UserFactory(email="victim@example.org")

    answers = [reset(account.email, address=f"203.0.113.{n}") for n in range(6)]

    assert [answer.status_code for answer in answers] == [302] * 6  # the same page each time
    assert len(mail.outbox) == 3
    assert all(message.to == ["victim@example.org"] for message in mail.outbox)


def test_reset_emails_from_one_address_are_throttled_and_the_page_says_when_to_try_again(settings):
    settings.PASSWORD_RESETS_PER_ADDRESS = 4
    accounts = UserFactory.create_batch(6)

    answers = [reset(account.email) for account in accounts]

    assert [answer.status_code for answer in answers] == [302] * 4 + [429] * 2
    assert len(mail.outbox) == 4
    assert answers[-1]["Retry-After"] == "3600"
    assert "try again in 60 minutes" in answers[-1].content.decode()
    assert reset(accounts[-1].email, address="192.0.2.1").status_code == 302  # another address is not held up
    assert len(mail.outbox) == 5
