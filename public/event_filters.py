"""The event list's filters (django-filter). Choices come from the events that exist."""

import django_filters
from django_countries import countries

from events import selectors
from events.models import KValue, VeknLevel
from players.formatting import format_name


def _format_choices():
    return [(code, format_name(code)) for code in selectors.event_formats()]


def _year_choices():
    return [(year, str(year)) for year in selectors.event_years()]


def _country_choices():
    return sorted(((code, countries.name(code) or code) for code in selectors.event_countries()), key=lambda c: c[1])


class EventFilter(django_filters.FilterSet):
    name = django_filters.CharFilter(field_name="name", lookup_expr="icontains", label="Name")
    format = django_filters.ChoiceFilter(choices=_format_choices, empty_label="Any format")
    year = django_filters.ChoiceFilter(
        field_name="date", lookup_expr="year", label="Year", choices=_year_choices, empty_label="Any year"
    )
    country = django_filters.ChoiceFilter(choices=_country_choices, empty_label="Anywhere")
    level = django_filters.ChoiceFilter(
        label="V:EKN level", choices=[c for c in VeknLevel.choices if c[0]], empty_label="Any level"
    )
    k = django_filters.ChoiceFilter(label="K-value", choices=KValue.choices, empty_label="Any K")
