"""Team pages and the head-to-head of two players.

The world is the default test bundle (tests/bundles.py), imported and rated (`ranked_default_bundle`).
Munich Open (E1, K 32, everyone at 1600): R1 1001 beats 1002, +16.00 each way.
"""

import re
from datetime import date, timedelta

import pytest

from players.formatting import signed
from players.models import Player, Team
from ratings.models import CurrentRating
from tests.pages import page, text
from tests.worlds import bundle_rated, default_bundle_ranked_from_one_match

# The history says what an event K means (SPEC 3.1).
K32 = r"event K 32: qualifier \(e\.g\. Pro Tour Qualifier\)"
K16 = r"event K 16: default for every event"

pytestmark = pytest.mark.django_db


# Teams -----------------------------------------------------------------------------------


def test_a_team_page_lists_its_members_and_its_history(client, ranked_default_bundle):
    team = Team.objects.get(name="Bavarian Dragons")

    html = page(client, f"/teams/{team.participant_id}/")
    words = text(html)

    assert "Bavarian Dragons" in words
    assert '<a href="/players/1001/">Alice Archer</a>' in html
    assert "Team Constructed" in words
    assert re.search(rf"1 West Coast 1600 W 2–1 0\.50 16 {K16} \+8\.00 1608", words)


def test_an_unknown_team_is_not_found(client, ranked_default_bundle):
    player = Player.objects.get(membership_number="1001")

    assert client.get(f"/teams/{player.participant_id}/").status_code == 404  # a player, not a team
    assert client.get("/teams/999999/").status_code == 404


def test_a_player_page_links_their_teams(client, ranked_default_bundle):
    team = Team.objects.get(name="Bavarian Dragons")

    assert f'<a href="/teams/{team.participant_id}/">Bavarian Dragons</a>' in page(client, "/players/1002/")


# Head-to-head ----------------------------------------------------------------------------


@pytest.fixture
def rivals(tmp_path):
    """1001 and 1002 meet three times: 1001 wins in E1, draws and loses in E5."""
    bundle = default_bundle_ranked_from_one_match(tmp_path)
    bundle.add_event("E5", name="Rematch Cup", date="2003-09-01", k="16")
    bundle.add_match("E5", 1, "1001", "1002", 1, 1, 0)
    bundle.add_match("E5", 2, "1002", "1001", 2, 0, 0)
    bundle_rated(bundle)


def test_head_to_head_lists_every_meeting_and_the_record(client, rivals):
    response = client.get("/players/1001/vs/1002/")
    versus = response.context["versus"]
    words = text(response.content.decode())

    assert (versus.record.wins, versus.record.draws, versus.record.losses) == (1, 1, 1)
    assert [meeting.entry.round for meeting in versus.meetings] == [2, 1, 1]  # newest first
    assert "Alice Archer won 1" in words and "Drawn 1" in words and "Bruno Becker won 1" in words
    assert "Rematch Cup" in words and "Munich Open" in words
    # E1: +16.00 for 1001, -16.00 for 1002, both sides shown.
    assert re.search(rf"1 W 2–1 1600 1600 0\.50 32 {K32} \+16\.00 −16\.00", words)


def test_head_to_head_from_the_other_side_mirrors_the_record(client, rivals):
    versus = client.get("/players/1002/vs/1001/").context["versus"]

    assert (versus.record.wins, versus.record.draws, versus.record.losses) == (1, 1, 1)
    assert versus.net_change == pytest.approx(-client.get("/players/1001/vs/1002/").context["versus"].net_change)


def test_head_to_head_of_players_who_never_met_is_empty(client, ranked_default_bundle):
    words = text(page(client, "/players/1002/vs/1005/"))

    assert "Matches 0" in words
    assert "These two have not met in a rated match." in words


def test_head_to_head_needs_two_known_different_players(client, ranked_default_bundle):
    assert client.get("/players/1001/vs/NOPE/").status_code == 404
    assert client.get("/players/NOPE/vs/1001/").status_code == 404
    assert client.get("/players/1001/vs/1001/").status_code == 404


def test_the_head_to_head_form_goes_to_the_pair_page(client, ranked_default_bundle):
    response = client.get("/players/1001/vs/", {"opponent": "1005"})

    assert response.status_code == 302
    assert response.url == "/players/1001/vs/1005/"


def test_the_head_to_head_form_explains_an_unknown_number(client, ranked_default_bundle):
    response = client.get("/players/1001/vs/", {"opponent": "NOPE"}, follow=True)

    assert response.redirect_chain[-1][0] == "/players/1001/#head-to-head"
    assert "No other player is called “NOPE” or has that membership number." in response.content.decode()


@pytest.mark.parametrize("asked", ["chloe dubois", "DUBOIS", "Chloé Dubois (1003)", "chloe dubos"])
def test_the_head_to_head_form_takes_a_name_in_any_spelling(client, ranked_default_bundle, asked):
    response = client.get("/players/1001/vs/", {"opponent": asked})

    assert response.status_code == 302
    assert response.url == "/players/1001/vs/1003/"


def test_a_name_several_players_share_lists_them_to_pick_from(client, ranked_default_bundle):
    response = client.get("/players/1001/vs/", {"opponent": "e"})

    html = response.content.decode()
    assert response.status_code == 200
    assert "Alice Archer against whom?" in html
    assert 'href="/players/1001/vs/1003/">Chloé Dubois</a>' in html
    assert 'href="/players/1001/vs/1004/">Dan Evans</a>' in html
    assert "/players/1001/vs/1001/" not in html  # never the player themselves


def test_head_to_head_queries_do_not_grow_with_meetings(client, tmp_path, django_assert_max_num_queries):
    bundle = default_bundle_ranked_from_one_match(tmp_path)
    for number in range(40):
        bundle.add_event(f"R{number}", date=str(date(2005, 1, 1) + timedelta(days=number)))
        bundle.add_match(f"R{number}", 1, "1001", "1002", 2, number % 3, 0)
    bundle_rated(bundle)

    with django_assert_max_num_queries(6):
        response = client.get("/players/1001/vs/1002/")

    assert response.context["versus"].record.matches == 41


def test_head_to_head_foresees_their_next_meeting_in_each_list_they_share(client, rivals):
    ratings = dict(
        CurrentRating.objects.filter(
            category__slug="constructed", participant__player__membership_number__in=["1001", "1002"]
        ).values_list("participant__player__membership_number", "rating")
    )
    expected = 1 / (10 ** ((ratings["1002"] - ratings["1001"]) / 400) + 1)  # We of 1001 (SPEC 3)

    response = client.get("/players/1001/vs/1002/")

    meetings = response.context["next_meetings"]
    assert [meeting.category.slug for meeting in meetings][0] == "constructed"  # Elo lists only, in the lists' order
    assert all(meeting.category.ruleset != "vekn" for meeting in meetings)
    meeting = meetings[0]
    assert meeting.event_k == 16
    assert meeting.mine.expected == pytest.approx(expected)
    assert meeting.theirs.expected == pytest.approx(1 - expected)
    constructed = response.content.decode().split('id="next-meeting"')[1].split("<tbody>")[1]
    rows = [text(row).strip() for row in re.findall(r"<tr>.*?</tr>", constructed, re.S)]
    assert rows[0].startswith("Alice Archer")
    assert f"{expected * 100:.1f}%" in rows[0]
    assert signed(16 * (1 - expected)) in rows[0] and signed(-16 * expected) in rows[0]
    assert signed(16 * expected) in rows[1] and signed(-16 * (1 - expected)) in rows[1]
