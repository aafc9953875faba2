from django import template
from django.utils import formats
from django.utils.translation import pgettext, pgettext_lazy

from players.formatting import k_reason_shown
from ratings.engine import displayed

register = template.Library()

# The result letters as the page shows them (S, U, N in German); the values stay W, D, L (form data, CSS classes).
RESULT_LETTERS = {
    "W": pgettext_lazy("win, abbreviated", "W"),
    "D": pgettext_lazy("draw, abbreviated", "D"),
    "L": pgettext_lazy("loss, abbreviated", "L"),
}


def _decimal(value: float, decimals: int) -> str:
    """Rounded as f"{value:.2f}" rounds, with the language's decimal separator: 12.35, or 12,35 in German."""
    return formats.number_format(f"{value:.{decimals}f}")


@register.filter
def signed(value: float, decimals: int = 2) -> str:
    """+8.00 / −1.60 / 0.00: a change with its sign, a real minus sign for the negatives."""
    text = f"{abs(value):.{decimals}f}"
    if float(text) == 0:
        return _decimal(0, decimals)
    text = _decimal(abs(value), decimals)
    return f"+{text}" if value > 0 else f"\u2212{text}"


@register.filter
def percent(value: float, decimals: int = 1) -> str:
    """0.64006 -> "64.0%" ("64,0 %" in German)."""
    return pgettext("a percentage", "%(number)s%%") % {"number": _decimal(value * 100, decimals)}


@register.filter
def listed(rating: float, rounding: str) -> int:
    """The rating as a list shows it: truncated (the DCI) or rounded."""
    return displayed(rating, rounding)


@register.filter
def fixed(value: float, decimals: int = 2) -> str:
    return _decimal(value, decimals)


@register.filter
def magnitude(value: float, decimals: int = 2) -> str:
    """A difference without its sign, for text that says "above" or "below" itself."""
    return _decimal(abs(value), decimals)


@register.filter
def result_letter(letter: str) -> str:
    """W, D or L in the visitor's language."""
    return str(RESULT_LETTERS.get(letter, letter))


@register.filter
def k_reason(reason: str) -> str:
    """Why a match's K is what it is ("event K 16", "rating below 2100"), in the visitor's language."""
    return k_reason_shown(reason or "")
