"""The V:EKN section of a player page: which events count, until when, the sum, the peak and the drop-off."""

from datetime import date, timedelta

import pytest
from django.utils import timezone

from ratings.engine.vekn import in_window
from ratings.selectors.vekn import first_day_outside
from tests.bundles import Bundle
from tests.pages import chart_data, page, text
from tests.worlds import bundle_rated

pytestmark = pytest.mark.django_db


def add_months(day: date, months: int) -> date:
    year, month = divmod(day.month - 1 + months, 12)
    return date(day.year + year, month + 1, day.day)


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
    bundle_rated(bundle)
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


# The window -------------------------------------------------------------------------------


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
