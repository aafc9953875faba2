"""Organizers report an event: create it, give its results by file or round by round, submit it.

Results go through the importer's own reading and validation: every problem
is shown next to its row, all at once, and nothing is saved until there is none.
"""

import datetime

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.template.defaultfilters import filesizeformat
from django.test import Client

from corrections.models import Correction, CorrectionSource
from events.models import Event, EventStatus, Match, Standing
from players.models import Player
from ratings.models import RecomputeRun, RecomputeStatus
from ratings.services import recompute_run_execute
from tests.bundles import db_snapshot
from tests.factories import AdminFactory, EventFactory, OrganizerFactory, PlayerFactory

pytestmark = pytest.mark.django_db

MATCH_HEADER = "round,player1_id,player2_id,player1_games,player2_games,draws,elimination\n"
STANDING_HEADER = "player_id,rank,vp,gw,final\n"


@pytest.fixture
def organizer():
    return OrganizerFactory()


@pytest.fixture
def client_of(organizer):
    client = Client()
    client.force_login(organizer)
    return client


@pytest.fixture
def players():
    """Four registered players, 1001-1004."""
    return [PlayerFactory(membership_number=str(number), name=f"Player {number}") for number in range(1001, 1005)]


@pytest.fixture
def event(organizer):
    return EventFactory(organizer=organizer, name="Friday Standard", player_count=4)


def csv_file(text: str, name: str = "matches.csv") -> SimpleUploadedFile:
    return SimpleUploadedFile(name, text.encode(), content_type="text/csv")


def upload(client, event, **files):
    """POST the upload form with `files` (field name -> text or an uploaded file) and any extra fields."""
    data = {}
    for name, value in files.items():
        data[name] = csv_file(value, f"{name}.csv") if isinstance(value, str) else value
    return client.post(f"/organize/events/{event.pk}/upload/", data)


def results_of(event) -> list[tuple]:
    return sorted(
        Match.objects.filter(event=event).values_list(
            "round", "participant1__player__membership_number", "participant2__player__membership_number",
            "games1", "games2", "draws", "elimination",
        )
    )  # fmt: skip


VALID_MATCHES = MATCH_HEADER + "1,1001,1002,2,1,0,0\n1,1003,1004,1,1,1,0\n2,1001,1003,2,0,0,0\n2,1002,1004,0,2,0,0\n"


# Creating an event --------------------------------------------------------------------------------


def test_an_organizer_creates_a_draft_event_they_own(client_of, organizer):
    response = client_of.post(
        "/organize/events/new/",
        {
            "name": "Munich Open",
            "date": "2024-05-01",
            "format": "standard",
            "team_size": "1",
            "k": "32",
            "player_count": "24",
            "level2_judge": "on",
            "structure": "swiss-top8",
            "country": "DE",
            "city": "Munich",
            "level": "",
        },
    )

    event = Event.objects.get(name="Munich Open")
    assert response["Location"] == f"/organize/events/{event.pk}/"
    assert (event.organizer, event.status, event.k, event.player_count, event.level2_judge) == (
        organizer,
        EventStatus.DRAFT,
        32,
        24,
        True,
    )
    assert (event.country.code, event.city, event.structure, event.date) == (
        "DE",
        "Munich",
        "swiss-top8",
        datetime.date(2024, 5, 1),
    )


def test_the_form_explains_each_k_class_as_the_rules_do(client_of):
    html = client_of.get("/organize/events/new/").content.decode()

    for meaning in [
        "8: casual (e.g. Friday Night Magic)",
        "16: default for every event",
        "32: qualifier (e.g. Pro Tour Qualifier)",
        "40: premier (e.g. Grand Prix, National Championship)",
        "48: Pro Tour, World Championship",
        "new rating = old + K × (result − expected result)",
    ]:
        assert meaning in html


