"""A German visitor in a real Chromium: the browser's language gives the German site, the switcher at the
foot of each page changes it and the choice stays, on a desktop screen and a phone's. The world is the
default test bundle (Munich Open on 1 May 2003)."""

import re

import pytest
from playwright.sync_api import expect


@pytest.mark.parametrize("width", [1280, 390])
def test_a_german_browser_reads_the_site_in_german_and_can_switch_to_english(browser, live_server, width,
                                                                              rated_default_bundle):  # fmt: skip
    context = browser.new_context(
        base_url=live_server.url, viewport={"width": width, "height": 844}, locale="de-DE", is_mobile=width < 600
    )
    tab = context.new_page()
    try:
        tab.goto("/players/1001/?category=constructed")
        expect(tab.locator("html")).to_have_attribute("lang", "de")
        expect(tab.get_by_role("link", name="Ranglisten", exact=True)).to_be_visible()
        expect(tab.locator("main")).to_contain_text("Mai 2003")
        assert tab.evaluate("document.documentElement.scrollWidth") <= tab.evaluate("window.innerWidth")

        tab.get_by_role("button", name="English").click()

        expect(tab).to_have_url(re.compile(r"/players/1001/\?category=constructed$"))  # back on the same page
        expect(tab.locator("html")).to_have_attribute("lang", "en")
        expect(tab.get_by_role("link", name="Rankings", exact=True)).to_be_visible()
        tab.goto("/events/")  # the choice outlives the page, whatever the browser asks for
        expect(tab.locator("html")).to_have_attribute("lang", "en")

        tab.get_by_role("button", name="Deutsch").click()
        expect(tab.locator("html")).to_have_attribute("lang", "de")
        expect(tab).to_have_url(re.compile(r"/events/$"))
    finally:
        context.close()
