"""Player search, player and team pages, head-to-head: what a visitor reads there.

The world is the default test bundle (tests/bundles.py), imported and rated.
Hand-checked numbers for Munich Open (E1, standard, K 32, everyone at 1600):

- R1 1001 beats 1002: expected 0.50, +16.00 -> 1616.
- R1 1003 draws 1004: 0.00.
- R2 1001 (1616) beats 1003 (1600): expected 1/(10^(-16/400)+1) = 0.523, +15.26 -> 1631.26.
- R3 (the final) 1001 beats 1005 (1616): +15.30 -> 1646.56, shown 1646 (truncated, not rounded).
"""

import json
import re
from datetime import date, timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone

from corrections.selectors import MatchCorrection
from organize.importer import results_import
from players.models import Player, Team
from ratings.engine.vekn import in_window
from ratings.models import Category
from ratings.selectors.players import CHART_MAX_POINTS, EventPoint, Timeline, elo_chart_data
from ratings.selectors.vekn import first_day_outside
from tests.bundles import Bundle

pytestmark = pytest.mark.django_db


def rated(bundle: Bundle) -> None:
    results_import(source=bundle.write())
    call_command("recompute_ratings", stdout=None)


def a_bundle(tmp_path) -> Bundle:
    """The default bundle with constructed ranked from the first match, so ranks show in a small world."""
    bundle = Bundle(tmp_path)
    bundle.add_category("constructed", name="Constructed", formats="standard block extended", ranked_after="1")
    return bundle


@pytest.fixture
def world(tmp_path):
    rated(a_bundle(tmp_path))


def page(client, url) -> str:
    response = client.get(url)
    assert response.status_code == 200, response.status_code
    return response.content.decode()


def text(html: str) -> str:
    """The page's words with tags and runs of white space removed: what a reader sees, in order."""
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)).replace(" ,", ",")


def history_rows(response) -> list:
    table = response.context["section"]["table"]
    return [row.record for row in table.page.object_list]


def chart_data(html: str) -> dict:
    found = re.search(r'<script id="rating-chart-data" type="application/json">(.*?)</script>', html, re.S)
    return json.loads(found.group(1))


def add_months(day: date, months: int) -> date:
    year, month = divmod(day.month - 1 + months, 12)
    return date(day.year + year, month + 1, day.day)


# Search ------------------------------------------------------------------------------


def test_search_finds_players_by_part_of_their_name_with_flag_and_ratings(client, world):
    html = page(client, "/players/?q=arch")

    words = text(html)
    assert "Alice Archer" in words
    assert "Bruno Becker" not in words
    assert "/static/flags/de.gif" in html
    assert "Constructed 1646" in words  # today's rating, truncated


def test_search_by_a_number_prefix_lists_every_match(client, world):
    response = client.get("/players/?q=100")

    assert response.status_code == 200
    assert response.context["table"].paginator.count == 6


def test_search_by_an_exact_membership_number_goes_to_the_player(client, world):
    response = client.get("/players/?q=1003")

    assert response.status_code == 302
    assert response.url == "/players/1003/"


def test_search_lists_players_page_by_page(client, tmp_path):
    bundle = Bundle(tmp_path)
    for number in range(60):
        bundle.add_player(f"P{number:03}", name=f"Searchable {number:03}")
    rated(bundle)

    first = client.get("/players/?q=searchable")
    second = client.get("/players/?q=searchable&page=2")

    assert first.context["table"].paginator.count == 60
    assert "Searchable 000" in text(first.content.decode())
    assert "Searchable 059" in text(second.content.decode())
    assert "Searchable 000" not in text(second.content.decode())


# The player page ----------------------------------------------------------------------


def test_an_unknown_membership_number_is_not_found(client, world):
    assert client.get("/players/NOPE/").status_code == 404


def test_a_player_without_results_has_a_page_saying_so(client, tmp_path):
    bundle = Bundle(tmp_path)
    bundle.add_player("2001", name="Newcomer Nora", country="NL")
    rated(bundle)

    words = text(page(client, "/players/2001/"))

    assert "Newcomer Nora" in words
    assert "No rated results yet." in words


def test_the_header_names_the_player_and_their_place(client, world):
    words = text(page(client, "/players/1001/"))

    assert "Alice Archer" in words
    assert "1001" in words
    assert "Germany" in words
    assert "Bayern" in words  # the region's name, not its code
    assert "Europe" in words


