"""The ranking pages (SPEC 4): /rankings/ and /rankings/<category>/ with every filter, export and error."""

import csv
import io
import re
from datetime import date, timedelta

import pytest
from django.core.cache import cache
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from devtools.demo import demo_bundle_write
from organize.importer import results_import
from players.formatting import day
from players.models import Player, Team
from public import conditional
from ratings.engine import expected_score
from ratings.models import Category, CurrentRating, RankingSnapshot, SnapshotRating
from ratings.selectors.lists import ranking_list
from ratings.services.lists import current_lists_refresh_stale, current_ratings_rebuild, participant_lists_refresh
from ratings.snapshots import end_of_previous_month
from tests.bundles import Bundle
from tests.worlds import bundle_rated

HEADER = ["rank", "player_id", "name", "country", "region", "rating", "matches", "ranked"]
FORMULA_NAME = '=HYPERLINK("http://x")'
TODAY = timezone.localdate()
THIS_MONTH = TODAY.replace(day=1)
LAST_MONTH = end_of_previous_month(TODAY).replace(day=10)

# Last month 1001 and 1005 each beat an opponent twice, 1003 and 1004 drew twice; this month 1006 beat 1005 twice.
TWO_WINS = 1600 + 8 + 16 * (1 - expected_score(1608, 1592))
TWO_LOSSES = 3200 - TWO_WINS


def a_world(tmp_path) -> Bundle:
    """Constructed ranked after 2 matches, K 16; two unranked Germans; a dci-1997 category; a team event; V:TES."""
    bundle = Bundle(tmp_path)
    for file in ("events.csv", "matches.csv", "standings.csv"):
        bundle.rows[file] = []
    bundle.add_category("constructed", "Constructed", formats="standard block extended", ranked_after="2")
    bundle.add_category("classic", "Classic", ruleset="dci-1997", formats="vintage", ranked_after="1")
    bundle.add_player("1007", FORMULA_NAME, "DE", "DE-BW")
    bundle.add_player("1008", "Greta Hahn", "DE", "DE-BY")
    bundle.add_event("A", date=LAST_MONTH.isoformat(), format="standard", k="16")
    for round_number in (1, 2):
        bundle.add_match("A", round_number, "1001", "1002", 2, 0, 0)
        bundle.add_match("A", round_number, "1003", "1004", 1, 1, 1)
        bundle.add_match("A", round_number, "1005", "1006", 2, 0, 0)
    bundle.add_match("A", 3, "1007", "1008", 2, 0, 0)
    bundle.add_event("B", date=THIS_MONTH.isoformat(), format="standard", k="16")
    for round_number in (1, 2):
        bundle.add_match("B", round_number, "1006", "1005", 2, 0, 0)
    bundle.add_event("C", date=LAST_MONTH.isoformat(), format="vintage", k="16", players="8", level2_judge="1")
    bundle.add_match("C", 1, "1001", "1002", 2, 0, 0)
    bundle.add_event("T", date=LAST_MONTH.isoformat(), format="standard", k="16", team_size="3")
    bundle.add_match("T", 1, "T1", "T2", 2, 1, 0)
    bundle.add_event("V", date=LAST_MONTH.isoformat(), format="vtes", k="", level="national", country="US")
    bundle.add_standing("V", "1001", 1, "3.5", 2, "winner")
    bundle.add_standing("V", "1004", 2, "2", 1, "finalist")
    bundle.add_standing("V", "1006", 3, "0.5", 0, "")
    return bundle


@pytest.fixture
def two_months_rated(db, tmp_path):
    """The world of `a_world` (last month's events and this month's), imported and rated."""
    bundle_rated(a_world(tmp_path))


def listed(response) -> list[tuple[str, int | None]]:
    return [(row.record.display_id, row.record.rank) for row in response.context["table"].paginated_rows]


def cells(response, column: str) -> dict[str, str]:
    return {row.record.display_id: str(row.get_cell(column)) for row in response.context["table"].paginated_rows}


