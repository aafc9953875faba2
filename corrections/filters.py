"""The correction log's filters (django-filter): by date, player, event and category."""

import django_filters
from django import forms
from django.utils.translation import gettext_lazy

from corrections.models import CorrectionKind
from corrections.selectors import corrections_of_player
from ratings.models import Category, Ruleset


def _category_choices():
    return [
        (category.slug, category.label) for category in Category.objects.exclude(ruleset=Ruleset.DERIVED).order_by()
    ]


class CorrectionFilter(django_filters.FilterSet):
    corrected_from = django_filters.DateFilter(
        field_name="corrected_at",
        lookup_expr="date__gte",
        label=gettext_lazy("Corrected from"),
        widget=forms.DateInput(attrs={"type": "date"}),
    )
    corrected_to = django_filters.DateFilter(
        field_name="corrected_at",
        lookup_expr="date__lte",
        label=gettext_lazy("Corrected until"),
        widget=forms.DateInput(attrs={"type": "date"}),
    )
    player = django_filters.CharFilter(method="filter_player", label=gettext_lazy("Player (name or number)"))
    event = django_filters.CharFilter(field_name="event_name", lookup_expr="icontains", label=gettext_lazy("Event"))
    category = django_filters.ChoiceFilter(
        choices=_category_choices,
        method="filter_category",
        empty_label=gettext_lazy("Any list"),
        label=gettext_lazy("Rating list"),
    )
    kind = django_filters.ChoiceFilter(
        choices=CorrectionKind.choices, empty_label=gettext_lazy("Any kind"), label=gettext_lazy("Kind")
    )

    def filter_player(self, queryset, name, value):
        return queryset.filter(corrections_of_player(query=value)) if value.strip() else queryset

    def filter_category(self, queryset, name, value):
        category = Category.objects.filter(slug=value).first()
        if category is None:
            return queryset.none()
        return queryset.filter(event_format__in=category.format_list, event_team_size=category.team_size)
