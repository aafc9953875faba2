"""Recomputing the V:EKN, composite and team lists (SPEC 2, 3, 4).

The world is the default test bundle (tests/bundles.py), imported; helpers: tests/ratings/recompute_worlds.py.
"""

import math
from datetime import date

import pytest

from events.models import Event, EventStatus, Standing
from organize.importer import results_import
from ratings.models import Category, EventScore
from ratings.selectors.lists import category_standings, ranking_list
from ratings.services.recompute import category_recompute
from tests.bundles import Bundle
from tests.ratings.recompute_worlds import (
    E4_DATE,
    EXACT,
    category,
    entries,
    import_default_bundle,
    participant,
    team_participant,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def events(tmp_path):
    """The default bundle, imported (no runs)."""
    import_default_bundle(tmp_path)
    return {event.code: event for event in Event.objects.all()}


# V:EKN -------------------------------------------------------------------------------------------------


def test_a_vtes_recompute_stores_each_players_points_from_the_standings(events):
    result = category_recompute(category=category("vtes"))

    scores = {row.participant_id: row for row in EventScore.objects.filter(category=category("vtes"))}
    coefficient = math.log(9, 15) - 1 + 0.25  # 3 players, a national championship
    assert (result.matches_rated, result.entries_written) == (3, 3)
    winner, finalist, other = (scores[participant(n)] for n in ("1001", "1004", "1006"))
    assert winner.points == pytest.approx(5 + 4 * 3.5 + 8 * 2 + 90 * coefficient, abs=EXACT)
    assert winner.points == pytest.approx(40.523, abs=1e-3)
    assert (winner.final, winner.players, winner.event_date) == ("winner", 3, E4_DATE)
    assert winner.coefficient == pytest.approx(0.061368, abs=1e-6)
    assert finalist.points == pytest.approx(5 + 4 * 2 + 8 * 1 + 30 * coefficient, abs=EXACT)
    assert finalist.bonus == pytest.approx(1.841, abs=1e-3)
    assert (other.points, other.bonus) == (7.0, 0.0)
    assert Event.objects.get(code="E4").status == EventStatus.RATED


def test_vtes_standings_follow_the_window_and_inactivity(tmp_path):
    bundle = Bundle(tmp_path)
    bundle.add_event("V2", date="2004-06-01", format="vtes", k="", players="20", level="")
    bundle.add_standing("V2", "1004", 1, 6, 3, "winner")
    bundle.add_standing("V2", "1005", 2, 2, 1)
    results_import(source=bundle.write())
    vtes = category("vtes")
    category_recompute(category=vtes)
    winner_v2 = 53 + 90 * (math.log(400, 15) - 1)  # 162.12

    now = category_standings(category=vtes, as_of=date(2004, 9, 1))
    assert now[participant("1004")].rating == pytest.approx(22.841 + winner_v2, abs=1e-3)
    assert now[participant("1004")].matches == 2
    assert now[participant("1001")].rating == pytest.approx(40.523, abs=1e-3)  # 13 months: still in the window
    assert not now[participant("1001")].ranked  # but no event in the last 12 months
    assert now[participant("1004")].ranked and now[participant("1005")].ranked

    later = category_standings(category=vtes, as_of=date(2005, 2, 2))  # E4 is 18 months back: out
    assert later[participant("1004")].rating == pytest.approx(winner_v2, abs=1e-9)
    assert later[participant("1001")].rating == 0

    before = category_standings(category=vtes, as_of=date(2003, 8, 1))
    assert before == {}


def test_a_vtes_recompute_from_a_date_keeps_the_scores_before_it(tmp_path):
    bundle = Bundle(tmp_path)
    bundle.add_event("V2", date="2004-06-01", format="vtes", k="", players="20", level="")
    bundle.add_standing("V2", "1004", 1, 6, 3, "winner")
    results_import(source=bundle.write())
    vtes = category("vtes")
    category_recompute(category=vtes)
    before = set(EventScore.objects.filter(event__code="E4").values_list())
    Standing.objects.filter(event__code="V2").update(final="finalist")

    result = category_recompute(category=vtes, since=date(2004, 1, 1))

    assert result.matches_rated == 1
    assert set(EventScore.objects.filter(event__code="E4").values_list()) == before
    assert EventScore.objects.get(event__code="V2").points == pytest.approx(53 + 30 * (math.log(400, 15) - 1))


# composite and team categories -------------------------------------------------------------------------


def test_composite_is_the_mean_of_constructed_and_limited_with_1600_for_a_missing_one(events):
    Category.objects.filter(slug="constructed").update(ranked_after=3)
    category_recompute(category=category("constructed"))
    category_recompute(category=category("limited"))
    constructed = category_standings(category=category("constructed"))
    limited = category_standings(category=category("limited"))

    composite = category_standings(category=category("composite"))

    both, only_constructed, only_limited = participant("1001"), participant("1004"), participant("1006")
    assert composite.keys() == {participant(n) for n in ("1001", "1002", "1003", "1004", "1005", "1006")}
    assert composite[both].rating == (constructed[both].rating + limited[both].rating) / 2
    assert composite[only_constructed].rating == (1584 + 1600) / 2
    assert composite[only_limited].rating == (1600 + limited[only_limited].rating) / 2
    assert limited[only_limited].rating == 1592  # lost to 1001 in a 16-K event
    assert composite[both].matches == 3 + 1
    # 1001 is ranked in constructed (3 matches), nobody in limited (10 needed)
    assert constructed[both].ranked and not limited[both].ranked
    assert {who for who, standing in composite.items() if standing.ranked} == {both}


def test_composite_is_ranked_when_ranked_in_limited_alone(events):
    Category.objects.filter(slug="limited").update(ranked_after=1)
    category_recompute(category=category("constructed"))
    category_recompute(category=category("limited"))

    composite = category_standings(category=category("composite"))

    assert {who for who, standing in composite.items() if standing.ranked} == {
        participant(n) for n in ("1001", "1002", "1003", "1006")
    }


def test_a_team_category_rates_teams(events):
    category_recompute(category=category("team-constructed"))

    bavarians, west_coast = team_participant("1001", "1002", "1003"), team_participant("1004", "1005", "1006")
    assert dict(entries("team-constructed").values_list("participant_id", "rating_after")) == {
        bavarians: 1608,
        west_coast: 1592,
    }
    rows = ranking_list(category=category("team-constructed"))
    assert [(row.player_id, row.name, row.rating, row.matches, row.ranked) for row in rows] == [
        ("1001+1002+1003", "Bavarian Dragons", 1608, 1, False),
        ("1004+1005+1006", "West Coast", 1592, 1, False),
    ]


def test_a_team_event_is_not_rated_for_individuals(events):
    category_recompute(category=category("constructed"))

    assert not entries("constructed", event__code="E3").exists()
    assert Event.objects.get(code="E3").status == EventStatus.SUBMITTED
