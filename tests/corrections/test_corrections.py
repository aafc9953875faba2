"""Corrections (SPEC 5): what a correction records and what it queues; what is refused.

The world is the default test bundle (tests/bundles.py), imported and rated (`rated_default_bundle`).
The recomputes after a correction and the impact preview: test_corrections_recompute.py; the public log and the
admins' correction pages: test_corrections_pages.py.
"""

import pytest
from django.core.exceptions import ValidationError
from django.utils import timezone

from corrections import services
from corrections.models import Appeal, AppealStatus, Correction, CorrectionKind, CorrectionSource
from corrections.services import NewMatch, Result
from events.models import Event, Match
from players.models import Participant, Player
from ratings.models import RecomputeRun, RecomputeStatus
from tests.corrections.correcting import E1_DATE, participant, the_match

pytestmark = pytest.mark.django_db


# what a correction records ---------------------------------------------------------------------------


def test_a_corrected_result_is_recorded_with_who_when_the_old_and_new_result_and_why(rated_default_bundle, admin):
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


def test_a_correction_queues_one_recompute_per_category_from_the_match_date_by_its_author(rated_default_bundle, admin):
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
    rated_default_bundle, admin, result, error
):
    match = the_match("E1", 2, "1001")

    with pytest.raises(ValidationError, match=error):
        services.match_correct(match=match, result=result, reason="Because.", by=admin)

    assert not Correction.objects.exists()
    assert not RecomputeRun.objects.exists()
    match.refresh_from_db()
    assert (match.games1, match.games2, match.elimination) == (2, 0, False)


def test_a_correction_without_a_reason_is_refused(rated_default_bundle, admin):
    with pytest.raises(ValidationError, match="Say why"):
        services.match_correct(match=the_match("E1", 2, "1001"), result=Result(0, 2), reason="  ", by=admin)
    assert not Correction.objects.exists()


def test_a_bye_cannot_be_corrected(rated_default_bundle, admin):
    with pytest.raises(ValidationError, match="A bye has no result"):
        services.match_correct(match=the_match("E1", 1, "1005"), result=Result(2, 0), reason="Why not.", by=admin)


def test_a_correction_of_a_match_changed_since_it_was_looked_at_is_refused(rated_default_bundle, admin):
    match = the_match("E1", 2, "1001")
    Match.objects.filter(pk=match.pk).update(games2=1)

    with pytest.raises(ValidationError, match="changed since you looked at it"):
        services.match_correct(
            match=match, result=Result(0, 2), reason="Misreported.", by=admin, expected=Result(2, 0, 0, False)
        )
    assert not Correction.objects.exists()


def test_a_correction_is_all_or_nothing(rated_default_bundle, admin, monkeypatch):
    """When queueing the recompute fails, the match, the record and the run are all left as they were."""

    def broken(**kwargs):
        raise RuntimeError("queue unavailable")

    # The run is queued by ratings.receivers, answering the correction's results_changed, in its transaction.
    monkeypatch.setattr("ratings.receivers.recompute_enqueue", broken)
    match = the_match("E1", 2, "1001")

    with pytest.raises(RuntimeError):
        services.match_correct(match=match, result=Result(0, 2), reason="Misreported.", by=admin)

    match.refresh_from_db()
    assert (match.games1, match.games2) == (2, 0)
    assert not Correction.objects.exists()
    assert not RecomputeRun.objects.exists()


def test_removing_a_match_records_what_it_was_and_closes_its_open_appeals(rated_default_bundle, admin):
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


def test_adding_a_match_records_it_and_links_the_new_match(rated_default_bundle, admin):
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


def test_a_match_cannot_be_added_for_someone_already_playing_that_round(rated_default_bundle, admin):
    event = Event.objects.get(code="E1")
    new = NewMatch(
        event, 2, Participant.objects.get(pk=participant("1001")), Participant.objects.get(pk=participant("1006")),
        Result(2, 1),
    )  # fmt: skip

    with pytest.raises(ValidationError, match="already plays a match in round 2"):
        services.match_add(new=new, reason="Forgot it.", by=admin)
    assert not Correction.objects.exists()