def test_it_shows_the_current_rating_truncated_with_ranks_at_every_level(client, world):
    response = client.get("/players/1001/?category=constructed")
    words = text(response.content.decode())

    assert response.context["selected"].shown == "1646"  # 1646.56 is cut, never rounded
    assert "Rating 1646" in words
    assert "Ranked" in words
    assert "World #1" in words
    assert "Europe #1" in words
    assert "Germany #1" in words
    assert "Bayern #1" in words


def test_it_shows_the_peak_rating_and_the_win_draw_loss_record(client, world):
    words = text(page(client, "/players/1003/?category=constructed"))

    # 1003: drew 1004 at 1600, then lost to 1001 (1600 -> 1584.74). The peak is the best rating after a match.
    assert "Peak 1600" in words
    assert re.search(r"W–D–L 0 ?– ?1 ?– ?1", words)


def test_an_unranked_player_is_told_how_many_matches_are_missing(client, world):
    words = text(page(client, "/players/1001/?category=limited"))

    assert "Unranked" in words
    assert "9 more matches to be ranked (10 needed)" in words


def test_each_category_is_a_tab_with_its_rating(client, world):
    response = client.get("/players/1001/")
    html = response.content.decode()

    assert [standing.category.slug for standing in response.context["standings"]] == [
        "constructed",
        "limited",
        "composite",
        "vtes",
    ]
    assert 'href="?category=limited#category"' in html
    assert response.context["selected"].category.slug == "vtes"  # the category played most recently


def test_the_history_shows_every_number_behind_each_change(client, world):
    response = client.get("/players/1001/?category=constructed")
    html = response.content.decode()
    words = text(html)

    assert [entry.round for entry in history_rows(response)] == [3, 2, 1]  # newest first
    assert "Munich Open" in words and 'href="/events/' in html
    assert '<a href="/players/1003/">Chloé Dubois</a>' in html
    # Round 2: opponent 1600 then, a 2-0 win, expected 0.52, event K 32, +15.26, 1631 after.
    assert re.search(r"2 Chloé Dubois 1600 W 2–0 0\.52 32 event K 32 \+15\.26 1631", words)
    assert re.search(r"3 elim\. Emi Fujita 1616 W 2–1 0\.52 32 event K 32 \+15\.30 1646", words)
    assert re.search(r"1 Bruno Becker 1600 W 2–1 0\.50 32 event K 32 \+16\.00 1616", words)


def test_a_loss_shows_a_minus_sign_and_a_draw_its_drawn_game(client, world):
    words = text(page(client, "/players/1003/?category=constructed"))

    assert re.search(r"2 Alice Archer 1616 L 0–2 0\.48 32 event K 32 −15\.26 1584", words)
    assert re.search(r"1 Dan Evans 1600 D 1–1–1 0\.50 32 event K 32 0\.00 1600", words)


def test_the_chart_data_has_the_date_event_and_rating_after_each_event(client, world):
    html = page(client, "/players/1001/?category=constructed")

    data = chart_data(html)
    assert data["dates"] == ["2003-05-01"]
    assert data["events"] == ["Munich Open"]
    assert data["ratings"] == [1646]
    assert data["changes"] == [46.56]
    assert "vendor/uplot/uPlot.iife.min.js" in html


def test_without_javascript_the_history_reads_from_tables(client, world):
    html = page(client, "/players/1001/?category=constructed")

    assert re.search(r'<div class="chart-box"[^>]*hidden', html)  # shown by the script only
    assert "<noscript>" in html
    assert re.search(r"2003 1 3–0–0 1600 1646 \+46\.56 1646 1616", text(html))  # the year-by-year table


def test_a_history_is_paginated_newest_first(client, tmp_path):
    bundle = a_bundle(tmp_path)
    for number in range(30):
        bundle.add_event(
            f"L{number}", name=f"League night {number}", date=str(date(2004, 1, 1) + timedelta(days=number))
        )
        bundle.add_match(f"L{number}", 1, "1001", "1002", 2, 0, 0)
    rated(bundle)

    first = client.get("/players/1001/?category=constructed")
    second = client.get("/players/1001/?category=constructed&page=2")

    assert first.context["section"]["table"].paginator.count == 33
    assert history_rows(first)[0].event.name == "League night 29"
    assert history_rows(second)[-1].event.name == "Munich Open"
    assert len(chart_data(first.content.decode())["dates"]) == 31  # every event, not just this page