def export(response) -> list[list[str]]:
    lines = b"".join(response.streaming_content).decode().splitlines()
    assert next(csv.reader(lines[:1])) == HEADER
    return list(csv.reader(lines[1:]))


def export_command(*args) -> list[list[str]]:
    out = io.StringIO()
    call_command("export_ratings", "--category", "constructed", *args, stdout=out)
    return list(csv.reader(out.getvalue().splitlines()[1:]))


# lists and levels -------------------------------------------------------------------------------------------


def test_the_world_list_ranks_by_rating_and_ties_share_a_rank(client, two_months_rated):
    response = client.get("/rankings/constructed/")

    assert response.status_code == 200
    assert listed(response) == [("1001", 1), ("1006", 2), ("1003", 3), ("1004", 3), ("1005", 5), ("1002", 6)]
    assert "Constructed — World — as of " + day(TODAY) + " — ranked players (2+ matches)" in (response.content.decode())


def test_the_unranked_list_holds_those_under_the_threshold(client, two_months_rated):
    response = client.get("/rankings/constructed/?list=unranked")

    assert listed(response) == [("1007", None), ("1008", None)]
    html = response.content.decode()
    assert "unranked players (fewer than 2 matches)" in html
    assert 'class="col-movement' not in html  # no rank, so no movement either


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("continent=EU", [("1001", 1), ("1003", 2), ("1002", 3)]),
        ("continent=eu", [("1001", 1), ("1003", 2), ("1002", 3)]),
        ("country=DE", [("1001", 1), ("1002", 2)]),
        ("country=DE&region=DE-BY", [("1001", 1)]),
        ("region=DE-BY", [("1001", 1)]),  # a region alone implies its country
        ("country=US", [("1004", 1)]),
        ("country=IT", []),
    ],
)
def test_each_level_ranks_within_its_place(client, two_months_rated, query, expected):
    response = client.get(f"/rankings/constructed/?{query}")

    assert response.status_code == 200
    assert listed(response) == expected


def test_a_region_list_is_captioned_with_region_and_country(client, two_months_rated):
    html = client.get("/rankings/constructed/?region=de-by").content.decode()

    assert "Constructed — Bayern, Germany — as of" in html
    canonical = "http://testserver/rankings/constructed/?country=DE&amp;region=DE-BY"
    assert f'<link rel="canonical" href="{canonical}">' in html


def test_the_levels_offered_are_the_places_in_the_list(client, two_months_rated):
    response = client.get("/rankings/constructed/?country=DE")

    places = response.context["places"]
    assert [code for code, _ in places.continents] == ["AS", "EU", "NA"]
    assert {code for _, members in places.countries for code, _ in members} == {"DE", "FR", "JP", "US"}
    assert response.context["regions"] == [("DE-BW", "Baden-Württemberg"), ("DE-BY", "Bayern")]
    html = response.content.decode()
    assert '<option value="DE-BY">Bayern</option>' in html
    assert 'href="/rankings/constructed/?continent=EU">Europe</a>' in html  # one level up


def test_search_finds_by_name_or_number_and_keeps_the_rank(client, two_months_rated):
    by_name = client.get("/rankings/constructed/?q=CHLO")
    by_number = client.get("/rankings/constructed/?q=1005")
    by_number_prefix = client.get("/rankings/constructed/?q=100&country=DE")

    assert listed(by_name) == [("1003", 3)]
    assert listed(by_number) == [("1005", 5)]
    assert listed(by_number_prefix) == [("1001", 1), ("1002", 2)]
    assert listed(client.get("/rankings/constructed/?q=005")) == []  # numbers match from their start


