"""The finish of every page, in a real Chromium: an icon, styled buttons, readable pagers, dark mode."""

import pytest

from tests.factories import PlayerFactory

CONTRAST = """(selector) => {
    const luminance = (rgb) => {
        const [r, g, b] = rgb.match(/[\\d.]+/g).slice(0, 3).map(Number).map((c) => {
            c /= 255;
            return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
        });
        return 0.2126 * r + 0.7152 * g + 0.0722 * b;
    };
    const background = (element) => {
        for (let e = element; e; e = e.parentElement) {
            const colour = getComputedStyle(e).backgroundColor;
            if (!colour.startsWith("rgba(0, 0, 0, 0)") && colour !== "transparent") return colour;
        }
        return "rgb(255, 255, 255)";
    };
    const element = document.querySelector(selector);
    const [a, b] = [luminance(getComputedStyle(element).color), luminance(background(element))];
    return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
}"""


def test_every_page_has_an_icon(page, live_server):
    page.goto("/")
    icon = page.locator('link[rel="icon"]').get_attribute("href")

    assert page.request.get(icon).ok
    assert page.request.get("/favicon.ico").url.endswith(icon)


def test_the_sign_in_button_is_a_button_of_the_site(page, live_server):
    page.goto("/accounts/login/")
    button = page.get_by_role("button", name="Sign in", exact=True)
    accent = page.evaluate("getComputedStyle(document.documentElement).getPropertyValue('--accent').trim()")

    assert button.evaluate("b => getComputedStyle(b).backgroundColor") == page.evaluate(
        "c => { const e = document.createElement('i'); e.style.color = c; document.body.append(e); "
        "const rgb = getComputedStyle(e).color; e.remove(); return rgb; }",
        accent,
    )


def test_a_disabled_pager_step_is_readable(page, live_server):
    PlayerFactory.create_batch(60)
    page.goto("/players/")  # page 1 of 2: "Previous" is disabled

    assert page.evaluate(CONTRAST, "span.pager-step") >= 4.5


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_pages_follow_the_systems_colour_scheme_and_stay_readable(browser, live_server, rated_default_bundle, scheme):
    context = browser.new_context(base_url=live_server.url, color_scheme=scheme)
    tab = context.new_page()
    tab.goto("/rankings/constructed/?list=unranked")

    body = tab.evaluate("getComputedStyle(document.documentElement).backgroundColor")
    dark = sum(map(int, body[body.index("(") + 1 : body.index(")")].split(",")[:3])) < 3 * 80
    assert dark is (scheme == "dark")
    assert tab.evaluate(CONTRAST, "main h1") >= 7
    assert tab.evaluate(CONTRAST, ".ranking-table td") >= 4.5
    context.close()
