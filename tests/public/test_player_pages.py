"""The player page: header, current and peak rating, ranks, category tabs, the history with every number behind
each change, its chart, corrections, and what the page costs in queries.

The world is the default test bundle (tests/bundles.py), imported and rated (`ranked_default_bundle`, whose
docstring has the hand-checked numbers of Munich Open).
"""

import re
from datetime import date, timedelta

import pytest

from corrections.selectors import MatchCorrection
from ratings.models import Category
from ratings.selectors.players import CHART_MAX_POINTS, EventPoint, Timeline, elo_chart_data
from tests.bundles import Bundle
from tests.pages import chart_data, page, text
from tests.worlds import bundle_rated, default_bundle_ranked_from_one_match

# The history says what an event K means (SPEC 3.1).
K32 = r"event K 32: qualifier \(e\.g\. Pro Tour Qualifier\)"

pytestmark = pytest.mark.django_db


def history_rows(response) -> list:
    table = response.context["section"]["table"]
    return [row.record for row in table.page.object_list]


# The player page ----------------------------------------------------------------------


def test_an_unknown_membership_number_is_not_found(client, ranked_default_bundle):
    assert client.get("/players/NOPE/").status_code == 404


def test_a_player_without_results_has_a_page_saying_so(client, tmp_path):
    bundle = Bundle(tmp_path)
    bundle.add_player("2001", name="Newcomer Nora", country="NL")
    bundle_rated(bundle)

    words = text(page(client, "/players/2001/"))

    assert "Newcomer Nora" in words
    assert "No rated results yet." in words


def test_the_header_names_the_player_and_their_place(client, ranked_default_bundle):
    words = text(page(client, "/players/1001/"))

    assert "Alice Archer" in words
    assert "1001" in words
    assert "Germany" in words
    assert "Bayern" in words  # the region's name, not its code
    assert "Europe" in words


def test_it_shows_the_current_rating_truncated_with_ranks_at_every_level(client, ranked_default_bundle):
    response = client.get("/players/1001/?category=constructed")
    words = text(response.content.decode())

    assert response.context["selected"].shown == "1646"  # 1646.56 is cut, never rounded
    assert "Rating 1646" in words
    assert "Ranked" in words
    assert "World #1" in words
    assert "Europe #1" in words
    assert "Germany #1" in words
    assert "Bayern #1" in words


def test_it_shows_the_peak_rating_and_the_win_draw_loss_record(client, ranked_default_bundle):
    words = text(page(client, "/players/1003/?category=constructed"))

    # 1003: drew 1004 at 1600, then lost to 1001 (1600 -> 1584.74). The peak is the best rating after a match.
    assert "Peak 1600" in words
    assert re.search(r"W–D–L 0 ?– ?1 ?– ?1", words)


def test_an_unranked_player_is_told_how_many_matches_are_missing(client, ranked_default_bundle):
    words = text(page(client, "/players/1001/?category=limited"))

    assert "Unranked" in words
    assert "9 more matches to be ranked (10 needed)" in words


def test_each_category_is_a_tab_with_its_rating(client, ranked_default_bundle):
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


def test_the_history_shows_every_number_behind_each_change(client, ranked_default_bundle):
    response = client.get("/players/1001/?category=constructed")
    html = response.content.decode()
    words = text(html)

    assert [entry.round for entry in history_rows(response)] == [3, 2, 1]  # newest first
    assert "Munich Open" in words and 'href="/events/' in html
    assert '<a href="/players/1003/">Chloé Dubois</a>' in html
    # Round 2: opponent 1600 then, a 2-0 win, expected 0.52, event K 32, +15.26, 1631 after.
    assert re.search(rf"2 Chloé Dubois 1600 W 2–0 0\.52 32 {K32} \+15\.26 1631", words)
    assert re.search(rf"3 elim\. Emi Fujita 1616 W 2–1 0\.52 32 {K32} \+15\.30 1646", words)
    assert re.search(rf"1 Bruno Becker 1600 W 2–1 0\.50 32 {K32} \+16\.00 1616", words)


def test_a_loss_shows_a_minus_sign_and_a_draw_its_drawn_game(client, ranked_default_bundle):
    words = text(page(client, "/players/1003/?category=constructed"))

    assert re.search(rf"2 Alice Archer 1616 L 0–2 0\.48 32 {K32} −15\.26 1584", words)
    assert re.search(rf"1 Dan Evans 1600 D 1–1–1 0\.50 32 {K32} 0\.00 1600", words)


def test_the_chart_data_has_the_date_event_and_rating_after_each_event(client, ranked_default_bundle):
    html = page(client, "/players/1001/?category=constructed")

    data = chart_data(html)
    assert data["dates"] == ["2003-05-01"]
    assert data["events"] == ["Munich Open"]
    assert data["ratings"] == [1646]
    assert data["changes"] == [46.56]
    assert "vendor/uplot/uPlot.iife.min.js" in html


def test_without_javascript_the_history_reads_from_tables(client, ranked_default_bundle):
    html = page(client, "/players/1001/?category=constructed")

    assert re.search(r'<div class="chart-box"[^>]*hidden', html)  # shown by the script only
    assert "<noscript>" in html
    assert re.search(r"2003 1 3–0–0 1600 1646 \+46\.56 1646 1616", text(html))  # the year-by-year table


