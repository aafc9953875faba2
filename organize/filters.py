"""Filters of the organizers' event list (django-filter)."""

import django_filters
from django.utils.translation import gettext_lazy

from events.models import EventStatus
from lib.forms import QuickSelect


class OrganizeEventFilter(django_filters.FilterSet):
    name = django_filters.CharFilter(field_name="name", lookup_expr="icontains", label=gettext_lazy("Name"))
    status = django_filters.ChoiceFilter(
        widget=QuickSelect,
        choices=EventStatus.choices,
        empty_label=gettext_lazy("Any status"),
        label=gettext_lazy("Status"),
    )