def test_a_new_name_is_searched_folded_once_the_lists_take_it(client, two_months_rated):
    """A player's corrected name reaches today's lists (participant_lists_refresh); the list keeps it folded, so
    a search finds the new name, accents and case aside, and no longer the old."""
    player = Player.objects.get(membership_number="1003")
    old = player.name.split()[0]
    Player.objects.filter(pk=player.pk).update(name="Zoë Ångström")
    participant_lists_refresh(participant_id=player.participant_id)

    assert listed(client.get("/rankings/constructed/?q=angstrom zoe")) == [("1003", 3)]
    assert listed(client.get("/rankings/constructed/?q=ÅNGSTRÖM")) == [("1003", 3)]
    assert listed(client.get(f"/rankings/constructed/?q={old}")) == []


def test_sorting_by_a_column_keeps_the_ranks(client, two_months_rated):
    response = client.get("/rankings/constructed/?sort=name")

    assert [number for number, _ in listed(response)] == ["1001", "1002", "1003", "1004", "1005", "1006"]
    assert dict(listed(response))["1005"] == 5
    assert listed(client.get("/rankings/constructed/?sort=-rank"))[0] == ("1002", 6)


def test_movement_compares_with_the_end_of_last_month(client, two_months_rated):
    response = client.get("/rankings/constructed/")

    movement = cells(response, "movement")
    assert "▲ 3" in movement["1006"] and "up 3" in movement["1006"]  # 5th at the end of last month, 2nd now
    assert "▼ 4" in movement["1005"] and "down 4" in movement["1005"]
    assert "▼ 1" in movement["1002"]
    assert "unchanged" in movement["1001"]
    assert "unchanged" in movement["1003"] and "unchanged" in movement["1004"]


def test_a_player_ranked_only_since_this_month_is_new(client, db, tmp_path):
    bundle = a_world(tmp_path)
    bundle.add_match("B", 3, "1007", "1008", 2, 0, 0)  # their second match: ranked from this month on
    results_import(source=bundle.write())
    call_command("recompute_ratings", stdout=io.StringIO())

    movement = cells(client.get("/rankings/constructed/?country=DE"), "movement")

    assert ">new<" in movement["1007"]
    assert ">new<" in movement["1008"]


def test_ratings_show_as_the_category_displays_them(client, two_months_rated):
    constructed = cells(client.get("/rankings/constructed/"), "rating")
    vtes = cells(client.get("/rankings/vtes/"), "rating")

    assert constructed["1001"] == str(int(TWO_WINS)) != str(round(TWO_WINS))  # truncated
    points = ranking_list(category=Category.objects.get(slug="vtes"))[0]
    assert points.player_id == "1001" and points.rating % 1 >= 0.5
    assert vtes["1001"] == str(int(points.rating) + 1)  # rounded


def test_a_dci_1997_list_marks_provisional_ratings(client, two_months_rated):
    response = client.get("/rankings/classic/")

    provisional = cells(response, "provisional")
    assert listed(response) == [("1001", 1), ("1002", 2)]
    assert "provisional" in provisional["1001"] and ">P<" in provisional["1001"]
    assert "fewer than 25 matches" in provisional["1001"]
    assert 'class="col-provisional' not in client.get("/rankings/constructed/").content.decode()


def test_a_team_list_links_to_the_teams(client, two_months_rated):
    response = client.get("/rankings/team-constructed/?list=unranked")

    teams = {team.member_key.replace(" ", "+"): team.participant_id for team in Team.objects.all()}
    html = response.content.decode()
    assert sorted(number for number, _ in listed(response)) == sorted(teams)
    for participant_id in teams.values():
        assert f'href="/teams/{participant_id}/"' in html
    assert "/players/" not in html.split("<tbody>")[1].split("</tbody>")[0]


def test_names_link_to_the_players_with_flag_and_region(client, two_months_rated):
    html = client.get("/rankings/constructed/?country=DE").content.decode()

    assert '<a href="/players/1001/">Alice Archer</a>' in html
    assert 'src="/static/flags/de.gif"' in html
    assert "Bayern" in html


