"""The Elo arithmetic shared by the DCI rulesets (SPEC 3)."""

START_RATING = 1600.0

# Rating bands of the 1997 rules and the match-points list: K by the player's own rating.
BANDS = ((2400.0, 16, "rating 2400 and up"), (2100.0, 24, "rating 2100-2399"), (float("-inf"), 32, "rating below 2100"))


def expected_score(rating: float, opponent: float) -> float:
    """The win probability We of a player rated `rating` against `opponent`.

    Symmetric: expected_score(a, b) + expected_score(b, a) == 1.
    """
    return 1.0 / (10.0 ** ((opponent - rating) / 400.0) + 1.0)


def elo_update(rating: float, k: float, score: float, expected: float) -> float:
    return rating + k * (score - expected)


def band_k(rating: float) -> tuple[int, str]:
    """K by rating band: 32 below 2100, 24 from 2100 to 2399, 16 from 2400; and the band's name."""
    for floor, k, name in BANDS:
        if rating >= floor:
            return k, name
    raise AssertionError("unreachable: the last band has no floor")


def provisional_rating(opponent_rating_sum: float, wins: int, losses: int, matches: int) -> float:
    """The 1997 provisional rating: Rc + 400 (wins - losses) / matches, Rc the opponents' mean rating."""
    return opponent_rating_sum / matches + 400.0 * (wins - losses) / matches
