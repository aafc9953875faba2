"""Properties of the Elo rulesets over random tournaments (SPEC 3), checked with hypothesis. Pure: no database.

A tournament here is a few events of a few rounds each; in every round each
player plays at most once (SPEC 3: "within a round each participant plays once").
"""

import copy
from datetime import date, timedelta

from hypothesis import given, settings
from hypothesis import strategies as st

from ratings.engine import (
    DRAW,
    LOSS,
    START_RATING,
    WIN,
    MatchInput,
    ParticipantState,
    expected_score,
    history,
    rate_matches,
    ruleset_for,
)
from ratings.engine.history import history_rows, states_replayed

RULESETS = ["dci-2001", "dci-1997", "match-points"]
K_VALUES = [8, 16, 24, 32, 40, 48]

FEW = settings(max_examples=60, deadline=None)


@st.composite
def tournaments(draw):
    """A list of rounds, each a list of MatchInput in which nobody plays twice."""
    players = draw(st.integers(min_value=2, max_value=36))
    events = draw(
        st.lists(
            st.tuples(
                st.sampled_from(K_VALUES),
                st.sampled_from([7, 8, 20, 31, 32, 100]),  # player count: around the dci-1997 limits
                st.booleans(),  # Level II judge
                st.integers(min_value=1, max_value=5),  # rounds
            ),
            min_size=1,
            max_size=4,
        )
    )
    rounds, match_id, day = [], 0, date(2003, 1, 4)
    for event_id, (k, player_count, judge, round_count) in enumerate(events, start=1):
        day += timedelta(days=7)
        for number in range(1, round_count + 1):
            seating = draw(st.permutations(range(1, players + 1)))
            table_count = draw(st.integers(min_value=1, max_value=players // 2))
            matches = []
            for table in range(table_count):
                match_id += 1
                one, two = seating[2 * table], seating[2 * table + 1]
                result = draw(st.sampled_from([WIN, DRAW, LOSS]))
                matches.append(MatchInput(match_id, event_id, day, number, one, two, result, k, player_count, judge))
            rounds.append(matches)
    return rounds


def flat(rounds):
    return [match for matches in rounds for match in matches]


def apply(slug, matches, *, provisional_until=0, states=None):
    """(final states, [(participant 1's change, participant 2's change), ...])."""
    states = {} if states is None else states
    ruleset = ruleset_for(slug, provisional_until=provisional_until)
    changes = [(one, two) for _, one, two in rate_matches(ruleset, matches, states)]
    return states, changes


def ratings_of(states):
    return {participant: state.rating for participant, state in states.items()}


def provisional_threshold(slug, data):
    return data.draw(st.sampled_from([0, 3, 25])) if slug == "dci-1997" else 0


@FEW
@given(
    st.floats(min_value=0, max_value=4000, allow_nan=False),
    st.floats(min_value=0, max_value=4000, allow_nan=False),
)
def test_the_two_win_probabilities_of_a_match_add_up_to_one(rating, opponent):
    assert abs(expected_score(rating, opponent) + expected_score(opponent, rating) - 1.0) < 1e-12
    assert 0.0 < expected_score(rating, opponent) < 1.0


@FEW
@given(tournaments())
def test_dci_2001_is_zero_sum_over_all_players(rounds):
    states, changes = apply("dci-2001", flat(rounds))

    assert abs(sum(state.rating - START_RATING for state in states.values())) < 1e-6
    for one, two in changes:
        assert abs((one.rating_after - one.rating_before) + (two.rating_after - two.rating_before)) < 1e-9


@FEW
@given(tournaments(), st.sampled_from(RULESETS), st.data())
def test_no_rating_change_exceeds_the_k_used(rounds, slug, data):
    _, changes = apply(slug, flat(rounds), provisional_until=provisional_threshold(slug, data))

    checked = 0
    for change in (side for pair in changes for side in pair):
        if change.provisional:
            assert change.k is None
            continue
        assert 0 < change.k <= 48
        assert abs(change.rating_after - change.rating_before) <= change.k
        assert abs(change.rating_after - change.rating_before - change.k * (change.score - change.expected)) < 1e-9
        checked += 1
    if slug != "dci-1997":
        assert checked == 2 * len(changes)


@FEW
@given(tournaments(), st.sampled_from(RULESETS), st.data())
def test_the_order_of_the_matches_inside_a_round_changes_no_rating(rounds, slug, data):
    provisional_until = provisional_threshold(slug, data)
    shuffled = [data.draw(st.permutations(matches)) for matches in rounds]

    states, changes = apply(slug, flat(rounds), provisional_until=provisional_until)
    shuffled_states, shuffled_changes = apply(slug, flat(shuffled), provisional_until=provisional_until)

    assert ratings_of(shuffled_states) == ratings_of(states)
    assert sorted(changes, key=lambda pair: (pair[0].participant, pair[0].matches)) == sorted(
        shuffled_changes, key=lambda pair: (pair[0].participant, pair[0].matches)
    )


@FEW
@given(tournaments(), st.sampled_from(RULESETS), st.data())
def test_which_player_is_written_first_changes_no_rating(rounds, slug, data):
    provisional_until = provisional_threshold(slug, data)
    swapped = [
        match.__class__(
            match.match_id, match.event_id, match.event_date, match.round, match.participant2, match.participant1,
            1.0 - match.result, match.event_k, match.event_players, match.level2_judge,
        )
        for match in flat(rounds)
    ]  # fmt: skip

    states, _ = apply(slug, flat(rounds), provisional_until=provisional_until)
    swapped_states, _ = apply(slug, swapped, provisional_until=provisional_until)

    assert ratings_of(swapped_states) == ratings_of(states)


@FEW
@given(tournaments(), st.sampled_from(RULESETS), st.data())
def test_a_prefix_then_the_rest_from_the_saved_states_equals_everything_at_once(rounds, slug, data):
    provisional_until = provisional_threshold(slug, data)
    matches = flat(rounds)
    split = data.draw(st.integers(min_value=0, max_value=len(matches)))

    all_states, all_changes = apply(slug, matches, provisional_until=provisional_until)
    prefix_states, prefix_changes = apply(slug, matches[:split], provisional_until=provisional_until)
    saved = copy.deepcopy(prefix_states)
    rest_states, rest_changes = apply(slug, matches[split:], provisional_until=provisional_until, states=saved)

    assert prefix_changes + rest_changes == all_changes
    assert ratings_of(rest_states) == ratings_of(all_states)


def states_from_history(changes) -> dict[int, ParticipantState]:
    """Rebuild the states from stored history alone, as the recompute from a date does from RatingEntry rows."""
    states: dict[int, ParticipantState] = {}
    for change in (side for pair in changes for side in pair):
        state = states.setdefault(change.participant, ParticipantState())
        state.rating, state.matches = change.rating_after, change.matches
        if change.provisional:
            state.wins += change.score == 1
            state.losses += change.score == 0
            state.opponent_rating_sum += change.opponent_rating
    return states


@FEW
@given(tournaments(), st.sampled_from(RULESETS), st.data())
def test_the_history_entries_hold_everything_needed_to_resume(rounds, slug, data):
    provisional_until = provisional_threshold(slug, data)
    matches = flat(rounds)
    split = data.draw(st.integers(min_value=0, max_value=len(matches)))

    all_states, all_changes = apply(slug, matches, provisional_until=provisional_until)
    _, prefix_changes = apply(slug, matches[:split], provisional_until=provisional_until)
    resumed = states_from_history(prefix_changes)
    rest_states, rest_changes = apply(slug, matches[split:], provisional_until=provisional_until, states=resumed)

    assert rest_changes == all_changes[len(prefix_changes) :]
    assert ratings_of(rest_states) == ratings_of(all_states)


def as_rows(matches):
    """MatchInputs as the recompute reads them: tuples with games instead of results, and each event's facts."""
    games = {WIN: (2, 0), DRAW: (1, 1), LOSS: (0, 2)}
    rows = [
        (match.match_id, match.event_id, match.round, match.participant1, match.participant2, *games[match.result])
        for match in matches
    ]
    events = {m.event_id: (m.event_date, m.event_k, m.event_players, m.level2_judge) for m in matches}
    return rows, events


@FEW
@given(tournaments(), st.sampled_from([1400.0, START_RATING]), st.booleans())
def test_the_inlined_event_k_loop_writes_the_rows_the_ruleset_gives_to_the_last_bit(rounds, start, from_states):
    matches = flat(rounds)
    rows, events = as_rows(matches)
    ruleset = ruleset_for("dci-2001", start_rating=start)
    before = {1: ParticipantState(rating=1712.25, matches=4)} if from_states else {}
    fast_states, general_states = copy.deepcopy(before), copy.deepcopy(before)
    fast_days, general_days = [], []

    fast = list(
        history_rows(ruleset, rows, events, fast_states, category_id=3, first_seq=7, event_starts=fast_days.append)
    )
    general = list(history._ruleset_rows(ruleset, rows, events, general_states, 3, 7, general_days.append))

    assert fast == general  # floats compared exactly: the same operations in the same order
    assert fast_states == general_states
    assert fast_days == general_days == [events[event_id][0] for event_id in dict.fromkeys(row[1] for row in rows)]
    assert len(fast) == 2 * len(matches)


@FEW
@given(tournaments())
def test_history_rows_equal_the_rulesets_changes_match_by_match(rounds):
    """Every ruleset: the rows say what rate_matches says, with seq counting the rated matches."""
    matches = flat(rounds)
    inputs, events = as_rows(matches)
    for slug in RULESETS:
        ruleset = ruleset_for(slug)
        rows = list(history_rows(ruleset, inputs, events, {}, category_id=1, first_seq=1))
        _, changes = apply(slug, matches)
        expected = [
            (change.participant, change.rating_before, change.rating_after, change.k, change.matches)
            for pair in changes
            for change in pair
        ]
        assert [(row[6], row[8], row[9], row[13], row[15]) for row in rows] == expected
        assert [row[1] for row in rows] == [seq for seq in range(1, len(changes) + 1) for _ in range(2)]


@FEW
@given(tournaments(), st.sampled_from(RULESETS), st.sampled_from([1400.0, START_RATING]), st.booleans(), st.data())
def test_replaying_matches_for_their_states_ends_where_the_history_rows_do_to_the_last_bit(
    rounds, slug, start, from_states, data
):
    """states_replayed (a correction's preview) against history_rows (the recompute): the same ratings, match
    counts and provisional totals, every ruleset, from saved states or none."""
    provisional_until = provisional_threshold(slug, data)
    ruleset = ruleset_for(slug, provisional_until=provisional_until, start_rating=start)
    rows, events = as_rows(flat(rounds))
    rated = [row for row in rows if ruleset.is_rated(events[row[1]][2])]
    before = {1: ParticipantState(rating=1712.25, matches=4, wins=2, losses=1, opponent_rating_sum=6400.0)}
    replayed_states, history_states = copy.deepcopy(before), copy.deepcopy(before)
    if not from_states:
        replayed_states, history_states = {}, {}

    applied = states_replayed(
        ruleset, [(e, p1, p2, g1, g2) for _, e, _, p1, p2, g1, g2 in rated], events, replayed_states
    )
    list(history_rows(ruleset, rows, events, history_states, category_id=1, first_seq=1))

    assert applied == len(rated)
    for state in history_states.values():
        state.last_played = None  # the one thing a replay for the states leaves as it was
    assert replayed_states == history_states
