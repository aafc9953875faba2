"""Event standings from matches (SPEC 5b): hand-checked examples and the invariants of any event."""

from fractions import Fraction as F

from hypothesis import given
from hypothesis import strategies as st

from events.standings import PlayedMatch, event_standings

A, B, C, D, E, G, H, J = range(1, 9)


def by_participant(placings):
    return {placing.participant: placing for placing in placings}


def test_a_three_round_swiss_by_hand():
    """R1 A 2-0 B, C 2-1 D; R2 A 2-1 C, B 2-0 D; R3 A 1-1 D (one game drawn), B 2-1 C."""
    placings = event_standings(
        [
            PlayedMatch(1, A, B, 2, 0),
            PlayedMatch(1, C, D, 2, 1),
            PlayedMatch(2, A, C, 2, 1),
            PlayedMatch(2, B, D, 2, 0),
            PlayedMatch(3, A, D, 1, 1, 1),
            PlayedMatch(3, B, C, 2, 1),
        ]
    )
    lines = by_participant(placings)

    assert [(p.participant, p.place, p.match_points) for p in placings] == [(A, 1, 7), (B, 2, 6), (C, 3, 3), (D, 4, 1)]
    assert (lines[A].wins, lines[A].draws, lines[A].losses) == (2, 1, 0)
    assert (lines[A].mw, lines[B].mw, lines[C].mw, lines[D].mw) == (F(7, 9), F(2, 3), F(1, 3), F(1, 3))  # D floored
    assert (lines[A].gw, lines[B].gw, lines[C].gw, lines[D].gw) == (F(2, 3), F(4, 7), F(4, 9), F(1, 3))  # 7/24 floored
    assert (lines[A].omw, lines[B].omw, lines[C].omw, lines[D].omw) == (F(4, 9), F(13, 27), F(16, 27), F(16, 27))


def test_equal_points_are_ordered_by_the_opponents_match_wins():
    """C and D both have 3 points; C's opponents (D 1/2, A 1) won more than D's (C 1/2, B 0 floored to 1/3)."""
    placings = event_standings(
        [PlayedMatch(1, A, B, 2, 0), PlayedMatch(1, C, D, 2, 0), PlayedMatch(2, A, C, 2, 0), PlayedMatch(2, D, B, 2, 0)]
    )
    lines = by_participant(placings)

    assert [p.participant for p in placings] == [A, C, D, B]
    assert (lines[C].omw, lines[D].omw) == (F(3, 4), F(5, 12))


def test_equal_lines_share_a_place():
    placings = event_standings([PlayedMatch(1, A, B, 2, 0), PlayedMatch(1, C, D, 2, 0)])

    assert {(p.participant, p.place) for p in placings} == {(A, 1), (C, 1), (B, 3), (D, 3)}


def test_a_bye_is_a_two_nil_win_without_an_opponent():
    (alone,) = event_standings([PlayedMatch(1, A, None, 0, 0)])

    assert (alone.match_points, alone.wins, alone.game_points, alone.games) == (3, 1, 6, 2)
    assert alone.opponents == [] and alone.omw == 0


def test_the_elimination_rounds_decide_the_top_places():
    """Eight players, three Swiss rounds, then semi-finals (round 4) and the final (round 5).

    Swiss: A 9 points; C, B, D 6 (opponents' match wins 2/3, 5/9, 4/9); E, H, G 3 (2/3, 5/9, 4/9); J 0.
    In the top 4, D beats A and C beats B in the semi-finals; C beats D in the final. C wins, D is second, A
    and B lost in the semi-finals and keep their Swiss order (A third, B fourth); the rest follow as in Swiss.
    """
    swiss = [
        PlayedMatch(1, A, E, 2, 0), PlayedMatch(1, B, G, 2, 0), PlayedMatch(1, C, H, 2, 0), PlayedMatch(1, D, J, 2, 0),
        PlayedMatch(2, A, B, 2, 0), PlayedMatch(2, C, D, 2, 1), PlayedMatch(2, E, G, 2, 0), PlayedMatch(2, H, J, 2, 0),
        PlayedMatch(3, A, C, 2, 0), PlayedMatch(3, B, E, 2, 0), PlayedMatch(3, D, H, 2, 0), PlayedMatch(3, G, J, 2, 0),
    ]  # fmt: skip
    elimination = [
        PlayedMatch(4, A, D, 0, 2, elimination=True),
        PlayedMatch(4, B, C, 1, 2, elimination=True),
        PlayedMatch(5, D, C, 1, 2, elimination=True),
    ]
    assert [p.participant for p in event_standings(swiss)] == [A, C, B, D, E, H, G, J]

    placings = event_standings(swiss + elimination)

    assert [(p.participant, p.place) for p in placings] == [
        (C, 1), (D, 2), (A, 3), (B, 4), (E, 5), (H, 6), (G, 7), (J, 8),
    ]  # fmt: skip


@st.composite
def swiss_events(draw):
    players = draw(st.integers(min_value=2, max_value=12))
    rounds = draw(st.integers(min_value=1, max_value=5))
    matches = []
    for number in range(1, rounds + 1):
        order = draw(st.permutations(range(1, players + 1)))
        for first, second in zip(order[::2], order[1::2], strict=False):
            games = draw(st.sampled_from([(2, 0), (2, 1), (0, 2), (1, 2), (1, 1), (0, 0)]))
            drawn = draw(st.integers(min_value=0, max_value=1))
            matches.append(PlayedMatch(number, first, second, *games, drawn))
        if players % 2:
            matches.append(PlayedMatch(number, order[-1], None, 0, 0))
    return matches


@given(swiss_events())
def test_any_swiss_event_is_ordered_and_its_percentages_are_bounded(matches):
    placings = event_standings(matches)

    assert [p.place for p in placings] == sorted(p.place for p in placings)
    assert [p.key for p in placings] == sorted((p.key for p in placings), reverse=True)
    assert all(F(1, 3) <= p.mw <= 1 and F(1, 3) <= p.gw <= 1 for p in placings)
    assert all(p.omw == 0 or F(1, 3) <= p.omw <= 1 for p in placings)
    decisive = sum(1 for m in matches if m.participant2 is not None and m.games1 != m.games2)
    drawn = sum(1 for m in matches if m.participant2 is not None and m.games1 == m.games2)
    byes = sum(1 for m in matches if m.participant2 is None)
    assert sum(p.match_points for p in placings) == 3 * decisive + 2 * drawn + 3 * byes
    assert placings[0].place == 1
