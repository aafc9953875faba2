"""Re-imports (SPEC 5, 6): changes to the matches of events already rated are recorded as corrections.

The world is the default test bundle (tests/bundles.py), imported and rated.
"""

import io

import pytest
from django.core.management import CommandError, call_command

from corrections.models import Correction, CorrectionKind, CorrectionSource
from events.models import Event, EventStatus, Match
from organize.importer import results_import
from players.models import Player
from ratings.models import RecomputeRun, RecomputeStatus
from tests.bundles import Bundle
from tests.worlds import bundle_rated

pytestmark = pytest.mark.django_db


def participant(number) -> int:
    return Player.objects.get(membership_number=number).participant_id


def the_match(event_code, round_number, number1) -> Match:
    return Match.objects.select_related("event").get(
        event__code=event_code, round=round_number, participant1_id=participant(number1)
    )


@pytest.fixture
def bundle(tmp_path):
    """The default bundle, imported and rated (no run queued), to be changed and imported again."""
    bundle = Bundle(tmp_path)
    bundle_rated(bundle, queued_runs_dropped=True)
    return bundle


def test_a_reimport_records_changed_removed_and_added_matches_of_rated_events_as_corrections(bundle, admin):
    bundle.change_match("E1", 2, "1001", player1_games=0, player2_games=2)
    bundle.change_match("E1", 1, "1001", player1_games=1, player2_games=2)
    bundle.remove("matches.csv", event_id="E2", player1_id="1002")
    bundle.add_match("E2", 2, "1002", "1003", 2, 0, 0)
    removed = the_match("E2", 1, "1002")

    report = results_import(source=bundle.write(), corrected_by=admin, reason="re-import of the fixed report")

    assert (report.corrections.results, report.corrections.removed, report.corrections.added) == (2, 1, 1)
    assert (
        "  corrections: 2 results corrected, 1 match removed, 1 match added (recorded in the correction log)"
        in str(report).splitlines()
    )
    corrections = Correction.objects.order_by("kind", "round")
    assert {(c.kind, c.source, c.corrected_by, c.reason) for c in corrections} == {
        (kind, CorrectionSource.IMPORT, admin, "re-import of the fixed report")
        for kind in (CorrectionKind.RESULT, CorrectionKind.REMOVAL, CorrectionKind.ADDITION)
    }
    result = Correction.objects.get(kind=CorrectionKind.RESULT, round=2)
    assert (result.match, result.old_games1, result.old_games2, result.new_games1, result.new_games2) == (
        the_match("E1", 2, "1001"),
        2,
        0,
        0,
        2,
    )
    removal = Correction.objects.get(kind=CorrectionKind.REMOVAL)
    assert (removal.match, removal.old_games1, removal.old_games2, removal.participant2_id) == (
        None,
        removed.games1,
        removed.games2,
        participant("1003"),
    )
    addition = Correction.objects.get(kind=CorrectionKind.ADDITION)
    assert addition.match == the_match("E2", 2, "1002")


def test_a_reimport_without_changes_or_of_a_draft_event_records_no_correction(bundle):
    assert not results_import(source=bundle.write()).corrections
    Event.objects.filter(code="E1").update(status=EventStatus.DRAFT)
    bundle.change_match("E1", 2, "1001", player1_games=0, player2_games=2)

    report = results_import(source=bundle.write())

    assert report.matches.updated == 1
    assert not report.corrections
    assert not Correction.objects.exists()


def test_a_reimport_without_a_user_records_the_events_organizer(bundle, admin):
    Event.objects.filter(code="E1").update(organizer=admin)
    bundle.change_match("E1", 2, "1001", player1_games=0, player2_games=2)

    results_import(source=bundle.write())

    [correction] = Correction.objects.all()
    assert correction.corrected_by == admin
    assert correction.reason.startswith("re-import of ")


def test_the_import_command_says_how_many_results_it_corrected_and_by_whom(bundle, admin):
    bundle.change_match("E1", 2, "1001", player1_games=0, player2_games=2)
    bundle.change_match("E1", 1, "1001", player1_games=1, player2_games=2)
    bundle.change_match("E2", 1, "1001", player1_games=0, player2_games=2)
    out = io.StringIO()

    call_command("import_results", str(bundle.write()), "--by", admin.username, stdout=out)

    assert "  corrections: 3 results corrected (recorded in the correction log)" in out.getvalue().splitlines()
    assert Correction.objects.filter(corrected_by=admin, source=CorrectionSource.IMPORT).count() == 3
    runs = RecomputeRun.objects.filter(status=RecomputeStatus.QUEUED)
    assert {run.category.slug for run in runs} == {"constructed", "limited"}
    assert {run.requested_by for run in runs} == {admin}


def test_the_import_command_refuses_an_unknown_user_and_saves_nothing(bundle):
    bundle.change_match("E1", 2, "1001", player1_games=0, player2_games=2)

    with pytest.raises(CommandError, match="--by nobody: no user has this username"):
        call_command("import_results", str(bundle.write()), "--by", "nobody", stdout=io.StringIO())

    assert not Correction.objects.exists()
    assert the_match("E1", 2, "1001").games1 == 2


def test_a_dry_run_reports_the_corrections_it_would_record(bundle):
    bundle.change_match("E1", 2, "1001", player1_games=0, player2_games=2)

    report = results_import(source=bundle.write(), dry_run=True)

    assert report.corrections.results == 1
    assert "  corrections: 1 result corrected (would be recorded in the correction log)" in str(report).splitlines()
    assert not Correction.objects.exists()
