"""Finding a player as a stranger types, in a real Chromium: without the accent, the words reversed, a typo, and
the names suggested while typing in the header's search box. The world is the default test bundle: Chloé Dubois
(1003) plays in it.
"""

import re

import pytest
from playwright.sync_api import expect


def search(tab, words):
    tab.goto("/players/")
    tab.get_by_label("Name or membership number", exact=True).fill(words)
    tab.get_by_role("button", name="Search", exact=True).last.click()


@pytest.mark.parametrize("screen", ["page", "phone"])
def test_a_player_is_found_by_any_spelling(request, screen, rated_default_bundle):
    tab = request.getfixturevalue(screen)

    for words in ("chloe", "DUBOIS Chloe"):
        search(tab, words)
        expect(tab.locator("#results table")).to_contain_text("Chloé Dubois")
        expect(tab.locator("#results-heading")).to_contain_text("1 player matching")

    search(tab, "chloe dubos")
    expect(tab.locator("#results-heading")).to_contain_text("No player is called “chloe dubos”: 1 with a name like it")
    tab.locator("#results table").get_by_role("link", name="Chloé Dubois").click()
    expect(tab).to_have_url(re.compile(r"/players/1003/$"))
    assert tab.evaluate("document.documentElement.scrollWidth") <= tab.evaluate("window.innerWidth")


def test_names_are_suggested_while_typing_and_a_suggestion_goes_to_its_player(page, rated_default_bundle):
    page.goto("/")
    box = page.get_by_label("Find a player by name or membership number")
    box.press_sequentially("chloe", delay=30)
    suggestion = page.locator("datalist option")
    expect(suggestion).to_have_count(1)
    expect(suggestion).to_have_attribute("value", "Chloé Dubois (1003)")

    box.fill("Chloé Dubois (1003)")  # what picking the suggestion writes in the box

    expect(page).to_have_url(re.compile(r"/players/1003/$"))
