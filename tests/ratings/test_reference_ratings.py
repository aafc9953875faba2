"""Hand-checked cases for the reference rating implementation (tests/reference_ratings.py).

Pure Python: the bundles are written into tmp_path, no database is used.
"""

import csv
import math
from datetime import date

import pytest

from tests.reference_ratings import (
    expected_score,
    months_before,
    rating_band_k,
    reference_ranking,
    reference_ratings,
    vekn_event_points,
)

COLUMNS = {
    "players.csv": ["id", "name", "country", "region"],
    "teams.csv": ["id", "name", "member1", "member2", "member3"],
    "events.csv": ["id", "name", "date", "format", "k", "players", "level2_judge", "team_size", "level"],
    "matches.csv": [
        "event_id",
        "round",
        "player1_id",
        "player2_id",
        "player1_games",
        "player2_games",
        "draws",
        "elimination",
    ],
    "standings.csv": ["event_id", "player_id", "rank", "vp", "gw", "final"],
    "categories.csv": ["slug", "name", "ruleset", "formats", "team_size", "ranked_after"],
}


def event(id, day="2003-05-01", format="standard", k="", players="", level2_judge="1", team_size="", level=""):
    return {
        "id": id,
        "name": f"Event {id}",
        "date": day,
        "format": format,
        "k": str(k),
        "players": str(players),
        "level2_judge": str(level2_judge),
        "team_size": str(team_size),
        "level": level,
    }


def match(event_id, round, player1, player2="", games1=0, games2=0, draws=0):
    return {
        "event_id": event_id,
        "round": str(round),
        "player1_id": player1,
        "player2_id": player2,
        "player1_games": str(games1),
        "player2_games": str(games2),
        "draws": str(draws),
        "elimination": "",
    }


def win(event_id, round, winner, loser):
    return match(event_id, round, winner, loser, 2, 0)


def draw(event_id, round, player1, player2):
    return match(event_id, round, player1, player2, 1, 1)


def standing(event_id, player, rank, vp=0, gw=0, final=""):
    return {"event_id": event_id, "player_id": player, "rank": str(rank), "vp": str(vp), "gw": str(gw), "final": final}


def category(slug, ruleset, formats, team_size=1, ranked_after=10):
    return {
        "slug": slug,
        "name": slug,
        "ruleset": ruleset,
        "formats": formats,
        "team_size": str(team_size),
        "ranked_after": str(ranked_after),
    }


def write_bundle(folder, events, matches=(), standings=(), players=None, teams=(), categories=()):
    """Write the CSV files into `folder`; players default to everyone named in matches and standings."""
    if players is None:
        ids = []
        for row in matches:
            for ref in (row["player1_id"], row["player2_id"]):
                if ref and ref not in ids:
                    ids.append(ref)
        for row in standings:
            if row["player_id"] not in ids:
                ids.append(row["player_id"])
        players = [{"id": ref, "name": f"Player {ref}", "country": "", "region": ""} for ref in ids]
    files = {
        "players.csv": players,
        "teams.csv": teams,
        "events.csv": events,
        "matches.csv": matches,
        "standings.csv": standings,
        "categories.csv": categories,
    }
    folder.mkdir(parents=True, exist_ok=True)
    for name, rows in files.items():
        with open(folder / name, "w", encoding="utf-8", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=COLUMNS[name])
            writer.writeheader()
            for row in rows:
                writer.writerow(row)
    return folder


def ratings_of(result):
    return {participant: round(entry["rating"], 4) for participant, entry in result.items()}


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


# ---------------------------------------------------------------------------
# rankings
# ---------------------------------------------------------------------------


def test_ranking_ties_share_a_rank_and_unranked_come_last(tmp_path):
    players = [
        {"id": "A", "name": "A", "country": "DE", "region": "DE-BY"},
        {"id": "B", "name": "B", "country": "DE", "region": ""},
        {"id": "C", "name": "C", "country": "FR", "region": ""},
        {"id": "D", "name": "D", "country": "", "region": "DE-BY"},
        {"id": "E", "name": "E", "country": "US", "region": ""},
        {"id": "F", "name": "F", "country": "", "region": ""},
        {"id": "G", "name": "G", "country": "DE", "region": ""},
        {"id": "H", "name": "H", "country": "DE", "region": ""},
    ]
    bundle = write_bundle(
        tmp_path,
        [event("E1"), event("E2", "2003-06-01")],
        [win("E1", 1, "A", "B"), win("E1", 1, "C", "D"), draw("E1", 1, "E", "F"), win("E2", 1, "G", "H")],
        players=players,
        categories=[category("constructed", "dci-2001", "standard", ranked_after=1)],
    )

    rows = reference_ranking(bundle, "constructed")
    assert [(row["rank"], row["player_id"]) for row in rows] == [
        (1, "A"),
        (1, "C"),
        (1, "G"),
        (4, "E"),
        (4, "F"),
        (6, "B"),
        (6, "D"),
        (6, "H"),
    ]
    assert rows[0] == {"rank": 1, "player_id": "A", "rating": 1608.0, "matches": 1, "ranked": True}

    germany = reference_ranking(bundle, "constructed", country="DE")
    assert [(row["rank"], row["player_id"]) for row in germany] == [(1, "A"), (1, "G"), (3, "B"), (3, "D"), (3, "H")]
    bavaria = reference_ranking(bundle, "constructed", region="DE-BY")
    assert [(row["rank"], row["player_id"]) for row in bavaria] == [(1, "A"), (2, "D")]


def test_ranking_lists_unranked_players_with_rank_none(tmp_path):
    matches = [win("E1", 1, "A", "B")] + [draw("E1", round, "C", "D") for round in range(1, 11)]
    bundle = write_bundle(tmp_path, [event("E1")], matches)

    rows = reference_ranking(bundle, "constructed")

    assert [(row["rank"], row["player_id"], row["ranked"]) for row in rows] == [
        (1, "C", True),
        (1, "D", True),
        (None, "A", False),
        (None, "B", False),
    ]
