"""Template filters for ratings as the categories show them: {{ value|rating:category.display_rounding }}."""

from django import template
from django.utils.translation import gettext, pgettext

from players import formatting, geography, links
from ratings import formatting as rating_formatting

register = template.Library()


@register.filter
def rating(value, rounding):
    return rating_formatting.rating_shown(value, rounding)


@register.filter
def percent(value):
    """A probability as a page shows it: 0.64006 -> "64.0%" ("64,0 %" in German)."""
    return formatting.percent(value, 1)


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


@register.simple_tag
def better_than_sentence(ranks, noun: str = "players") -> str:
    """Where a standing is among the ranked at each of its places, narrowest first: "Better than 87 % of the
    ranked players in Bavaria, 80 % in Germany, 75 % in Europe and 70 % in the world." A share of none (the
    last at a place) or of a place of one is left out; "" when none is left. `noun` is "players" or "teams"."""
    shares = [rank for rank in reversed(ranks) if rank.better_than]
    if not shares:
        return ""
    first, *others = shares
    if noun == "teams":
        text = gettext("%(percent)s %% of the ranked teams %(where)s")
    else:
        text = gettext("%(percent)s %% of the ranked players %(where)s")
    items = [text % {"percent": first.better_than, "where": _where(first)}]
    items += [
        pgettext("better than a share at a place", "%(percent)s %% %(where)s")
        % {"percent": rank.better_than, "where": _where(rank)}
        for rank in others
    ]
    return gettext("Better than %(shares)s.") % {"shares": formatting.listed(items)}


def _where(rank) -> str:
    """The place of a rank as the sentence names it: "in the world", "in Germany"."""
    if rank.scope == "world":
        return gettext("in the world")
    return gettext("in %(place)s") % {"place": rank.place}
