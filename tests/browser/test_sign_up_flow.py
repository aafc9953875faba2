"""A stranger becomes a player who may appeal, in a real Chromium: sign up, confirm the e-mail, claim a membership
number, an admin compares and confirms it, and the player appeals a match of their own history.

The world is the default test bundle (tests/bundles.py): Chloé Dubois (1003) lost to Alice Archer in Munich Open.
Run on a desktop and on a phone; on the phone no page of the flow is wider than the screen.
"""

import re

import pytest
from django.core import mail
from playwright.sync_api import expect

from accounts.models import ClaimStatus, MembershipClaim
from corrections.models import Appeal
from tests.factories import PASSWORD, AdminFactory

NEW_PASSWORD = "a long and new pass phrase"


def sign_in(tab, username, password=PASSWORD):
    tab.goto("/accounts/login/")
    tab.get_by_label("Username").fill(username)
    tab.get_by_label("Password").fill(password)
    tab.get_by_role("button", name="Sign in").click()
    expect(tab.get_by_role("button", name="Sign out")).to_be_visible()


def fits(tab) -> None:
    """The page is no wider than the window: nothing scrolls sideways."""
    width = tab.evaluate("document.documentElement.scrollWidth")
    window = tab.evaluate("window.innerWidth")
    assert width <= window, f"{tab.url} is {width} px wide in a {window} px window"


@pytest.mark.parametrize("screen", ["page", "phone"])
def test_a_stranger_signs_up_claims_their_number_and_appeals(request, screen, rated_default_bundle):
    tab = request.getfixturevalue(screen)
    AdminFactory(username="adam")

    # Sign up from the sign-in page.
    tab.goto("/accounts/login/")
    tab.get_by_role("link", name="Create one").click()
    expect(tab.get_by_role("heading", level=1)).to_have_text("Create an account")
    fits(tab)
    tab.get_by_label("Username").fill("chloe")
    tab.get_by_label("E-mail").fill("chloe@example.org")
    tab.get_by_label("Password", exact=True).fill(NEW_PASSWORD)
    tab.get_by_label("Password confirmation").fill(NEW_PASSWORD)
    tab.get_by_role("button", name="Create the account").click()
    expect(tab.get_by_role("heading", level=1)).to_have_text("Check your e-mail")

    # The e-mail's link opens the account and signs in.
    (message,) = mail.outbox
    link = re.search(r"https?://\S+", message.body).group(0)
    tab.goto(link)
    fits(tab)
    tab.get_by_role("button", name="Confirm and sign in").click()
    expect(tab.locator(".messages")).to_contain_text("Your e-mail address is confirmed")

    # The claim.
    fits(tab)
    tab.get_by_role("textbox", name="Membership number").fill("1003")
    tab.get_by_label("How an admin can tell it is you").fill("I played Munich Open; Alice beat me in round 2.")
    tab.get_by_role("button", name="Claim this number").click()
    expect(tab.locator(".claim-status")).to_contain_text("Chloé Dubois (1003)")
    expect(tab.locator(".claim-status")).to_contain_text("Waiting for an admin")
    tab.get_by_role("button", name="Sign out").click()

    # The admin compares and confirms.
    sign_in(tab, "adam")
    tab.goto("/appeals/queue/")
    tab.get_by_role("link", name="Membership claims to decide").click()
    card = tab.locator("article.claim-card", has_text="chloe claims Chloé Dubois (1003)")
    expect(card).to_contain_text("chloe@example.org")
    expect(card).to_contain_text("Munich Open")
    expect(card).to_contain_text("Alice beat me in round 2")
    fits(tab)
    card.get_by_label("Reason").fill("Matches her events.")
    card.get_by_role("button", name="Confirm and link").click()
    expect(tab.locator(".messages")).to_contain_text("confirmed: the account is linked to Chloé Dubois (1003)")
    expect(tab.get_by_role("heading", name="0 open claims")).to_be_visible()
    assert MembershipClaim.objects.get().status == ClaimStatus.ACCEPTED
    assert mail.outbox[-1].subject == "Your membership number is confirmed"
    tab.get_by_role("button", name="Sign out").click()

    # The player, linked now, appeals a match of their history.
    sign_in(tab, "chloe", NEW_PASSWORD)
    tab.goto("/accounts/")
    expect(tab.get_by_role("link", name="Chloé Dubois (1003)")).to_be_visible()
    tab.goto("/players/1003/?category=constructed")
    row = tab.locator("table.match-history tbody tr", has_text="Alice Archer")
    row.get_by_role("link", name="Appeal").click()
    expect(tab.get_by_role("heading", level=1)).to_have_text("Appeal a match")
    fits(tab)
    tab.get_by_label("Games you won").fill("2")
    tab.get_by_label("Games Alice Archer won").fill("1")
    tab.get_by_label("Games drawn").fill("0")
    tab.get_by_label("What happened").fill("I won two games to one; the slip was filled in the wrong way round.")
    tab.get_by_role("button", name="File the appeal").click()
    expect(tab.locator(".messages")).to_contain_text("Your appeal is filed")
    assert Appeal.objects.get().player.membership_number == "1003"
