"""A category's history rows from its matches in rating order (SPEC 3, 5).

Plain data in, plain tuples out: the recompute service streams the rows
straight into the database. Two loops compute the same rows: the general one
asks the ruleset for each side's K and reason; the one for rulesets whose K is
the event's (dci-2001, no provisional matches) does the arithmetic inline,
which is what a million matches need (about 4 times faster). A property test
holds them equal to the last bit.
"""

from collections.abc import Callable, Iterable, Iterator
from datetime import date

from ratings.engine.rulesets import DRAW, LOSS, WIN, Dci2001, ParticipantState, Ruleset

# Events: id -> (date, event K, players, Level II judge present).
EventFacts = dict[int, tuple[date, int, int, bool]]
# The matches, each a tuple: id, event id, round, participant 1, participant 2, games 1, games 2.
MatchRows = Iterable[tuple[int, int, int, int, int, int, int]]


def result_of(games1: int, games2: int) -> float:
    """Participant 1's result from the games each side won."""
    return WIN if games1 > games2 else LOSS if games1 < games2 else DRAW


def history_rows(
    ruleset: Ruleset,
    matches: MatchRows,
    events: EventFacts,
    states: dict[int, ParticipantState],
    *,
    category_id: int,
    first_seq: int,
    event_starts: Callable[[date], None] | None = None,
) -> Iterator[tuple]:
    """Apply `matches` to `states` in place and yield two history rows per rated match.

    A row: (category, seq, match, event, date, round, participant, opponent,
    rating before, rating after, opponent's rating, expected, score, K,
    K's reason, matches, provisional); seq counts rated matches from
    `first_seq`. `event_starts(date)` is called before each event's first
    match, while `states` still stand as they were before it. Each state's
    `last_played` becomes the date of its latest rated match.
    """
    if isinstance(ruleset, Dci2001) and ruleset.provisional_until == 0:
        rows = _event_k_rows(ruleset.start_rating, matches, events, states, category_id, first_seq, event_starts)
    else:
        rows = _ruleset_rows(ruleset, matches, events, states, category_id, first_seq, event_starts)
    return rows


def _ruleset_rows(ruleset, matches, events, states, category_id, seq, event_starts):
    rate_pair, is_rated = ruleset.rate_pair, ruleset.is_rated
    current_event = None
    for match, event_id, rnd, p1, p2, games1, games2 in matches:
        day, k, players, judge = events[event_id]
        if event_id != current_event:
            current_event = event_id
            if event_starts is not None:
                event_starts(day)
        if not is_rated(players):
            continue
        for change in rate_pair(p1, p2, result_of(games1, games2), k, players, judge, states):
            states[change.participant].last_played = day
            yield (
                category_id, seq, match, event_id, day, rnd, change.participant, change.opponent,
                change.rating_before, change.rating_after, change.opponent_rating, change.expected,
                change.score, change.k, change.k_reason, change.matches, change.provisional,
            )  # fmt: skip
        seq += 1


def _event_k_rows(start_rating, matches, events, states, category_id, seq, event_starts):
    """Ruleset.rate_pair for dci-2001 without provisional matches, inlined: the same operations in the same order."""
    current_event = None
    day = k = reason = None
    for match, event_id, rnd, p1, p2, games1, games2 in matches:
        if event_id != current_event:
            current_event = event_id
            day, event_k = events[event_id][:2]
            k, reason = float(event_k), f"event K {event_k}"
            if event_starts is not None:
                event_starts(day)
        one = states.get(p1)
        if one is None:
            one = states[p1] = ParticipantState(rating=start_rating)
        two = states.get(p2)
        if two is None:
            two = states[p2] = ParticipantState(rating=start_rating)
        rating1, rating2 = one.rating, two.rating
        expected1 = 1.0 / (10.0 ** ((rating2 - rating1) / 400.0) + 1.0)
        expected2 = 1.0 / (10.0 ** ((rating1 - rating2) / 400.0) + 1.0)
        score1 = WIN if games1 > games2 else LOSS if games1 < games2 else DRAW
        score2 = 1.0 - score1
        after1 = one.rating = rating1 + k * (score1 - expected1)
        after2 = two.rating = rating2 + k * (score2 - expected2)
        one.matches += 1
        two.matches += 1
        one.last_played = two.last_played = day
        yield (
            category_id, seq, match, event_id, day, rnd, p1, p2, rating1, after1, rating2, expected1, score1, k, reason,
            one.matches, False,
        )  # fmt: skip
        yield (
            category_id, seq, match, event_id, day, rnd, p2, p1, rating2, after2, rating1, expected2, score2, k, reason,
            two.matches, False,
        )  # fmt: skip
        seq += 1


# Matches for the ratings they end at: (event id, participant 1, participant 2, games 1, games 2), rated ones.
ReplayedRows = Iterable[tuple[int, int, int, int, int]]


def states_replayed(
    ruleset: Ruleset, matches: ReplayedRows, events: EventFacts, states: dict[int, ParticipantState]
) -> int:
    """Apply `matches` to `states` in place as history_rows does, writing no row; how many were applied.

    What a correction's preview replays (ratings.impact): the ratings the
    matches end at, for hundreds of thousands of matches. Every match is rated
    (the caller leaves out the events the ruleset does not rate). The states'
    ratings and match counts (and the 1997 provisional totals) are history_rows'
    to the last bit; `last_played` is left as it was.
    """
    if isinstance(ruleset, Dci2001) and ruleset.provisional_until == 0:
        return _event_k_states(ruleset.start_rating, matches, events, states)
    applied = 0
    rate_pair = ruleset.rate_pair
    for event_id, p1, p2, games1, games2 in matches:
        _, k, players, judge = events[event_id]
        rate_pair(p1, p2, result_of(games1, games2), k, players, judge, states)
        applied += 1
    return applied


def _event_k_states(start_rating, matches, events, states) -> int:
    """_event_k_rows' arithmetic, the same operations in the same order, for the states alone."""
    applied, current_event, k = 0, None, 0.0
    for event_id, p1, p2, games1, games2 in matches:
        if event_id != current_event:
            current_event = event_id
            k = float(events[event_id][1])
        one = states.get(p1)
        if one is None:
            one = states[p1] = ParticipantState(rating=start_rating)
        two = states.get(p2)
        if two is None:
            two = states[p2] = ParticipantState(rating=start_rating)
        rating1, rating2 = one.rating, two.rating
        expected1 = 1.0 / (10.0 ** ((rating2 - rating1) / 400.0) + 1.0)
        expected2 = 1.0 / (10.0 ** ((rating1 - rating2) / 400.0) + 1.0)
        score1 = WIN if games1 > games2 else LOSS if games1 < games2 else DRAW
        one.rating = rating1 + k * (score1 - expected1)
        two.rating = rating2 + k * ((1.0 - score1) - expected2)
        one.matches += 1
        two.matches += 1
        applied += 1
    return applied
