"""How a category's rules and lists are described on the pages."""

from django import template
from django.contrib.humanize.templatetags.humanize import intcomma
from django.utils.formats import date_format
from django.utils.translation import gettext, gettext_noop, ngettext
from django.utils.translation import gettext_lazy as _

from ratings.engine import displayed
from ratings.models import Category, DisplayRounding, Ruleset
from ratings.selectors.distribution import BIN_WIDTH, bin_start
from ratings.selectors.places import place_name
from ratings.selectors.ranking_filters import RankingFilters

register = template.Library()


def _members(category: Category) -> str:
    return "teams" if category.team_size > 1 else "players"


def _is_vekn(category: Category) -> bool:
    return category.ruleset == Ruleset.VEKN


FORMAT_NAMES = {"vtes": "V:TES", "type-1.5": "Type 1.5"}  # formats keep their English names

# The rulesets' short names, as the list's summary gives them.
RULESET_NAMES = {Ruleset.DCI_2001: "DCI 2001", Ruleset.DCI_1997: "DCI 1997", Ruleset.MATCH_POINTS: _("Match points")}


def _and(names: list[str]) -> str:
    """'A, B and C', in the visitor's language."""
    if len(names) == 1:
        return names[0]
    return gettext("%(first)s and %(last)s") % {"first": ", ".join(names[:-1]), "last": names[-1]}


def _each(names: list[str], joined: str) -> str:
    """'A and B and C' / 'A or B or C' (`joined`: the msgid joining two)."""
    text = names[0] if names else ""
    for name in names[1:]:
        text = gettext(joined) % {"first": text, "last": name}
    return text


def _formats(category: Category) -> str:
    return _and([FORMAT_NAMES.get(name, name.replace("-", " ").title()) for name in category.format_list])


def _component_names(category: Category) -> list[str]:
    # The default lists' names are in the catalogs (ratings.models.DEFAULT_LIST_NAMES).
    return [gettext(slug.replace("-", " ").title()) for slug in category.component_list]


@register.simple_tag
def category_summary(category: Category) -> str:
    """One sentence: what feeds the list and by which rules."""
    if category.ruleset == Ruleset.DERIVED:
        return gettext("The mean of the %(lists)s ratings.") % {
            "lists": _each(_component_names(category), gettext_noop("%(first)s and %(last)s"))
        }
    if category.ruleset == Ruleset.VEKN:
        return gettext("V:EKN rating points from %(formats)s events.") % {"formats": _formats(category)}
    ruleset = RULESET_NAMES.get(category.ruleset) or category.get_ruleset_display().split(" (")[0]
    values = {"ruleset": ruleset, "formats": _formats(category), "size": category.team_size}
    if category.team_size > 1:
        return gettext("Elo ratings (%(ruleset)s) from %(formats)s events by teams of %(size)s.") % values
    return gettext("Elo ratings (%(ruleset)s) from %(formats)s events.") % values


@register.simple_tag
def category_rules(category: Category) -> list[str]:
    """The thresholds and conventions of the category's lists, in plain sentences."""
    rules = []
    teams = category.team_size > 1
    if category.ruleset == Ruleset.VEKN:
        rules.append(
            gettext("A rating is the sum of the best %(best)s event scores of the %(months)s months up to the date.")
            % {"best": category.best_of or 8, "months": category.window_months or 18}
        )
    if category.ruleset == Ruleset.DERIVED:
        rules.append(
            gettext("Ranked when ranked in %(lists)s; a missing rating counts as %(rating)s.")
            % {
                "lists": _each(_component_names(category), gettext_noop("%(first)s or %(last)s")),
                "rating": displayed(category.start_rating, category.display_rounding),
            }
        )
    elif category.ranked_after <= 1:
        rules.append(
            gettext("Ranked from the first event.") if _is_vekn(category) else gettext("Ranked from the first match.")
        )
    else:
        count = category.ranked_after
        if _is_vekn(category) and teams:
            rule = ngettext(
                "Ranked after %(count)s rated event; teams with fewer are listed as unranked.",
                "Ranked after %(count)s rated events; teams with fewer are listed as unranked.",
                count,
            )
        elif _is_vekn(category):
            rule = ngettext(
                "Ranked after %(count)s rated event; players with fewer are listed as unranked.",
                "Ranked after %(count)s rated events; players with fewer are listed as unranked.",
                count,
            )
        elif teams:
            rule = ngettext(
                "Ranked after %(count)s rated match; teams with fewer are listed as unranked.",
                "Ranked after %(count)s rated matches; teams with fewer are listed as unranked.",
                count,
            )
        else:
            rule = ngettext(
                "Ranked after %(count)s rated match; players with fewer are listed as unranked.",
                "Ranked after %(count)s rated matches; players with fewer are listed as unranked.",
                count,
            )
        rules.append(rule % {"count": count})
    if category.inactivity_months:
        if teams:
            rule = gettext(
                "Teams with no event in the last %(months)s months leave the ranked list until they play again."
            )
        else:
            rule = gettext(
                "Players with no event in the last %(months)s months leave the ranked list until they play again."
            )
        rules.append(rule % {"months": category.inactivity_months})
    if category.provisional_until:
        rules.append(
            gettext(
                "Ratings are provisional (marked P) for the first %(count)s matches "
                "and computed from the opponents' ratings."
            )
            % {"count": category.provisional_until}
        )
    if category.display_rounding == DisplayRounding.ROUND:
        rules.append(gettext("Ratings are shown rounded to the nearest whole number (1612.5 shows as 1613)."))
    else:
        rules.append(gettext("Ratings are shown with their decimals cut off (1612.9 shows as 1612)."))
    rules.append(
        gettext("Equal ratings share a rank (1, 2, 2, 4). Change compares with the ranks at the end of last month.")
    )
    return rules


