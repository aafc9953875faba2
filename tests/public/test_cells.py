"""Cells many rows share, memoised by language: a date as the pages write it, a country's flag and name, a
rating or a change."""

from datetime import date, timedelta

import pytest
from django.template.defaultfilters import date as date_filter
from django.utils import translation
from django.utils.html import format_html
from django_countries.fields import Country

from lib.tables import country_label
from players.formatting import MINUS, day, decimal, signed


@pytest.mark.parametrize("language", ["en", "de", "fr"])
def test_a_day_reads_as_the_date_filter_writes_it(language):
    days = [date(2003, 5, 1) + timedelta(days=offset) for offset in range(0, 400, 7)] + [date(999, 12, 31)]
    with translation.override(language):
        assert [day(each) for each in days] == [date_filter(each, "DATE_FORMAT") for each in days]


def test_a_day_follows_the_language():
    with translation.override("de"):
        assert day(date(2003, 3, 5)) == "5. Mär 2003"
    assert day(date(2003, 3, 5)) == "5 Mar 2003"


def plain_label(country: Country) -> str:
    return format_html(
        '<span class="country"><img class="flag" src="{}" alt="" width="16" height="11"> {}</span>',
        country.flag,
        country.name,
    )


def test_a_country_label_is_its_flag_and_name_in_the_language_shown():
    assert country_label(Country("DE")) == plain_label(Country("DE"))
    assert "Germany" in country_label(Country("DE"))
    with translation.override("de"):
        assert country_label(Country("DE")) == plain_label(Country("DE"))
        assert "Deutschland" in country_label(Country("DE"))
    assert country_label(Country("")) == "—"


def test_a_country_with_its_own_flag_url_is_labelled_with_it():
    custom = Country("DE", flag_url="https://flags.example/{code}.png")

    assert country_label(custom) == plain_label(custom)
    assert "https://flags.example/de.png" in country_label(custom)


def test_a_change_and_a_rating_follow_the_language_they_are_shown_in():
    assert (signed(12.345), signed(-8.2), decimal(1612.5, 2)) == ("+12.35", f"{MINUS}8.20", "1612.50")
    with translation.override("de"):
        assert (signed(12.345), signed(-8.2), decimal(1612.5, 2)) == ("+12,35", f"{MINUS}8,20", "1612,50")
    assert (signed(12.345), signed(-8.2), decimal(1612.5, 2)) == ("+12.35", f"{MINUS}8.20", "1612.50")
    assert signed(-0.004) == "0.00"


def test_a_rating_is_grouped_in_thousands_where_the_site_says_so(settings):
    assert decimal(1612.5, 2) == "1612.50"
    settings.USE_THOUSAND_SEPARATOR = True
    assert decimal(1612.5, 2) == "1,612.50"
