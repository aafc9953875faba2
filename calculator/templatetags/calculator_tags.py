from django import template

from players import formatting
from players.formatting import k_reason_shown
from ratings.engine import displayed

register = template.Library()


@register.filter
def signed(value: float, decimals: int = 2) -> str:
    """+8.00 / −1.60 / 0.00: a change with its sign, a real minus sign for the negatives."""
    return formatting.signed(value, decimals)


@register.filter
def percent(value: float, decimals: int = 1) -> str:
    """0.64006 -> "64.0%" ("64,0 %" in German)."""
    return formatting.percent(value, decimals)


@register.filter
def listed(rating: float, rounding: str) -> int:
    """The rating as a list shows it: truncated (the DCI) or rounded."""
    return displayed(rating, rounding)


@register.filter
def fixed(value: float, decimals: int = 2) -> str:
    return formatting.decimal(value, decimals)


@register.filter
def magnitude(value: float, decimals: int = 2) -> str:
    """A difference without its sign, for text that says "above" or "below" itself."""
    return formatting.decimal(abs(value), decimals)


@register.filter
def result_letter(letter: str) -> str:
    """W, D or L in the visitor's language."""
    return str(formatting.OUTCOME_LETTERS.get(letter, letter))


@register.filter
def k_reason(reason: str) -> str:
    """Why a match's K is what it is ("event K 16", "rating below 2100"), in the visitor's language."""
    return k_reason_shown(reason or "")