@pytest.mark.parametrize(
    ("change", "field", "message"),
    [
        ({"format": "vtes", "team_size": "3"}, "team_size", "No rating list takes V:TES events with teams of 3"),
        ({"format": "chess"}, "format", "Select a valid choice"),
        ({"k": "20"}, "k", "Select a valid choice"),
        ({"player_count": "0"}, "player_count", "greater than or equal to 1"),
        ({"level": "national"}, "level", "Only V:EKN events have a level"),
        ({"name": ""}, "name", "This field is required"),
    ],
)
def test_a_bad_event_is_refused_next_to_the_field(client_of, change, field, message):
    data = {"name": "Open", "date": "2024-05-01", "format": "standard", "team_size": "1", "k": "16"}
    data.update({"player_count": "8", "structure": "swiss", "country": "", "city": "", "level": ""})
    data.update(change)

    response = client_of.post("/organize/events/new/", data)

    assert response.status_code == 200
    assert any(message in error for error in response.context["form"].errors[field])
    assert not Event.objects.exists()


# Uploading results ----------------------------------------------------------------------------------


def test_a_valid_file_is_saved_as_the_events_results(client_of, event, players):
    response = upload(client_of, event, matches=VALID_MATCHES)

    assert response["Location"] == f"/organize/events/{event.pk}/"
    assert results_of(event) == [
        (1, "1001", "1002", 2, 1, 0, False),
        (1, "1003", "1004", 1, 1, 1, False),
        (2, "1001", "1003", 2, 0, 0, False),
        (2, "1002", "1004", 0, 2, 0, False),
    ]
    event.refresh_from_db()
    assert event.status == EventStatus.DRAFT
    assert not RecomputeRun.objects.exists()  # a draft never counts


def test_uploading_again_replaces_the_results(client_of, event, players):
    upload(client_of, event, matches=VALID_MATCHES)

    upload(client_of, event, matches=MATCH_HEADER + "1,1002,1001,2,0,0,0\n1,1003,1004,2,0,0,1\n")

    # A pairing is matched whichever way round it is written, and keeps the stored order.
    assert results_of(event) == [(1, "1001", "1002", 0, 2, 0, False), (1, "1003", "1004", 2, 0, 0, True)]


def test_event_id_may_be_given_and_must_then_be_this_events(client_of, event, players):
    text = "event_id," + MATCH_HEADER + f"{event.pk},1,1001,1002,2,0,0,0\nE9,1,1003,1004,2,0,0,0\n"

    response = upload(client_of, event, matches=text)

    placed = response.context["placed"]
    assert [(row.line, [m for _, _, ms in row.values for m in ms]) for row in placed.rows] == [
        (3, [f"unknown event 'E9': these results are for event {event.pk} only"])
    ]


# Each problem next to its row ------------------------------------------------------------------------

BAD_ROWS = [
    ("x,1001,1002,2,0,0,0", "round", "'x' is not a round number (1 or more)"),
    ("1,1001,1001,2,0,0,0", "player2_id", "1001 cannot play against themselves"),
    ("1,1001,1002,two,0,0,0", "player1_games", "'two' is not a number of games (0 or more)"),
    ("1,1001,1002,1,1,0,1", "player2_games", "an elimination-round match cannot be a draw (1-1); report the winner"),
    ("1,1001,1002,2,0,0,5", "elimination", "'5' must be 0 or 1"),
    ("1,1001,bad number!,2,0,0,0", "player2_id", "'bad number!' is not a membership number"),
    ("1,,1002,2,0,0,0", "player1_id", "player 1 is required (a bye leaves player2_id blank)"),
]


@pytest.mark.parametrize(("row", "column", "message"), BAD_ROWS)
def test_each_problem_is_shown_next_to_its_row(client_of, event, players, row, column, message):
    text = MATCH_HEADER + "1,1003,1004,2,0,0,0\n" + row + "\n"

    response = upload(client_of, event, matches=text)

    assert response.status_code == 200
    [problem] = response.context["placed"].rows
    assert (problem.file, problem.line) == ("matches.csv", 3)
    cells = {name: (value, messages) for name, value, messages in problem.values}
    assert cells[column][1] == [message]
    assert cells["round"][0] == row.split(",")[0]  # the row's own values are shown with it
    html = response.content.decode()
    assert 'data-line="3"' in html and message.replace("'", "&#x27;") in html
    assert not Match.objects.exists()


