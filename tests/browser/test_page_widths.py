"""Pages fit their screen: the ranking shows every column on a desktop, and nothing scrolls sideways on a phone."""

import pytest
from playwright.sync_api import expect

from ratings.models import CurrentRating
from tests.worlds import bundle_rated, default_bundle_ranked_from_one_match

LONG_NAME = "Maximiliane Alexandra Konstanze von Hohenzollern-Sigmaringen"


@pytest.fixture
def long_names(tmp_path):
    """Today's constructed list, everyone ranked, with the longest names and regions a list meets."""
    bundle_rated(default_bundle_ranked_from_one_match(tmp_path))
    CurrentRating.objects.filter(category__slug="constructed").update(name=LONG_NAME, country="FR", region="FR-PAC")


@pytest.mark.parametrize("width", [1280, 1024])
def test_the_ranking_shows_every_column_on_a_desktop(page, long_names, width):
    page.set_viewport_size({"width": width, "height": 900})
    page.goto("/rankings/constructed/")
    expect(page.locator(".ranking-table tbody tr").first).to_contain_text("Hohenzollern")

    box = page.evaluate(
        """() => {
            const table = document.querySelector('.ranking-table');
            const matches = [...table.querySelectorAll('thead th')].find(th => th.textContent.includes('Matches'));
            return {table: table.scrollWidth, shown: table.parentElement.clientWidth,
                    matchesRight: matches.getBoundingClientRect().right,
                    boxRight: table.parentElement.getBoundingClientRect().right};
        }"""
    )

    assert box["table"] <= box["shown"], box
    assert box["matchesRight"] <= box["boxRight"] + 1, box


# Phones ---------------------------------------------------------------------------------------------------------------

PHONE_WIDTH = 390


def page_width(tab, url) -> int:
    tab.goto(url)
    return tab.evaluate("Math.max(document.documentElement.scrollWidth, document.body.scrollWidth)")


def too_wide(tab, urls) -> dict[str, int]:
    widths = {url: page_width(tab, url) for url in urls}
    return {url: width for url, width in widths.items() if width > PHONE_WIDTH}


def sign_in_as(browser, live_server, user, locale="en-US"):
    """A phone's tab signed in as `user` (through the session cookie of a test client's sign-in)."""
    from django.test import Client

    client = Client()
    client.force_login(user)
    context = browser.new_context(
        base_url=live_server.url,
        viewport={"width": PHONE_WIDTH, "height": 844},
        is_mobile=True,
        has_touch=True,
        locale=locale,
    )
    cookie = client.cookies["sessionid"]
    context.add_cookies([{"name": "sessionid", "value": cookie.value, "url": live_server.url}])
    return context


def crawled_pages(ids: dict) -> dict[str, list[str]]:
    """persona -> the pages they open: every page of the site a visitor, a player, an organizer and an admin meet."""
    return {
        "anonymous": [
            "/",
            "/rankings/",
            "/rankings/constructed/",
            "/rankings/constructed/?list=unranked",
            "/rankings/constructed/?as_of=2003-12-31",
            "/rankings/vtes/",
            "/rankings/constructed/official/",
            f"/rankings/constructed/official/{ids['as_of']}/",
            "/rankings/constructed/?q=chloe+dubos",
            "/players/",
            "/players/?q=e",
            "/players/?q=chloe+dubos",
            "/players/1001/",
            "/players/1001/?category=constructed",
            f"/players/1001/vs/{ids['other']}/",
            f"/teams/{ids['participant_id']}/",
            "/events/",
            f"/events/{ids['event_id']}/",
            "/calculator/",
            "/calculator/?rating=1650&rules=dci-2001&k=16&opponent1=1600&result1=W&opponent2=1950&result2=D",
            "/corrections/",
            f"/corrections/{ids['correction_id']}/",
            "/accounts/login/",
            "/accounts/sign-up/",
            "/accounts/password_reset/",
        ],
        "player": ["/accounts/", "/appeals/", f"/appeals/new/{ids['match_id']}/", "/appeals/details/"],
        "organizer": [
            "/organize/",
            "/organize/events/new/",
            f"/organize/events/{ids['draft_id']}/",
            f"/organize/events/{ids['draft_id']}/edit/",
            f"/organize/events/{ids['draft_id']}/upload/",
            f"/organize/events/{ids['draft_id']}/rounds/1/",
            f"/organize/events/{ids['draft_id']}/standings/",
            f"/organize/events/{ids['draft_id']}/preview/",
        ],
        "admin": [
            "/appeals/queue/",
            f"/appeals/{ids['appeal_id']}/review/",
            "/claims/queue/",
            "/claims/merge/",
            f"/corrections/matches/{ids['match_id']}/correct/",
        ],
    }