def test_a_list_built_before_today_is_shown_as_built_until_the_workers_rebuild_it(client, two_months_rated):
    constructed = Category.objects.get(slug="constructed")
    current_ratings_rebuild(category=constructed, today=TODAY - timedelta(days=40))  # last month's ranks were older

    client.get("/rankings/constructed/")  # a GET writes nothing
    assert set(CurrentRating.objects.filter(category=constructed).values_list("built_on", flat=True)) == {
        TODAY - timedelta(days=40)
    }
    current_lists_refresh_stale()  # what the job workers do just after midnight
    response = client.get("/rankings/constructed/")

    assert set(CurrentRating.objects.filter(category=constructed).values_list("built_on", flat=True)) == {TODAY}
    assert "▲ 3" in cells(response, "movement")["1006"]


# past dates --------------------------------------------------------------------------------------------------


def test_a_past_date_gives_the_list_of_that_date(client, two_months_rated):
    end_of_last_month = end_of_previous_month(TODAY)

    response = client.get(f"/rankings/constructed/?as_of={end_of_last_month}")

    assert listed(response) == [("1001", 1), ("1005", 1), ("1003", 3), ("1004", 3), ("1002", 5), ("1006", 5)]
    assert set(cells(response, "movement").values()) == {
        '<span class="move move-new" title="Not ranked here since '
        f'{day(end_of_previous_month(end_of_last_month))}">new</span>'
    }
    assert f"as of {day(end_of_last_month)}" in response.content.decode()
    assert listed(client.get(f"/rankings/constructed/?as_of={LAST_MONTH - timedelta(days=1)}")) == []


def test_a_past_date_filters_levels_search_and_unranked_too(client, two_months_rated):
    day = end_of_previous_month(TODAY).isoformat()

    assert listed(client.get(f"/rankings/constructed/?as_of={day}&country=DE")) == [("1001", 1), ("1002", 2)]
    assert listed(client.get(f"/rankings/constructed/?as_of={day}&q=dan")) == [("1004", 3)]
    assert listed(client.get(f"/rankings/constructed/?as_of={day}&list=unranked")) == [("1007", None), ("1008", None)]
    assert listed(client.get(f"/rankings/constructed/?as_of={day}&sort=-name"))[0] == ("1006", 5)


def test_past_movement_equals_the_difference_of_the_computed_ranks(client, db, tmp_path):
    demo_bundle_write(tmp_path, players=150, events=40, seed=3, start=date(2024, 1, 1), end=date(2024, 12, 10))
    results_import(source=tmp_path)
    call_command("recompute_ratings", stdout=io.StringIO())
    constructed = Category.objects.get(slug="constructed")
    day = date(2024, 10, 20)

    response = client.get(f"/rankings/constructed/?as_of={day}&continent=EU&per_page=200")

    now = {row.player_id: row.rank for row in ranking_list(category=constructed, as_of=day, continent="EU")}
    before = {
        row.player_id: row.rank
        for row in ranking_list(category=constructed, as_of=date(2024, 9, 30), continent="EU")
        if row.rank
    }
    movement = cells(response, "movement")
    assert [number for number, _ in listed(response)] == [number for number, rank in now.items() if rank]
    assert any(before.get(number) not in (None, rank) for number, rank in now.items() if rank)
    for number, html in movement.items():
        change = before[number] - now[number] if number in before else None
        if change is None:
            assert ">new<" in html
        elif change == 0:
            assert "unchanged" in html
        else:
            assert f"{'▲' if change > 0 else '▼'} {abs(change)}" in html


def test_a_cached_past_list_is_replaced_by_a_recompute(client, db, tmp_path):
    bundle = a_world(tmp_path)
    results_import(source=bundle.write())
    call_command("recompute_ratings", stdout=io.StringIO())
    url = f"/rankings/constructed/?as_of={end_of_previous_month(TODAY)}"
    assert listed(client.get(url))[:2] == [("1001", 1), ("1005", 1)]

    bundle.change_match("A", "1", "1005", player1_games="0", player2_games="2")
    results_import(source=bundle.write())
    call_command("recompute_ratings", stdout=io.StringIO())

    after = listed(client.get(url))
    assert after[:1] == [("1001", 1)]
    assert dict(after)["1005"] > 1


