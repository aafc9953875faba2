"""Head-to-head by name, in a real Chromium: from a player's page, an opponent typed as a stranger would spell
them, then the pair's page with their record and their next meeting foreseen. The default test bundle: Alice
Archer (1001) beat Chloé Dubois (1003) in Munich Open."""

import re

import pytest
from playwright.sync_api import expect


@pytest.mark.parametrize("screen", ["page", "phone"])
def test_an_opponent_by_name_in_any_spelling(request, screen, rated_default_bundle):
    tab = request.getfixturevalue(screen)
    tab.goto("/players/1001/?category=constructed")

    tab.get_by_label("Opponent: name or membership number").fill("dubois chloe")
    tab.get_by_role("button", name="Compare").click()

    expect(tab).to_have_url(re.compile(r"/players/1001/vs/1003/$"))
    expect(tab.get_by_role("heading", level=1)).to_contain_text("Chloé Dubois")
    meeting = tab.locator("#next-meeting table").first
    expect(meeting).to_contain_text("Alice Archer")
    expect(meeting).to_contain_text("%")
    assert tab.evaluate("document.documentElement.scrollWidth") <= tab.evaluate("window.innerWidth")


def test_a_name_several_players_share_lets_one_pick(page, rated_default_bundle):
    page.goto("/players/1001/?category=constructed")
    page.get_by_label("Opponent: name or membership number").fill("e")
    page.get_by_role("button", name="Compare").click()

    expect(page.get_by_role("heading", level=1)).to_have_text("Alice Archer against whom?")
    page.get_by_role("link", name="Dan Evans").click()
    expect(page).to_have_url(re.compile(r"/players/1001/vs/1004/$"))
