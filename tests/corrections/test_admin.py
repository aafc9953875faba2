"""The admin: every page loads, searches and filters find the right rows, adds go through the services."""

import datetime
import itertools
import re

import pytest
from django.apps import apps
from django.contrib import admin
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from events.models import Event, Match, Standing
from events.services import event_kinds, results_changed_send
from players.models import Participant, Player, Suspension, Team
from players.services import player_create, team_create
from ratings.models import (
    Category,
    CurrentRank,
    CurrentRating,
    EventScore,
    OfficialList,
    RankingSnapshot,
    RatingEntry,
    RecomputeRun,
    SnapshotRating,
)
from ratings.services.official import official_lists_publish
from ratings.snapshots import ranking_snapshots
from tests.worlds import every_category_recomputed

pytestmark = pytest.mark.django_db

OUR_MODELS = [model for label in ["players", "events", "ratings"] for model in apps.get_app_config(label).get_models()]
_numbers = itertools.count(1)


def url(model, view, *args):
    return reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_{view}", args=args)


def listed(response):
    assert response.status_code == 200
    return list(response.context["cl"].result_list)


def a_player(name=None, country="", region="", membership_number=None):
    number = next(_numbers)
    return player_create(
        membership_number=membership_number or f"P{number}",
        name=name or f"Player {number}",
        country=country,
        region=region,
    )


def a_team(name="", members=None):
    return team_create(members=members or [a_player() for _ in range(3)], name=name)


def an_event(name="Open", team_size=1, **fields):
    fields.setdefault("date", datetime.date(2003, 5, 1))
    fields.setdefault("status", "submitted")
    return Event.objects.create(name=name, format="standard", team_size=team_size, player_count=8, **fields)


def a_match(event, participant1, participant2, round_number=1, games=(2, 1)):
    return Match.objects.create(
        event=event,
        round=round_number,
        participant1=participant1,
        participant2=participant2,
        games1=games[0],
        games2=games[1],
    )


@pytest.fixture
def one_row_of_every_kind():
    """One row of every kind, so every changelist has something to render."""
    alice = a_player("Alice Archer", "DE", "DE-BY")
    bob = a_player("Bob Baker", "US", "US-CA")
    team = a_team("The Three")
    event = an_event("Grand Prix Berlin", code="gp-berlin", city="Berlin")
    team_event = an_event("Team Open", team_size=3)
    a_match(event, alice.participant, bob.participant)
    a_match(event, alice.participant, None, round_number=2, games=(0, 0))
    a_match(team_event, team.participant, a_team().participant)
    Standing.objects.create(event=event, participant=alice.participant, rank=1, vp=3, gw=2, final="winner")
    vtes_event = Event.objects.create(name="V:TES night", format="vtes", player_count=5, date=datetime.date(2003, 5, 2))
    Standing.objects.create(event=vtes_event, participant=bob.participant, rank=1, vp=3, gw=1, final="winner")
    Event.objects.filter(pk=vtes_event.pk).update(status="submitted")
    # Written through the ORM, which queues nothing: a recompute run is asked for as the services ask.
    results_changed_send(kinds=event_kinds(events=[event, team_event]), reason="results added", requested_by=None)
    Category.objects.filter(slug="constructed").update(ranked_after=1)  # Alice ranked: a row of ranks
    every_category_recomputed()
    ranking_snapshots(category=Category.objects.get(slug="constructed"), dates=[datetime.date(2003, 5, 31)])
    official_lists_publish(categories=Category.objects.filter(slug="constructed"))
    Suspension.objects.create(player=bob, starts_on=datetime.date(2003, 6, 1), reason="Marked cards.")
    return {"alice": alice, "bob": bob, "team": team, "event": event}


def test_every_model_of_our_apps_is_registered():
    assert [model for model in OUR_MODELS if not admin.site.is_registered(model)] == []