# bad requests -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("country=ZZ", "“ZZ” is not a country code"),
        ("country=Germany", "Ensure this value has at most 2 characters"),
        ("region=DE-XX", "“DE-XX” is not a region code"),
        ("country=FR&region=DE-BY", "DE-BY is not a region of France."),
        ("continent=XX", "“XX” is not a continent."),
        ("continent=AS&country=DE", "Germany is not in Asia."),
        ("continent=AS&region=DE-BY", "Germany is not in Asia."),
        ("as_of=2024-02-30", "Give the date as YYYY-MM-DD"),
        ("as_of=yesterday", "Give the date as YYYY-MM-DD"),
        (f"as_of={TODAY + timedelta(days=1)}", "Rankings are known up to today"),
        ("list=everyone", "The list is either ranked"),
    ],
)
def test_bad_parameters_are_explained_on_the_page(client, two_months_rated, query, message):
    response = client.get(f"/rankings/constructed/?{query}")

    assert response.status_code == 400
    html = response.content.decode()
    assert 'role="alert"' in html
    assert message in html
    assert "<table" not in html
    assert "Constructed" in html  # the category tabs are still there to go elsewhere


def test_a_bad_export_request_is_a_plain_400(client, two_months_rated):
    bad_filter = client.get("/rankings/constructed/?country=ZZ&_export=csv")
    bad_format = client.get("/rankings/constructed/?_export=xlsx")

    assert bad_filter.status_code == bad_format.status_code == 400
    assert (
        bad_filter.content.decode() == "country: “ZZ” is not a country code (ISO 3166-1 alpha-2, such as DE or US).\n"
    )


def test_a_bad_page_or_sort_falls_back_to_a_real_one(client, two_months_rated):
    assert listed(client.get("/rankings/constructed/?page=abc&per_page=2")) == [("1001", 1), ("1006", 2)]
    assert listed(client.get("/rankings/constructed/?page=99&per_page=2")) == [("1005", 5), ("1002", 6)]
    assert len(listed(client.get("/rankings/constructed/?per_page=100000"))) == 6
    assert listed(client.get("/rankings/constructed/?sort=nonsense&per_page=1")) == [("1001", 1)]


def test_an_unknown_category_is_404(client, two_months_rated):
    assert client.get("/rankings/no-such-list/").status_code == 404


# shareable URLs --------------------------------------------------------------------------------------------------


def test_every_state_of_the_page_is_in_its_url(client, two_months_rated):
    response = client.get("/rankings/constructed/?q=a&list=unranked&as_of=2024-01-01&country=de&sort=name&page=1")

    urls = response.context["urls"]
    assert urls["canonical"] == "/rankings/constructed/?country=DE&as_of=2024-01-01&list=unranked&q=a&sort=name"
    assert urls["csv"] == "/rankings/constructed/?country=DE&as_of=2024-01-01&list=unranked&q=a&_export=csv"
    assert urls["ranked"] == "/rankings/constructed/?country=DE&as_of=2024-01-01&q=a"
    assert urls["world"] == "/rankings/constructed/?as_of=2024-01-01&list=unranked&q=a"
    today = client.get("/rankings/constructed/").context["urls"]
    assert today["permalink"] == f"/rankings/constructed/?as_of={TODAY.isoformat()}"


def test_the_page_works_without_javascript(client, two_months_rated):
    html = client.get("/rankings/constructed/?country=DE").content.decode()

    # The one script suggests names in the search boxes as they are typed; every form is a plain GET without it.
    assert re.findall(r"<script[^>]*>", html) == ['<script src="/static/js/suggest.js" defer>']
    assert html.count('<form class="picker" method="get"') == 3  # continent, country, region
    assert '<input type="hidden" name="country" value="DE">' in html
    assert 'aria-current="page">Constructed</a>' in html