def test_a_history_is_paginated_newest_first(client, tmp_path):
    bundle = default_bundle_ranked_from_one_match(tmp_path)
    for number in range(30):
        bundle.add_event(
            f"L{number}", name=f"League night {number}", date=str(date(2004, 1, 1) + timedelta(days=number))
        )
        bundle.add_match(f"L{number}", 1, "1001", "1002", 2, 0, 0)
    bundle_rated(bundle)

    first = client.get("/players/1001/?category=constructed")
    second = client.get("/players/1001/?category=constructed&page=2")

    assert first.context["section"]["table"].paginator.count == 33
    assert history_rows(first)[0].event.name == "League night 29"
    assert history_rows(second)[-1].event.name == "Munich Open"
    assert len(chart_data(first.content.decode())["dates"]) == 31  # every event, not just this page


def test_its_query_count_does_not_grow_with_the_history(client, tmp_path, django_assert_max_num_queries):
    bundle = default_bundle_ranked_from_one_match(tmp_path)
    for number in range(60):
        day = str(date(2004, 1, 1) + timedelta(days=number))
        bundle.add_event(f"L{number}", name=f"League night {number}", date=day)
        bundle.add_match(f"L{number}", 1, "1001", "1002", 2, 0, 0)
        bundle.add_match(f"L{number}", 2, "1001", "1003", 1, 1, 0)
        bundle.add_match(f"L{number}", 3, "1001", "1004", 0, 2, 0)
    bundle_rated(bundle)

    # Those of a second visit (below), and the first time the sizes of the player's four places (their
    # histograms, kept for every page after): none grows with the history.
    with django_assert_max_num_queries(15):
        response = client.get("/players/1001/?category=constructed&page=3")

    assert response.context["section"]["timeline"].record.matches == 183


def test_a_small_history_costs_the_same_queries(client, ranked_default_bundle, django_assert_max_num_queries):
    with django_assert_max_num_queries(15):
        client.get("/players/1001/?category=constructed")


def test_the_page_follows_a_recompute_at_once(client, tmp_path):
    bundle = default_bundle_ranked_from_one_match(tmp_path)
    bundle_rated(bundle)
    before = client.get("/players/1001/?category=constructed")
    bundle.add_event("L1", name="League night", date="2004-01-01")
    bundle.add_match("L1", 1, "1001", "1002", 0, 2, 0)

    bundle_rated(bundle)
    after = client.get("/players/1001/?category=constructed")

    record = before.context["section"]["timeline"].record
    assert after.context["section"]["timeline"].record.losses == record.losses + 1
    assert history_rows(after)[0].event.name == "League night"
    assert chart_data(after.content.decode())["events"][-1] == "League night"
    assert after.context["section"]["table"].paginator.count == before.context["section"]["table"].paginator.count + 1


def test_a_second_visit_reads_only_the_page_of_the_history(
    client, ranked_default_bundle, django_assert_max_num_queries
):
    client.get("/players/1001/?category=constructed")

    # Player, lists, standings, the players tied with them (where they stand), the page of the history, its
    # corrections, teams, whether the player is suspended.
    with django_assert_max_num_queries(9):
        response = client.get("/players/1001/?category=constructed&page=2")
    assert response.context["section"]["timeline"].record.matches == 3


def test_a_derived_category_explains_its_components(client, ranked_default_bundle):
    words = text(page(client, "/players/1001/?category=composite"))

    # (1646.56 + 1608) / 2 = 1627.28
    assert "Rating 1627" in words
    assert "mean of constructed (1646) and limited (1608)" in words


def test_a_corrected_match_is_marked_with_its_correction(client, ranked_default_bundle, monkeypatch):
    def corrections(*, match_ids):
        return {
            match_id: [MatchCorrection(date(2003, 6, 1), "an admin", "1–2", "2–1", "scores swapped")]
            for match_id in match_ids[:1]
        }

    monkeypatch.setattr("public.player_views.match_corrections", corrections)

    words = text(page(client, "/players/1001/?category=constructed"))

    assert "Corrected 2003-06-01: 1–2 → 2–1 by an admin: scores swapped" in words


def test_no_match_is_marked_corrected_while_corrections_are_not_recorded(client, ranked_default_bundle):
    assert "Corrected" not in page(client, "/players/1001/?category=constructed")


# The chart's data ----------------------------------------------------------------------------


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


def test_the_chart_starts_from_the_start_rating_and_runs_to_today(client, ranked_default_bundle):
    """Alice (1001) played one event, Munich Open (1 May 2003): 1600 before it, 1646 after; ranked from it."""
    chart = client.get("/players/1001/?category=constructed").context["section"]["chart"]

    assert chart["start"] == 1600
    assert chart["dates"] == ["2003-05-01"] and chart["ratings"] == [1646]
    assert chart["today"] == date.today().isoformat()
    assert chart["ranked_from"] == "2003-05-01"  # ranked from one match in this world


def test_a_participant_short_of_the_ranked_threshold_has_no_ranked_date():
    points = [EventPoint(date(2020, 1, day), day, f"E{day}", 1600.0, 1610.0) for day in range(1, 4)]
    for point in points:
        point.record.wins = 2  # six matches in all
    category = Category(name="C", display_rounding="truncate", ranked_after=10)

    data = elo_chart_data(category=category, timeline=Timeline(points, None, []), today=date(2021, 1, 1))

    assert data["ranked_from"] is None and data["today"] == "2021-01-01"
    category.ranked_after = 5
    assert elo_chart_data(category=category, timeline=Timeline(points, None, []))["ranked_from"] == "2020-01-03"


def test_the_history_explains_expected_and_k_in_words(client, ranked_default_bundle):
    """Munich Open (E1) is a K 32 event: a qualifier."""
    page = client.get("/players/1001/?category=constructed").content.decode()

    assert "event K 32: qualifier (e.g. Pro Tour Qualifier)" in page
    assert 'title="Expected score (win probability) from both ratings before the match"' in page
    assert "What the columns mean" in page and "K &times; (score &minus; expected)" in page
    assert 'href="/calculator/#explained"' in page