@pytest.mark.parametrize("model", OUR_MODELS, ids=lambda model: model._meta.label)
def test_changelist_and_change_page_load(admin_client, one_row_of_every_kind, model):
    rows = listed(admin_client.get(url(model, "changelist")))
    assert rows
    assert admin_client.get(url(model, "change", rows[0].pk)).status_code == 200


# Written only by the recompute, its jobs and the pages' past lists: the admin shows them and nothing more.
RECOMPUTED = (
    RatingEntry, EventScore, RecomputeRun, CurrentRating, CurrentRank, RankingSnapshot, OfficialList, SnapshotRating,
)  # fmt: skip


@pytest.mark.parametrize("model", OUR_MODELS, ids=lambda model: model._meta.label)
def test_add_page_loads_unless_rows_come_from_elsewhere(admin_client, model):
    expected = 403 if model in (Participant, *RECOMPUTED) else 200
    assert admin_client.get(url(model, "add")).status_code == expected


@pytest.mark.parametrize("model", RECOMPUTED, ids=lambda model: model._meta.label)
def test_rows_the_recompute_writes_cannot_be_deleted_in_the_admin(admin_client, one_row_of_every_kind, model):
    page = admin_client.get(url(model, "changelist"))
    row = listed(page)[0]
    assert page.context["action_form"] is None, "no bulk deletion offered"
    assert 'name="_selected_action"' not in page.content.decode()

    assert admin_client.post(url(model, "delete", row.pk), {"post": "yes"}).status_code == 403
    selected = {"action": "delete_selected", "_selected_action": [row.pk], "post": "yes"}
    admin_client.post(url(model, "changelist"), selected)

    assert model.objects.filter(pk=row.pk).exists()


def test_participants_are_read_only(admin_client, one_row_of_every_kind):
    participant = one_row_of_every_kind["alice"].participant
    response = admin_client.post(url(Participant, "change", participant.pk), {"kind": "team"})
    assert response.status_code == 403
    assert admin_client.get(url(Participant, "delete", participant.pk)).status_code == 403


def test_participant_changelist_says_what_each_participant_is(admin_client, one_row_of_every_kind):
    response = admin_client.get(url(Participant, "changelist"))
    assert url(Player, "change", one_row_of_every_kind["alice"].pk) in response.content.decode()
    assert url(Team, "change", one_row_of_every_kind["team"].pk) in response.content.decode()


def test_participants_are_listed_newest_first_and_found_by_a_players_or_teams_name_or_number(admin_client):
    alice, alan = a_player("Alice Archer", membership_number="D100"), a_player("Alan Archer")
    team = a_team("Archers", members=[alice, alan, a_player("Carol Cole")])
    changelist = url(Participant, "changelist")

    assert listed(admin_client.get(changelist)) == [
        team.participant,
        *(p.participant for p in Player.objects.order_by("-id")),
    ]
    # Each word anywhere in a name or a number, a team's included; what a search finds is listed by name.
    found = [alan.participant, alice.participant, team.participant]
    assert listed(admin_client.get(changelist, {"q": "archer"})) == found
    assert listed(admin_client.get(changelist, {"q": "archer ali"})) == [alice.participant]
    assert listed(admin_client.get(changelist, {"q": "d100"})) == [alice.participant, team.participant]
    assert listed(admin_client.get(changelist, {"q": "archers"})) == [team.participant]


def test_todays_lists_are_listed_the_rows_written_last_first_and_filtered_by_their_continent(
    admin_client, one_row_of_every_kind
):
    constructed = Category.objects.get(slug="constructed")
    rows = listed(admin_client.get(url(CurrentRating, "changelist")))
    assert len(rows) > 1
    assert [row.pk for row in rows] == sorted((row.pk for row in rows), reverse=True)

    page = admin_client.get(
        url(CurrentRating, "changelist"), {"continent": "EU", "category__id__exact": constructed.pk}
    )
    assert [row.name for row in listed(page)] == ["Alice Archer"]
    assert "Oceania" in page.content.decode(), "every continent offered, whatever the rows hold"
    alice = one_row_of_every_kind["alice"].participant
    ranks = listed(admin_client.get(url(CurrentRank, "changelist"), {"continent": "EU"}))
    assert {rank.participant for rank in ranks} == {alice}
    assert listed(admin_client.get(url(CurrentRank, "changelist"), {"continent": "OC"})) == []


