"""The world the player, team and head-to-head page tests share."""

import pytest

from tests.worlds import bundle_rated, default_bundle_ranked_from_one_match


@pytest.fixture
def ranked_default_bundle(tmp_path):
    """The default bundle (tests/bundles.py) with constructed ranked from the first match, imported and rated.

    Hand-checked numbers for Munich Open (E1, standard, K 32, everyone at 1600):

    - R1 1001 beats 1002: expected 0.50, +16.00 -> 1616.
    - R1 1003 draws 1004: 0.00.
    - R2 1001 (1616) beats 1003 (1600): expected 1/(10^(-16/400)+1) = 0.523, +15.26 -> 1631.26.
    - R3 (the final) 1001 beats 1005 (1616): +15.30 -> 1646.56, shown 1646 (truncated, not rounded).
    """
    bundle_rated(default_bundle_ranked_from_one_match(tmp_path))
