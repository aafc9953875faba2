"""An organizer's evening, in a real Chromium: sign in, create an event, upload its results (fixing what the
page points out), enter a round by hand, preview the ratings, submit, and see the event rated."""

import re

import pytest
from django.core.management import call_command
from playwright.sync_api import expect

from events.models import Event, EventStatus
from players.models import Player
from ratings.models import RatingEntry, RecomputeRun, RecomputeStatus
from tests.conftest import ensure_default_categories
from tests.factories import PASSWORD, OrganizerFactory, PlayerFactory

FIRST_TRY = "round,player1_id,player2_id,player1_games,player2_games,draws\n1,1001,1002,2,0,0\n1,1003,1003,2,1,0\n"
SECOND_TRY = "round,player1_id,player2_id,player1_games,player2_games,draws\n1,1001,1002,2,0,0\n1,1003,2001,2,1,0\n"


@pytest.fixture
def olga_with_players():
    """The organizer "olga", and players 1001-1003 registered for her results to name."""
    ensure_default_categories()
    for number in ("1001", "1002", "1003"):
        PlayerFactory(membership_number=number, name=f"Player {number}")
    return OrganizerFactory(username="olga")


def csv_upload(name, text):
    return {"name": name, "mimeType": "text/csv", "buffer": text.encode()}


def test_an_organizer_reports_an_event_from_sign_in_to_rated(page, olga_with_players):
    page.goto("/")
    page.get_by_role("link", name="Sign in").click()
    page.get_by_label("Username").fill("olga")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    expect(page).to_have_url(re.compile(r"/organize/$"))
    expect(page.get_by_role("link", name="Organize")).to_be_visible()

    # A new event: a draft.
    page.get_by_role("link", name="New event").click()
    page.get_by_label("Name", exact=True).fill("Thursday Standard")
    page.get_by_label("Date").fill("2024-03-07")
    page.get_by_label("Format").select_option("standard")
    page.get_by_label("Number of players").fill("4")
    page.get_by_label("16: default for every event").check()
    page.get_by_label("City").fill("Lyon")
    page.get_by_role("button", name="Create the event").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Thursday Standard")
    expect(page.locator("[data-status-text]")).to_have_text("Draft")
    event = Event.objects.get(name="Thursday Standard")
    assert event.organizer == olga_with_players

    # The first file has a mistake and names a player nobody registered: both are pointed out, nothing is saved.
    page.get_by_role("link", name="Upload a results file").click()
    page.get_by_label("Matches").set_input_files(csv_upload("matches.csv", FIRST_TRY))
    page.get_by_role("button", name="Check and save").click()
    problem = page.locator('.problem-row[data-line="3"]')
    expect(problem).to_contain_text("1003 cannot play against themselves")
    assert Event.objects.get(pk=event.pk).matches.count() == 0

    # The corrected file: the new player is registered on the spot.
    page.get_by_label("Matches").set_input_files(csv_upload("matches.csv", SECOND_TRY))
    page.get_by_role("button", name="Check and save").click()
    expect(page.locator('.problem-row[data-line="3"]')).to_contain_text("unknown player '2001'")
    page.get_by_label("Name of 2001").fill("Nora New")
    page.get_by_label("Country of 2001").fill("NO")  # or pick it from the list of countries
    page.get_by_role("button", name="Check and save").click()
    expect(page.locator(".messages")).to_contain_text("Results saved")
    assert Player.objects.get(membership_number="2001").name == "Nora New"

    # Round 2 typed in.
    page.get_by_role("link", name="round 2").click()
    page.get_by_label("Match 1: Player 1").fill("1001")
    page.get_by_label("Match 1: Player 2").fill("1003")
    page.get_by_label("Match 1: Games won by player 1").fill("2")
    page.get_by_label("Match 1: Games won by player 2").fill("1")
    page.get_by_label("Match 2: Player 1").fill("1002")
    page.get_by_label("Match 2: Player 2").fill("2001")
    page.get_by_label("Match 2: Games won by player 1").fill("1")
    page.get_by_label("Match 2: Games won by player 2").fill("1")
    page.get_by_label("Match 2: Games drawn").fill("1")
    page.get_by_role("button", name="Save round 2").click()
    expect(page.locator("[data-results-summary]")).to_contain_text("4 matches in 2 rounds")

    # The preview: everyone new, K 16. Round 1: 1001 beats 1002 (+8/-8), 1003 beats 2001 (+8/-8).
    # Round 2: 1001 (1608) beats 1003 (1608): +8; 1002 (1592) draws 2001 (1592): 0.
    page.get_by_role("link", name="Preview and submit").click()
    rows = page.locator("table.change-table tbody tr")
    expect(rows).to_have_count(4)
    expect(rows.first).to_contain_text("Player 1001 (1001)")
    expect(rows.first).to_contain_text("1616")
    expect(rows.first).to_contain_text("+16.00")
    assert not RatingEntry.objects.exists()

    # Submit, once ticked that the results are checked; the job worker rates it; the page says so.
    page.get_by_label("I checked these results").check()
    page.get_by_role("button", name="Submit for rating").click()
    expect(page.locator(".messages")).to_contain_text("Submitted")
    expect(page.locator("[data-status-text]")).to_have_text("Submitted")
    expect(page.get_by_role("table", name="Rating jobs")).to_contain_text("Queued")
    assert RecomputeRun.objects.filter(status=RecomputeStatus.QUEUED).count() == 1

    call_command("db_worker", batch=True, startup_delay=False, reload=False, verbosity=0)

    page.reload()
    expect(page.locator("[data-status-text]")).to_have_text("Rated")
    expect(page.get_by_role("table", name="Rating jobs")).to_contain_text("Done")
    assert Event.objects.get(pk=event.pk).status == EventStatus.RATED

    # The public page shows the changes; the organizer's list shows the event rated; nothing is editable now.
    page.get_by_role("link", name="See the event's public page").click()
    expect(page.locator("#ratings-constructed")).to_contain_text("+16.00")
    page.get_by_role("link", name="Organize").click()
    expect(page.locator("table tbody tr").first).to_contain_text("Rated")
    page.get_by_role("link", name="Thursday Standard").click()
    expect(page.get_by_role("link", name="Upload a results file")).to_have_count(0)

    page.get_by_role("button", name="Sign out").click()
    expect(page.get_by_role("link", name="Sign in")).to_be_visible()