# the index ------------------------------------------------------------------------------------------------------------


def test_the_index_shows_every_category_with_its_top_three(client, two_months_rated):
    response = client.get("/rankings/")

    html = response.content.decode()
    for category in Category.objects.all():
        assert f'href="/rankings/{category.slug}/"' in html
    constructed = dict(response.context["categories"])[Category.objects.get(slug="constructed")]
    assert [(leader.display_id, leader.rank) for leader in constructed] == [("1001", 1), ("1006", 2), ("1003", 3)]
    assert "Elo ratings (DCI 2001) from Standard, Block and Extended events." in html


# speed ----------------------------------------------------------------------------------------------------------------


def a_world_of(tmp_path, players: int):
    bundle = Bundle(tmp_path)
    bundle.rows = {file: [] for file in bundle.rows}
    bundle.absent = {"teams.csv", "standings.csv", "categories.csv"}
    bundle.add_category("constructed", "Constructed", formats="standard block extended", ranked_after="1")
    bundle.add_event("X", date=LAST_MONTH.isoformat(), format="standard", k="16")
    for number in range(players):
        bundle.add_player(f"P{number}", f"Player {number}", ["DE", "FR", "US"][number % 3])
    for number in range(0, players - 1, 2):
        bundle.add_match("X", 1, f"P{number}", f"P{number + 1}", 2, number % 3, 0)
    results_import(source=bundle.write())
    call_command("recompute_ratings", category="constructed", stdout=io.StringIO())


@pytest.mark.parametrize("query", ["", "country=DE", "q=player", "list=unranked", "sort=rating", "as_of={past}"])
def test_the_query_count_grows_with_neither_players_nor_page_size(client, db, tmp_path, query):
    query = query.format(past=end_of_previous_month(TODAY))
    counts = []
    for players, per_page in ((20, 10), (240, 200)):
        a_world_of(tmp_path / str(players), players)
        cache.clear()
        RankingSnapshot.objects.all().delete()  # else the second visit also deletes the first world's past lists
        with CaptureQueriesContext(connection) as queries:
            response = client.get(f"/rankings/constructed/?{query}&per_page={per_page}")
        assert response.status_code == 200
        counts.append(len(queries))
    assert counts[0] == counts[1]


def test_todays_list_takes_a_handful_of_queries(client, db, tmp_path, django_assert_max_num_queries):
    a_world_of(tmp_path, 100)
    client.get("/rankings/constructed/")  # a first visit may rebuild a list built before today

    with django_assert_max_num_queries(5):  # categories, list freshness, places, count, page
        response = client.get("/rankings/constructed/?country=DE&per_page=100")
    assert len(listed(response)) == 34
    with django_assert_max_num_queries(5):
        export(client.get("/rankings/constructed/?_export=csv"))


def test_a_past_list_is_written_once_then_read_a_page_at_a_time(
    client, two_months_rated, django_assert_max_num_queries, monkeypatch
):
    url = f"/rankings/constructed/?as_of={end_of_previous_month(TODAY)}"
    client.get(url)
    written = SnapshotRating.objects.count()
    monkeypatch.setattr(conditional, "_kept_page", lambda etag: None)  # as a process that has not rendered it

    # Categories, whether both dates are written (else the visitor spends from their budget of new dates),
    # the snapshots of the date and the month before, count, page.
    with django_assert_max_num_queries(5):
        response = client.get(url)
    assert len(listed(response)) == 6
    assert SnapshotRating.objects.count() == written


def test_the_index_takes_two_queries(client, two_months_rated, django_assert_max_num_queries):
    with django_assert_max_num_queries(2):  # categories, the top three of every category
        client.get("/rankings/")
