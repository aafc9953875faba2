"""The forms results are typed into, as screen readers and browsers get them: each box the box Django writes for
its field (organize.templatetags.result_rows writes a stored row's boxes itself), each description a box points
to on the page."""

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from events.models import FinalPlacing
from organize.forms import MatchRowFormSet, StandingRowFormSet
from organize.templatetags.result_rows import column_help, result_rows
from tests.factories import EventFactory
from tests.organize.pages import MATCH_HEADER, round_post, upload

pytestmark = pytest.mark.django_db

typed = st.one_of(st.none(), st.just(""), st.text(max_size=12), st.integers(0, 99).map(str))


def boxes(html: str) -> list[str]:
    return re.findall(r"<(?:input|select)\b.*?(?:>|</select>)", html, re.S)


def djangos_boxes(formset) -> list[str]:
    """Each box as Django's BoundField writes it, told to name the column's help text."""
    written = []
    for form in formset:
        for name, field in form.fields.items():
            described = f"{formset.prefix}-{name}-help" if field.help_text else None
            written.append(form[name].as_widget(attrs={"aria-describedby": described} if described else None))
    return written


@settings(deadline=None, max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=st.lists(st.tuples(typed, typed, typed, typed, typed), min_size=1, max_size=4))
def test_a_stored_rounds_boxes_are_the_boxes_django_writes(rows):
    names = ("player1", "player2", "games1", "games2", "draws")
    formset = MatchRowFormSet(prefix="m", initial=[dict(zip(names, row, strict=True)) for row in rows])

    assert boxes(result_rows(formset, "match")) == boxes("".join(djangos_boxes(formset)))


@settings(deadline=None, max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    rows=st.lists(
        st.tuples(typed, typed, typed, typed, st.one_of(typed, st.sampled_from(FinalPlacing.values))),
        min_size=1,
        max_size=4,
    )
)
def test_stored_standings_boxes_are_the_boxes_django_writes(rows):
    names = ("player", "rank", "vp", "gw", "final")
    formset = StandingRowFormSet(prefix="s", initial=[dict(zip(names, row, strict=True)) for row in rows])

    assert boxes(result_rows(formset, "row")) == boxes("".join(djangos_boxes(formset)))


def test_a_columns_help_is_written_once_where_its_boxes_point():
    formset = MatchRowFormSet(prefix="m", initial=[{"player1": "1001"}, {"player1": "1002"}])

    html = result_rows(formset, "match")

    assert (
        str(column_help(formset, "player2"))
        == '<span class="visually-hidden" id="m-player2-help">Empty for a bye.</span>'
    )
    assert html.count('aria-describedby="m-player2-help"') == 2
    assert "_helptext" not in html


def described_ids_missing(html: str) -> set[str]:
    """The ids that a box's aria-describedby names and the page does not have."""
    named = {each for value in re.findall(r'aria-describedby="([^"]*)"', html) for each in value.split()}
    return named - set(re.findall(r'\bid="([^"]*)"', html))


def test_every_description_a_rounds_box_names_is_on_the_page(organizer_client, event, players):
    upload(organizer_client, event, matches=MATCH_HEADER + "1,1001,1002,2,1,0,0\n1,1003,1004,1,1,1,0\n")
    stored = organizer_client.get(f"/organize/events/{event.pk}/rounds/1/").content.decode()
    refused = organizer_client.post(
        f"/organize/events/{event.pk}/rounds/1/",
        round_post([("1001", "1002", "2", "0", ""), ("1003", "", "x", "", "")]),
    ).content.decode()

    assert 'aria-describedby="m-player2-help"' in stored
    assert "aria-invalid" in refused  # the refused row's box, described by its errors as well
    assert described_ids_missing(stored) == set() and described_ids_missing(refused) == set()


def test_every_description_a_standings_box_names_is_on_the_page(organizer_client, organizer, players):
    event = EventFactory(organizer=organizer, format="vtes", player_count=4)
    data = {"s-TOTAL_FORMS": "2", "s-INITIAL_FORMS": "0", "s-0-player": "1001", "s-0-rank": "1", "s-0-vp": "x"}
    data |= {"s-1-player": "1002", "s-1-rank": "2", "s-1-vp": "2.5"}

    page = organizer_client.get(f"/organize/events/{event.pk}/standings/").content.decode()
    refused = organizer_client.post(f"/organize/events/{event.pk}/standings/", data).content.decode()

    assert "aria-invalid" in refused
    assert described_ids_missing(page) == set() and described_ids_missing(refused) == set()
    assert 'aria-describedby="s-vp-help id_s-0-vp_error"' in refused  # the column's help, then the box's errors