def test_every_problem_is_shown_at_once(client_of, event, players):
    text = MATCH_HEADER + "\n".join(row for row, _, _ in BAD_ROWS) + "\n1,1003,1003,2,0,0,0\n"

    response = upload(client_of, event, matches=text)

    placed = response.context["placed"]
    assert [row.line for row in placed.rows] == list(range(2, len(BAD_ROWS) + 3))
    shown = [m for row in placed.rows for _, _, messages in row.values for m in messages]
    for _, _, message in BAD_ROWS:
        assert message in shown


def test_a_player_twice_in_a_round_is_shown_on_the_second_row(client_of, event, players):
    text = MATCH_HEADER + "1,1001,1002,2,0,0,0\n1,1003,1001,2,0,0,0\n"

    response = upload(client_of, event, matches=text)

    [problem] = response.context["placed"].rows
    cells = {name: messages for name, _, messages in problem.values}
    assert problem.line == 3
    assert cells["player2_id"] == [f"1001 already plays in round 1 of event {event.pk} (line 2)"]


def test_a_missing_column_is_reported_for_the_file(client_of, event, players):
    response = upload(client_of, event, matches="round,player1_id,player2_id\n1,1001,1002\n")

    general = [str(error) for error in response.context["placed"].general]
    assert "matches.csv:1: player1_games: required column is missing from the header" in general


def test_more_participants_than_players_is_an_error_about_the_event(client_of, event, players):
    event.player_count = 3
    event.save()

    response = upload(client_of, event, matches=VALID_MATCHES)

    assert [error.message for error in response.context["placed"].general] == [
        "3 players, but the results name 4 participants"
    ]
    assert "Event details" in response.content.decode()


def test_nothing_is_saved_when_one_row_is_bad(client_of, event, players):
    upload(client_of, event, matches=VALID_MATCHES)
    before = db_snapshot()

    response = upload(
        client_of,
        event,
        matches=MATCH_HEADER + "1,1001,1002,0,2,0,0\n1,1003,1004,2,0,0,0\n2,1001,1001,2,0,0,0\n",
        players="id,name,country\n2001,Nora New,NO\n",
    )

    assert response.status_code == 200
    assert db_snapshot() == before
    assert not Player.objects.filter(membership_number="2001").exists()


# New players --------------------------------------------------------------------------------------


def test_a_players_file_registers_new_players_but_leaves_registered_ones_alone(client_of, event, players):
    text = MATCH_HEADER + "1,1001,2001,2,0,0,0\n1,1002,2002,2,0,0,0\n"
    players_file = (
        "id,name,country,region\n2001,Nora New,NO,\n2002,Olaf Other,,\n1001,Renamed Player,FR,\n3001,Not Playing,DE,\n"
    )

    response = upload(client_of, event, matches=text, players=players_file)

    assert response.status_code == 302
    assert Player.objects.get(membership_number="2001").name == "Nora New"
    assert Player.objects.get(membership_number="2001").country.code == "NO"
    assert Player.objects.get(membership_number="1001").name == "Player 1001"  # organizers add people, not rename
    assert not Player.objects.filter(membership_number="3001").exists()  # nobody it played: not registered


