"""The Elo rulesets: how one match changes two participants' ratings (SPEC 3.1-3.3).

Everything here is plain data in, plain data out: the recompute service
streams matches in rating order and stores what comes back.
"""

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import date

from ratings.engine.elo import START_RATING, band_k, elo_update, provisional_rating

WIN, DRAW, LOSS = 1.0, 0.5, 0.0

DCI_1997_MIN_PLAYERS = 8
DCI_1997_SMALL_EVENT = 32  # events of 8 to 31 players rate at half K


@dataclass(frozen=True, slots=True)
class MatchInput:
    """A rated match as the engine sees it. `result` is participant 1's: WIN, DRAW or LOSS."""

    match_id: int
    event_id: int
    event_date: date
    round: int
    participant1: int
    participant2: int
    result: float
    event_k: int
    event_players: int
    level2_judge: bool


@dataclass(slots=True)
class ParticipantState:
    """Where a participant stands in a category after the matches applied so far."""

    rating: float = START_RATING
    matches: int = 0
    # The 1997 provisional formula needs these over the first matches.
    wins: int = 0
    losses: int = 0
    opponent_rating_sum: float = 0.0
    last_played: date | None = None  # set by the history loop (ratings.engine.history)


@dataclass(frozen=True, slots=True)
class RatingChange:
    """One participant's side of one rated match: everything needed to explain the change."""

    participant: int
    opponent: int
    rating_before: float
    rating_after: float
    opponent_rating: float
    expected: float
    score: float
    k: float | None  # None while the provisional formula sets the rating
    k_reason: str
    matches: int  # rated matches in the category including this one
    provisional: bool


class Ruleset:
    """Base of the Elo rulesets: subclasses say which matches count, S and K."""

    slug = ""

    def __init__(self, *, provisional_until: int = 0, start_rating: float = START_RATING):
        self.provisional_until = provisional_until
        self.start_rating = start_rating
        self._k_cache: dict[tuple, tuple[float, str]] = {}

    def is_rated(self, event_players: int) -> bool:
        return True

    def score(self, result: float) -> float:
        return result

    def k(self, rating: float, event_k: int, event_players: int, level2_judge: bool) -> tuple[float, str]:
        """The K a participant rated `rating` uses in this event, and why."""
        raise NotImplementedError

    def rate(self, match: MatchInput, states: dict[int, ParticipantState]) -> tuple[RatingChange, RatingChange]:
        return self.rate_pair(
            match.participant1, match.participant2, match.result, match.event_k, match.event_players,
            match.level2_judge, states,
        )  # fmt: skip

    def rate_pair(self, participant1, participant2, result, event_k, event_players, level2_judge, states):
        """Apply one match to `states` in place; both sides use their pre-match ratings."""
        one = states.get(participant1)
        if one is None:
            one = states[participant1] = ParticipantState(rating=self.start_rating)
        two = states.get(participant2)
        if two is None:
            two = states[participant2] = ParticipantState(rating=self.start_rating)
        rating1, rating2 = one.rating, two.rating
        return (
            self._side(one, participant1, participant2, rating1, rating2, result, event_k, event_players, level2_judge),
            self._side(
                two, participant2, participant1, rating2, rating1, 1.0 - result, event_k, event_players, level2_judge
            ),
        )

    def _side(self, state, participant, opponent, rating, opponent_rating, result, event_k, players, judge):
        expected = 1.0 / (10.0 ** ((opponent_rating - rating) / 400.0) + 1.0)  # expected_score, inlined: hot
        score = self.score(result)
        state.matches += 1
        if state.matches <= self.provisional_until:
            state.wins += result == WIN
            state.losses += result == LOSS
            state.opponent_rating_sum += opponent_rating
            state.rating = provisional_rating(state.opponent_rating_sum, state.wins, state.losses, state.matches)
            return RatingChange(
                participant, opponent, rating, state.rating, opponent_rating, expected, score, None,
                f"provisional: mean opponent rating {state.opponent_rating_sum / state.matches:.2f}"
                f" + 400 x ({state.wins} - {state.losses}) / {state.matches}",
                state.matches, True,
            )  # fmt: skip
        k, reason = self.k(rating, event_k, players, judge)
        state.rating = elo_update(rating, k, score, expected)
        return RatingChange(
            participant, opponent, rating, state.rating, opponent_rating, expected, score, k, reason, state.matches,
            False,
        )  # fmt: skip


class Dci2001(Ruleset):
    """K is the event's K; both players use it, so every match is zero-sum."""

    slug = "dci-2001"

    def k(self, rating, event_k, event_players, level2_judge):
        cached = self._k_cache.get(event_k)
        if cached is None:
            cached = self._k_cache[event_k] = (float(event_k), f"event K {event_k}")
        return cached


class Dci1997(Ruleset):
    """Rating-band K, halved for small events and again without a Level II judge; provisional start."""

    slug = "dci-1997"

    def is_rated(self, event_players):
        return event_players >= DCI_1997_MIN_PLAYERS

    def k(self, rating, event_k, event_players, level2_judge):
        band_value, band = band_k(rating)
        small = event_players < DCI_1997_SMALL_EVENT
        key = (band_value, small, level2_judge)
        cached = self._k_cache.get(key)
        if cached is None:
            reason = [f"{band_value} ({band})"]
            value = float(band_value)
            if small:
                value /= 2
                reason.append("1/2 (8-31 players)")
            if not level2_judge:
                value /= 2
                reason.append("1/2 (no Level II judge)")
            text = " x ".join(reason)
            cached = self._k_cache[key] = (value, text if len(reason) == 1 else f"{text} = {value:g}")
        return cached


class MatchPoints(Ruleset):
    """S is match points / 3 (a draw scores 1/3 for both); K by the player's own rating band."""

    slug = "match-points"

    def score(self, result):
        return 1.0 / 3.0 if result == DRAW else result

    def k(self, rating, event_k, event_players, level2_judge):
        k, band = band_k(rating)
        return float(k), f"{k} ({band})"


ELO_RULESETS = {ruleset.slug: ruleset for ruleset in (Dci2001, Dci1997, MatchPoints)}


def ruleset_for(slug: str, *, provisional_until: int = 0, start_rating: float = START_RATING) -> Ruleset:
    return ELO_RULESETS[slug](provisional_until=provisional_until, start_rating=start_rating)


def rate_matches(
    ruleset: Ruleset, matches: Iterable[MatchInput], states: dict[int, ParticipantState] | None = None
) -> Iterator[tuple[MatchInput, RatingChange, RatingChange]]:
    """Apply `matches` (already in rating order) one by one, updating `states` in place."""
    states = {} if states is None else states
    for match in matches:
        if ruleset.is_rated(match.event_players):
            yield match, *ruleset.rate(match, states)
