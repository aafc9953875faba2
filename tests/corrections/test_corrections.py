"""Corrections (SPEC 5): what is recorded, what is recomputed, what the impact preview predicts, the public log
and the admins' correction pages.

Two worlds: the default test bundle (tests/bundles.py) imported and rated, for
hand-readable records and pages; and random swiss events written in bulk, for
comparing a recompute after a correction with a full recompute.

Munich Open (E1, standard, K 32, 2003-05-01): R1 1001 beats 1002 2–1, 1003
draws 1004 1–1–1, 1005 has a bye; R2 1001 beats 1003 2–0, 1005 beats 1004 2–0;
R3 (elimination) 1001 beats 1005 2–1.
"""

import math
import random
from datetime import date, timedelta

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse
from django.utils import timezone

from corrections import services
from corrections.models import Appeal, AppealStatus, Correction, CorrectionKind, CorrectionSource
from corrections.services import NewMatch, Result
from events.models import Event, EventStatus, Match
from organize.importer import results_import
from players.models import Participant, Player
from ratings.impact import MatchChange, correction_impact
from ratings.models import Category, CurrentRating, RatingEntry, RecomputeRun, RecomputeStatus
from ratings.selectors.lists import category_standings
from ratings.services import category_recompute, recompute_run_execute
from tests.bundles import Bundle
from tests.factories import AdminFactory

pytestmark = pytest.mark.django_db

E1_DATE = date(2003, 5, 1)
EXACT = 1e-9


@pytest.fixture
def admin():
    return AdminFactory()


def participant(number) -> int:
    return Player.objects.get(membership_number=number).participant_id


def the_match(event_code, round_number, number1) -> Match:
    return Match.objects.select_related("event").get(
        event__code=event_code, round=round_number, participant1_id=participant(number1)
    )


def run_queued() -> list[RecomputeRun]:
    """Carry out every queued recompute, as the job worker would."""
    done = []
    for run in RecomputeRun.objects.filter(status=RecomputeStatus.QUEUED).order_by("pk"):
        done.append(recompute_run_execute(run_id=run.pk))
    return done


def recompute_everything():
    for category in Category.objects.all():
        category_recompute(category=category)


@pytest.fixture
def world(tmp_path):
    """The default bundle, imported and rated; no run queued."""
    results_import(source=Bundle(tmp_path).write())
    recompute_everything()
    RecomputeRun.objects.all().delete()


# what a correction records ---------------------------------------------------------------------------


def test_a_corrected_result_is_recorded_with_who_when_the_old_and_new_result_and_why(world, admin):
    match = the_match("E1", 2, "1001")
    before = timezone.now()

    correction = services.match_correct(
        match=match, result=Result(0, 2, 1), reason="The players swapped the result slips.", by=admin
    )

    correction = Correction.objects.get(pk=correction.pk)
    assert (correction.kind, correction.source, correction.corrected_by) == (
        CorrectionKind.RESULT,
        CorrectionSource.ADMIN,
        admin,
    )
    assert correction.corrected_at >= before
    assert (correction.old_games1, correction.old_games2, correction.old_draws, correction.old_elimination) == (
        2,
        0,
        0,
        False,
    )
    assert (correction.new_games1, correction.new_games2, correction.new_draws, correction.new_elimination) == (
        0,
        2,
        1,
        False,
    )
    assert correction.reason == "The players swapped the result slips."
    assert (correction.match, correction.event.code, correction.event_name, correction.event_date) == (
        match,
        "E1",
        "Munich Open",
        E1_DATE,
    )
    assert (correction.round, correction.participant1_id, correction.participant2_id) == (
        2,
        participant("1001"),
        participant("1003"),
    )
    assert correction.old_result == "Alice Archer won 2–0"
    assert correction.new_result == "Chloé Dubois won 2–0–1"
    assert correction.appeal is None
    match.refresh_from_db()
    assert (match.games1, match.games2, match.draws) == (0, 2, 1)