# German words run longer than English ones: every page is crawled in both languages.
@pytest.mark.parametrize("locale", ["en-US", "de-DE"])
def test_no_page_scrolls_sideways_on_a_phone(browser, live_server, personas_and_ids, locale):
    ids, people = personas_and_ids["ids"], personas_and_ids["people"]
    matches_csv = (
        b"round,player1_id,player2_id,player1_games,player2_games,draws\n1,1001,1001,2,0,0\n1,NOPE,1002,x,0,0\n"
    )
    pages = crawled_pages(ids)
    wide = {}
    for persona, urls in pages.items():
        if persona == "anonymous":
            context = browser.new_context(
                base_url=live_server.url,
                viewport={"width": PHONE_WIDTH, "height": 844},
                is_mobile=True,
                has_touch=True,
                locale=locale,
            )
        else:
            context = sign_in_as(browser, live_server, people[persona], locale)
        tab = context.new_page()
        wide |= too_wide(tab, urls)
        if persona == "organizer":  # the page that lists a broken file's problems
            tab.goto(f"/organize/events/{ids['draft_id']}/upload/")
            tab.locator("input[type=file][name=matches]").set_input_files(
                {"name": "matches.csv", "mimeType": "text/csv", "buffer": matches_csv}
            )
            # Not "form ... button": the form's input named "matches" hides the form's own matches().
            tab.locator("button.button[type=submit]").click()
            expect(tab.locator(".problem-row").first).to_be_visible()
            width = tab.evaluate("Math.max(document.documentElement.scrollWidth, document.body.scrollWidth)")
            if width > PHONE_WIDTH:
                wide["upload errors"] = width
        context.close()

    assert wide == {}, f"wider than {PHONE_WIDTH} px: {wide}"


# What a screen reader reads beside an element (a box's help and errors, a label), found by the id it names.
DANGLING_REFERENCES = """() => {
    const missing = [];
    for (const attribute of ['aria-describedby', 'aria-labelledby', 'aria-controls', 'aria-errormessage', 'for']) {
        for (const element of document.querySelectorAll(`[${attribute}]`)) {
            for (const id of element.getAttribute(attribute).split(/\\s+/).filter(Boolean)) {
                if (!document.getElementById(id)) missing.push(`${element.tagName.toLowerCase()} ${attribute}=${id}`);
            }
        }
    }
    return missing;
}"""


def found_on_every_page(browser, live_server, personas_and_ids, script: str) -> dict[str, list]:
    """url -> what `script` (JavaScript returning a list) finds on it, for every page each persona opens (the
    visitor on a desktop, the signed-in on a phone); pages where it finds nothing are left out."""
    people = personas_and_ids["people"]
    found = {}
    for persona, urls in crawled_pages(personas_and_ids["ids"]).items():
        if persona == "anonymous":
            context = browser.new_context(base_url=live_server.url, viewport={"width": 1280, "height": 900})
        else:
            context = sign_in_as(browser, live_server, people[persona])
        tab = context.new_page()
        for url in urls:
            tab.goto(url)
            if on_page := tab.evaluate(script):
                found[url] = on_page
        context.close()
    return found


def test_every_element_a_page_refers_to_is_on_it(browser, live_server, personas_and_ids):
    """A label's box, a box's help text and errors, what a control controls: each id named is on the page."""
    assert found_on_every_page(browser, live_server, personas_and_ids, DANGLING_REFERENCES) == {}


UNLABELLED_CONTROLS = """() => [...document.querySelectorAll('input, select, textarea, button')]
    .filter(control => control.type !== 'hidden' && !control.closest('[hidden]'))
    .filter(control => !(control.labels && control.labels.length) && !control.getAttribute('aria-label')
        && !control.getAttribute('aria-labelledby') && !control.title
        && !(control.tagName === 'BUTTON' && control.textContent.trim())
        && !(['submit', 'button', 'reset'].includes(control.type) && control.value))
    .map(control => control.outerHTML.slice(0, 120))"""


def test_every_control_a_page_shows_has_a_name(browser, live_server, personas_and_ids):
    """A box, a choice or a button without a label, an aria-label or text is read out as nothing."""
    assert found_on_every_page(browser, live_server, personas_and_ids, UNLABELLED_CONTROLS) == {}
