"""The calculator's progressive enhancement in a real browser: rows added and removed, K following the rules."""

import re


def opponent_names(page) -> list[str]:
    return page.locator("[data-rows] input[type='number']").evaluate_all("inputs => inputs.map(input => input.name)")


def test_rows_are_added_and_removed_in_place(page):
    page.goto("/calculator/")

    assert page.locator("[data-more-rows]").is_hidden()
    page.get_by_role("button", name="Add opponent").click()
    assert opponent_names(page) == [f"opponent{number}" for number in range(1, 10)]
    assert page.locator("input[name='opponent9']").evaluate("input => input === document.activeElement")

    page.locator("input[name='opponent2']").fill("1750")
    page.locator("input[name='opponent3']").fill("1500")
    page.get_by_role("button", name="Remove opponent 2").click()

    assert opponent_names(page) == [f"opponent{number}" for number in range(1, 9)]
    assert page.locator("input[name='opponent2']").input_value() == "1500"  # the rows below moved up
    assert page.get_by_role("radiogroup", name="Result against opponent 2").is_visible()


def test_k_and_the_halvings_follow_the_rules(page):
    page.goto("/calculator/")
    k = page.get_by_label("K-value")
    small_event = page.get_by_label("8 to 31 players (K halved)")

    page.get_by_label(re.compile("Match points")).check()
    assert k.input_value() == "band"
    assert small_event.is_disabled()

    page.get_by_label(re.compile("DCI 1997")).check()
    assert small_event.is_enabled()
    small_event.check()

    page.get_by_label(re.compile("DCI 2001")).check()
    assert k.input_value() == "16"
    assert small_event.is_disabled() and not small_event.is_checked()


def test_a_calculation_is_a_link(page):
    page.goto("/calculator/")
    page.get_by_label("Your rating").fill("1600")
    page.get_by_label("Opponent 1: rating").fill("1600")
    page.get_by_label("Opponent 1: rating").press("Enter")  # Enter calculates: it does not ask for more rows

    page.wait_for_url(re.compile(r"opponent1=1600"))
    assert "rows=" not in page.url
    assert page.locator("#results").get_by_text("1608.00").first.is_visible()


def test_the_results_fit_a_phone(phone):
    phone.goto(
        "/calculator/?rating=1650&opponent1=1600&result1=W&opponent2=1530&result2=W"
        "&opponent3=1950&result3=D&opponent4=1870&result4=L"
    )

    assert phone.evaluate("document.documentElement.scrollWidth") <= 390
    table = phone.locator(".calc-steps").evaluate("table => table.scrollWidth <= table.parentElement.clientWidth")
    assert table