@register.simple_tag
def list_threshold(category: Category, unranked: bool) -> str:
    """'10+ matches' / 'fewer than 10 matches'; V:TES: 'active in the last 12 months' / 'no event in ...'."""
    vekn = _is_vekn(category)
    count = category.ranked_after
    counted = count > 1 or not category.inactivity_months
    months = {"months": category.inactivity_months}
    if unranked:
        parts = []
        if counted:
            if vekn:
                fewer = ngettext("fewer than %(count)s event", "fewer than %(count)s events", count)
            else:
                fewer = ngettext("fewer than %(count)s match", "fewer than %(count)s matches", count)
            parts.append(fewer % {"count": count})
        if category.inactivity_months:
            parts.append(gettext("no event in the last %(months)s months") % months)
        return _each(parts, gettext_noop("%(first)s or %(last)s"))
    parts = []
    if counted:
        parts.append((gettext("%(count)s+ events") if vekn else gettext("%(count)s+ matches")) % {"count": count})
    if category.inactivity_months:
        parts.append(gettext("active in the last %(months)s months") % months)
    return ", ".join(parts)


@register.simple_tag
def ranking_caption(category: Category, filters: RankingFilters, as_of, near: bool = False) -> str:
    """'Constructed — Germany — as of 30 Jun 2024 — ranked players (10+ matches)'; `near`: the search found
    names like the one searched, none as typed."""
    when = gettext("as of %(date)s") % {"date": date_format(as_of, "DATE_FORMAT")}
    parts = [category.label, place_name(filters), when]
    if filters.search:
        if near:
            parts.append(gettext("with a name like “%(search)s”") % {"search": filters.search})
        else:
            parts.append(gettext("matching “%(search)s”") % {"search": filters.search})
    threshold = {"threshold": list_threshold(category, filters.unranked)}
    listed = {
        (False, "players"): gettext_noop("ranked players (%(threshold)s)"),
        (True, "players"): gettext_noop("unranked players (%(threshold)s)"),
        (False, "teams"): gettext_noop("ranked teams (%(threshold)s)"),
        (True, "teams"): gettext_noop("unranked teams (%(threshold)s)"),
    }[filters.unranked, _members(category)]
    parts.append(gettext(listed) % threshold)
    return " — ".join(parts)


@register.simple_tag
def distribution_hint(distribution, category: Category, filters: RankingFilters, as_of) -> str:
    """What the histogram counts: '1,234 ranked players in Germany on 5 May 2024, in bins of 25 points.'"""
    total = distribution.total
    # The English says "players" whatever the count; other languages may not.
    if category.team_size > 1:
        if filters.unranked:
            who = ngettext("%(count)s unranked teams", "%(count)s unranked teams", total)
        else:
            who = ngettext("%(count)s ranked teams", "%(count)s ranked teams", total)
    elif filters.unranked:
        who = ngettext("%(count)s unranked players", "%(count)s unranked players", total)
    else:
        who = ngettext("%(count)s ranked players", "%(count)s ranked players", total)
    values = {
        "who": who % {"count": intcomma(total)},
        "place": place_name(filters),
        "width": BIN_WIDTH,
    }
    if filters.as_of:
        values["date"] = date_format(as_of, "DATE_FORMAT")
        if filters.level == "world":
            return gettext("%(who)s in the world on %(date)s, in bins of %(width)s points.") % values
        return gettext("%(who)s in %(place)s on %(date)s, in bins of %(width)s points.") % values
    if filters.level == "world":
        return gettext("%(who)s in the world, in bins of %(width)s points.") % values
    return gettext("%(who)s in %(place)s, in bins of %(width)s points.") % values


@register.filter
def rating_shown(rating: float, category: Category) -> int:
    return displayed(rating, category.display_rounding)


# The histogram's drawing: bars in a viewBox of BAR_STEP units a bin and CHART_HEIGHT high (the SVG scales).
BAR_STEP, BAR_GAP, CHART_HEIGHT = 10, 1, 100


@register.simple_tag
def distribution_chart(distribution, own_rating=None) -> dict:
    """What the ranking page's histogram draws: a bar per bin (its place, height and words), the labels of the
    rating axis (every 100 points, or 200 when the bins are many), and the bin of `own_rating` marked."""
    tallest = distribution.tallest or 1
    own_bin = bin_start(own_rating) if own_rating is not None else None
    bars = []
    for index, (start, count) in enumerate(distribution.bins):
        height = round(count / tallest * CHART_HEIGHT, 2)
        bars.append(
            {
                "x": index * BAR_STEP,
                "y": round(CHART_HEIGHT - height, 2),
                "width": BAR_STEP - BAR_GAP,
                "height": height,
                "start": start,
                "end": start + BIN_WIDTH - 1,
                "count": count,
                "own": start == own_bin,
            }
        )
    every = 100 if len(bars) <= 40 else 200
    labels = [{"x": bar["x"], "text": bar["start"]} for bar in bars if bar["start"] % every == 0]
    return {"bars": bars, "labels": labels, "width": len(bars) * BAR_STEP, "height": CHART_HEIGHT}