def test_vekn_scores_are_filtered_by_their_place_in_the_final_whichever_places_there_are(
    admin_client, one_row_of_every_kind
):
    changelist = url(EventScore, "changelist")
    winners = listed(admin_client.get(changelist, {"final": "winner"}))
    page = admin_client.get(changelist, {"final": "finalist"})

    assert [score.participant for score in winners] == [one_row_of_every_kind["bob"].participant]
    assert listed(page) == []
    assert "Finalist" in page.content.decode(), "every place offered, whatever the scores hold"


def test_it_searches_players_by_membership_number_and_name(admin_client, one_row_of_every_kind):
    assert listed(
        admin_client.get(url(Player, "changelist"), {"q": one_row_of_every_kind["bob"].membership_number})
    ) == [one_row_of_every_kind["bob"]]
    assert listed(admin_client.get(url(Player, "changelist"), {"q": "alice arch"})) == [one_row_of_every_kind["alice"]]


def test_it_filters_players_by_continent(admin_client):
    german, american, japanese, unknown = (
        a_player(country="DE"),
        a_player(country="US"),
        a_player(country="JP"),
        a_player(),
    )
    changelist = url(Player, "changelist")
    assert listed(admin_client.get(changelist, {"continent": "EU"})) == [german]
    assert listed(admin_client.get(changelist, {"continent": "NA"})) == [american]
    assert set(listed(admin_client.get(changelist))) == {german, american, japanese, unknown}


def test_it_filters_players_by_country_and_known_region(admin_client, one_row_of_every_kind):
    changelist = url(Player, "changelist")
    assert listed(admin_client.get(changelist, {"country": "US"})) == [one_row_of_every_kind["bob"]]
    with_region = listed(admin_client.get(changelist, {"has_region": "yes"}))
    assert set(with_region) == {one_row_of_every_kind["alice"], one_row_of_every_kind["bob"]}
    assert one_row_of_every_kind["alice"] not in listed(admin_client.get(changelist, {"has_region": "no"}))


def test_the_country_filter_offers_the_countries_players_live_in_and_only_those(admin_client):
    a_player(country="DE"), a_player(country="US"), a_player(country="US"), a_player(country="")
    a_team()  # its members' countries are blank

    page = admin_client.get(url(Player, "changelist")).content.decode()

    assert set(re.findall(r'\?country=([A-Z]{2})"', page)) == {"DE", "US"}


def test_adding_a_player_creates_its_participant(admin_client):
    data = {"membership_number": "4711", "name": "Carla Cruz", "country": "DE", "region": "de-by"}
    response = admin_client.post(url(Player, "add"), data)
    assert response.status_code == 302
    player = Player.objects.get(membership_number="4711")
    assert (player.name, player.region) == ("Carla Cruz", "DE-BY")
    assert player.participant.kind == Participant.Kind.PLAYER
    assert response.url == url(Player, "changelist")


@pytest.mark.parametrize(
    ("country", "region", "message"),
    [
        ("DE", "DE-XX", "DE-XX is not an ISO 3166-2 region code"),
        ("FR", "DE-BY", "DE-BY is a region of Germany: set the country to Germany"),
        ("", "US-CA", "US-CA is a region of United States of America"),
    ],
)
def test_it_refuses_a_region_outside_the_players_country(admin_client, country, region, message):
    data = {"membership_number": "4711", "name": "Carla Cruz", "country": country, "region": region}
    response = admin_client.post(url(Player, "add"), data)
    assert response.status_code == 200
    assert message in response.content.decode()
    assert not Player.objects.exists()
    assert not Participant.objects.exists()