def test_its_query_count_does_not_grow_with_the_history(client, tmp_path, django_assert_max_num_queries):
    bundle = a_bundle(tmp_path)
    for number in range(60):
        day = str(date(2004, 1, 1) + timedelta(days=number))
        bundle.add_event(f"L{number}", name=f"League night {number}", date=day)
        bundle.add_match(f"L{number}", 1, "1001", "1002", 2, 0, 0)
        bundle.add_match(f"L{number}", 2, "1001", "1003", 1, 1, 0)
        bundle.add_match(f"L{number}", 3, "1001", "1004", 0, 2, 0)
    rated(bundle)

    with django_assert_max_num_queries(8):
        response = client.get("/players/1001/?category=constructed&page=3")

    assert response.context["section"]["timeline"].record.matches == 183


def test_a_small_history_costs_the_same_queries(client, world, django_assert_max_num_queries):
    with django_assert_max_num_queries(8):
        client.get("/players/1001/?category=constructed")


def test_the_page_follows_a_recompute_at_once(client, tmp_path):
    bundle = a_bundle(tmp_path)
    rated(bundle)
    before = client.get("/players/1001/?category=constructed")
    bundle.add_event("L1", name="League night", date="2004-01-01")
    bundle.add_match("L1", 1, "1001", "1002", 0, 2, 0)

    rated(bundle)
    after = client.get("/players/1001/?category=constructed")

    record = before.context["section"]["timeline"].record
    assert after.context["section"]["timeline"].record.losses == record.losses + 1
    assert history_rows(after)[0].event.name == "League night"
    assert chart_data(after.content.decode())["events"][-1] == "League night"
    assert after.context["section"]["table"].paginator.count == before.context["section"]["table"].paginator.count + 1


def test_a_second_visit_reads_only_the_page_of_the_history(client, world, django_assert_max_num_queries):
    client.get("/players/1001/?category=constructed")

    with django_assert_max_num_queries(6):  # player, standings, the page of the history, its corrections, teams
        response = client.get("/players/1001/?category=constructed&page=2")
    assert response.context["section"]["timeline"].record.matches == 3


def test_a_derived_category_explains_its_components(client, world):
    words = text(page(client, "/players/1001/?category=composite"))

    # (1646.56 + 1608) / 2 = 1627.28
    assert "Rating 1627" in words
    assert "mean of constructed (1646) and limited (1608)" in words


def test_a_corrected_match_is_marked_with_its_correction(client, world, monkeypatch):
    def corrections(*, match_ids):
        return {
            match_id: [MatchCorrection(date(2003, 6, 1), "an admin", "1–2", "2–1", "scores swapped")]
            for match_id in match_ids[:1]
        }

    monkeypatch.setattr("public.player_views.match_corrections", corrections)

    words = text(page(client, "/players/1001/?category=constructed"))

    assert "Corrected 2003-06-01: 1–2 → 2–1 by an admin: scores swapped" in words


def test_no_match_is_marked_corrected_while_corrections_are_not_recorded(client, world):
    assert "Corrected" not in page(client, "/players/1001/?category=constructed")


# V:EKN ---------------------------------------------------------------------------------


@pytest.fixture
def vekn_world(tmp_path):
    """1001 plays three V:EKN events: 2 and 10 months ago (counting) and 22 months ago (out of the window)."""
    today = timezone.localdate()
    mid_month = today.replace(day=15) if today.day >= 15 else add_months(today.replace(day=15), -1)
    days = {"V1": add_months(mid_month, -2), "V2": add_months(mid_month, -10), "V3": add_months(mid_month, -22)}
    bundle = Bundle(tmp_path)
    bundle.rows["standings.csv"] = []  # the default V:EKN event is from 2003: leave it out
    bundle.remove("events.csv", id="E4")
    for event_id, day in days.items():
        bundle.add_event(event_id, name=f"Vampire {event_id}", date=str(day), format="vtes", k="", level="")
    bundle.add_standing("V1", "1001", 1, "4", 2, "winner")
    bundle.add_standing("V1", "1002", 2, "1", 0, "finalist")
    bundle.add_standing("V2", "1001", 2, "2", 1, "finalist")
    bundle.add_standing("V2", "1002", 1, "3", 2, "winner")
    bundle.add_standing("V3", "1001", 1, "5", 3, "winner")
    bundle.add_standing("V3", "1002", 2, "0", 0, "")
    rated(bundle)
    return days