def test_unknown_numbers_are_registered_on_the_spot_without_choosing_the_file_again(client_of, event, players):
    text = MATCH_HEADER + "1,1001,2001,2,0,0,0\n1,1002,2002,2,0,0,0\n"

    first = upload(client_of, event, matches=text)

    assert first.status_code == 200
    assert first.context["players_form"].shown == ["2001", "2002"]
    unknown = {row.line: [m for _, _, ms in row.values for m in ms] for row in first.context["placed"].rows}
    assert unknown == {
        2: ["unknown player '2001': not in players.csv and not registered"],
        3: ["unknown player '2002': not in players.csv and not registered"],
    }
    carried = first.context["form"].data["matches_carried"]
    assert carried

    second = client_of.post(
        f"/organize/events/{event.pk}/upload/",
        {
            "matches_carried": carried,
            "numbers": "2001 2002",
            "name_2001": "Nora New",
            "country_2001": "NO",
            "name_2002": "Olaf Other",
            "country_2002": "",
        },
    )

    assert second.status_code == 302
    assert Player.objects.get(membership_number="2001").name == "Nora New"
    assert Player.objects.get(membership_number="2002").country.code == ""
    assert results_of(event) == [(1, "1001", "2001", 2, 0, 0, False), (1, "1002", "2002", 2, 0, 0, False)]


def test_a_number_left_without_a_name_stays_unknown(client_of, event, players):
    text = MATCH_HEADER + "1,1001,2001,2,0,0,0\n1,1002,2002,2,0,0,0\n"
    carried = upload(client_of, event, matches=text).context["form"].data["matches_carried"]

    response = client_of.post(
        f"/organize/events/{event.pk}/upload/",
        {"matches_carried": carried, "numbers": "2001 2002", "name_2001": "Nora New", "name_2002": ""},
    )

    assert response.status_code == 200
    assert response.context["players_form"].shown == ["2001", "2002"]
    assert [row.line for row in response.context["placed"].rows] == [3]
    assert not Player.objects.filter(membership_number__in=["2001", "2002"]).exists()


# What is accepted as a file ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("matches.txt", VALID_MATCHES.encode(), "Only .csv files are accepted."),
        ("matches.xlsx", b"PK\x03\x04spreadsheet", "Only .csv files are accepted."),
        ("matches.csv", b"PK\x03\x04\x14\x00\x06\x00", "it looks like a spreadsheet, archive, document or image"),
        ("matches.csv", b"round,player1_id\x00\x00\x01", "it holds binary data"),
        ("matches.csv", "Runde;Spieler\n".encode("latin-1") + b"\xe9\xe9\xe9;x\n", "not UTF-8 text"),
        ("matches.csv", b"just some words\n1 2 3\n", "the first line is not a CSV header"),
    ],
)
def test_only_csv_files_are_accepted(client_of, event, players, name, content, message):
    response = upload(client_of, event, matches=SimpleUploadedFile(name, content))

    assert response.status_code == 200
    assert any(message in error for error in response.context["form"].errors["matches"])
    assert not Match.objects.exists()


def test_a_file_over_the_size_limit_is_refused(client_of, event, players, settings):
    settings.UPLOAD_MAX_BYTES = len(VALID_MATCHES) - 1

    response = upload(client_of, event, matches=VALID_MATCHES)

    size, limit = filesizeformat(len(VALID_MATCHES)), filesizeformat(len(VALID_MATCHES) - 1)
    assert response.context["form"].errors["matches"] == [f"The file is {size}; at most {limit}."]


def test_a_request_over_the_size_limit_is_refused_before_it_is_read(client_of, event, settings):
    settings.UPLOAD_MAX_BYTES = 1000
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000

    response = upload(client_of, event, matches=MATCH_HEADER + "1,1001,1002,2,0,0,0\n" * 500)

    assert response.status_code == 413
    assert "refused before it was read" in response.content.decode()


def test_a_vtes_event_needs_its_standings(client_of, organizer, players):
    event = EventFactory(organizer=organizer, format="vtes", player_count=4)

    response = upload(client_of, event)

    assert response.context["form"].errors["standings"] == ["Choose the standings.csv file."]


