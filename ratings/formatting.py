"""A rating as the pages show it."""

from ratings.engine import displayed


def rating_shown(rating: float | None, rounding: str) -> str:
    """A rating as its category shows it (truncated or rounded, SPEC 3)."""
    if rating is None:
        return "—"
    return str(displayed(rating, rounding))
