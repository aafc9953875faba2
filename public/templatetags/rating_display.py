"""Template filters for ratings as the categories show them: {{ value|rating:category.display_rounding }}."""

from django import template

from players import formatting, geography, links
from ratings import formatting as rating_formatting

register = template.Library()


@register.filter
def rating(value, rounding):
    return rating_formatting.rating_shown(value, rounding)


@register.filter
def percent(value):
    """A probability as a page shows it: 0.64006 -> "64.0%"."""
    return f"{value * 100:.1f}%"


@register.filter
def signed(value):
    return formatting.signed(value)


@register.filter
def change_class(value):
    return formatting.change_class(value)


@register.filter
def region_name(code):
    return formatting.region_name(code)


@register.filter
def continent_name(code):
    return geography.CONTINENT_NAMES.get(code, "")


@register.filter
def format_name(code):
    return formatting.format_name(code or "")


@register.filter
def participant_link(participant):
    """A link to the player's or team's page (the participant loaded with its player and team)."""
    return links.participant_link(participant)