def test_vekn_shows_which_events_count_and_when_each_leaves_the_window(client, vekn_world):
    response = client.get("/players/1001/?category=vtes")
    vekn = response.context["section"]["vekn"]
    words = text(response.content.decode())

    assert [score.event_name for score in vekn.counting] == ["Vampire V1", "Vampire V2"]  # best first
    assert [score.leaves_window for score in vekn.counting] == [
        add_months(vekn_world["V1"], 18),
        add_months(vekn_world["V2"], 18),
    ]
    leaves = add_months(vekn_world["V1"], 18)
    assert f"Vampire V1 {vekn_world['V1']:%-d %b %Y}" in words
    assert f"{leaves:%-d %b %Y}" in words
    assert "Expired" in words  # V3, 22 months ago, still listed


def test_vekn_rating_is_the_sum_of_the_counting_events(client, vekn_world):
    response = client.get("/players/1001/?category=vtes")
    vekn = response.context["section"]["vekn"]

    expected = round(sum(score.points for score in vekn.counting))
    assert response.context["selected"].shown == str(expected)
    assert f"Rating points {expected}" in text(response.content.decode())
    assert len(vekn.scores) == 3


def test_vekn_peak_is_the_best_rating_it_ever_had(client, vekn_world):
    response = client.get("/players/1001/?category=vtes")
    peak, day = response.context["section"]["vekn"].peak

    assert peak == max(response.context["section"]["chart"]["ratings"])
    assert f"Peak {peak} {day:%b %Y}" in text(response.content.decode())


def test_vekn_says_when_the_player_drops_off_the_rankings(client, vekn_world):
    words = text(page(client, "/players/1001/?category=vtes"))

    drop_off = add_months(vekn_world["V1"], 12)
    assert f"leaves the rankings on {drop_off:%-d %b %Y}" in words


def test_vekn_chart_steps_at_each_event_and_when_one_leaves_the_window(client, vekn_world):
    data = chart_data(page(client, "/players/1001/?category=vtes"))

    v3, v2 = vekn_world["V3"], vekn_world["V2"]
    assert data["dates"][:2] == [v3.isoformat(), v2.isoformat()]
    assert data["events"][0] == "Vampire V3"
    assert "Vampire V3 leaves the window" in data["events"]
    assert data["dates"][-1] == timezone.localdate().isoformat()


# Teams -----------------------------------------------------------------------------------


def test_a_team_page_lists_its_members_and_its_history(client, world):
    team = Team.objects.get(name="Bavarian Dragons")

    html = page(client, f"/teams/{team.participant_id}/")
    words = text(html)

    assert "Bavarian Dragons" in words
    assert '<a href="/players/1001/">Alice Archer</a>' in html
    assert "Team Constructed" in words
    assert re.search(r"1 West Coast 1600 W 2–1 0\.50 16 event K 16 \+8\.00 1608", words)


def test_an_unknown_team_is_not_found(client, world):
    player = Player.objects.get(membership_number="1001")

    assert client.get(f"/teams/{player.participant_id}/").status_code == 404  # a player, not a team
    assert client.get("/teams/999999/").status_code == 404


def test_a_player_page_links_their_teams(client, world):
    team = Team.objects.get(name="Bavarian Dragons")

    assert f'<a href="/teams/{team.participant_id}/">Bavarian Dragons</a>' in page(client, "/players/1002/")


# Head-to-head ----------------------------------------------------------------------------


@pytest.fixture
def rivals(tmp_path):
    """1001 and 1002 meet three times: 1001 wins in E1, draws and loses in E5."""
    bundle = a_bundle(tmp_path)
    bundle.add_event("E5", name="Rematch Cup", date="2003-09-01", k="16")
    bundle.add_match("E5", 1, "1001", "1002", 1, 1, 0)
    bundle.add_match("E5", 2, "1002", "1001", 2, 0, 0)
    rated(bundle)


