"""Hand-checked cases for the reference rating implementation (tests/reference_ratings.py): its small rules,
dci-2001 (the default Elo), the categories events feed, teams and the composite list.

Pure Python: the bundles are written into tmp_path (tests/reference_bundles.py), no database is used.
"""

from datetime import date

import pytest

from tests.reference_bundles import category, draw, event, match, ratings_of, win, write_bundle
from tests.reference_ratings import (
    expected_score,
    months_before,
    rating_band_k,
    reference_ranking,
    reference_ratings,
)

# ---------------------------------------------------------------------------
# small rules
# ---------------------------------------------------------------------------


def test_expected_score_is_one_half_between_equals_and_symmetric():
    assert expected_score(1600, 1600) == 0.5
    assert expected_score(2000, 1600) == pytest.approx(10 / 11)  # 1 / (10^(-1) + 1)
    assert expected_score(2000, 1600) + expected_score(1600, 2000) == pytest.approx(1.0)


def test_rating_band_k():
    assert [rating_band_k(r) for r in (1200, 2099.99, 2100, 2399.99, 2400, 2800)] == [32, 32, 24, 24, 16, 16]


def test_months_before_clamps_to_the_end_of_the_month():
    assert months_before(date(2024, 8, 31), 18) == date(2023, 2, 28)
    assert months_before(date(2024, 3, 31), 1) == date(2024, 2, 29)
    assert months_before(date(2024, 1, 15), 12) == date(2023, 1, 15)
    assert months_before(date(2024, 1, 15), 13) == date(2022, 12, 15)


# ---------------------------------------------------------------------------
# dci-2001
# ---------------------------------------------------------------------------


def test_dci_2001_a_win_between_newcomers_at_the_default_k16(tmp_path):
    bundle = write_bundle(tmp_path, [event("E1", k="")], [win("E1", 1, "A", "B")])

    result = reference_ratings(bundle, "constructed")

    assert ratings_of(result) == {"A": 1608.0, "B": 1592.0}
    assert result["A"]["matches"] == 1 and result["A"]["ranked"] is False


def test_dci_2001_uses_the_event_k_and_a_draw_between_equals_changes_nothing(tmp_path):
    bundle = write_bundle(
        tmp_path,
        [event("E1", k=32)],
        [win("E1", 1, "A", "B"), draw("E1", 1, "C", "D")],
    )

    assert ratings_of(reference_ratings(bundle, "constructed")) == {"A": 1616.0, "B": 1584.0, "C": 1600.0, "D": 1600.0}


def test_dci_2001_byes_are_never_rated(tmp_path):
    bundle = write_bundle(tmp_path, [event("E1")], [match("E1", 1, "A"), win("E1", 1, "B", "C")])

    assert set(reference_ratings(bundle, "constructed")) == {"B", "C"}


def test_dci_2001_rounds_are_applied_in_round_order_not_file_order(tmp_path):
    # Round 2 is listed first. Round 1: A beats B at K32 (1616 / 1584);
    # round 2: B beats A: We(B) = 1 / (10^(32/400) + 1) = 0.4540781, so B gains 32 * 0.5459219.
    bundle = write_bundle(tmp_path, [event("E1", k=32)], [win("E1", 2, "B", "A"), win("E1", 1, "A", "B")])

    assert ratings_of(reference_ratings(bundle, "constructed")) == {"A": 1598.5305, "B": 1601.4695}


def test_dci_2001_events_on_one_date_follow_the_order_of_events_csv(tmp_path):
    # E1 (K32) first: A 1616, B 1584; then E2 (K16) B beats A: B gains 16 * 0.5459219 = 8.73475.
    bundle = write_bundle(
        tmp_path,
        [event("E1", "2003-05-01", k=32), event("E2", "2003-05-01", k=16)],
        [win("E2", 1, "B", "A"), win("E1", 1, "A", "B")],
    )

    result = reference_ratings(bundle, "constructed")
    assert result["A"]["rating"] == pytest.approx(1616 - 8.73475, abs=1e-4)
    assert result["B"]["rating"] == pytest.approx(1584 + 8.73475, abs=1e-4)


def test_dci_2001_an_earlier_date_comes_first_whatever_the_file_order(tmp_path):
    # E2 is dated earlier: B beats A at K16 (B 1608, A 1592); then E1 at K32 A beats B:
    # We(A) = 1 / (10^(16/400) + 1) = 0.4769904, A gains 32 * 0.5230096 = 16.7363.
    bundle = write_bundle(
        tmp_path,
        [event("E1", "2003-05-02", k=32), event("E2", "2003-05-01", k=16)],
        [win("E1", 1, "A", "B"), win("E2", 1, "B", "A")],
    )

    assert ratings_of(reference_ratings(bundle, "constructed")) == {"A": 1608.7363, "B": 1591.2637}


