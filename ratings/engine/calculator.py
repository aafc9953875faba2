"""The rating calculator: what a player's results would do to their rating (pure functions, no ORM).

Two ways to answer "how many points did I win?", as in the DCI ratings article:

- `rating_sequence`: the exact way, one match after another, each from the
  rating the previous match left (the opponents' ratings as given);
- `average_opponent_estimate`: the quick way, every opponent replaced by
  their average, so the whole event is one multiplication.

And `win_probability_table`, the article's table of We by rating difference.
"""

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ratings.engine.elo import elo_update, expected_score
from ratings.engine.rulesets import DCI_1997_SMALL_EVENT, DRAW, LOSS, WIN, ruleset_for

# The Elo rulesets a single player's results can be replayed under: the
# 1997 rules for an established player (the provisional formula needs the
# player's whole record, not one event).
CALCULATOR_RULESETS = ("dci-2001", "match-points", "dci-1997")
FIXED_K_RULESETS = ("dci-2001",)
K_VALUES = (8, 16, 24, 32, 40, 48)

# How each ruleset shows a rating (SPEC 3.1-3.3): the DCI cut the decimals off.
DISPLAY_ROUNDING = {"dci-2001": "truncate", "dci-1997": "truncate", "match-points": "round"}

RESULT_LETTERS = {"W": WIN, "D": DRAW, "L": LOSS}


def as_result(result: str | float) -> float:
    """A result as the engine's WIN / DRAW / LOSS, from "W" / "D" / "L" or the number itself."""
    if isinstance(result, str):
        try:
            return RESULT_LETTERS[result.strip().upper()[:1]]
        except KeyError:
            raise ValueError(f"result {result!r} is not W, D or L") from None
    if result not in (WIN, DRAW, LOSS):
        raise ValueError(f"result {result!r} is not 1, 0.5 or 0")
    return float(result)


def result_letter(result: float) -> str:
    return {WIN: "W", DRAW: "D", LOSS: "L"}[result]


def _ruleset(ruleset: str, k: int | None):
    if ruleset not in CALCULATOR_RULESETS:
        raise ValueError(f"ruleset {ruleset!r} is not one of {', '.join(CALCULATOR_RULESETS)}")
    if ruleset in FIXED_K_RULESETS and k not in K_VALUES:
        raise ValueError(f"K {k!r} is not one of {', '.join(map(str, K_VALUES))}")
    # The recompute's own ruleset, so the calculator's K and S cannot drift from the real ones.
    return ruleset_for(ruleset)


def _event_players(small_event: bool) -> int:
    """A player count on the right side of the 1997 rules' 32-player line."""
    return DCI_1997_SMALL_EVENT - 1 if small_event else DCI_1997_SMALL_EVENT


def match_k(
    rating: float, *, ruleset: str, k: int | None, small_event: bool = False, level2_judge: bool = True
) -> tuple[float, str]:
    """The K a player rated `rating` uses under `ruleset`, and why.

    `k` is the event's K (dci-2001 only); the band rulesets take K from the
    player's own rating, and the 1997 rules halve it for 8-31 players and
    again without a Level II judge.
    """
    rules = _ruleset(ruleset, k)
    return rules.k(rating, k or 0, _event_players(small_event), level2_judge)


@dataclass(frozen=True, slots=True)
class MatchStep:
    """One match of the exact calculation."""

    number: int
    opponent_rating: float
    result: float  # WIN, DRAW or LOSS
    score: float  # S: the result as the ruleset scores it (a draw is 1/3 in match-points)
    expected: float  # We from the rating before this match
    k: float
    k_reason: str
    rating_before: float
    rating_after: float

    @property
    def change(self) -> float:
        return self.rating_after - self.rating_before

    @property
    def result_letter(self) -> str:
        return result_letter(self.result)


def rating_sequence(
    rating: float,
    k: int | None,
    opponents: Iterable[tuple[float, str | float]],
    ruleset: str = "dci-2001",
    *,
    small_event: bool = False,
    level2_judge: bool = True,
) -> list[MatchStep]:
    """Apply the matches in order, each from the rating the previous one left (SPEC 3).

    `opponents` holds (opponent's rating, result) with the result W / D / L
    (or 1 / 0.5 / 0). The opponents' ratings are taken as given: in a real
    event they move too, but the calculator knows only what it is told.
    """
    rules = _ruleset(ruleset, k)
    players = _event_players(small_event)
    steps = []
    for number, (opponent_rating, result) in enumerate(opponents, start=1):
        k_value, reason = rules.k(rating, k or 0, players, level2_judge)
        result = as_result(result)
        score = rules.score(result)
        expected = expected_score(rating, opponent_rating)
        after = elo_update(rating, k_value, score, expected)
        steps.append(MatchStep(number, opponent_rating, result, score, expected, k_value, reason, rating, after))
        rating = after
    return steps