def test_head_to_head_lists_every_meeting_and_the_record(client, rivals):
    response = client.get("/players/1001/vs/1002/")
    versus = response.context["versus"]
    words = text(response.content.decode())

    assert (versus.record.wins, versus.record.draws, versus.record.losses) == (1, 1, 1)
    assert [meeting.entry.round for meeting in versus.meetings] == [2, 1, 1]  # newest first
    assert "Alice Archer won 1" in words and "Drawn 1" in words and "Bruno Becker won 1" in words
    assert "Rematch Cup" in words and "Munich Open" in words
    # E1: +16.00 for 1001, -16.00 for 1002, both sides shown.
    assert re.search(r"1 W 2–1 1600 1600 0\.50 32 event K 32 \+16\.00 −16\.00", words)


def test_head_to_head_from_the_other_side_mirrors_the_record(client, rivals):
    versus = client.get("/players/1002/vs/1001/").context["versus"]

    assert (versus.record.wins, versus.record.draws, versus.record.losses) == (1, 1, 1)
    assert versus.net_change == pytest.approx(-client.get("/players/1001/vs/1002/").context["versus"].net_change)


def test_head_to_head_of_players_who_never_met_is_empty(client, world):
    words = text(page(client, "/players/1002/vs/1005/"))

    assert "Matches 0" in words
    assert "These two have not met in a rated match." in words


def test_head_to_head_needs_two_known_different_players(client, world):
    assert client.get("/players/1001/vs/NOPE/").status_code == 404
    assert client.get("/players/NOPE/vs/1001/").status_code == 404
    assert client.get("/players/1001/vs/1001/").status_code == 404


def test_the_head_to_head_form_goes_to_the_pair_page(client, world):
    response = client.get("/players/1001/vs/", {"opponent": "1005"})

    assert response.status_code == 302
    assert response.url == "/players/1001/vs/1005/"


def test_the_head_to_head_form_explains_an_unknown_number(client, world):
    response = client.get("/players/1001/vs/", {"opponent": "NOPE"}, follow=True)

    assert response.redirect_chain[-1][0] == "/players/1001/#head-to-head"
    assert "No other player has the membership number “NOPE”." in response.content.decode()


def test_head_to_head_queries_do_not_grow_with_meetings(client, tmp_path, django_assert_max_num_queries):
    bundle = a_bundle(tmp_path)
    for number in range(40):
        bundle.add_event(f"R{number}", date=str(date(2005, 1, 1) + timedelta(days=number)))
        bundle.add_match(f"R{number}", 1, "1001", "1002", 2, number % 3, 0)
    rated(bundle)

    with django_assert_max_num_queries(6):
        response = client.get("/players/1001/vs/1002/")

    assert response.context["versus"].record.matches == 41


# Pure helpers ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("event_day", "months", "first_day_out"),
    [
        (date(2025, 5, 10), 18, date(2026, 11, 10)),
        (date(2024, 8, 31), 18, date(2026, 3, 1)),  # 28 Feb 2026 still counts: its window starts after 28 Aug 2024
        (date(2025, 1, 31), 12, date(2026, 1, 31)),
    ],
)
def test_an_event_leaves_a_window_on_its_date_plus_the_windows_months(event_day, months, first_day_out):

    assert first_day_outside(event_day, months) == first_day_out
    assert in_window(event_day, first_day_out - timedelta(days=1), months)
    assert not in_window(event_day, first_day_out, months)


def test_a_very_long_history_is_thinned_for_the_chart_keeping_the_first_last_and_peak_events():

    points = [
        EventPoint(date(2000, 1, 1) + timedelta(days=day), day, f"E{day}", 1600.0, 1600.0 + (day % 97))
        for day in range(12_000)
    ]
    points[7777].rating_after = 2500.0
    category = Category(name="Constructed", display_rounding="truncate")

    data = elo_chart_data(category=category, timeline=Timeline(points, None, []))

    assert CHART_MAX_POINTS <= len(data["dates"]) <= CHART_MAX_POINTS + 3
    assert data["events"][0] == "E0" and data["events"][-1] == "E11999"
    assert "E7777" in data["events"] and max(data["ratings"]) == 2500
    assert data["dates"] == sorted(data["dates"])


def test_a_history_under_the_limit_is_sent_whole():

    points = [EventPoint(date(2000, 1, 1) + timedelta(days=day), day, f"E{day}", 1600.0, 1601.9) for day in range(2000)]

    data = elo_chart_data(category=Category(name="C", display_rounding="truncate"), timeline=Timeline(points, None, []))

    assert len(data["dates"]) == 2000
    assert data["ratings"][0] == 1601  # as the category shows it: truncated
