"""Corrections (SPEC 5) on the site: the public correction log, a correction's page, and the admins' pages that
preview a correction's impact and then apply it.

The world is the default test bundle (tests/bundles.py), imported and rated (`rated_default_bundle`).
"""

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from corrections import services
from corrections.models import Correction, CorrectionKind
from corrections.services import Result
from events.models import Event, Match
from tests.corrections.correcting import participant, the_match

pytestmark = pytest.mark.django_db


# the public correction log ------------------------------------------------------------------------------


def test_the_correction_log_lists_every_correction_and_filters_them(client, rated_default_bundle, admin):
    constructed = services.match_correct(
        match=the_match("E1", 2, "1001"), result=Result(0, 2), reason="Slips swapped.", by=admin
    )
    limited = services.match_correct(
        match=the_match("E2", 1, "1002"), result=Result(2, 1), reason="Typo in the report.", by=admin
    )
    Correction.objects.filter(pk=limited.pk).update(corrected_at=timezone.now() - timedelta(days=10))

    def listed(**filters):
        response = client.get("/corrections/", filters)
        assert response.status_code == 200
        return [row.record.pk for row in response.context["table"].page.object_list]

    assert listed() == [constructed.pk, limited.pk]
    assert listed(player="1003") == [constructed.pk, limited.pk]
    assert listed(player="Alice") == [constructed.pk]
    assert listed(event="paris") == [limited.pk]
    assert listed(category="constructed") == [constructed.pk]
    assert listed(category="limited") == [limited.pk]
    assert listed(corrected_from=(timezone.localdate() - timedelta(days=2)).isoformat()) == [constructed.pk]
    assert listed(corrected_to=(timezone.localdate() - timedelta(days=2)).isoformat()) == [limited.pk]
    assert listed(kind="removal") == []
    html = client.get("/corrections/").content.decode()
    assert "Alice Archer won 2–0" in html
    assert "Chloé Dubois won 2–0" in html


def test_the_correction_log_reads_the_same_queries_however_many_corrections_it_shows(
    client, rated_default_bundle, admin
):
    def queries() -> int:
        with CaptureQueriesContext(connection) as captured:
            assert client.get("/corrections/").status_code == 200
        return len(captured)

    services.match_correct(match=the_match("E1", 2, "1001"), result=Result(0, 2), reason="Slips swapped.", by=admin)
    one = queries()
    services.match_correct(match=the_match("E2", 1, "1002"), result=Result(2, 1), reason="Typo.", by=admin)
    services.match_correct(match=the_match("E1", 1, "1001"), result=Result(0, 2), reason="Typo.", by=admin)

    assert queries() == one  # no query per row (each row's event, say)
    html = client.get("/corrections/").content.decode()
    assert html.count(f'href="{reverse("events:detail", args=[Event.objects.get(code="E1").pk])}"') == 2


def test_a_correction_has_its_own_public_page(client, rated_default_bundle, admin):
    correction = services.match_correct(
        match=the_match("E1", 2, "1001"), result=Result(0, 2), reason="Slips swapped.", by=admin
    )

    html = client.get(correction.get_absolute_url()).content.decode()

    for text in ("Munich Open", "Round 2: Alice Archer vs Chloé Dubois", "Alice Archer won 2–0", "Slips swapped.",
                 admin.username):  # fmt: skip
        assert text in html
    assert client.get("/corrections/999999/").status_code == 404


# the admins' correction pages: preview, then apply -------------------------------------------------------


def test_correcting_on_the_site_previews_the_impact_then_applies_it(client, rated_default_bundle, admin):
    client.force_login(admin)
    match = the_match("E1", 2, "1001")
    url = reverse("corrections:match_correct", args=[match.pk])
    form = client.get(url).context["form"]
    data = {**form.initial, "games1": 0, "games2": 2, "draws": 0, "reason": "Slips swapped."}

    preview = client.post(url, {**data, "action": "preview"})

    assert preview.status_code == 200
    assert preview.context["stage"] == "confirm"
    [(impact, table, more)] = preview.context["impacts"]
    assert impact.category.slug == "constructed"
    assert {row.display_id for row in impact.rows} >= {"1001", "1003"}
    assert more == 0 and len(table.rows) == len(impact.rows)  # every change shown
    assert not Correction.objects.exists()  # a preview applies nothing

    applied = client.post(url, {**data, "action": "apply"})

    [correction] = Correction.objects.all()
    assert applied.status_code == 302
    assert applied.url == correction.get_absolute_url()
    assert (correction.new_games1, correction.new_games2, correction.reason) == (0, 2, "Slips swapped.")


