"""The event list's filters (django-filter). Choices come from the events that exist."""

import functools

import django_filters
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _
from django_countries import countries

from events import selectors
from events.models import KValue, VeknLevel
from lib.forms import QuickSelect
from players.formatting import format_name


def _format_choices():
    return [(code, format_name(code)) for code in selectors.event_filter_values().formats]


def _year_choices():
    return [(year, str(year)) for year in selectors.event_filter_values().years]


def _country_choices():
    return _countries_by_name(tuple(selectors.event_filter_values().countries), get_language())


@functools.lru_cache(maxsize=32)
def _countries_by_name(codes: tuple[str, ...], language: str | None) -> tuple[tuple[str, str], ...]:
    """(code, name) sorted by name; memoised, as the codes seldom change: 40 names through gettext cost 2 ms."""
    return tuple(sorted(((code, countries.name(code) or code) for code in codes), key=lambda choice: choice[1]))


class EventFilter(django_filters.FilterSet):
    # Each choice written by QuickSelect: through Django's option template, the five lists took a seventh of
    # the event list's time.
    name = django_filters.CharFilter(field_name="name", lookup_expr="icontains", label=_("Name"))
    format = django_filters.ChoiceFilter(
        widget=QuickSelect, label=_("Format"), choices=_format_choices, empty_label=_("Any format")
    )
    year = django_filters.ChoiceFilter(
        widget=QuickSelect,
        field_name="date",
        lookup_expr="year",
        label=_("Year"),
        choices=_year_choices,
        empty_label=_("Any year"),
    )
    country = django_filters.ChoiceFilter(
        widget=QuickSelect, label=_("Country"), choices=_country_choices, empty_label=_("Anywhere")
    )
    level = django_filters.ChoiceFilter(
        widget=QuickSelect,
        label=_("V:EKN level"),
        choices=[c for c in VeknLevel.choices if c[0]],
        empty_label=_("Any level"),
    )
    k = django_filters.ChoiceFilter(
        widget=QuickSelect, label=_("K-value"), choices=KValue.choices, empty_label=_("Any K")
    )