def test_changing_a_membership_number_updates_the_keys_of_the_players_teams(admin_client, one_row_of_every_kind):
    alice = one_row_of_every_kind["alice"]
    team = a_team(members=[alice, one_row_of_every_kind["bob"], a_player(membership_number="Z9")])
    data = {"membership_number": "A1", "name": alice.name, "country": "DE", "region": "DE-BY"}
    assert admin_client.post(url(Player, "change", alice.pk), data).status_code == 302
    team.refresh_from_db()
    assert team.member_key == f"A1 {one_row_of_every_kind['bob'].membership_number} Z9"


def test_adding_a_team_computes_its_member_key_and_participant(admin_client):
    members = [a_player(membership_number=number) for number in ["30", "10", "20"]]
    response = admin_client.post(url(Team, "add"), {"name": "Trio", "members": [member.pk for member in members]})
    assert response.status_code == 302
    team = Team.objects.get()
    assert team.member_key == "10 20 30"
    assert team.participant.kind == Participant.Kind.TEAM
    assert set(team.members.all()) == set(members)


def test_it_refuses_a_second_team_with_the_same_members(admin_client, one_row_of_every_kind):
    members = list(one_row_of_every_kind["team"].members.all())
    response = admin_client.post(url(Team, "add"), {"name": "Copy", "members": [member.pk for member in members]})
    assert response.status_code == 200
    assert "The team “The Three” already has exactly these members" in response.content.decode()
    assert not Team.objects.filter(name="Copy").exists()


def test_it_refuses_a_team_of_the_wrong_size(admin_client):
    members = [a_player(), a_player()]
    response = admin_client.post(url(Team, "add"), {"members": [member.pk for member in members]})
    assert "A team has exactly 3 members; 2 chosen." in response.content.decode()
    assert not Team.objects.exists()


def test_editing_a_team_recomputes_its_member_key(admin_client, one_row_of_every_kind):
    team = one_row_of_every_kind["team"]
    members = [*team.members.all()][:2] + [one_row_of_every_kind["alice"]]
    data = {"name": team.name, "members": [member.pk for member in members]}
    assert admin_client.post(url(Team, "change", team.pk), data).status_code == 302
    team.refresh_from_db()
    assert team.member_key.split() == sorted(member.membership_number for member in members)


def test_it_searches_teams_by_member_number(admin_client, one_row_of_every_kind):
    member = one_row_of_every_kind["team"].members.first()
    assert listed(admin_client.get(url(Team, "changelist"), {"q": member.membership_number})) == [
        one_row_of_every_kind["team"]
    ]


def test_it_searches_events_by_name_code_and_city(admin_client, one_row_of_every_kind):
    for term in ["grand prix", "gp-berlin", "berlin"]:
        assert listed(admin_client.get(url(Event, "changelist"), {"q": term})) == [one_row_of_every_kind["event"]]


@pytest.mark.skipif(connection.vendor != "postgresql", reason="the trigram index is PostgreSQL's")
def test_an_events_search_is_answered_by_the_trigram_index_not_by_reading_every_event(one_row_of_every_kind):
    """The admin's searches of matches by their event (and of events, the same condition) find events by name,
    code or city through event_search_trgm: the index must match what they compile to (UPPER(column) LIKE)."""
    from corrections.results_admin import _events_containing

    with CaptureQueriesContext(connection) as queries:
        assert _events_containing("berlin") == [one_row_of_every_kind["event"].pk]
    with connection.cursor() as cursor:
        # The test's few events would be read whole, or along another index, whatever indexes there are.
        cursor.execute("SET LOCAL enable_seqscan = off; SET LOCAL enable_indexscan = off")
        cursor.execute(f"EXPLAIN {queries[-1]['sql']}")
        plan = "\n".join(row[0] for row in cursor.fetchall())
    assert "event_search_trgm" in plan, plan


