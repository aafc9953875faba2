"""Ranks within a list (SPEC 4): equal ratings share a rank, the next rank skips (1, 2, 2, 4)."""

from collections.abc import Sequence


def competition_ranks(ratings_descending: Sequence[float]) -> list[int]:
    ranks = []
    for position, rating in enumerate(ratings_descending, start=1):
        if ranks and rating == ratings_descending[position - 2]:
            ranks.append(ranks[-1])
        else:
            ranks.append(position)
    return ranks


def displayed(rating: float, rounding: str) -> int:
    """A rating as the category shows it: decimals cut off (truncate) or rounded half up."""
    if rounding == "round":
        return int(rating + 0.5) if rating >= 0 else -int(-rating + 0.5)
    return int(rating)
