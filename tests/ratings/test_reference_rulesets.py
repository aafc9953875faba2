"""Hand-checked cases for the reference implementation's other rulesets (tests/reference_ratings.py): dci-1997,
match points and V:EKN.

Pure Python: the bundles are written into tmp_path (tests/reference_bundles.py), no database is used.
"""

import math
from datetime import date

import pytest

from tests.reference_bundles import category, draw, event, match, ratings_of, standing, win, write_bundle
from tests.reference_ratings import (
    reference_ratings,
    vekn_event_points,
)

# ---------------------------------------------------------------------------
# dci-1997
# ---------------------------------------------------------------------------

DCI_1997 = [category("dci97", "dci-1997", "standard", ranked_after=25)]


def test_dci_1997_provisional_after_one_win_is_the_opponent_plus_400(tmp_path):
    bundle = write_bundle(tmp_path, [event("E1", players=40)], [win("E1", 1, "A", "B")], categories=DCI_1997)

    assert ratings_of(reference_ratings(bundle, "dci97")) == {"A": 2000.0, "B": 1200.0}


def test_dci_1997_provisional_averages_the_opponents_pre_match_ratings(tmp_path):
    # Round 1: A beats B: A 2000, B 1200. Round 2: A draws C (new, 1600):
    # A = mean(1600, 1600) + 400 * 1 / 2 = 1800; C = 2000 (A's rating before the match) + 0.
    bundle = write_bundle(
        tmp_path,
        [event("E1", players=40)],
        [win("E1", 1, "A", "B"), draw("E1", 2, "A", "C")],
        categories=DCI_1997,
    )

    assert ratings_of(reference_ratings(bundle, "dci97")) == {"A": 1800.0, "B": 1200.0, "C": 2000.0}


@pytest.mark.parametrize(
    ("players", "judge", "winner", "loser"),
    [(40, 1, 1616.0, 1584.0), (20, 1, 1608.0, 1592.0), (40, 0, 1608.0, 1592.0), (20, 0, 1604.0, 1596.0)],
)
def test_dci_1997_the_26th_match_is_elo_with_the_event_multipliers(tmp_path, players, judge, winner, loser):
    # 25 draws leave both at 1600 (provisional: Rc 1600 + 0); the 26th match uses K 32, halved per rule.
    matches = [draw("E1", round, "A", "B") for round in range(1, 26)] + [win("E1", 26, "A", "B")]
    bundle = write_bundle(
        tmp_path, [event("E1", players=players, level2_judge=judge, k=48)], matches, categories=DCI_1997
    )

    result = reference_ratings(bundle, "dci97")

    assert ratings_of(result) == {"A": winner, "B": loser}
    assert result["A"]["matches"] == 26 and result["A"]["ranked"] is True


def test_dci_1997_ranked_from_25_matches(tmp_path):
    matches = [draw("E1", round, "A", "B") for round in range(1, 25)]
    bundle = write_bundle(tmp_path, [event("E1", players=8)], matches, categories=DCI_1997)
    assert reference_ratings(bundle, "dci97")["A"]["ranked"] is False

    matches.append(draw("E1", 25, "A", "B"))
    bundle = write_bundle(tmp_path / "25", [event("E1", players=8)], matches, categories=DCI_1997)
    assert reference_ratings(bundle, "dci97")["A"]["ranked"] is True


def test_dci_1997_an_established_player_meets_a_provisional_one(tmp_path):
    # A and B are established at 1600 after 25 draws. A beats newcomer C (1600):
    # A uses K 32 against C's current 1600 -> 1616; C is provisional: 1600 (A before the match) - 400.
    matches = [draw("E1", round, "A", "B") for round in range(1, 26)] + [win("E2", 1, "A", "C")]
    bundle = write_bundle(
        tmp_path,
        [event("E1", players=40), event("E2", "2003-06-01", players=40)],
        matches,
        categories=DCI_1997,
    )

    assert ratings_of(reference_ratings(bundle, "dci97")) == {"A": 1616.0, "B": 1600.0, "C": 1200.0}


def test_dci_1997_events_under_8_players_are_not_rated(tmp_path):
    # E1 gives players=7; E2 leaves players blank and names 7 participants (one has a bye);
    # E3 leaves it blank and names 8.
    e2 = [win("E2", 1, "C", "D"), win("E2", 1, "E", "F"), win("E2", 1, "G", "H"), match("E2", 1, "I")]
    e3 = [win("E3", 1, p, q) for p, q in (("J", "K"), ("L", "M"), ("N", "O"), ("P", "Q"))]
    bundle = write_bundle(
        tmp_path,
        [event("E1", players=7), event("E2", players=""), event("E3", players="")],
        [win("E1", 1, "A", "B"), *e2, *e3],
        categories=DCI_1997,
    )

    assert set(reference_ratings(bundle, "dci97")) == {"J", "K", "L", "M", "N", "O", "P", "Q"}


# ---------------------------------------------------------------------------
# match-points
# ---------------------------------------------------------------------------

MATCH_POINTS = [category("mp", "match-points", "standard", ranked_after=16)]


