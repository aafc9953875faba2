"""An appeal, in a real Chromium: a player appeals a match from their history, an admin reviews its impact and
accepts it, the job worker recomputes, and the corrected mark and the new rating show on the player's page.

The world is the default test bundle (tests/bundles.py). In Munich Open round 2 Alice Archer (1001) beat
Chloé Dubois (1003) 2–0; Chloé says she won 2–1. Her constructed rating goes from 1584.74 to 1616.74.
"""

import re

import pytest
from django.core.management import call_command
from playwright.sync_api import expect

from corrections.models import Appeal, AppealStatus, Correction
from ratings.models import CurrentRating, RecomputeRun, RecomputeStatus
from tests.factories import PASSWORD, AdminFactory
from tests.worlds import account_of


@pytest.fixture
def chloe_and_adam(rated_default_bundle):
    """Chloé (1003)'s account "chloe", linked to her, and the admin "adam"."""
    account_of("1003", username="chloe")
    AdminFactory(username="adam")


def sign_in(page, username):
    page.goto("/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("button", name="Sign out")).to_be_visible()


def constructed_rating(number) -> float:
    return CurrentRating.objects.get(category__slug="constructed", participant__player__membership_number=number).rating


def test_a_player_appeals_an_admin_accepts_and_the_corrected_result_and_rating_show(page, chloe_and_adam):
    assert int(constructed_rating("1003")) == 1584

    # The player finds the match in their own history and appeals it.
    sign_in(page, "chloe")
    page.goto("/players/1003/?category=constructed")
    row = page.locator("table.match-history tbody tr", has_text="Alice Archer")
    expect(row).to_contain_text("L 0–2")
    row.get_by_role("link", name="Appeal").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Appeal a match")
    page.get_by_label("Games you won").fill("2")
    page.get_by_label("Games Alice Archer won").fill("1")
    page.get_by_label("Games drawn").fill("0")
    page.get_by_label("What happened").fill("I won two games to one; the slip was filled in the wrong way round.")
    page.get_by_role("button", name="File the appeal").click()
    expect(page).to_have_url(re.compile(r"/appeals/$"))
    expect(page.locator(".messages")).to_contain_text("Your appeal is filed")
    mine = page.locator("table.appeal-table tbody tr").first
    expect(mine).to_contain_text("lost 0–2 → won 2–1")
    expect(mine).to_contain_text("Open")
    page.get_by_role("button", name="Sign out").click()

    # The admin reviews the impact, then accepts with a reason.
    sign_in(page, "adam")
    page.get_by_role("link", name="Appeals", exact=True).click()
    queued = page.locator("table.appeal-table tbody tr").first
    expect(queued).to_contain_text("Chloé Dubois (1003)")
    queued.get_by_role("link", name="Review").click()
    impact = page.locator("table.impact-table")
    chloe_row = impact.locator("tbody tr", has_text="Chloé Dubois")
    expect(chloe_row).to_contain_text("1584.74")
    expect(chloe_row).to_contain_text("1616.74")
    expect(chloe_row).to_contain_text("+32.00")
    page.get_by_label("Reason").fill("Both players confirm 2–1 for Chloé.")
    page.get_by_role("button", name="Accept and correct the result").click()
    expect(page.locator(".messages")).to_contain_text("accepted")
    expect(page.get_by_role("heading", name="0 open appeals")).to_be_visible()
    assert Appeal.objects.get().status == AppealStatus.ACCEPTED
    assert RecomputeRun.objects.filter(status=RecomputeStatus.QUEUED).count() == 1

    # The job worker recomputes constructed from the match's date on.
    call_command("db_worker", batch=True, startup_delay=False, reload=False, verbosity=0)
    assert RecomputeRun.objects.get().status == RecomputeStatus.DONE
    assert round(constructed_rating("1003"), 2) == 1616.74

    # Anyone sees the corrected match, its record, and the new rating.
    page.get_by_role("button", name="Sign out").click()
    page.goto("/players/1003/?category=constructed")
    expect(page.locator(".category-card.is-selected .cc-rating")).to_have_text("1616")
    row = page.locator("table.match-history tbody tr", has_text="Alice Archer")
    expect(row).to_contain_text("W 2–1")
    row.get_by_text("Corrected").click()
    note = row.locator(".correction a")
    expect(note).to_contain_text("Alice Archer won 2–0 → Chloé Dubois won 2–1 by adam: Both players confirm")
    note.click()
    correction = Correction.objects.get()
    expect(page).to_have_url(re.compile(rf"/corrections/{correction.pk}/$"))
    expect(page.get_by_role("heading", level=1)).to_have_text(f"Correction #{correction.pk}: result corrected")
    expect(page.locator("main")).to_contain_text("appeal #")
