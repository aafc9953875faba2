"""Merging two numbers of one person, in a real Chromium on a phone: an admin finds both by name, sees what moves,
merges, and the number given up leads to the kept player's page.

The world is the default test bundle (tests/bundles.py) plus a second number of Finn Gallagher (1006), 2006,
with one match at a later event.
"""

import re

import pytest
from playwright.sync_api import expect

from events.models import Match
from players.models import Player
from tests.browser.test_appeal_flow import sign_in
from tests.factories import AdminFactory, EventFactory, MatchFactory, PlayerFactory


@pytest.fixture
def second_number(rated_default_bundle):
    AdminFactory(username="adam")
    finn_again = PlayerFactory(membership_number="2006", name="Finn Gallager", country="IE")
    event = EventFactory(name="Dublin Open", format="standard", status="submitted")
    bruno = Player.objects.get(membership_number="1002")
    MatchFactory(event=event, round=1, participant1=finn_again.participant, participant2=bruno.participant)


def test_an_admin_merges_two_numbers_on_a_phone(phone, second_number):
    sign_in(phone, "adam")
    phone.goto("/claims/queue/")
    phone.get_by_role("link", name="Merge two numbers of one person").click()

    phone.get_by_label("Number kept").fill("1006")
    phone.get_by_label("Number given up").fill("2006")
    phone.get_by_label("Why they are one person").fill("Same person: his ID was checked at Dublin Open.")
    phone.get_by_role("button", name="See what moves").click()
    expect(phone.get_by_role("heading", name="Check, then merge")).to_be_visible()
    expect(phone.locator(".facts")).to_contain_text("1 match and 0 standings at 1 event")
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390

    phone.get_by_role("button", name="Merge", exact=True).click()
    expect(phone).to_have_url(re.compile(r"/players/1006/$"))
    expect(phone.locator(".messages")).to_contain_text("Finn Gallager (2006) merged into Finn Gallagher (1006)")
    assert Match.objects.filter(event__name="Dublin Open", participant1__player__membership_number="1006").exists()

    phone.goto("/players/2006/")
    expect(phone).to_have_url(re.compile(r"/players/1006/$"))
    phone.goto("/corrections/")
    expect(phone.locator("#merges")).to_contain_text("Same person: his ID was checked at Dublin Open.")
