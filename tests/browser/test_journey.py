"""A player's visit, in a real Chromium: home -> a ranking -> a country -> a player -> the calculator."""

import datetime
import re

import pytest
from django.db.models import Count
from playwright.sync_api import expect

from ratings.models import CurrentRating
from tests.worlds import demo_world_rated


@pytest.fixture
def rated_demo_world(tmp_path):
    """Two hundred demo players in forty events, imported and rated."""
    demo_world_rated(tmp_path, players=200, events=40, seed=9, end=datetime.date(2024, 12, 10))


@pytest.fixture
def busiest_country(rated_demo_world):
    """The country with the most players ranked in constructed."""
    busiest = (
        CurrentRating.objects.filter(category__slug="constructed", ranked=True)
        .exclude(country="")
        .values("country")
        .annotate(players=Count("id"))
        .order_by("-players")
        .first()
    )
    return busiest["country"]


def test_from_home_to_a_country_ranking_to_a_player(page, busiest_country):
    country = busiest_country
    leader = CurrentRating.objects.get(category__slug="constructed", country=country, country_rank=1)

    page.goto("/")
    expect(page.get_by_role("heading", name="Top of the rankings")).to_be_visible()
    page.get_by_role("link", name="Full list for Constructed").click()
    expect(page).to_have_url(re.compile(r"/rankings/constructed/$"))
    expect(page.get_by_role("heading", name="Constructed rankings")).to_be_visible()

    page.get_by_text("Choose a continent, country or region").click()
    page.get_by_label("Country").select_option(country)
    page.locator("form.picker", has=page.get_by_label("Country")).get_by_role("button", name="Show").click()
    expect(page).to_have_url(re.compile(rf"country={country}"))

    first_row = page.locator("table tbody tr").first
    expect(first_row).to_contain_text(leader.name)
    expect(first_row.locator("td").first).to_have_text("1")

    first_row.get_by_role("link", name=leader.name).click()
    expect(page.get_by_role("heading", level=1)).to_have_text(leader.name)
    expect(page.get_by_text(leader.display_id).first).to_be_visible()

    # The chart draws once its script has run; hovering shows an event's date, name and rating.
    chart = page.locator("[data-rating-chart]")
    expect(chart).to_be_visible()
    expect(chart.locator("canvas")).to_have_count(1)
    box = chart.locator(".u-over").bounding_box()
    page.mouse.move(box["x"] + box["width"] - 2, box["y"] + box["height"] / 2)
    tip = page.locator(".chart-tip")
    expect(tip).to_be_visible()
    expect(tip.locator(".chart-tip-date")).to_have_text(re.compile(r"\d{4}"))
    expect(tip.locator(".chart-tip-rating")).to_have_text(re.compile(r"\d{4}"))

    history = page.locator("table", has_text="K (why)").last
    expect(history).to_contain_text("event K")


def test_the_calculator_gives_the_exact_new_rating(page, rated_demo_world):
    page.goto("/")
    page.get_by_role("link", name="Calculator").first.click()

    page.get_by_label("Your rating").fill("1600")
    page.locator("[name=opponent1]").fill("1600")
    page.locator("[name=result1][value=W]").check()
    page.get_by_role("button", name=re.compile("Calculate")).click()

    results = page.locator("#results")
    expect(results).to_contain_text("1608.00")


def test_a_ranking_reads_well_on_a_phone(phone, rated_demo_world):
    phone.goto("/rankings/constructed/")

    table = phone.locator("table").first
    expect(table).to_be_visible()
    width = phone.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"the page scrolls sideways on a phone ({width}px)"
