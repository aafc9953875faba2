"""Ranks within a list (SPEC 4): equal ratings share a rank, the next rank skips (1, 2, 2, 4)."""

from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence


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


def level_ranks(rows: Iterable[tuple[float, Sequence[str]]]) -> Iterator[tuple[int | None, ...]]:
    """Each row's rank in the world and in each of its places, for rows given best first: (rating, places) ->
    (world rank, rank in the first place, ...). Competition ranks among the rows of the same place (as
    competition_ranks); a blank place ranks nowhere (None). One pass, each place's count kept as it goes."""
    world_count, world_rank, world_rating = 0, 0, None
    counts: defaultdict[int, dict[str, list]] = defaultdict(dict)  # level -> place -> [rows seen, last rating, rank]
    for rating, places in rows:
        world_count += 1
        if rating != world_rating:
            world_rank, world_rating = world_count, rating
        ranks = [world_rank]
        for level, place in enumerate(places):
            if not place:
                ranks.append(None)
                continue
            seen = counts[level].get(place)
            if seen is None:
                seen = counts[level][place] = [0, None, 0]
            seen[0] += 1
            if rating != seen[1]:
                seen[1], seen[2] = rating, seen[0]
            ranks.append(seen[2])
        yield tuple(ranks)
