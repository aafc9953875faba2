"""Organizers type an event's results in, round by round or as standings. The rows typed are checked by the
importer's rules as rows (no CSV is written and read back): each problem is shown on its form row and field,
and nothing is saved until there is none."""

import csv
import re

import pytest

from events.models import Match, Standing
from organize import services
from organize.forms import MatchRowForm
from organize.importer.errors import Origin
from organize.importer.rows import Row
from organize.results import round_results
from players.models import Player
from tests.factories import EventFactory
from tests.organize.pages import MATCH_HEADER, VALID_MATCHES, results_of, round_post, upload
from tests.pages import text

pytestmark = pytest.mark.django_db


# Typing results in ------------------------------------------------------------------------------------


def test_a_round_is_entered_in_a_form_and_the_next_one_follows(organizer_client, event, players):
    page = organizer_client.get(f"/organize/events/{event.pk}/rounds/1/")
    assert page.context["formset"].total_form_count() == 2  # enough rows for four players

    response = organizer_client.post(
        f"/organize/events/{event.pk}/rounds/1/",
        round_post([("1001", "1002", "2", "0", ""), ("1003", "", "", "", ""), ("", "", "", "", "")], then="next"),
    )

    assert response["Location"] == f"/organize/events/{event.pk}/rounds/2/"
    assert results_of(event) == [(1, "1001", "1002", 2, 0, 0, False), (1, "1003", None, 0, 0, 0, False)]


def test_saving_one_round_keeps_the_others(organizer_client, event, players):
    upload(organizer_client, event, matches=VALID_MATCHES)
    page = organizer_client.get(f"/organize/events/{event.pk}/rounds/2/")
    assert [form.initial.get("player1") for form in page.context["formset"]] == ["1001", "1002", None, None]

    organizer_client.post(
        f"/organize/events/{event.pk}/rounds/2/",
        round_post([("1001", "1004", "2", "1", ""), ("1002", "1003", "0", "2", "")], elimination=True),
    )

    assert results_of(event) == [
        (1, "1001", "1002", 2, 1, 0, False),
        (1, "1003", "1004", 1, 1, 1, False),
        (2, "1001", "1004", 2, 1, 0, True),
        (2, "1002", "1003", 0, 2, 0, True),
    ]
    summary = organizer_client.get(f"/organize/events/{event.pk}/").context["summary"]
    assert (summary.rounds, summary.matches, summary.participants) == ([1, 2], 4, 4)