def test_the_event_page_links_to_its_matches_and_standings(admin_client, one_row_of_every_kind):
    event = one_row_of_every_kind["event"]
    page = admin_client.get(url(Event, "change", event.pk)).content.decode()
    assert f'{url(Match, "changelist")}?event={event.pk}">2 matches</a>' in page
    assert f'{url(Standing, "changelist")}?event={event.pk}">1 standing</a>' in page
    matches = listed(admin_client.get(url(Match, "changelist"), {"event": event.pk}))
    assert {match.event for match in matches} == {event}
    assert len(matches) == 2


def test_it_searches_matches_by_event_and_player(admin_client, one_row_of_every_kind):
    changelist = url(Match, "changelist")
    by_event = listed(admin_client.get(changelist, {"q": "gp-berlin"}))
    assert {match.event for match in by_event} == {one_row_of_every_kind["event"]}
    by_name = listed(admin_client.get(changelist, {"q": "bob baker"}))
    assert [(match.participant1, match.participant2) for match in by_name] == [
        (one_row_of_every_kind["alice"].participant, one_row_of_every_kind["bob"].participant)
    ]
    by_number = listed(admin_client.get(changelist, {"q": one_row_of_every_kind["alice"].membership_number}))
    assert len(by_number) == 2


@pytest.mark.parametrize("many", [False, True])
def test_matches_found_are_listed_newest_event_first_or_as_a_column_sorts_them(admin_client, monkeypatch, many):
    """A search finding a few events and players sorts the matches it reads (corrections.results_admin
    FEW_FOUND); finding many, the list's own order walks the events' index. The order is the same either way."""
    if many:
        monkeypatch.setattr("corrections.results_admin.FEW_FOUND", 0)
    players = [a_player(name=f"Sorted {n}") for n in range(4)]
    older, newer = (an_event(name="Sorted cup", date=datetime.date(2003, 5, day)) for day in (1, 8))
    for event in (older, newer):
        for round_number in (2, 1):
            a_match(event, players[0].participant, players[round_number].participant, round_number)
    changelist = url(Match, "changelist")

    found = listed(admin_client.get(changelist, {"q": "sorted cup"}))

    assert [(match.event, match.round) for match in found] == [(newer, 1), (newer, 2), (older, 1), (older, 2)]
    column = admin_client.get(changelist).context["cl"].list_display.index("round")
    by_round = listed(admin_client.get(changelist, {"q": "sorted cup", "o": f"-{column}"}))  # round, descending
    assert [match.round for match in by_round] == [2, 2, 1, 1]


def test_it_filters_matches_by_result_round_and_elimination(admin_client, one_row_of_every_kind):
    changelist = url(Match, "changelist")
    assert [match.is_bye for match in listed(admin_client.get(changelist, {"result": "bye"}))] == [True]
    assert len(listed(admin_client.get(changelist, {"result": "win"}))) == 2
    assert len(listed(admin_client.get(changelist, {"round": 2}))) == 1
    assert listed(admin_client.get(changelist, {"elimination__exact": 1})) == []


def test_it_searches_standings_by_player(admin_client, one_row_of_every_kind):
    rows = listed(admin_client.get(url(Standing, "changelist"), {"q": "alice"}))
    assert [standing.participant for standing in rows] == [one_row_of_every_kind["alice"].participant]


def test_participant_autocomplete_finds_players_by_name(admin_client, one_row_of_every_kind):
    response = admin_client.get(
        reverse("admin:autocomplete"),
        {"app_label": "events", "model_name": "match", "field_name": "participant1", "term": "bob"},
    )
    assert response.status_code == 200
    assert [result["text"] for result in response.json()["results"]] == [str(one_row_of_every_kind["bob"])]


