"""Finding a player by any spelling: case, accents, word order, a typo; suggestions as a name is typed.

Run on SQLite (fold_name from Python) and PostgreSQL (fold_name over unaccent, the typo by trigrams).
"""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from hypothesis import given
from hypothesis import strategies as st

from players.models import Player, Team
from players.search import name_folded, suggested_number
from players.selectors import player_matches
from ratings.models import CurrentRating
from tests.factories import PlayerFactory

pytestmark = pytest.mark.django_db

NAMES = ["Niklas Krüger", "Ana Conceição", "Mikhail Sokolov", "Søren Ærø", "Łukasz Wałęsa", "Jean-Luc O'Brien"]


@pytest.fixture
def players():
    return {name: PlayerFactory(name=name, membership_number=f"77{number}") for number, name in enumerate(NAMES)}


def found(query) -> list[str]:
    return [player.name for player in player_matches(query=query).players]


@pytest.mark.parametrize(
    ("query", "name"),
    [
        ("kruger", "Niklas Krüger"),
        ("KRÜGER", "Niklas Krüger"),
        ("Conceicao", "Ana Conceição"),
        ("Sokolov Mikhail", "Mikhail Sokolov"),
        ("mikhail   sokolov", "Mikhail Sokolov"),
        ("soren aero", "Søren Ærø"),
        ("lukasz walesa", "Łukasz Wałęsa"),
        ("o'brien jean", "Jean-Luc O'Brien"),
    ],
)
def test_case_accents_and_word_order_do_not_matter(players, query, name):
    matches = player_matches(query=query)

    assert [player.name for player in matches.players] == [name]
    assert not matches.near


@pytest.mark.parametrize(
    ("query", "name"),
    [("sokolow", "Mikhail Sokolov"), ("Mikail Sokolov", "Mikhail Sokolov"), ("krugr", "Niklas Krüger")],
)
def test_a_typo_finds_the_names_like_it_and_says_so(players, query, name):
    matches = player_matches(query=query)

    assert [player.name for player in matches.players][:1] == [name]
    assert matches.near


def test_a_search_like_no_name_finds_nobody(players):
    assert found("zzyzx qwv") == []


def test_a_membership_number_prefix_still_finds_its_players(players):
    assert found("770") == ["Niklas Krüger"]


def test_the_players_page_says_when_it_shows_names_like_the_search(client, players):
    page = client.get("/players/?q=sokolow").content.decode()

    assert "No player is called “sokolow”: 1 with a name like it" in page
    assert "Mikhail Sokolov" in page


def test_suggestions_answer_as_the_search_finds(client, players):
    response = client.get("/suggest/players/?q=kruger")

    assert response.json() == [{"name": "Niklas Krüger", "number": "770", "country": "DE"}]
    assert client.get("/suggest/players/?q=k").json() == []  # too short to suggest


def test_a_suggestion_picked_goes_to_its_player(client, players):
    response = client.get("/players/?q=Niklas Krüger (770)")

    assert response.status_code == 302 and response["Location"] == "/players/770/"


@pytest.mark.parametrize(
    ("query", "number"),
    [("Niklas Krüger (770)", "770"), ("770", "770"), ("Ana (Ani) Conceição", "Ana (Ani) Conceição"), ("()", "()")],
)
def test_the_number_of_a_suggestion_is_read_from_its_parentheses(query, number):
    assert suggested_number(query) == number


def test_the_database_folds_names_as_python_does(players):
    """fold_name in SQL (unaccent on PostgreSQL) agrees with name_folded on every name the tests use."""
    with connection.cursor() as cursor:
        for name in NAMES:
            cursor.execute("SELECT fold_name(%s)", [name])
            assert cursor.fetchone()[0] == name_folded(name)


@given(st.text(alphabet=st.characters(codec="utf-8", categories=["L", "Zs"]), max_size=30))
def test_folding_is_idempotent_and_keeps_no_accent_or_capital(name):
    folded = name_folded(name)

    assert name_folded(folded) == folded
    assert folded == folded.lower()
    assert "́" not in folded  # no combining acute accent survives


@pytest.mark.parametrize("query", ["dubois chloe", "CHLOE", "Chloé Dubois", "chloe dubos"])
def test_a_ranking_list_finds_a_player_by_any_spelling_too(client, ranked_default_bundle, query):
    """The ranking page and the API search a list as the player search does, a typo forgiven."""
    page = client.get("/rankings/constructed/", {"q": query})
    api = client.get("/api/rankings/constructed/", {"q": query}).json()

    names = [row.record.name for row in page.context["table"].paginated_rows]
    assert names == ["Chloé Dubois"]
    assert [row["name"] for row in api["results"]] == ["Chloé Dubois"]
    typo = query == "chloe dubos"
    assert api["near"] is typo
    assert ("Nobody in this list is called “chloe dubos”: these names are like it." in page.content.decode()) is typo
    assert page.context["near"] is typo


