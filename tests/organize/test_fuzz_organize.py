"""The organizers' forms under generated input: the event form, the results upload (files damaged at
random, hidden fields tampered with), round entry and standings entry. Whatever is sent, the page answers
with the form and its problems (200) or saves and moves on (302); never a server error, and a refused
form saves nothing. Runs are repeatable (derandomized); FUZZ_EXAMPLES=2000 explores more.
"""

import base64

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection, transaction
from hypothesis import given
from hypothesis import strategies as st

from events.models import Event, Match, Standing
from tests.bundles import db_snapshot
from tests.clients import client_of
from tests.factories import EventFactory, PlayerFactory
from tests.fuzzing import fuzz_settings

pytestmark = pytest.mark.django_db

fuzz = fuzz_settings(30)

MATCHES = (
    b"round,player1_id,player2_id,player1_games,player2_games,draws,elimination\n"
    b"1,1001,1002,2,1,0,0\n1,1003,1004,1,1,1,0\n2,1001,1003,2,0,0,0\n2,1002,1004,0,2,0,0\n"
)

text = st.text(st.characters(exclude_categories=("Cs",)), max_size=40)
field_value = st.one_of(
    text,
    st.sampled_from(["", "0", "-1", "2", "1001", "9999999999999999999999", "2024-02-30", "1e9", "<script>", "'; --"]),
    st.integers().map(str),
)


@pytest.fixture
def organizer_client_no_raise(organizer):
    """A client signed in as the shared `organizer`; a server error shows as a 500 instead of stopping the test."""
    return client_of(organizer, raise_request_exception=False)


@pytest.fixture
def event(organizer):
    for number in range(1001, 1005):
        PlayerFactory(membership_number=str(number), name=f"Player {number}")
    return EventFactory(organizer=organizer, name="Friday Standard", player_count=4)


def answered(client, url, data) -> tuple[int, bool]:
    """(status, whether anything was saved); the database is put back after each request."""
    before = db_snapshot()
    with transaction.atomic():
        response = client.post(url, data)
        changed = db_snapshot() != before
        transaction.set_rollback(True)
    assert response.status_code in (200, 302, 413), (response.status_code, response.content[:2000])
    if response.status_code != 302:
        assert not changed, "a refused form saved something"
    return response.status_code, changed


def flipped(data: bytes, changes) -> bytes:
    damaged = bytearray(data)
    for where, byte in changes:
        damaged[int(where * len(damaged))] = byte
    return bytes(damaged)


@fuzz
@given(
    changes=st.lists(st.tuples(st.floats(0, 1, exclude_max=True), st.integers(0, 255)), min_size=1, max_size=6),
    name=st.sampled_from(["matches.csv", "matches.CSV", "matches.txt", "m.csv"]),
)
def test_an_upload_damaged_at_random_is_refused_with_its_problems_or_saved_whole(
    organizer_client_no_raise, event, changes, name
):
    damaged = flipped(MATCHES, changes)

    status, saved = answered(
        organizer_client_no_raise,
        f"/organize/events/{event.pk}/upload/",
        {"matches": SimpleUploadedFile(name, damaged)},
    )

    if saved:
        assert Match.objects.filter(event=event).count() == 0  # put back
        assert status == 302


@fuzz
@given(content=st.binary(max_size=3000))
def test_any_bytes_uploaded_as_results_are_refused_or_saved_whole(organizer_client_no_raise, event, content):
    answered(
        organizer_client_no_raise,
        f"/organize/events/{event.pk}/upload/",
        {"matches": SimpleUploadedFile("matches.csv", content)},
    )


@fuzz
@given(carried=st.one_of(text, st.binary(max_size=500).map(lambda data: base64.b64encode(data).decode())))
def test_a_tampered_hidden_file_field_is_refused_or_saved_whole(organizer_client_no_raise, event, carried):
    answered(organizer_client_no_raise, f"/organize/events/{event.pk}/upload/", {"matches_carried": carried})


@fuzz
@given(rows=st.lists(st.tuples(field_value, field_value, field_value, field_value, field_value), max_size=5),
       total=st.one_of(st.none(), field_value), elimination=st.booleans())  # fmt: skip
def test_a_round_typed_in_with_anything_in_its_fields_never_breaks_the_page(
    organizer_client_no_raise, event, rows, total, elimination
):
    data = {"m-TOTAL_FORMS": str(len(rows)) if total is None else total, "m-INITIAL_FORMS": "0", "then": "done"}
    for index, (player1, player2, games1, games2, draws) in enumerate(rows):
        data.update({f"m-{index}-player1": player1, f"m-{index}-player2": player2, f"m-{index}-games1": games1,
                     f"m-{index}-games2": games2, f"m-{index}-draws": draws})  # fmt: skip
    if elimination:
        data["elimination"] = "on"

    answered(organizer_client_no_raise, f"/organize/events/{event.pk}/rounds/1/", data)


@fuzz
@given(rows=st.lists(st.tuples(field_value, field_value, field_value, field_value, field_value), max_size=5))
def test_standings_typed_in_with_anything_in_their_fields_never_break_the_page(
    organizer_client_no_raise, organizer, rows
):
    event = EventFactory(organizer=organizer, format="vtes", player_count=4)
    data = {"s-TOTAL_FORMS": str(len(rows)), "s-INITIAL_FORMS": "0"}
    for index, (player, rank, vp, gw, final) in enumerate(rows):
        data.update({f"s-{index}-player": player, f"s-{index}-rank": rank, f"s-{index}-vp": vp,
                     f"s-{index}-gw": gw, f"s-{index}-final": final})  # fmt: skip

    status, saved = answered(organizer_client_no_raise, f"/organize/events/{event.pk}/standings/", data)

    assert saved or not Standing.objects.filter(event=event).exists()


EVENT_FIELDS = ["name", "date", "format", "team_size", "k", "player_count", "level2_judge", "structure", "country",
                "city", "level"]  # fmt: skip


@fuzz
@given(values=st.fixed_dictionaries(dict.fromkeys(EVENT_FIELDS, field_value)))
def test_the_event_form_with_anything_in_its_fields_never_breaks_the_page(organizer_client_no_raise, values):
    status, saved = answered(organizer_client_no_raise, "/organize/events/new/", values)

    if status == 200:
        assert not Event.objects.filter(name=values["name"]).exists()


@pytest.mark.parametrize("value", ["9" * 30, "2147483648", "-2147483649", "99999999999", "1" + "0" * 18])
def test_numbers_too_large_for_the_database_are_refused_by_the_forms(organizer_client_no_raise, event, value):
    """Integer columns have a range (PostgreSQL's is 32 bits, SQLite's 64): a form that let a larger number
    through would fail at the database with a server error."""
    fits = connection.vendor == "sqlite" and -(2**63) <= int(value) < 2**63 and int(value) > 0
    base = {"name": "Big", "date": "2024-05-01", "format": "standard", "team_size": "1", "k": "16",
            "player_count": "8", "structure": "swiss"}  # fmt: skip

    status, _ = answered(organizer_client_no_raise, "/organize/events/new/", {**base, "player_count": value})

    assert status == (302 if fits else 200)
    round_data = {"m-TOTAL_FORMS": "1", "m-INITIAL_FORMS": "0", "then": "done", "m-0-player1": "1001",
                  "m-0-player2": "1002", "m-0-games1": value, "m-0-games2": "0", "m-0-draws": ""}  # fmt: skip
    assert answered(organizer_client_no_raise, f"/organize/events/{event.pk}/rounds/1/", round_data) == (200, False)
