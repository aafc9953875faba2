"""Organizers upload an event's results as files. They go through the importer's own reading and validation:
every problem is shown next to its row, all at once, and nothing is saved until there is none."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.template.defaultfilters import filesizeformat

from events.models import EventStatus, Match
from organize.importer.event_results import event_ref
from organize.results import stored_results_rows
from players.models import Player, Team
from ratings.models import RecomputeRun
from tests.bundles import db_snapshot
from tests.factories import EventFactory, PlayerFactory
from tests.organize.pages import MATCH_HEADER, VALID_MATCHES, results_of, upload

pytestmark = pytest.mark.django_db


# Uploading results ----------------------------------------------------------------------------------


def test_a_valid_file_is_saved_as_the_events_results(organizer_client, event, players):
    response = upload(organizer_client, event, matches=VALID_MATCHES)

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


def test_uploading_again_replaces_the_results(organizer_client, event, players):
    upload(organizer_client, event, matches=VALID_MATCHES)

    upload(organizer_client, event, matches=MATCH_HEADER + "1,1002,1001,2,0,0,0\n1,1003,1004,2,0,0,1\n")

    # A pairing is matched whichever way round it is written, and keeps the stored order.
    assert results_of(event) == [(1, "1001", "1002", 0, 2, 0, False), (1, "1003", "1004", 2, 0, 0, True)]


def test_event_id_may_be_given_and_must_then_be_this_events(organizer_client, event, players):
    text = "event_id," + MATCH_HEADER + f"{event.pk},1,1001,1002,2,0,0,0\nE9,1,1003,1004,2,0,0,0\n"

    response = upload(organizer_client, event, matches=text)

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
def test_each_problem_is_shown_next_to_its_row(organizer_client, event, players, row, column, message):
    text = MATCH_HEADER + "1,1003,1004,2,0,0,0\n" + row + "\n"

    response = upload(organizer_client, event, matches=text)

    assert response.status_code == 200
    [problem] = response.context["placed"].rows
    assert (problem.file, problem.line) == ("matches.csv", 3)
    cells = {name: (value, messages) for name, value, messages in problem.values}
    assert cells[column][1] == [message]
    assert cells["round"][0] == row.split(",")[0]  # the row's own values are shown with it
    html = response.content.decode()
    assert 'data-line="3"' in html and message.replace("'", "&#x27;") in html
    assert not Match.objects.exists()


def test_every_problem_is_shown_at_once(organizer_client, event, players):
    text = MATCH_HEADER + "\n".join(row for row, _, _ in BAD_ROWS) + "\n1,1003,1003,2,0,0,0\n"

    response = upload(organizer_client, event, matches=text)

    placed = response.context["placed"]
    assert [row.line for row in placed.rows] == list(range(2, len(BAD_ROWS) + 3))
    shown = [m for row in placed.rows for _, _, messages in row.values for m in messages]
    for _, _, message in BAD_ROWS:
        assert message in shown


def test_a_player_twice_in_a_round_is_shown_on_the_second_row(organizer_client, event, players):
    text = MATCH_HEADER + "1,1001,1002,2,0,0,0\n1,1003,1001,2,0,0,0\n"

    response = upload(organizer_client, event, matches=text)

    [problem] = response.context["placed"].rows
    cells = {name: messages for name, _, messages in problem.values}
    assert problem.line == 3
    assert cells["player2_id"] == [f"1001 already plays in round 1 of event {event.pk} (line 2)"]


def test_a_missing_column_is_reported_for_the_file(organizer_client, event, players):
    response = upload(organizer_client, event, matches="round,player1_id,player2_id\n1,1001,1002\n")

    general = [str(error) for error in response.context["placed"].general]
    assert "matches.csv:1: player1_games: required column is missing from the header" in general


def test_more_participants_than_players_is_an_error_about_the_event(organizer_client, event, players):
    event.player_count = 3
    event.save()

    response = upload(organizer_client, event, matches=VALID_MATCHES)

    assert [error.message for error in response.context["placed"].general] == [
        "3 players, but the results name 4 participants"
    ]
    assert "Event details" in response.content.decode()


def test_nothing_is_saved_when_one_row_is_bad(organizer_client, event, players):
    upload(organizer_client, event, matches=VALID_MATCHES)
    before = db_snapshot()

    response = upload(
        organizer_client,
        event,
        matches=MATCH_HEADER + "1,1001,1002,0,2,0,0\n1,1003,1004,2,0,0,0\n2,1001,1001,2,0,0,0\n",
        players="id,name,country\n2001,Nora New,NO\n",
    )

    assert response.status_code == 200
    assert db_snapshot() == before
    assert not Player.objects.filter(membership_number="2001").exists()


# New players --------------------------------------------------------------------------------------


def test_a_players_file_registers_new_players_but_leaves_registered_ones_alone(organizer_client, event, players):
    text = MATCH_HEADER + "1,1001,2001,2,0,0,0\n1,1002,2002,2,0,0,0\n"
    players_file = (
        "id,name,country,region\n2001,Nora New,NO,\n2002,Olaf Other,,\n1001,Renamed Player,FR,\n3001,Not Playing,DE,\n"
    )

    response = upload(organizer_client, event, matches=text, players=players_file)

    assert response.status_code == 302
    assert Player.objects.get(membership_number="2001").name == "Nora New"
    assert Player.objects.get(membership_number="2001").country.code == "NO"
    assert Player.objects.get(membership_number="1001").name == "Player 1001"  # organizers add people, not rename
    assert not Player.objects.filter(membership_number="3001").exists()  # nobody it played: not registered


def test_unknown_numbers_are_registered_on_the_spot_without_choosing_the_file_again(organizer_client, event, players):
    text = MATCH_HEADER + "1,1001,2001,2,0,0,0\n1,1002,2002,2,0,0,0\n"

    first = upload(organizer_client, event, matches=text)

    assert first.status_code == 200
    assert first.context["players_form"].shown == ["2001", "2002"]
    unknown = {row.line: [m for _, _, ms in row.values for m in ms] for row in first.context["placed"].rows}
    assert unknown == {
        2: ["unknown player '2001': not in players.csv and not registered"],
        3: ["unknown player '2002': not in players.csv and not registered"],
    }
    carried = first.context["form"].data["matches_carried"]
    assert carried

    second = organizer_client.post(
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


def test_a_number_left_without_a_name_stays_unknown(organizer_client, event, players):
    text = MATCH_HEADER + "1,1001,2001,2,0,0,0\n1,1002,2002,2,0,0,0\n"
    carried = upload(organizer_client, event, matches=text).context["form"].data["matches_carried"]

    response = organizer_client.post(
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
def test_only_csv_files_are_accepted(organizer_client, event, players, name, content, message):
    response = upload(organizer_client, event, matches=SimpleUploadedFile(name, content))

    assert response.status_code == 200
    assert any(message in error for error in response.context["form"].errors["matches"])
    assert not Match.objects.exists()


def test_a_file_over_the_size_limit_is_refused(organizer_client, event, players, settings):
    settings.UPLOAD_MAX_BYTES = len(VALID_MATCHES) - 1

    response = upload(organizer_client, event, matches=VALID_MATCHES)

    size, limit = filesizeformat(len(VALID_MATCHES)), filesizeformat(len(VALID_MATCHES) - 1)
    assert response.context["form"].errors["matches"] == [f"The file is {size}; at most {limit}."]


def test_a_request_over_the_size_limit_is_refused_before_it_is_read(organizer_client, event, settings):
    settings.UPLOAD_MAX_BYTES = 1000
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000

    response = upload(organizer_client, event, matches=MATCH_HEADER + "1,1001,1002,2,0,0,0\n" * 500)

    assert response.status_code == 413
    assert "refused before it was read" in response.content.decode()


def test_a_vtes_event_needs_its_standings(organizer_client, organizer, players):
    event = EventFactory(organizer=organizer, format="vtes", player_count=4)

    response = upload(organizer_client, event)

    assert response.context["form"].errors["standings"] == ["Choose the standings.csv file."]


def test_a_team_event_is_uploaded_with_its_teams(organizer_client, organizer):
    for number in range(1001, 1007):
        PlayerFactory(membership_number=str(number))
    event = EventFactory(organizer=organizer, team_size=3, player_count=6)

    response = upload(
        organizer_client,
        event,
        teams="id,name,member1,member2,member3\nA,Alpha,1001,1002,1003\nB,,1004,1005,1006\n",
        matches=MATCH_HEADER + "1,A,B,2,1,0,0\n",
    )

    assert response.status_code == 302
    match = Match.objects.get(event=event)
    assert match.participant1.team.name == "Alpha"
    assert match.participant2.team.member_key == "1004 1005 1006"


def test_a_team_events_stored_results_read_back_as_its_files_name_them(organizer_client, organizer):
    # What the draft's page and forms check again: teams as T<their participant id>, a bye's side blank.
    for number in range(1001, 1010):
        PlayerFactory(membership_number=str(number))
    event = EventFactory(organizer=organizer, team_size=3, player_count=9)
    upload(
        organizer_client,
        event,
        teams="id,name,member1,member2,member3\nA,Alpha,1001,1002,1003\nB,,1004,1005,1006\nC,Gamma,1007,1008,1009\n",
        matches=MATCH_HEADER + "1,A,B,2,1,0,0\n1,C,,2,0,0,0\n",
    )
    alpha, beta, gamma = (
        Team.objects.get(member_key=key).participant_id
        for key in ("1001 1002 1003", "1004 1005 1006", "1007 1008 1009")
    )

    rows = stored_results_rows(event)

    assert [
        (row["round"], row["player1_id"], row["player2_id"], row["player1_games"]) for row in rows["matches.csv"]
    ] == [
        (1, f"T{alpha}", f"T{beta}", 2),
        (1, f"T{gamma}", "", 2),
    ]
    assert {row["event_id"] for row in rows["matches.csv"]} == {event_ref(event)}
    assert rows["teams.csv"] == [
        {"id": f"T{alpha}", "name": "Alpha", "member1": "1001", "member2": "1002", "member3": "1003"},
        {"id": f"T{beta}", "name": "", "member1": "1004", "member2": "1005", "member3": "1006"},
        {"id": f"T{gamma}", "name": "Gamma", "member1": "1007", "member2": "1008", "member3": "1009"},
    ]
    assert organizer_client.get(f"/organize/events/{event.pk}/").context["problems"] == []