def test_a_ranking_list_forgives_a_typo_in_the_past_and_in_a_team_list(client, ranked_default_bundle):
    past = client.get("/rankings/constructed/", {"q": "chloe dubos", "as_of": "2003-12-31"})
    team = client.get("/rankings/team-constructed/", {"q": "chloe dubos", "list": "unranked"})
    nobody = client.get("/rankings/constructed/", {"q": "zzyzx qwv"})

    assert [row.record.name for row in past.context["table"].paginated_rows] == ["Chloé Dubois"]
    assert past.context["near"]
    assert [row.record.name for row in team.context["table"].paginated_rows] == ["Bavarian Dragons"]
    assert team.context["near"]
    assert list(nobody.context["table"].paginated_rows) == [] and not nobody.context["near"]


def test_the_api_says_when_its_players_are_found_by_names_like_the_query(client, players):
    typo = client.get("/api/players/", {"q": "sokolow"}).json()
    exact = client.get("/api/players/", {"q": "sokolov"}).json()
    nobody = client.get("/api/players/", {"q": "zzyzx qwv"}).json()

    assert ([row["name"] for row in typo["results"]], typo["near"]) == (["Mikhail Sokolov"], True)
    assert ([row["name"] for row in exact["results"]], exact["near"]) == (["Mikhail Sokolov"], False)
    assert (nobody["results"], nobody["near"]) == ([], False)


def test_a_team_list_finds_a_team_by_its_name_or_any_members_number(client, ranked_default_bundle):
    """A team list is searched in its own rows: the words of the team's name in any order, or the membership
    number of any member (the list's id is the members' numbers joined by "+")."""
    team = Team.objects.get(name="Bavarian Dragons")
    last_member = max(team.members.values_list("membership_number", flat=True))

    for query in ["dragons BAVARIAN", last_member]:
        page = client.get("/rankings/team-constructed/", {"q": query, "list": "unranked"})
        assert [row.record.name for row in page.context["table"].paginated_rows] == ["Bavarian Dragons"], query
        assert not page.context["near"]


def test_a_list_of_players_finds_them_by_number_prefix_and_not_the_players_outside_it(client, ranked_default_bundle):
    """The ranking search asks the players' table who is called so; only those in this list are shown."""
    listed = CurrentRating.objects.filter(category__slug="constructed").values_list("display_id", flat=True)
    outsider = Player.objects.exclude(membership_number__in=listed).first()

    by_number = client.get("/rankings/constructed/", {"q": "1001"})
    outside = client.get("/rankings/constructed/", {"q": outsider.name})

    assert [row.record.display_id for row in by_number.context["table"].paginated_rows] == ["1001"]
    assert list(outside.context["table"].paginated_rows) == []
    assert not outside.context["near"]


def test_a_past_lists_search_finding_more_than_it_names_shows_the_same_rows(
    client, ranked_default_bundle, monkeypatch, settings
):
    """A past date's list is searched by whom today's list finds: past PAST_SORTED_WHOLE_UP_TO rows found they are
    paged by the database instead of by their keys, with the same rows; named as one array still, never as a query
    on today's list (on PostgreSQL planned from the past list's statistics, which a list just written has not
    yet)."""
    settings.PUBLIC_PAGE_KEPT_MAX_BYTES = 0  # each page rendered, none served as kept
    asked = {"q": "o", "as_of": "2003-12-31"}
    named = client.get("/rankings/constructed/", asked)
    monkeypatch.setattr("ratings.selectors.rankings.PAST_SORTED_WHOLE_UP_TO", 1)
    with CaptureQueriesContext(connection) as queries:
        queried = client.get("/rankings/constructed/", asked)

    past_list_reads = [query["sql"] for query in queries if "ratings_snapshotrating" in query["sql"]]
    assert past_list_reads
    assert not any("ratings_currentrating" in sql for sql in past_list_reads)

    def rows(page):
        return [(row.record.name, row.record.display_id) for row in page.context["table"].paginated_rows]

    assert len(rows(named)) > 1
    assert rows(queried) == rows(named)
    assert all("o" in name_folded(name) for name, _ in rows(named))