def test_a_correction_queues_one_recompute_per_category_from_the_match_date_by_its_author(world, admin):
    correction = services.match_correct(
        match=the_match("E1", 2, "1001"), result=Result(0, 2), reason="Misreported.", by=admin
    )

    [run] = RecomputeRun.objects.all()
    assert (run.category.slug, run.since, run.status, run.requested_by) == (
        "constructed",
        E1_DATE,
        RecomputeStatus.QUEUED,
        admin,
    )
    assert run.reason == f"correction #{correction.pk}: result corrected in Munich Open"


@pytest.mark.parametrize(
    "result, error",
    [
        (Result(2, 0), "That is the result already recorded"),
        (Result(1, 1, 0, True), "An elimination-round match cannot be a draw"),
    ],
)
def test_a_correction_that_changes_nothing_or_breaks_the_rules_is_refused_and_nothing_saved(
    world, admin, result, error
):
    match = the_match("E1", 2, "1001")

    with pytest.raises(ValidationError, match=error):
        services.match_correct(match=match, result=result, reason="Because.", by=admin)

    assert not Correction.objects.exists()
    assert not RecomputeRun.objects.exists()
    match.refresh_from_db()
    assert (match.games1, match.games2, match.elimination) == (2, 0, False)


def test_a_correction_without_a_reason_is_refused(world, admin):
    with pytest.raises(ValidationError, match="Say why"):
        services.match_correct(match=the_match("E1", 2, "1001"), result=Result(0, 2), reason="  ", by=admin)
    assert not Correction.objects.exists()


def test_a_bye_cannot_be_corrected(world, admin):
    with pytest.raises(ValidationError, match="A bye has no result"):
        services.match_correct(match=the_match("E1", 1, "1005"), result=Result(2, 0), reason="Why not.", by=admin)


def test_a_correction_of_a_match_changed_since_it_was_looked_at_is_refused(world, admin):
    match = the_match("E1", 2, "1001")
    Match.objects.filter(pk=match.pk).update(games2=1)

    with pytest.raises(ValidationError, match="changed since you looked at it"):
        services.match_correct(
            match=match, result=Result(0, 2), reason="Misreported.", by=admin, expected=Result(2, 0, 0, False)
        )
    assert not Correction.objects.exists()


def test_a_correction_is_all_or_nothing(world, admin, monkeypatch):
    """When queueing the recompute fails, the match, the record and the run are all left as they were."""

    def broken(**kwargs):
        raise RuntimeError("queue unavailable")

    monkeypatch.setattr("corrections.services.recompute_enqueue", broken)
    # No run queued by the signals to relabel: the service must queue its own, and that fails.
    monkeypatch.setattr("ratings.signals.recompute_from", lambda **kwargs: None)
    match = the_match("E1", 2, "1001")

    with pytest.raises(RuntimeError):
        services.match_correct(match=match, result=Result(0, 2), reason="Misreported.", by=admin)

    match.refresh_from_db()
    assert (match.games1, match.games2) == (2, 0)
    assert not Correction.objects.exists()
    assert not RecomputeRun.objects.exists()


def test_removing_a_match_records_what_it_was_and_closes_its_open_appeals(world, admin):
    match = the_match("E1", 2, "1004")
    appeal = Appeal.objects.create(
        match=match, match_label="E1 R2", player=Player.objects.get(membership_number="1004"), side=1,
        reported_games1=0, reported_games2=2, reported_draws=0, claimed_games1=2, claimed_games2=0, claimed_draws=0,
        explanation="I won.",
    )  # fmt: skip

    correction = services.match_remove(match=match, reason="Never played: 1004 had left.", by=admin)

    assert not Match.objects.filter(pk=match.pk).exists()
    correction.refresh_from_db()
    assert (correction.kind, correction.match, correction.old_result, correction.new_result) == (
        CorrectionKind.REMOVAL,
        None,
        "Emi Fujita won 2–0",
        "removed",
    )
    assert (correction.round, correction.participant1_id, correction.participant2_id) == (
        2,
        participant("1004"),
        participant("1005"),
    )
    appeal.refresh_from_db()
    assert (appeal.status, appeal.match, appeal.decided_by) == (AppealStatus.REJECTED, None, admin)
    assert appeal.decision_reason == "The match was removed: Never played: 1004 had left."
    [run] = RecomputeRun.objects.all()
    assert (run.category.slug, run.since, run.requested_by) == ("constructed", E1_DATE, admin)