def test_match_points_win_and_draw(tmp_path):
    # A win: 1600 + 32 * (1 - 1/2). A draw: 1600 + 32 * (1/3 - 1/2) = 1594.6667 for both (not zero-sum).
    # The event's K (48) is not used.
    bundle = write_bundle(
        tmp_path,
        [event("E1", k=48)],
        [win("E1", 1, "A", "B"), draw("E1", 1, "C", "D")],
        categories=MATCH_POINTS,
    )

    result = reference_ratings(bundle, "mp")

    assert ratings_of(result) == {"A": 1616.0, "B": 1584.0, "C": 1594.6667, "D": 1594.6667}
    assert result["A"]["ranked"] is False


def test_match_points_ranked_from_16_matches(tmp_path):
    matches = [draw("E1", round, "A", "B") for round in range(1, 17)]
    bundle = write_bundle(tmp_path, [event("E1")], matches, categories=MATCH_POINTS)

    result = reference_ratings(bundle, "mp")

    assert result["A"]["matches"] == 16 and result["A"]["ranked"] is True


# ---------------------------------------------------------------------------
# vekn
# ---------------------------------------------------------------------------


def test_vekn_points_of_the_spec_example():
    # 50-player continental-championship qualifier: coef = log15(2500) - 1 + 0.25 = 2.139.
    coefficient = math.log(2500, 15) - 1 + 0.25
    assert coefficient == pytest.approx(2.139, abs=0.001)
    winner_bonus = vekn_event_points(0, 0, "winner", 50, "continental-qualifier") - 5
    assert winner_bonus == pytest.approx(192.5, abs=0.05)
    assert round(winner_bonus) == 193
    assert vekn_event_points(0, 0, "finalist", 50, "continental-qualifier") - 5 == pytest.approx(64.18, abs=0.01)
    # 15 players: coef 1; continental: +1; 3 players: coef below 0 counts as 0.
    assert vekn_event_points(2.5, 1, "winner", 15, "") == pytest.approx(5 + 10 + 8 + 90)
    assert vekn_event_points(0, 0, "winner", 15, "continental") == pytest.approx(5 + 180)
    assert vekn_event_points(1, 0, "winner", 3, "") == pytest.approx(9)


def test_vekn_event_scores_from_standings(tmp_path):
    standings = [standing("V1", "A", 1, vp=3, gw=2, final="winner"), standing("V1", "B", 2, vp=2.5, gw=1)]
    standings += [standing("V1", f"X{n}", n + 2) for n in range(13)]  # 15 standings rows: coef 1
    bundle = write_bundle(tmp_path, [event("V1", format="vtes")], standings=standings)

    result = reference_ratings(bundle, "vtes")

    assert result["A"]["rating"] == pytest.approx(5 + 12 + 16 + 90)
    assert result["B"]["rating"] == pytest.approx(5 + 10 + 8)
    assert result["A"]["matches"] == 1 and result["A"]["ranked"] is True


def test_vekn_best_8_events_of_the_last_18_months_and_12_months_of_activity(tmp_path):
    # D = 2024-08-31: the 18-month window starts after 2023-02-28, the 12-month one after 2023-08-31.
    days = ["2023-02-28", "2023-03-01", "2023-08-31"] + [f"2024-0{m}-10" for m in range(1, 8)] + ["2024-08-31"]
    events = [event(f"V{n}", day, format="vtes", players=15) for n, day in enumerate(days)]
    # A plays every event except the last, scoring 5 + 4 * n in event n; B plays only the last one.
    standings = [standing(f"V{n}", "A", 1, vp=n) for n in range(len(days) - 1)]
    standings.append(standing(f"V{len(days) - 1}", "B", 1))
    bundle = write_bundle(tmp_path, events, standings=standings)

    result = reference_ratings(bundle, "vtes")  # as_of None: D is the latest event date, 2024-08-31

    # A's events in the window: V1..V9 (V0 is on the boundary): the best 8 are V2..V9.
    assert result["A"]["rating"] == pytest.approx(sum(5 + 4 * n for n in range(2, 10)))
    assert result["A"]["matches"] == 10
    assert result["A"]["ranked"] is True

    # On 2025-08-10 A's last event (2024-07-10) is more than 12 months ago: unranked, data kept.
    later = reference_ratings(bundle, "vtes", as_of=date(2025, 8, 10))
    assert later["A"]["ranked"] is False
    # The window starts after 2024-02-10: V5..V9 (2024-03-10 to 2024-07-10) count.
    assert later["A"]["rating"] == pytest.approx(sum(5 + 4 * n for n in range(5, 10)))
    assert later["B"]["ranked"] is True

    # Exactly 12 months after A's last event A is out of the rankings; a day earlier still in.
    assert reference_ratings(bundle, "vtes", as_of=date(2025, 7, 10))["A"]["ranked"] is False
    assert reference_ratings(bundle, "vtes", as_of=date(2025, 7, 9))["A"]["ranked"] is True


def test_vekn_uses_the_events_player_count_and_level(tmp_path):
    standings = [standing("V1", "A", 1, final="winner"), standing("V1", "B", 2, final="finalist")]
    bundle = write_bundle(
        tmp_path, [event("V1", format="vtes", players=50, level="continental-qualifier")], standings=standings
    )

    result = reference_ratings(bundle, "vtes")

    coefficient = math.log(2500, 15) - 1 + 0.25
    assert result["A"]["rating"] == pytest.approx(5 + 90 * coefficient)
    assert result["B"]["rating"] == pytest.approx(5 + 30 * coefficient)
