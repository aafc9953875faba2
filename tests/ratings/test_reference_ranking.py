"""Hand-checked cases for the reference implementation's rankings (tests/reference_ratings.py): ties share a rank,
unranked participants come last.

Pure Python: the bundles are written into tmp_path (tests/reference_bundles.py), no database is used.
"""

from tests.reference_bundles import category, draw, event, win, write_bundle
from tests.reference_ratings import (
    reference_ranking,
)

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
