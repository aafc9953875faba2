"""Places as the ranking pages name them: countries and flags, a list's place, the places a category's list holds."""

import functools
from dataclasses import dataclass

from django.core.cache import cache
from django.utils import timezone
from django.utils.translation import get_language, gettext
from django_countries import countries
from django_countries.fields import Country

from players import geography
from ratings.models import Category, CurrentRating

PLACES_SECONDS = 60 * 60


def country_name(code: str) -> str:
    return _country_name(code, get_language())


@functools.cache
def _country_name(code: str, language: str | None) -> str:
    """Cached by code and language: django-countries takes 50 µs a name, 100 times on a page of 50 players."""
    # django-countries leaves out Kosovo, which players may still give (a user-assigned code).
    return countries.name(code) or {"XK": "Kosovo"}.get(code, code)


@functools.cache
def flag_url(code: str) -> str:
    return Country(code).flag


def place_name(filters) -> str:
    """'World', 'Europe', 'Germany', 'Bavaria, Germany' (`filters`: a RankingFilters)."""
    if filters.region:
        return f"{geography.region_name(filters.region)}, {country_name(filters.country)}"
    if filters.country:
        return country_name(filters.country)
    if filters.continent:
        return str(geography.CONTINENT_NAMES[filters.continent])
    return gettext("World")


@dataclass(frozen=True)
class Places:
    """The continents, countries and regions that occur in a category's list, for the level chooser."""

    continents: list[tuple[str, str]]  # (code, name)
    countries: list[tuple[str, list[tuple[str, str]]]]  # (continent name, [(code, name)])
    regions: dict[str, list[tuple[str, str]]]  # country code -> [(code, name)]

    def __bool__(self) -> bool:
        return bool(self.continents)


def category_places(*, category: Category) -> Places:
    """Where the category's players come from (cached: it only changes when the list is rebuilt), named and
    sorted in the visitor's language."""
    today = timezone.localdate().isoformat()
    key = f"ranking-places:{category.pk}:{category.list_version}:{today}:{get_language()}"
    places = cache.get(key)
    if places is None:
        # order_by(): the list's own order would join the categories and make every row distinct.
        pairs = CurrentRating.objects.filter(category=category).order_by().values_list("country", "region").distinct()
        places = _places_from(set(pairs))
        cache.set(key, places, PLACES_SECONDS)
    return places


def _places_from(pairs: set[tuple[str, str]]) -> Places:
    country_codes = {country for country, _ in pairs if country}
    by_continent: dict[str, list[tuple[str, str]]] = {}
    for code in country_codes:
        by_continent.setdefault(geography.continent_of(code), []).append((code, country_name(code)))
    continents = sorted(
        ((code, str(geography.CONTINENT_NAMES[code])) for code in by_continent if code), key=lambda item: item[1]
    )
    grouped = [
        (name, sorted(by_continent[code], key=lambda item: item[1]))
        for code, name in continents
    ]  # fmt: skip
    if "" in by_continent:
        grouped.append((gettext("Elsewhere"), sorted(by_continent[""], key=lambda item: item[1])))
    regions: dict[str, list[tuple[str, str]]] = {}
    for country, region in pairs:
        if country and region:
            regions.setdefault(country, []).append((region, geography.region_name(region)))
    for members in regions.values():
        members.sort(key=lambda item: item[1])
    return Places(continents, grouped, regions)