def test_adding_a_match_records_it_and_links_the_new_match(world, admin):
    event = Event.objects.get(code="E1")
    new = NewMatch(
        event, 2, Participant.objects.get(pk=participant("1002")), Participant.objects.get(pk=participant("1006")),
        Result(2, 1),
    )  # fmt: skip

    correction = services.match_add(new=new, reason="The organizer forgot a table.", by=admin)

    added = Match.objects.get(event=event, round=2, participant1_id=participant("1002"))
    assert (added.participant2_id, added.games1, added.games2) == (participant("1006"), 2, 1)
    assert (correction.kind, correction.match, correction.old_result, correction.new_result) == (
        CorrectionKind.ADDITION,
        added,
        "not recorded",
        "Bruno Becker won 2–1",
    )
    [run] = RecomputeRun.objects.all()
    assert (run.category.slug, run.since, run.requested_by) == ("constructed", E1_DATE, admin)


def test_a_match_cannot_be_added_for_someone_already_playing_that_round(world, admin):
    event = Event.objects.get(code="E1")
    new = NewMatch(
        event, 2, Participant.objects.get(pk=participant("1001")), Participant.objects.get(pk=participant("1006")),
        Result(2, 1),
    )  # fmt: skip

    with pytest.raises(ValidationError, match="already plays a match in round 2"):
        services.match_add(new=new, reason="Forgot it.", by=admin)
    assert not Correction.objects.exists()


# exact recomputes --------------------------------------------------------------------------------------

RESULTS = [(2, 0), (2, 1), (1, 2), (0, 2), (1, 1), (0, 0), (2, 0)]


def a_world(*, seed=11, players=10, events=6, rounds=3):
    """Random swiss events of standard 14 days apart, written in bulk (no signals); oldest first."""
    rng = random.Random(seed)
    people = []
    for number in range(players):
        player = Player.objects.create(
            participant=Participant.objects.create(kind=Participant.Kind.PLAYER),
            membership_number=f"R{number}",
            name=f"Random {number}",
        )
        people.append(player.participant_id)
    made = Event.objects.bulk_create(
        Event(
            code=f"R{index}", name=f"Random event {index}", date=date(2004, 1, 3) + timedelta(days=14 * index),
            format="standard", k=rng.choice([16, 24, 32, 48]), player_count=[8, 20, 40, 12][index % 4],
            level2_judge=index % 2 == 0, status=EventStatus.SUBMITTED,
        )
        for index in range(events)
    )  # fmt: skip
    matches = []
    for event in made:
        for number in range(1, rounds + 1):
            seating = rng.sample(people, len(people))
            for one, two in zip(seating[::2], seating[1::2], strict=False):
                games1, games2 = rng.choice(RESULTS)
                matches.append(Match(event=event, round=number, participant1_id=one, participant2_id=two,
                                     games1=games1, games2=games2))  # fmt: skip
    Match.objects.bulk_create(matches)
    return made


def a_ruleset_category(ruleset: str) -> Category:
    if ruleset == "dci-2001":
        return Category.objects.get(slug="constructed")
    return Category.objects.create(
        slug=f"standard-{ruleset}", name=f"Standard ({ruleset})", ruleset=ruleset, formats="standard",
        provisional_until=8 if ruleset == "dci-1997" else 0, ranked_after=10,
    )  # fmt: skip


def history(category) -> dict:
    """(participant, match) -> (rating before, rating after) over the category's whole history."""
    return {
        (who, match): (before, after)
        for who, match, before, after in RatingEntry.objects.filter(category=category).values_list(
            "participant_id", "match_id", "rating_before", "rating_after"
        )
    }