def test_a_bad_row_in_a_round_is_marked_on_that_row_and_nothing_is_saved(organizer_client, event, players):
    response = organizer_client.post(
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
    # In the form's words: the player by name, the other row by its number on the form.
    assert forms[2].errors == {"player2": ["Player 1001 (1001) already plays in round 1 (row 1)"]}
    assert not Match.objects.exists()


def test_the_page_marks_the_bad_row_and_box_and_keeps_what_was_typed(organizer_client, event, players):
    response = organizer_client.post(
        f"/organize/events/{event.pk}/rounds/1/",
        round_post([("1001", "1002", "2", "0", ""), ("1003", "1003", "x<b>", "0", "")]),
    )

    html = response.content.decode()
    first = re.search(r'<tr class="" data-row="1">(.*?)</tr>', html, re.S).group(1)
    second = re.search(r'<tr class="has-error" data-row="2">(.*?)</tr>', html, re.S).group(1)
    assert "has-error" not in first and 'value="1001"' in first
    cells = re.findall(r"<td (.*?)</td>", second, re.S)
    assert [cell.startswith('data-label="Games won by player 1" class="has-error"') for cell in cells] == [
        False, False, True, False, False,
    ]  # fmt: skip
    assert 'value="x&lt;b&gt;"' in cells[2]  # as typed, escaped
    assert "Match 2: Games won by player 1" in text(cells[2])  # its label, for screen readers
    assert "is not a number of games" in text(cells[2])
    assert "cannot play against themselves" in text(cells[1])


def test_an_elimination_round_refuses_a_draw_on_its_row(organizer_client, event, players):
    response = organizer_client.post(
        f"/organize/events/{event.pk}/rounds/4/",
        round_post([("1001", "1002", "1", "1", "")], elimination=True),
    )

    assert response.context["formset"].forms[0].errors == {
        "games2": ["an elimination-round match cannot be a draw (1-1); report the winner"]
    }


def test_an_unknown_number_typed_in_a_round_is_registered_with_its_name(organizer_client, event, players):
    first = organizer_client.post(
        f"/organize/events/{event.pk}/rounds/1/", round_post([("1001", "2001", "2", "0", "")])
    )
    assert first.context["players_form"].shown == ["2001"]

    organizer_client.post(
        f"/organize/events/{event.pk}/rounds/1/",
        round_post([("1001", "2001", "2", "0", "")], numbers="2001", name_2001="Nora New", country_2001="NO"),
    )

    assert results_of(event) == [(1, "1001", "2001", 2, 0, 0, False)]


def test_standings_are_entered_in_a_form(organizer_client, organizer, players):
    event = EventFactory(organizer=organizer, format="vtes", player_count=4)
    rows = [("1001", "1", "3.5", "2", "winner"), ("1002", "2", "2", "1", "finalist"), ("1003", "3", "0.5", "0", "")]
    data = {"s-TOTAL_FORMS": str(len(rows) + 1), "s-INITIAL_FORMS": "0"}
    for index, (player, rank, vp, gw, final) in enumerate(rows):
        data.update({f"s-{index}-player": player, f"s-{index}-rank": rank, f"s-{index}-vp": vp})
        data.update({f"s-{index}-gw": gw, f"s-{index}-final": final})

    response = organizer_client.post(f"/organize/events/{event.pk}/standings/", data)

    assert response.status_code == 302
    stored = Standing.objects.filter(event=event).order_by("rank")
    assert [(s.participant.player.membership_number, s.rank, str(s.vp), s.gw, s.final) for s in stored] == [
        ("1001", 1, "3.5", 2, "winner"),
        ("1002", 2, "2.0", 1, "finalist"),
        ("1003", 3, "0.5", 0, ""),
    ]


def test_a_second_winner_is_marked_on_its_row(organizer_client, organizer, players):
    event = EventFactory(organizer=organizer, format="vtes", player_count=4)
    data = {"s-TOTAL_FORMS": "2", "s-INITIAL_FORMS": "0"}
    for index, player in enumerate(["1001", "1002"]):
        data.update({f"s-{index}-player": player, f"s-{index}-rank": str(index + 1), f"s-{index}-final": "winner"})

    response = organizer_client.post(f"/organize/events/{event.pk}/standings/", data)

    assert response.context["formset"].forms[1].errors == {"final": ["the event already has a winner (row 1)"]}
    assert not Standing.objects.exists()


# Rows, not CSV ---------------------------------------------------------------------------------------------


@pytest.fixture
def no_csv(monkeypatch):
    """Writing or reading CSV fails: what a form sends must be checked without it."""

    def refused(*args, **kwargs):
        raise AssertionError("a form's rows were written or read as CSV")

    monkeypatch.setattr(csv, "writer", refused)
    monkeypatch.setattr(csv, "reader", refused)


def test_a_round_typed_in_is_checked_and_saved_without_writing_or_reading_csv(organizer_client, event, players, no_csv):
    refused = organizer_client.post(
        f"/organize/events/{event.pk}/rounds/1/",
        round_post([("1001", "1002", "2", "0", ""), ("1003", "1003", "", "", "")]),
    )
    saved = organizer_client.post(
        f"/organize/events/{event.pk}/rounds/1/",
        round_post([("1001", "1002", "2", "0", ""), ("1003", "1004", "1", "1", "1")]),
    )

    assert refused.context["formset"].forms[1].errors["player2"] == ["1003 cannot play against themselves"]
    assert saved.status_code == 302
    assert results_of(event) == [(1, "1001", "1002", 2, 0, 0, False), (1, "1003", "1004", 1, 1, 1, False)]


def test_a_value_with_commas_and_quotes_is_checked_exactly_as_typed(organizer_client, event, players, no_csv):
    typed = 'Jo "The Rock", 1002'

    response = organizer_client.post(
        f"/organize/events/{event.pk}/rounds/1/", round_post([("1001", typed, "2", "0", "")])
    )

    assert response.context["formset"].forms[0].errors == {"player2": [f"{typed!r} is not a membership number"]}
    assert not Match.objects.exists()


def test_a_standing_typed_in_is_checked_without_writing_or_reading_csv(organizer_client, organizer, players, no_csv):
    event = EventFactory(organizer=organizer, format="vtes", player_count=4)
    data = {"s-TOTAL_FORMS": "2", "s-INITIAL_FORMS": "0", "s-0-player": "1001", "s-0-rank": "1", "s-0-vp": "2,5"}
    data.update({"s-1-player": "1002", "s-1-rank": "2", "s-1-vp": "1"})

    response = organizer_client.post(f"/organize/events/{event.pk}/standings/", data)

    assert response.context["formset"].forms[0].errors == {
        "vp": ["'2,5' is not a number of victory points (halves allowed)"]
    }
    assert not Standing.objects.exists()


def test_a_problem_is_placed_on_the_form_row_it_was_typed_in_not_on_its_place_among_the_results(
    organizer_client, event, players
):
    upload(organizer_client, event, matches=VALID_MATCHES)  # rounds 1 and 2 stored: round 3's rows come after theirs
    rows = [("", "", "", "", ""), ("1001", "1002", "2", "0", ""), ("", "", "", "", ""), ("1003", "1003", "2", "0", "")]

    response = organizer_client.post(f"/organize/events/{event.pk}/rounds/3/", round_post(rows))

    forms = response.context["formset"].forms
    assert [bool(form.errors) for form in forms] == [False, False, False, True]
    assert forms[3].errors == {"player2": ["1003 cannot play against themselves"]}
    assert response.context["placed"].general == []
    assert Match.objects.filter(event=event).count() == 4  # nothing saved


def test_a_problem_of_another_round_is_shown_by_that_round(organizer_client, event, players):
    upload(organizer_client, event, matches=VALID_MATCHES)
    # A number changed since, to one the rules refuse: round 1's second match names it.
    Player.objects.filter(membership_number="1004").update(membership_number="10 04")

    response = organizer_client.post(
        f"/organize/events/{event.pk}/rounds/2/", round_post([("1001", "1003", "2", "0", "")])
    )

    assert [str(error) for error in response.context["placed"].general] == [
        "round 1:3: player2_id: '10 04' is not a membership number"
    ]
    assert response.context["formset"].total_error_count() == 0
    assert "round 1, line 3 (player2_id): &#x27;10 04&#x27; is not a membership number" in response.content.decode()


@pytest.mark.parametrize(
    ("typed", "field", "column", "message"),
    [
        (("1001", "1001", "2", "0", ""), "player2", "player2_id", "1001 cannot play against themselves"),
        (("1001", "1002", "two", "0", ""), "games1", "player1_games", "'two' is not a number of games (0 or more)"),
        (("1001", "bad number!", "2", "0", ""), "player2", "player2_id", "'bad number!' is not a membership number"),
        (("", "1002", "2", "0", ""), "player1", "player1_id", "player 1 is required (a bye leaves player 2 blank)"),
        (("1001", "9999", "2", "0", ""), "player2", "player2_id", "unknown player '9999': not registered yet"),
    ],
)
def test_a_row_typed_in_and_the_same_row_uploaded_get_the_same_problem_in_their_words(
    organizer_client, event, players, typed, field, column, message
):
    """The same check, said as the form says things (players, rows) or as the file does (columns, lines)."""
    typed_in = organizer_client.post(f"/organize/events/{event.pk}/rounds/1/", round_post([typed]))
    uploaded = upload(organizer_client, event, matches=MATCH_HEADER + "1," + ",".join(typed) + ",0\n")

    [on_form] = typed_in.context["formset"].forms[0].errors[field]
    [row] = uploaded.context["placed"].rows
    [in_file] = {name: messages for name, _, messages in row.values}[column]
    assert on_form.startswith(message)
    assert ".csv" not in on_form and "_id" not in on_form
    assert in_file == on_form or ".csv" in in_file or "_id" in in_file


def test_the_check_of_typed_rows_says_which_form_row_each_problem_came_from(event, players, organizer):
    typed = [Row(values, Origin(form_row=index)) for index, values in [
        (2, {"player1_id": "1001", "player2_id": "1002", "player1_games": "2", "player2_games": "0"}),
        (5, {"player1_id": "1003", "player2_id": "1003", "player1_games": "2", "player2_games": "0"}),
    ]]  # fmt: skip

    with pytest.raises(services.ResultsInvalid) as invalid:
        services.event_results_replace(
            event=event, by=organizer, rows=round_results(event, round_number=1, typed=typed, elimination=False)
        )

    [error] = invalid.value.check.errors
    assert (error.file, error.line, error.column) == ("matches.csv", 3, "player2_id")
    assert invalid.value.check.origin(error) == Origin(form_row=5)
    assert MatchRowForm.COLUMNS[error.column] == "player2"


def test_a_round_left_empty_says_so_in_the_forms_words(organizer_client, event, players):
    response = organizer_client.post(f"/organize/events/{event.pk}/rounds/1/", round_post([("", "", "", "", "")]))

    html = response.content.decode()
    assert "no results yet: enter the matches of a round, or the standings" in html
    assert "matches.csv" not in html and f"event {event.pk}" not in html


def test_a_player_picked_by_name_from_the_suggestions_is_kept_by_number(organizer_client, event, players):
    """A results form's player box suggests names as it is typed; a pick reads "Name (number)"."""
    form = organizer_client.get(f"/organize/events/{event.pk}/rounds/1/").content.decode()
    assert 'data-suggest="/suggest/players/"' in form

    response = organizer_client.post(
        f"/organize/events/{event.pk}/rounds/1/",
        round_post([("Player 1001 (1001)", "Player 1002 (1002)", "2", "1", ""), ("1003", "1004", "2", "0", "")]),
    )

    assert response.status_code == 302
    assert results_of(event) == [(1, "1001", "1002", 2, 1, 0, False), (1, "1003", "1004", 2, 0, 0, False)]


@pytest.fixture
def named(players):
    names = {"1001": "Niklas Krüger", "1002": "Ana Conceição", "1003": "Jan Novák", "1004": "Jan Novák"}
    for player in players:
        player.name = names[player.membership_number]
        player.save(update_fields=["name"])
    return players


def test_a_name_typed_out_in_any_spelling_is_kept_as_its_players_number(organizer_client, event, named):
    response = organizer_client.post(
        f"/organize/events/{event.pk}/rounds/1/",
        round_post([("niklas kruger", "Conceicao  Ana", "2", "1", ""), ("1003", "1004", "2", "0", "")]),
    )

    assert response.status_code == 302
    assert results_of(event) == [(1, "1001", "1002", 2, 1, 0, False), (1, "1003", "1004", 2, 0, 0, False)]


def test_a_name_typed_out_that_is_not_one_player_is_refused_on_its_box_with_the_candidates(
    organizer_client, event, named
):
    response = organizer_client.post(
        f"/organize/events/{event.pk}/rounds/1/",
        round_post([("Jan Novak", "Niklas Krugr", "2", "1", ""), ("Ana Conceição", "", "", "", "")]),
    )

    assert response.status_code == 200
    first, second = response.context["formset"].forms
    assert first.errors == {
        "player1": [
            "Several players are called “Jan Novak”: Jan Novák (1003); Jan Novák (1004). Pick one, or type the number."
        ],
        "player2": ["No player is called “Niklas Krugr”. Did you mean Niklas Krüger (1001)? Pick one."],
    }
    assert second.errors == {}
    assert not Match.objects.exists()
    assert "Register new players" not in response.content.decode()  # a name is never taken for a new number
