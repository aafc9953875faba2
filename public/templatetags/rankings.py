"""How a category's rules and lists are described on the pages."""

from django import template
from django.utils.text import capfirst

from ratings.engine import displayed
from ratings.models import Category, DisplayRounding, Ruleset
from ratings.selectors.distribution import BIN_WIDTH, bin_start
from ratings.selectors.places import place_name
from ratings.selectors.ranking_filters import RankingFilters

register = template.Library()


def _counted(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 'es' if word.endswith('ch') else 's'}"


def _unit(category: Category) -> str:
    return "event" if category.ruleset == Ruleset.VEKN else "match"


def _members(category: Category) -> str:
    return "teams" if category.team_size > 1 else "players"


FORMAT_NAMES = {"vtes": "V:TES", "type-1.5": "Type 1.5"}


def _formats(category: Category) -> str:
    names = [FORMAT_NAMES.get(name, name.replace("-", " ").title()) for name in category.format_list]
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def _component_names(category: Category) -> list[str]:
    return [slug.replace("-", " ").title() for slug in category.component_list]


@register.simple_tag
def category_summary(category: Category) -> str:
    """One sentence: what feeds the list and by which rules."""
    if category.ruleset == Ruleset.DERIVED:
        return f"The mean of the {' and '.join(_component_names(category))} ratings."
    if category.ruleset == Ruleset.VEKN:
        return f"V:EKN rating points from {_formats(category)} events."
    teams = f" by teams of {category.team_size}" if category.team_size > 1 else ""
    return f"Elo ratings ({category.get_ruleset_display().split(' (')[0]}) from {_formats(category)} events{teams}."


@register.simple_tag
def category_rules(category: Category) -> list[str]:
    """The thresholds and conventions of the category's lists, in plain sentences."""
    members, unit = _members(category), _unit(category)
    rules = []
    if category.ruleset == Ruleset.VEKN:
        rules.append(
            f"A rating is the sum of the best {category.best_of or 8} event scores "
            f"of the {category.window_months or 18} months up to the date."
        )
    if category.ruleset == Ruleset.DERIVED:
        rules.append(
            f"Ranked when ranked in {' or '.join(_component_names(category))}; "
            f"a missing rating counts as {displayed(category.start_rating, category.display_rounding)}."
        )
    elif category.ranked_after <= 1:
        rules.append(f"Ranked from the first {unit}.")
    else:
        rules.append(
            f"Ranked after {_counted(category.ranked_after, 'rated ' + unit)}; "
            f"{members} with fewer are listed as unranked."
        )
    if category.inactivity_months:
        rules.append(
            f"{capfirst(members)} with no event in the last {category.inactivity_months} months "
            "leave the ranked list until they play again."
        )
    if category.provisional_until:
        rules.append(
            f"Ratings are provisional (marked P) for the first {category.provisional_until} matches "
            "and computed from the opponents' ratings."
        )
    if category.display_rounding == DisplayRounding.ROUND:
        rules.append("Ratings are shown rounded to the nearest whole number (1612.5 shows as 1613).")
    else:
        rules.append("Ratings are shown with their decimals cut off (1612.9 shows as 1612).")
    rules.append("Equal ratings share a rank (1, 2, 2, 4). Change compares with the ranks at the end of last month.")
    return rules


@register.simple_tag
def list_threshold(category: Category, unranked: bool) -> str:
    """'10+ matches' / 'fewer than 10 matches'; V:TES: 'active in the last 12 months' / 'no event in ...'."""
    unit = _unit(category)
    counted = category.ranked_after > 1 or not category.inactivity_months
    inactive = f"{category.inactivity_months} months" if category.inactivity_months else ""
    if unranked:
        parts = [f"fewer than {_counted(category.ranked_after, unit)}" if counted else ""]
        parts.append(f"no event in the last {inactive}" if inactive else "")
        return " or ".join(part for part in parts if part)
    plural = "events" if unit == "event" else "matches"
    parts = [
        f"{category.ranked_after}+ {plural}" if counted else "",
        f"active in the last {inactive}" if inactive else "",
    ]
    return ", ".join(part for part in parts if part)


@register.simple_tag
def ranking_caption(category: Category, filters: RankingFilters, as_of, near: bool = False) -> str:
    """'Constructed — Germany — as of 2024-06-30 — ranked players (10+ matches)'; `near`: the search found
    names like the one searched, none as typed."""
    listed = f"{'unranked' if filters.unranked else 'ranked'} {_members(category)}"
    parts = [category.name, place_name(filters), f"as of {as_of.isoformat()}"]
    if filters.search:
        parts.append(f"{'with a name like' if near else 'matching'} “{filters.search}”")
    parts.append(f"{listed} ({list_threshold(category, filters.unranked)})")
    return " — ".join(parts)


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