def test_a_team_event_is_uploaded_with_its_teams(client_of, organizer):
    for number in range(1001, 1007):
        PlayerFactory(membership_number=str(number))
    event = EventFactory(organizer=organizer, team_size=3, player_count=6)

    response = upload(
        client_of,
        event,
        teams="id,name,member1,member2,member3\nA,Alpha,1001,1002,1003\nB,,1004,1005,1006\n",
        matches=MATCH_HEADER + "1,A,B,2,1,0,0\n",
    )

    assert response.status_code == 302
    match = Match.objects.get(event=event)
    assert match.participant1.team.name == "Alpha"
    assert match.participant2.team.member_key == "1004 1005 1006"


# Typing results in ------------------------------------------------------------------------------------


def round_post(rows, *, elimination=False, then="done", **extra):
    data = {"m-TOTAL_FORMS": str(len(rows)), "m-INITIAL_FORMS": "0", "then": then, **extra}
    for index, (player1, player2, games1, games2, draws) in enumerate(rows):
        data.update(
            {
                f"m-{index}-player1": player1,
                f"m-{index}-player2": player2,
                f"m-{index}-games1": games1,
                f"m-{index}-games2": games2,
                f"m-{index}-draws": draws,
            }
        )
    if elimination:
        data["elimination"] = "on"
    return data


def test_a_round_is_entered_in_a_form_and_the_next_one_follows(client_of, event, players):
    page = client_of.get(f"/organize/events/{event.pk}/rounds/1/")
    assert page.context["formset"].total_form_count() == 2  # enough rows for four players

    response = client_of.post(
        f"/organize/events/{event.pk}/rounds/1/",
        round_post([("1001", "1002", "2", "0", ""), ("1003", "", "", "", ""), ("", "", "", "", "")], then="next"),
    )

    assert response["Location"] == f"/organize/events/{event.pk}/rounds/2/"
    assert results_of(event) == [(1, "1001", "1002", 2, 0, 0, False), (1, "1003", None, 0, 0, 0, False)]


def test_saving_one_round_keeps_the_others(client_of, event, players):
    upload(client_of, event, matches=VALID_MATCHES)
    page = client_of.get(f"/organize/events/{event.pk}/rounds/2/")
    assert [form.initial.get("player1") for form in page.context["formset"]] == ["1001", "1002", None, None]

    client_of.post(
        f"/organize/events/{event.pk}/rounds/2/",
        round_post([("1001", "1004", "2", "1", ""), ("1002", "1003", "0", "2", "")], elimination=True),
    )

    assert results_of(event) == [
        (1, "1001", "1002", 2, 1, 0, False),
        (1, "1003", "1004", 1, 1, 1, False),
        (2, "1001", "1004", 2, 1, 0, True),
        (2, "1002", "1003", 0, 2, 0, True),
    ]
    summary = client_of.get(f"/organize/events/{event.pk}/").context["summary"]
    assert (summary.rounds, summary.matches, summary.participants) == ([1, 2], 4, 4)


def test_a_bad_row_in_a_round_is_marked_on_that_row_and_nothing_is_saved(client_of, event, players):
    response = client_of.post(
        f"/organize/events/{event.pk}/rounds/1/",
        round_post([("1001", "1002", "2", "0", ""), ("1003", "1003", "x", "0", ""), ("1004", "1001", "2", "0", "")]),
    )

    assert response.status_code == 200
    forms = response.context["formset"].forms
    assert forms[0].errors == {}
    assert forms[1].errors == {
        "player2": ["1003 cannot play against themselves"],
        "games1": ["'x' is not a number of games (0 or more)"],
    }
    assert forms[2].errors == {"player2": [f"1001 already plays in round 1 of event {event.pk} (line 2)"]}
    assert not Match.objects.exists()


def test_an_elimination_round_refuses_a_draw_on_its_row(client_of, event, players):
    response = client_of.post(
        f"/organize/events/{event.pk}/rounds/4/",
        round_post([("1001", "1002", "1", "1", "")], elimination=True),
    )

    assert response.context["formset"].forms[0].errors == {
        "games2": ["an elimination-round match cannot be a draw (1-1); report the winner"]
    }


