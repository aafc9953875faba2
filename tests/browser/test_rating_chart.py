"""The rating chart of a player with one event, in a real Chromium: steps from the start rating to today.

Alice Archer (1001) played one event, Munich Open on 1 May 2003: 1600 before it, 1646 after.
"""

from playwright.sync_api import expect


def hover_tip(page, fraction: float) -> str:
    """The tooltip's text with the pointer at `fraction` of the plot's width."""
    plot = page.locator(".chart-box .u-over")
    box = plot.bounding_box()
    page.mouse.move(box["x"] + box["width"] * fraction, box["y"] + box["height"] / 2)
    tip = page.locator(".chart-tip")
    expect(tip).to_be_visible()
    return tip.inner_text()


def test_a_one_event_chart_steps_from_the_start_rating_to_today(page, rated_default_bundle):
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto("/players/1001/?category=constructed")
    expect(page.locator(".chart-box canvas")).to_be_visible()

    start = hover_tip(page, 0.005)
    assert "Start rating" in start and "1600" in start
    today = hover_tip(page, 0.98)
    assert "Today" in today and "1646" in today

    # Twenty years of history: the last twelve months can be shown alone.
    page.get_by_role("button", name="Last 12 months").click()
    expect(page.get_by_role("button", name="Last 12 months")).to_have_attribute("aria-pressed", "true")
    assert "Today" in hover_tip(page, 0.98)
    assert errors == []