def assert_same(one: dict, other: dict):
    assert one.keys() == other.keys()
    for key, values in other.items():
        for mine, theirs in zip(one[key], values, strict=True):
            assert math.isclose(mine, theirs, rel_tol=0, abs_tol=EXACT), (key, mine, theirs)


def current(category) -> dict[int, float]:
    return dict(CurrentRating.objects.filter(category=category).values_list("participant_id", "rating"))


def a_change(kind: str, middle: Event) -> tuple:
    """(service call, impact input) for a correction of `kind` in the event `middle`."""
    matches = list(Match.objects.filter(event=middle).order_by("round", "id"))
    played = matches[1]
    if kind == "result":
        result = Result(played.games2 + 1, played.games1, 1)
        change = MatchChange(
            middle,
            played.round,
            played.participant1_id,
            played.participant2_id,
            played.pk,
            result.games1,
            result.games2,
        )
        return (lambda by: services.match_correct(match=played, result=result, reason="Slips swapped.", by=by)), change
    if kind == "removal":
        change = MatchChange(middle, played.round, played.participant1_id, played.participant2_id, played.pk)
        return (lambda by: services.match_remove(match=played, reason="Never played.", by=by)), change
    # An extra round between two players of the event, as if it had been left out of the report.
    one, two = matches[0].participant1, matches[0].participant2
    new = NewMatch(middle, 9, one, two, Result(0, 2))
    change = MatchChange(middle, 9, one.pk, two.pk, None, 0, 2)
    return (lambda by: services.match_add(new=new, reason="A round went missing.", by=by)), change


@pytest.mark.parametrize("ruleset", ["dci-2001", "dci-1997", "match-points"])
@pytest.mark.parametrize("kind", ["result", "removal", "addition"])
def test_after_a_correction_the_ratings_equal_a_full_recompute_and_the_day_before_is_unchanged(admin, ruleset, kind):
    category = a_ruleset_category(ruleset)
    events = a_world()
    category_recompute(category=category)
    middle = events[3]
    day_before = middle.date - timedelta(days=1)
    rows_before = set(RatingEntry.objects.filter(category=category, event_date__lt=middle.date).values_list())
    standings_before = category_standings(category=category, as_of=day_before)
    assert rows_before and standings_before  # the correction is in the middle of the history
    apply, change = a_change(kind, middle)
    [impact] = [each for each in correction_impact(change=change) if each.category == category]
    now = current(category)

    apply(admin)
    [run] = [run for run in run_queued() if run.category == category]

    assert (run.status, run.computed_since) == (RecomputeStatus.DONE, middle.date)
    # Nothing before the corrected match changed, not even a row id.
    assert set(RatingEntry.objects.filter(category=category, event_date__lt=middle.date).values_list()) == rows_before
    assert category_standings(category=category, as_of=day_before) == standings_before
    # Everything after it is what a full recompute of the corrected data gives.
    after_correction, published = history(category), current(category)
    category_recompute(category=category)
    assert_same(after_correction, history(category))
    # The impact preview predicted every published change, and only those.
    predicted = {row.participant_id: row for row in impact.rows}
    assert predicted
    for who, rating in published.items():
        expected = predicted[who].rating_after if who in predicted else now[who]
        assert math.isclose(rating, expected, rel_tol=0, abs_tol=EXACT), (who, rating, expected)
    for who, row in predicted.items():
        assert math.isclose(row.rating_now, now[who], rel_tol=0, abs_tol=EXACT)
    assert {row.participant_id for row in impact.rows if row.in_match} == {change.participant1, change.participant2}


def test_the_impact_preview_writes_nothing(admin):
    category = a_ruleset_category("dci-1997")
    events = a_world()
    category_recompute(category=category)
    entries = set(RatingEntry.objects.values_list())
    lists = set(CurrentRating.objects.values_list())
    _, change = a_change("result", events[2])

    impacts = correction_impact(change=change)

    assert {impact.category.slug for impact in impacts} == {"constructed", category.slug}
    assert set(RatingEntry.objects.values_list()) == entries
    assert set(CurrentRating.objects.values_list()) == lists
    assert not RecomputeRun.objects.exists()


