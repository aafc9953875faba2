"""Filters of the organizers' event list (django-filter)."""

import django_filters

from events.models import EventStatus


class OrganizeEventFilter(django_filters.FilterSet):
    name = django_filters.CharFilter(field_name="name", lookup_expr="icontains", label="Name")
    status = django_filters.ChoiceFilter(choices=EventStatus.choices, empty_label="Any status")