def test_a_match_form_refuses_a_participant_who_already_plays_in_that_round(admin_client, one_row_of_every_kind):
    carol = a_player()
    data = {
        "event": one_row_of_every_kind["event"].pk,
        "round": 1,
        "participant1": carol.participant.pk,
        "participant2": one_row_of_every_kind["bob"].participant.pk,
        "games1": 2,
        "games2": 0,
        "draws": 0,
    }
    response = admin_client.post(url(Match, "add"), data)
    assert f"{one_row_of_every_kind['bob']} already plays a match in round 1." in response.content.decode()


def test_a_match_form_refuses_a_team_in_an_individual_event(admin_client, one_row_of_every_kind):
    data = {
        "event": one_row_of_every_kind["event"].pk,
        "round": 3,
        "participant1": one_row_of_every_kind["team"].participant.pk,
        "participant2": one_row_of_every_kind["bob"].participant.pk,
        "games1": 2,
        "games2": 0,
        "draws": 0,
    }
    response = admin_client.post(url(Match, "add"), data)
    assert "is played by players; The Three is a team." in response.content.decode()


def test_a_match_form_refuses_a_drawn_elimination_match(admin_client, one_row_of_every_kind):
    data = {
        "event": one_row_of_every_kind["event"].pk,
        "round": 3,
        "participant1": one_row_of_every_kind["alice"].participant.pk,
        "participant2": one_row_of_every_kind["bob"].participant.pk,
        "games1": 1,
        "games2": 1,
        "draws": 0,
        "elimination": "on",
    }
    response = admin_client.post(url(Match, "add"), data)
    assert "An elimination-round match cannot be a draw." in response.content.decode()


def test_the_match_changelist_query_count_does_not_grow_with_the_matches(admin_client):
    event, team_event = an_event(), an_event("Team Open", team_size=3)

    def add_matches(count):
        for _ in range(count):
            a_match(event, a_player().participant, a_player().participant)
        a_match(event, a_player().participant, None, games=(0, 0))
        a_match(team_event, a_team().participant, a_team().participant)

    def queries():
        with CaptureQueriesContext(connection) as context:
            rows = listed(admin_client.get(url(Match, "changelist")))
        return len(rows), len(context.captured_queries)

    add_matches(1)
    few_rows, few_queries = queries()
    add_matches(25)
    many_rows, many_queries = queries()
    assert (few_rows, many_rows) == (3, 30)
    assert many_queries == few_queries


def test_the_match_changelist_names_each_side_player_or_team(admin_client):
    """The sides are read after the page's rows are chosen (MatchAdmin.get_queryset), each as what it is."""
    event, team_event = an_event(), an_event("Team Open", team_size=3)
    alice, bob = a_player("Alice Archer"), a_player("Bob Baker")
    red, blue = a_team("Red Dragons"), a_team("Blue Herons")
    a_match(event, alice.participant, bob.participant)
    a_match(team_event, red.participant, blue.participant)

    page = admin_client.get(url(Match, "changelist")).content.decode()

    rows = re.findall(r"<tr>.*?</tr>", page, re.S)
    assert any(str(alice) in row and str(bob) in row for row in rows)
    assert any(str(red) in row and str(blue) in row for row in rows)


def test_the_team_changelist_query_count_does_not_grow_with_the_teams(admin_client):
    def queries():
        with CaptureQueriesContext(connection) as context:
            listed(admin_client.get(url(Team, "changelist")))
        return len(context.captured_queries)

    a_team()
    few = queries()
    for _ in range(10):
        a_team()
    assert queries() == few


def test_it_searches_categories_and_edits_their_position_in_the_list(admin_client):
    changelist = url(Category, "changelist")
    vtes = Category.objects.get(slug="vtes")
    assert listed(admin_client.get(changelist, {"q": "vtes"})) == [vtes]
    formset = {
        "form-TOTAL_FORMS": 1,
        "form-INITIAL_FORMS": 1,
        "form-0-id": vtes.pk,
        "form-0-position": 99,
        "_save": "Save",
    }
    assert admin_client.post(f"{changelist}?q=vtes", formset).status_code == 302
    vtes.refresh_from_db()
    assert vtes.position == 99