def test_an_unknown_number_typed_in_a_round_is_registered_with_its_name(client_of, event, players):
    first = client_of.post(f"/organize/events/{event.pk}/rounds/1/", round_post([("1001", "2001", "2", "0", "")]))
    assert first.context["players_form"].shown == ["2001"]

    client_of.post(
        f"/organize/events/{event.pk}/rounds/1/",
        round_post([("1001", "2001", "2", "0", "")], numbers="2001", name_2001="Nora New", country_2001="NO"),
    )

    assert results_of(event) == [(1, "1001", "2001", 2, 0, 0, False)]


def test_standings_are_entered_in_a_form(client_of, organizer, players):
    event = EventFactory(organizer=organizer, format="vtes", player_count=4)
    rows = [("1001", "1", "3.5", "2", "winner"), ("1002", "2", "2", "1", "finalist"), ("1003", "3", "0.5", "0", "")]
    data = {"s-TOTAL_FORMS": str(len(rows) + 1), "s-INITIAL_FORMS": "0"}
    for index, (player, rank, vp, gw, final) in enumerate(rows):
        data.update({f"s-{index}-player": player, f"s-{index}-rank": rank, f"s-{index}-vp": vp})
        data.update({f"s-{index}-gw": gw, f"s-{index}-final": final})

    response = client_of.post(f"/organize/events/{event.pk}/standings/", data)

    assert response.status_code == 302
    stored = Standing.objects.filter(event=event).order_by("rank")
    assert [(s.participant.player.membership_number, s.rank, str(s.vp), s.gw, s.final) for s in stored] == [
        ("1001", 1, "3.5", 2, "winner"),
        ("1002", 2, "2.0", 1, "finalist"),
        ("1003", 3, "0.5", 0, ""),
    ]


def test_a_second_winner_is_marked_on_its_row(client_of, organizer, players):
    event = EventFactory(organizer=organizer, format="vtes", player_count=4)
    data = {"s-TOTAL_FORMS": "2", "s-INITIAL_FORMS": "0"}
    for index, player in enumerate(["1001", "1002"]):
        data.update({f"s-{index}-player": player, f"s-{index}-rank": str(index + 1), f"s-{index}-final": "winner"})

    response = client_of.post(f"/organize/events/{event.pk}/standings/", data)

    assert response.context["formset"].forms[1].errors == {"final": [f"event {event.pk} already has a winner (line 2)"]}
    assert not Standing.objects.exists()


# Submitting --------------------------------------------------------------------------------------------


def test_submitting_queues_the_rating_and_the_organizer_sees_it_rated(client_of, event, players):
    upload(client_of, event, matches=VALID_MATCHES)

    response = client_of.post(f"/organize/events/{event.pk}/submit/")

    assert response["Location"] == f"/organize/events/{event.pk}/"
    event.refresh_from_db()
    assert event.status == EventStatus.SUBMITTED
    [run] = RecomputeRun.objects.all()
    assert (run.category.slug, run.status, run.since) == ("constructed", RecomputeStatus.QUEUED, event.date)
    page = client_of.get(f"/organize/events/{event.pk}/")
    assert page.context["jobs"] == [run]
    assert "Queued" in page.content.decode()

    recompute_run_execute(run_id=run.pk)  # what the job worker does

    event.refresh_from_db()
    assert event.status == EventStatus.RATED
    page = client_of.get(f"/organize/events/{event.pk}/").content.decode()
    assert "Status: <span data-status-text>Rated</span>" in page
    assert "Done" in page
    listed = client_of.get("/organize/").content.decode()
    assert 'class="tag tag-yes">Rated</span>' in listed


def test_the_results_are_checked_again_before_submitting(client_of, event, players):
    upload(client_of, event, matches=VALID_MATCHES)
    Event.objects.filter(pk=event.pk).update(player_count=3)

    response = client_of.post(f"/organize/events/{event.pk}/submit/", follow=True)

    event.refresh_from_db()
    assert event.status == EventStatus.DRAFT
    assert "Not submitted: the results have 1 problem(s)" in response.content.decode()
    assert "3 players, but the results name 4 participants" in response.content.decode()
    assert not RecomputeRun.objects.exists()