@dataclass(frozen=True, slots=True)
class Estimate:
    """The article's quick method: one average opponent for the whole event."""

    rating: float
    k: float
    matches: int
    average_opponent: float
    average_difference: float  # average opponent minus the player: positive when the opponents were stronger
    expected_each: float  # We against the average opponent
    score: float  # wins + draws x the draw score
    change: float  # K x (score - matches x We)

    @property
    def expected_total(self) -> float:
        return self.matches * self.expected_each

    @property
    def new_rating(self) -> float:
        return self.rating + self.change


def average_opponent_estimate(
    rating: float,
    k: float,
    opponent_ratings: Sequence[float],
    wins: int,
    draws: int,
    losses: int,
    *,
    draw_score: float = DRAW,
) -> Estimate:
    """Estimate an event's change as K x (score - n x We), We at the average rating difference.

    Which opponent was beaten does not matter to this estimate (a win over
    the strong one and a loss to the weak one cancel exactly against the
    reverse); what it ignores is that the rating moves between matches.
    """
    matches = wins + draws + losses
    if matches != len(opponent_ratings):
        raise ValueError(f"{len(opponent_ratings)} opponents but {matches} results")
    if matches == 0:
        raise ValueError("no matches to estimate from")
    average_opponent = sum(opponent_ratings) / matches
    expected_each = expected_score(rating, average_opponent)
    score = wins + draws * draw_score
    change = k * (score - matches * expected_each)
    return Estimate(rating, k, matches, average_opponent, average_opponent - rating, expected_each, score, change)


@dataclass(frozen=True, slots=True)
class WinProbabilityRow:
    difference: int
    higher: float  # We of the higher-rated player
    lower: float  # We of the lower-rated player


def win_probability_table(step: int = 25, up_to: int = 1000) -> list[WinProbabilityRow]:
    """We for rating differences 0, step, 2 x step, ... up to `up_to`, for both players."""
    if step <= 0 or up_to < 0:
        raise ValueError("step must be positive and up_to not negative")
    rows = []
    for difference in range(0, up_to + 1, step):
        higher = expected_score(difference, 0)
        rows.append(WinProbabilityRow(difference, higher, 1.0 - higher))
    return rows


@dataclass(frozen=True, slots=True)
class Calculation:
    """An event's results worked out both ways, side by side."""

    ruleset: str
    rating: float
    steps: list[MatchStep]
    estimate: Estimate

    @property
    def final_rating(self) -> float:
        return self.steps[-1].rating_after

    @property
    def change(self) -> float:
        return self.final_rating - self.rating

    @property
    def display_rounding(self) -> str:
        return DISPLAY_ROUNDING[self.ruleset]


def event_calculation(
    rating: float,
    k: int | None,
    opponents: Sequence[tuple[float, str | float]],
    ruleset: str = "dci-2001",
    *,
    small_event: bool = False,
    level2_judge: bool = True,
) -> Calculation:
    """The exact match-by-match result and the quick estimate for the same event.

    Under the band rulesets the estimate uses the K of the player's starting
    rating, as one would in one's head.
    """
    if not opponents:
        raise ValueError("no matches to calculate")
    steps = rating_sequence(rating, k, opponents, ruleset, small_event=small_event, level2_judge=level2_judge)
    estimate_k, _ = match_k(rating, ruleset=ruleset, k=k, small_event=small_event, level2_judge=level2_judge)
    results = [step.result for step in steps]
    estimate = average_opponent_estimate(
        rating,
        estimate_k,
        [step.opponent_rating for step in steps],
        results.count(WIN),
        results.count(DRAW),
        results.count(LOSS),
        draw_score=ruleset_for(ruleset).score(DRAW),
    )
    return Calculation(ruleset, rating, steps, estimate)


@dataclass(frozen=True, slots=True)
class SideOutlook:
    """One side of a meeting to come: its chance and what each result would do to its rating."""

    rating: float
    expected: float  # We: the win probability (SPEC 3), a draw counting half
    k: float
    k_reason: str
    win: float  # the rating change for a win
    draw: float
    loss: float


def meeting_outlook(
    rating: float, opponent: float, *, ruleset: str, k: int | None = None
) -> tuple[SideOutlook, SideOutlook]:
    """Both sides of a next meeting of two established players: each one's We and change for W, D and L.

    `k` is the event's K under the 2001 rules (the band rulesets take it
    from each player's rating, as in a big event with a Level II judge).
    """
    rules = _ruleset(ruleset, k)
    players = _event_players(False)

    def side(own: float, other: float) -> SideOutlook:
        k_value, reason = rules.k(own, k or 0, players, True)
        expected = expected_score(own, other)
        changes = [k_value * (rules.score(result) - expected) for result in (WIN, DRAW, LOSS)]
        return SideOutlook(own, expected, k_value, reason, *changes)

    return side(rating, opponent), side(opponent, rating)
