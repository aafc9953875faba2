from django import template

from ratings.engine import displayed

register = template.Library()


@register.filter
def signed(value: float, decimals: int = 2) -> str:
    """+8.00 / −1.60 / 0.00: a change with its sign, a real minus sign for the negatives."""
    text = f"{abs(value):.{decimals}f}"
    if float(text) == 0:
        return text
    return f"+{text}" if value > 0 else f"\u2212{text}"


@register.filter
def percent(value: float, decimals: int = 1) -> str:
    return f"{value * 100:.{decimals}f}%"


@register.filter
def listed(rating: float, rounding: str) -> int:
    """The rating as a list shows it: truncated (the DCI) or rounded."""
    return displayed(rating, rounding)


@register.filter
def fixed(value: float, decimals: int = 2) -> str:
    return f"{value:.{decimals}f}"


@register.filter
def magnitude(value: float, decimals: int = 2) -> str:
    """A difference without its sign, for text that says "above" or "below" itself."""
    return f"{abs(value):.{decimals}f}"