def test_a_preview_shows_the_largest_changes_and_the_two_sides_and_counts_the_others(
    client, rated_default_bundle, admin, monkeypatch
):
    """A change deep in a big history moves tens of thousands of ratings, most by a hair: the page shows the
    largest, and the match's two sides wherever they stand, and says how many more move."""
    monkeypatch.setattr("corrections.tables.IMPACT_ROWS_SHOWN", 1)
    client.force_login(admin)
    match = the_match("E1", 2, "1001")
    url = reverse("corrections:match_correct", args=[match.pk])
    data = {**client.get(url).context["form"].initial, "games1": 0, "games2": 2, "draws": 0, "reason": "Slips."}

    preview = client.post(url, {**data, "action": "preview"})

    [(impact, table, more)] = preview.context["impacts"]
    shown = [row.record for row in table.rows]
    assert len(impact.rows) == 3  # the two sides and a later opponent
    assert shown[0] == impact.rows[0]  # the largest change first
    assert {row.display_id for row in shown if row.in_match} == {"1001", "1003"}
    assert len(shown) == 1 + sum(row.in_match for row in impact.rows[1:])
    assert more == len(impact.rows) - len(shown) == 1
    assert "The 2 largest changes are shown; 1 other rating changes less." in preview.content.decode()


def test_applying_after_someone_else_changed_the_match_is_refused(client, rated_default_bundle, admin):
    client.force_login(admin)
    match = the_match("E1", 2, "1001")
    url = reverse("corrections:match_correct", args=[match.pk])
    data = {**client.get(url).context["form"].initial, "games1": 0, "games2": 2, "draws": 0, "reason": "Swap."}
    Match.objects.filter(pk=match.pk).update(games2=1)

    response = client.post(url, {**data, "action": "apply"})

    assert response.status_code == 200
    assert "changed since you looked at it" in response.content.decode()
    assert not Correction.objects.exists()


def test_removing_and_adding_on_the_site_preview_then_apply(client, rated_default_bundle, admin):
    client.force_login(admin)
    match = the_match("E1", 2, "1004")
    remove_url = reverse("corrections:match_remove", args=[match.pk])
    data = {**client.get(remove_url).context["form"].initial, "reason": "Never played."}
    assert client.post(remove_url, {**data, "action": "preview"}).context["stage"] == "confirm"
    assert client.post(remove_url, {**data, "action": "apply"}).status_code == 302
    assert not Match.objects.filter(pk=match.pk).exists()

    add_url = reverse("corrections:match_add", args=[match.event_id])
    data = {"round": 2, "side1": "1004", "side2": "1006", "games1": 2, "games2": 0, "draws": 0, "reason": "Replay."}
    preview = client.post(add_url, {**data, "action": "preview"})
    assert preview.context["stage"] == "confirm"
    assert client.post(add_url, {**data, "action": "apply"}).status_code == 302
    assert Match.objects.filter(event_id=match.event_id, round=2, participant1_id=participant("1004")).exists()
    assert [c.kind for c in Correction.objects.order_by("pk")] == [CorrectionKind.REMOVAL, CorrectionKind.ADDITION]


def test_the_add_form_says_which_side_is_wrong(client, rated_default_bundle, admin):
    client.force_login(admin)
    url = reverse("corrections:match_add", args=[Event.objects.get(code="E1").pk])
    data = {"round": 1, "side1": "9999", "side2": "1001", "games1": 2, "games2": 0, "draws": 0, "reason": "x"}

    form = client.post(url, {**data, "action": "preview"}).context["form"]

    assert form.errors == {
        "side1": ["No player has the membership number “9999”."],
    }
    data["side1"] = "1006"
    form = client.post(url, {**data, "action": "preview"}).context["form"]
    assert form.errors == {"side2": ["Alice Archer (1001) already plays a match in round 1 of Munich Open."]}