def test_the_impact_preview_sorts_by_the_size_of_the_change_and_flags_the_two_sides(world):
    match = the_match("E1", 2, "1001")
    [impact] = correction_impact(
        change=MatchChange(match.event, 2, match.participant1_id, match.participant2_id, match.pk, 0, 2)
    )

    changes = [abs(row.change) for row in impact.rows]
    assert changes == sorted(changes, reverse=True)
    assert {row.display_id for row in impact.rows if row.in_match} == {"1001", "1003"}
    assert impact.rows[0].in_match  # the two sides move most
    assert impact.recomputes_pending == 0


def test_the_impact_preview_names_why_a_category_cannot_move(world):
    event = Event.objects.get(code="E1")
    bye = the_match("E1", 1, "1005")
    [impact] = correction_impact(change=MatchChange(event, 1, bye.participant1_id, None, bye.pk))
    assert impact.not_rated == "a bye is never rated"

    Event.objects.filter(pk=event.pk).update(status=EventStatus.DRAFT)
    event.refresh_from_db()
    match = the_match("E1", 2, "1001")
    [impact] = correction_impact(
        change=MatchChange(event, 2, match.participant1_id, match.participant2_id, match.pk, 0, 2)
    )
    assert impact.not_rated == "the event is a draft: it is not rated yet"


# the public correction log ------------------------------------------------------------------------------


def test_the_correction_log_lists_every_correction_and_filters_them(client, world, admin):
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


def test_a_correction_has_its_own_public_page(client, world, admin):
    correction = services.match_correct(
        match=the_match("E1", 2, "1001"), result=Result(0, 2), reason="Slips swapped.", by=admin
    )

    html = client.get(correction.get_absolute_url()).content.decode()

    for text in ("Munich Open", "Round 2: Alice Archer vs Chloé Dubois", "Alice Archer won 2–0", "Slips swapped.",
                 admin.username):  # fmt: skip
        assert text in html
    assert client.get("/corrections/999999/").status_code == 404


# the admins' correction pages: preview, then apply -------------------------------------------------------


def test_correcting_on_the_site_previews_the_impact_then_applies_it(client, world, admin):
    client.force_login(admin)
    match = the_match("E1", 2, "1001")
    url = reverse("corrections:match_correct", args=[match.pk])
    form = client.get(url).context["form"]
    data = {**form.initial, "games1": 0, "games2": 2, "draws": 0, "reason": "Slips swapped."}

    preview = client.post(url, {**data, "action": "preview"})

    assert preview.status_code == 200
    assert preview.context["stage"] == "confirm"
    [(impact, table)] = preview.context["impacts"]
    assert impact.category.slug == "constructed"
    assert {row.display_id for row in impact.rows} >= {"1001", "1003"}
    assert not Correction.objects.exists()  # a preview applies nothing

    applied = client.post(url, {**data, "action": "apply"})

    [correction] = Correction.objects.all()
    assert applied.status_code == 302
    assert applied.url == correction.get_absolute_url()
    assert (correction.new_games1, correction.new_games2, correction.reason) == (0, 2, "Slips swapped.")


def test_applying_after_someone_else_changed_the_match_is_refused(client, world, admin):
    client.force_login(admin)
    match = the_match("E1", 2, "1001")
    url = reverse("corrections:match_correct", args=[match.pk])
    data = {**client.get(url).context["form"].initial, "games1": 0, "games2": 2, "draws": 0, "reason": "Swap."}
    Match.objects.filter(pk=match.pk).update(games2=1)

    response = client.post(url, {**data, "action": "apply"})

    assert response.status_code == 200
    assert "changed since you looked at it" in response.content.decode()
    assert not Correction.objects.exists()


def test_removing_and_adding_on_the_site_preview_then_apply(client, world, admin):
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


def test_the_add_form_says_which_side_is_wrong(client, world, admin):
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