def test_as_of_leaves_out_later_events(tmp_path):
    bundle = write_bundle(
        tmp_path,
        [event("E1", "2003-05-01"), event("E2", "2003-06-01")],
        [win("E1", 1, "A", "B"), win("E2", 1, "C", "D")],
    )

    assert ratings_of(reference_ratings(bundle, "constructed", as_of=date(2003, 5, 31))) == {"A": 1608.0, "B": 1592.0}
    assert set(reference_ratings(bundle, "constructed", as_of=date(2003, 6, 1))) == {"A", "B", "C", "D"}


def test_dci_2001_is_ranked_from_ten_matches_and_zero_sum(tmp_path):
    matches = [win("E1", round, "A", "B") for round in range(1, 10)] + [win("E1", 1, "C", "D")]
    bundle = write_bundle(tmp_path, [event("E1", k=40)], matches)

    result = reference_ratings(bundle, "constructed")
    assert result["A"]["matches"] == 9 and result["A"]["ranked"] is False

    matches.append(draw("E1", 10, "A", "B"))
    bundle = write_bundle(tmp_path / "ten", [event("E1", k=40)], matches)
    result = reference_ratings(bundle, "constructed")
    assert result["A"]["matches"] == 10 and result["A"]["ranked"] is True
    assert result["C"]["ranked"] is False
    assert sum(entry["rating"] - 1600 for entry in result.values()) == pytest.approx(0, abs=1e-9)


def test_formats_and_team_size_choose_the_category(tmp_path):
    bundle = write_bundle(
        tmp_path,
        [event("E1", format="standard"), event("E2", format="sealed"), event("E3", format="Vintage")],
        [win("E1", 1, "A", "B"), win("E2", 1, "C", "D"), win("E3", 1, "E", "F")],
    )

    assert set(reference_ratings(bundle, "constructed")) == {"A", "B"}
    assert set(reference_ratings(bundle, "limited")) == {"C", "D"}
    assert set(reference_ratings(bundle, "vintage")) == {"E", "F"}
    assert reference_ratings(bundle, "team-constructed") == {}


def test_categories_csv_adds_a_category_and_overrides_a_threshold(tmp_path):
    bundle = write_bundle(
        tmp_path,
        [event("E1", format="standard"), event("E2", format="tennis", k=32)],
        [win("E1", 1, "A", "B"), win("E2", 1, "C", "D")],
        categories=[
            category("constructed", "dci-2001", "standard block extended", ranked_after=1),
            category("tennis", "dci-2001", "tennis", ranked_after=2),
        ],
    )

    assert reference_ratings(bundle, "constructed")["A"]["ranked"] is True
    tennis = reference_ratings(bundle, "tennis")
    assert ratings_of(tennis) == {"C": 1616.0, "D": 1584.0}
    assert tennis["C"]["ranked"] is False
    with pytest.raises(KeyError):
        reference_ratings(bundle, "no-such-category")


# ---------------------------------------------------------------------------
# teams and composite
# ---------------------------------------------------------------------------


def test_team_ids_with_the_same_members_are_one_team(tmp_path):
    teams = [
        {"id": "T1", "name": "One", "member1": "1", "member2": "2", "member3": "3"},
        {"id": "T2", "name": "Two", "member1": "4", "member2": "5", "member3": "6"},
        {"id": "T1b", "name": "One again", "member1": "3", "member2": "1", "member3": "2"},
    ]
    players = [{"id": str(n), "name": f"P{n}", "country": "DE", "region": ""} for n in range(1, 7)]
    bundle = write_bundle(
        tmp_path,
        [event("E1", team_size=3), event("E2", "2003-06-01", team_size=3)],
        [win("E1", 1, "T1", "T2"), win("E2", 1, "T1b", "T2")],
        players=players,
        teams=teams,
    )

    result = reference_ratings(bundle, "team-constructed")

    assert set(result) == {"T1", "T2"}
    assert result["T1"]["matches"] == 2
    assert reference_ratings(bundle, "constructed") == {}
    assert reference_ranking(bundle, "team-constructed", country="DE") == []


def test_composite_is_the_mean_of_constructed_and_limited(tmp_path):
    bundle = write_bundle(
        tmp_path,
        [event("E1", format="standard"), event("E2", format="sealed")],
        [win("E1", 1, "A", "B"), win("E2", 1, "A", "C")],
        categories=[category("limited", "dci-2001", "sealed booster-draft rochester-draft", ranked_after=1)],
    )

    result = reference_ratings(bundle, "composite")

    # A: constructed 1608, limited 1608; B: constructed 1592 only; C: limited 1592 only.
    assert ratings_of(result) == {"A": 1608.0, "B": 1596.0, "C": 1596.0}
    assert result["A"]["matches"] == 2
    assert result["A"]["ranked"] is True  # ranked in limited
    assert result["B"]["ranked"] is False