def test_stored_results_that_no_longer_fit_are_shown_by_round_and_pairing(client_of, event, players):
    upload(client_of, event, matches=VALID_MATCHES)
    Event.objects.filter(pk=event.pk).update(team_size=3)  # the details changed after the upload

    response = client_of.get(f"/organize/events/{event.pk}/")

    problems = [(error.file, error.column, error.message) for error in response.context["problems"]]
    assert (
        "Round 2, 1002 vs 1004",
        "player2_id",
        "unknown team '1004': team events name teams from teams.csv",
    ) in problems
    assert "Round 2, 1002 vs 1004 (player2_id): unknown team" in response.content.decode()


def test_an_event_without_results_cannot_be_submitted(client_of, event):
    client_of.post(f"/organize/events/{event.pk}/submit/")

    event.refresh_from_db()
    assert event.status == EventStatus.DRAFT


def test_an_event_in_the_future_cannot_be_submitted(client_of, organizer, players):
    event = EventFactory(organizer=organizer, date=datetime.date.today() + datetime.timedelta(days=3))
    upload(client_of, event, matches=VALID_MATCHES)

    response = client_of.post(f"/organize/events/{event.pk}/submit/", follow=True)

    assert "its date is in the future" in response.content.decode()
    event.refresh_from_db()
    assert event.status == EventStatus.DRAFT


def test_an_admin_corrects_a_submitted_event_and_it_is_rated_again(client_of, event, players):
    upload(client_of, event, matches=VALID_MATCHES)
    client_of.post(f"/organize/events/{event.pk}/submit/")
    recompute_run_execute(run_id=RecomputeRun.objects.get().pk)
    admin = Client()
    admin.force_login(admin_user := AdminFactory())

    response = upload(admin, event, matches=MATCH_HEADER + "1,1002,1001,2,0,0,0\n")

    assert response.status_code == 302
    assert results_of(event) == [(1, "1001", "1002", 0, 2, 0, False)]
    queued = RecomputeRun.objects.filter(status=RecomputeStatus.QUEUED)
    assert [(run.category.slug, run.since) for run in queued] == [("constructed", event.date)]
    # Each change is a correction like any other: logged with who and why (SPEC 5).
    corrections = Correction.objects.all()
    assert {(each.source, each.corrected_by, each.event_id) for each in corrections} == {
        (CorrectionSource.ADMIN, admin_user, event.pk)
    }
    assert {
        (each.kind, each.old_games1, each.old_games2, each.new_games1, each.new_games2) for each in corrections
    } >= {("result", 2, 1, 0, 2)}


def test_an_organizer_deletes_their_draft(client_of, event, players):
    upload(client_of, event, matches=VALID_MATCHES)

    response = client_of.post(f"/organize/events/{event.pk}/delete/")

    assert response["Location"] == "/organize/"
    assert not Event.objects.filter(pk=event.pk).exists()
    assert not RecomputeRun.objects.exists()


def test_editing_a_submitted_events_details_as_admin_queues_a_recompute(event, players):
    admin = Client()
    admin.force_login(AdminFactory())
    Event.objects.filter(pk=event.pk).update(status=EventStatus.RATED)
    Match.objects.create(event=event, round=1, participant1=players[0].participant, participant2=players[1].participant)
    page = admin.get(f"/organize/events/{event.pk}/edit/")
    data = {name: value for name, value in page.context["form"].initial.items() if value not in (None, False)}
    data.update({"date": "2024-03-02", "k": "40", "country": ""})

    response = admin.post(f"/organize/events/{event.pk}/edit/", data)

    assert response.status_code == 302
    event.refresh_from_db()
    assert event.k == 40
    assert [run.category.slug for run in RecomputeRun.objects.filter(status=RecomputeStatus.QUEUED)] == ["constructed"]