def test_a_derived_category_must_name_existing_components(admin_client):
    data = {
        "name": "Everything",
        "slug": "everything",
        "position": 9,
        "ruleset": "derived",
        "components": "constructed nonsense",
        "team_size": 1,
        "start_rating": 1600,
        "ranked_after": 10,
        "provisional_until": 0,
        "display_rounding": "truncate",
    }
    response = admin_client.post(url(Category, "add"), data)
    assert "No category has the slug: nonsense." in response.content.decode()
    assert not Category.objects.filter(slug="everything").exists()


def test_deleting_a_player_deletes_its_participant(admin_client):
    player = a_player()
    response = admin_client.post(url(Player, "delete", player.pk), {"post": "yes"})
    assert response.status_code == 302
    assert not Player.objects.exists()
    assert not Participant.objects.exists()


@pytest.mark.parametrize("who", ["alice", "team"])
def test_it_refuses_to_delete_a_player_or_team_with_results(admin_client, one_row_of_every_kind, who):
    entity = one_row_of_every_kind[who]
    page = admin_client.post(url(type(entity), "delete", entity.pk), {"post": "yes"}).content.decode()
    assert f"Matches of {entity}" in page
    assert type(entity).objects.filter(pk=entity.pk).exists()


def test_it_refuses_to_delete_a_team_member(admin_client, one_row_of_every_kind):
    member = one_row_of_every_kind["team"].members.first()
    page = admin_client.post(url(Player, "delete", member.pk), {"post": "yes"}).content.decode()
    assert "Team The Three" in page
    assert Player.objects.filter(pk=member.pk).exists()


def test_bulk_deleting_players_deletes_their_participants(admin_client):
    players = [a_player(), a_player()]
    data = {"action": "delete_selected", "_selected_action": [player.pk for player in players], "post": "yes"}
    assert admin_client.post(url(Player, "changelist"), data).status_code == 302
    assert not Participant.objects.exists()


def test_the_events_list_offers_each_format_and_year_that_its_events_have(admin_client):
    """Read along the indexes of the format and the date (lib.skip_scans): drafts included, as the list shows them."""
    from tests.factories import EventFactory

    EventFactory(date=datetime.date(2019, 4, 1), format="vintage")
    EventFactory(date=datetime.date(2021, 4, 1), format="standard", status="rated")
    EventFactory(date=datetime.date(2021, 9, 1), format="booster-draft")

    response = admin_client.get(url(Event, "changelist"))

    assert len(listed(response)) == 3
    [formats] = [spec for spec in response.context["cl"].filter_specs if spec.title == "format"]
    assert [choice["display"] for choice in formats.choices(response.context["cl"])][1:] == [
        "booster-draft",
        "standard",
        "vintage",
    ]
    html = response.content.decode()
    assert re.findall(r'href="\?date__year=(\d+)"', html) == ["2019", "2021"]


@pytest.mark.skipif(connection.vendor != "postgresql", reason="the trigram index is PostgreSQL's")
def test_a_teams_search_is_answered_by_the_trigram_index_not_by_reading_every_team(one_row_of_every_kind):
    """The admin's searches by a participant find teams by name or members' numbers through team_search_trgm."""
    from players.selectors import participants_containing

    with CaptureQueriesContext(connection) as queries:
        assert participants_containing(words=["three"]) == [one_row_of_every_kind["team"].participant_id]
    [teams] = [query["sql"] for query in queries.captured_queries if "players_team" in query["sql"]]
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off; SET LOCAL enable_indexscan = off")
        cursor.execute(f"EXPLAIN {teams}")
        plan = "\n".join(row[0] for row in cursor.fetchall())
    assert "team_search_trgm" in plan, plan
