"""One way to ask for a recompute (SPEC 5): the services that change results send events.signals.results_changed
once per change, and ratings.receivers queues one run per list it touches, in the change's transaction.

The runs are counted. Saving or deleting a result through the ORM queues nothing: the services say what changed.
The admin site's edits: test_results_changed_admin.py.

The world is the default test bundle (tests/bundles.py), imported (nothing queued): E1 Munich Open (standard,
2003-05-01: constructed), E2 Paris Draft (booster-draft, 2003-06-14: limited), E3 Team Cup (standard, teams of 3,
2003-07-05: team-constructed), E4 Vampire Night (vtes, 2003-08-02: vtes). Composite is derived from constructed and
limited: it is never queued itself.
"""

import io
from collections import Counter
from datetime import date

import pytest
from django.core.management import call_command
from django.db import transaction

from corrections import services as corrections
from corrections.models import Appeal
from corrections.services import NewMatch, Result
from events.models import Event, EventStatus, Match, Standing
from events.services import results_changed_send
from organize import services as organize
from players.models import Participant, Player
from ratings.models import RecomputeRun, RecomputeStatus
from tests.bundles import Bundle
from tests.factories import OrganizerFactory
from tests.organize.pages import VALID_MATCHES
from tests.ratings.recompute_worlds import E1_DATE, E2_DATE, E3_DATE, participant, queued_runs

pytestmark = pytest.mark.django_db

# The organizer's results without their last match.
FEWER_MATCHES = "".join(VALID_MATCHES.splitlines(keepends=True)[:-1]).encode()


@pytest.fixture
def bundle(tmp_path):
    return Bundle(tmp_path)


@pytest.fixture
def events(bundle):
    """The default bundle, imported through the command (its runs are cleared: each test counts its own)."""
    call_command("import_results", str(bundle.write()), stdout=io.StringIO())
    RecomputeRun.objects.all().delete()
    return {event.code: event for event in Event.objects.all()}


def runs_per_list() -> Counter:
    return Counter(RecomputeRun.objects.values_list("category__slug", flat=True))


def the_match(event_code, round_number, number1) -> Match:
    return Match.objects.select_related("event").get(
        event__code=event_code, round=round_number, participant1_id=participant(number1)
    )


# the signal and its receiver ------------------------------------------------------------------------------------


def test_one_change_queues_one_run_per_list_from_the_earliest_date_of_its_kinds(events, admin):
    kinds = {("standard", 1): date(2003, 6, 1), ("block", 1): date(2003, 2, 1), ("sealed", 1): date(2003, 9, 9)}

    runs = results_changed_send(kinds=kinds, reason="three kinds at once", requested_by=admin)

    assert queued_runs() == [("constructed", date(2003, 2, 1)), ("limited", date(2003, 9, 9))]
    assert runs_per_list() == {"constructed": 1, "limited": 1}  # composite is derived: read from its components
    assert sorted(runs, key=lambda run: run.pk) == list(RecomputeRun.objects.order_by("pk"))
    assert {(run.reason, run.requested_by) for run in runs} == {("three kinds at once", admin)}


def test_kinds_no_list_rates_or_no_kinds_queue_nothing(events):
    assert results_changed_send(kinds={("pauper", 1): E1_DATE}, reason="no list rates pauper") == []
    assert results_changed_send(kinds={}, reason="nothing changed") == []

    assert not RecomputeRun.objects.exists()


def test_saving_or_deleting_results_through_the_orm_queues_nothing(events):
    """The services say what changed (results_changed_send): a bare ORM write is not a change anyone asked for,
    and a bulk write of a thousand rows does not ask a thousand times."""
    match = the_match("E1", 1, "1001")
    match.games2 = 2
    match.save()
    Standing.objects.filter(event__code="E4").first().delete()
    events["E2"].date = date(2002, 1, 1)
    events["E2"].save()
    events["E3"].delete()

    assert not RecomputeRun.objects.exists()


def test_the_run_is_written_in_the_changes_transaction_and_rolled_back_with_it(events):
    with pytest.raises(RuntimeError), transaction.atomic():
        results_changed_send(kinds={("standard", 1): E1_DATE}, reason="a change that fails")
        raise RuntimeError("the admin form failed")
    assert not RecomputeRun.objects.exists()

    results_changed_send(kinds={("booster-draft", 1): E2_DATE}, reason="a later change")

    assert queued_runs() == [("limited", E2_DATE)]


def test_separate_changes_queue_separate_runs_each_handed_to_the_worker_once_committed(
    events, django_capture_on_commit_callbacks
):
    for reason in ("one change", "another change"):
        with django_capture_on_commit_callbacks(execute=False) as callbacks, transaction.atomic():
            results_changed_send(kinds={("standard", 1): E1_DATE}, reason=reason)
        assert len(callbacks) == 1  # the job that carries the run out

    assert queued_runs() == [("constructed", E1_DATE), ("constructed", E1_DATE)]


# the bundle import ----------------------------------------------------------------------------------------------


def test_an_import_queues_exactly_one_run_per_list_it_changes(bundle):
    out = io.StringIO()

    call_command("import_results", str(bundle.write()), stdout=out)

    assert runs_per_list() == {"constructed": 1, "limited": 1, "team-constructed": 1, "vtes": 1}
    assert out.getvalue().splitlines()[-1] == "4 recompute(s) queued for the job worker."


def test_reimporting_a_bundle_with_one_match_removed_queues_one_run_of_its_list(events, bundle, admin):
    bundle.remove("matches.csv", event_id="E2", player1_id="1002")
    path, out = bundle.write(), io.StringIO()

    call_command("import_results", str(path), "--by", admin.username, stdout=out)

    assert runs_per_list() == {"limited": 1}  # the deletion no longer asks a second time
    [run] = RecomputeRun.objects.all()
    assert (run.since, run.status, run.requested_by) == (E2_DATE, RecomputeStatus.QUEUED, admin)
    assert run.reason == f"import of {path}"
    assert out.getvalue().splitlines()[-1] == "1 recompute(s) queued for the job worker."


def test_a_reimport_that_redefines_a_list_and_changes_its_results_queues_one_whole_run(events, bundle):
    bundle.add_category("constructed", ruleset="match-points", formats="standard block extended", ranked_after=16)
    bundle.change_match("E1", 2, "1001", player1_games=0, player2_games=2)

    call_command("import_results", str(bundle.write()), stdout=io.StringIO())

    assert queued_runs() == [("constructed", None)]  # one run, from the start


def test_an_import_with_no_recompute_or_a_dry_run_queues_nothing(events, bundle):
    bundle.remove("matches.csv", event_id="E2", player1_id="1002")

    call_command("import_results", str(bundle.write()), "--dry-run", stdout=io.StringIO())
    call_command("import_results", str(bundle.write()), "--no-recompute", stdout=io.StringIO())

    assert not RecomputeRun.objects.exists()
    assert not Match.objects.filter(event__code="E2", participant1_id=participant("1002")).exists()


# the organizers' pages ------------------------------------------------------------------------------------------


@pytest.fixture
def draft(events):
    """A draft of an organizer's, with its results uploaded (players 1001-1004 are in the default bundle)."""
    organizer = OrganizerFactory()
    event = organize.event_create(
        organizer=organizer, name="Friday Standard", date=date(2003, 3, 1), format="standard", player_count=4
    )
    organize.event_results_replace(event=event, by=organizer, files={"matches.csv": VALID_MATCHES.encode()})
    return event


def test_a_drafts_changes_queue_nothing(draft):
    organizer = draft.organizer
    organize.event_update(event=draft, by=organizer, date=date(2003, 3, 2), k=48)
    organize.event_results_replace(event=draft, by=organizer, files={"matches.csv": FEWER_MATCHES})
    organize.event_delete(event=draft, by=organizer)

    assert not RecomputeRun.objects.exists()


def test_submitting_queues_one_run_per_list_from_the_events_date(draft):
    runs = organize.event_submit(event=draft, by=draft.organizer)

    assert runs_per_list() == {"constructed": 1}
    [run] = RecomputeRun.objects.all()
    assert runs == [run]
    assert (run.since, run.requested_by, run.reason) == (date(2003, 3, 1), draft.organizer, f"{draft} changed")


def test_an_admin_correcting_a_submitted_events_results_on_its_page_queues_one_run(draft, admin):
    organize.event_submit(event=draft, by=draft.organizer)
    RecomputeRun.objects.all().delete()

    organize.event_results_replace(event=draft, by=admin, files={"matches.csv": FEWER_MATCHES})

    [run] = RecomputeRun.objects.all()
    assert (run.category.slug, run.since, run.requested_by) == ("constructed", date(2003, 3, 1), admin)
    assert run.reason == f"{Event.objects.get(pk=draft.pk)} corrected"


def test_an_admin_moving_a_submitted_event_later_on_its_page_recomputes_from_the_old_date(events, admin):
    organize.event_update(event=events["E1"], by=admin, date=date(2003, 9, 1))
    organize.event_update(event=events["E2"], by=admin, name="Paris Booster Draft")  # not a rated field

    assert queued_runs() == [("constructed", E1_DATE)]
    assert RecomputeRun.objects.get().reason == "Munich Open (2003-09-01) changed"


# corrections -----------------------------------------------------------------------------------------------------


def test_a_correction_queues_one_run_per_list_with_its_own_reason_and_author(events, admin):
    correction = corrections.match_correct(
        match=the_match("E1", 2, "1001"), result=Result(0, 2), reason="Misreported.", by=admin
    )

    [run] = RecomputeRun.objects.all()
    assert (run.category.slug, run.since, run.requested_by) == ("constructed", E1_DATE, admin)
    assert run.reason == f"correction #{correction.pk}: result corrected in Munich Open"


def test_a_team_events_correction_queues_the_team_list(events, admin):
    corrections.match_correct(match=Match.objects.get(event__code="E3"), result=Result(0, 2), reason="Oops.", by=admin)

    assert queued_runs() == [("team-constructed", E3_DATE)]


def test_adding_or_removing_a_match_queues_its_list_once_per_correction(events, admin):
    one, two = (Participant.objects.get(pk=participant(number)) for number in ("1001", "1002"))
    new = NewMatch(events["E2"], 2, one, two, Result(2, 0))
    added = corrections.match_add(new=new, reason="A table was forgotten.", by=admin)
    removed = corrections.match_remove(match=the_match("E2", 1, "1002"), reason="Never played.", by=admin)

    assert queued_runs() == [("limited", E2_DATE), ("limited", E2_DATE)]
    assert set(RecomputeRun.objects.values_list("reason", "requested_by")) == {
        (f"correction #{added.pk}: match added in Paris Draft", admin.pk),
        (f"correction #{removed.pk}: match removed in Paris Draft", admin.pk),
    }


def test_an_accepted_appeal_queues_one_run_with_the_decisions_reason(events, admin):
    match = the_match("E1", 2, "1001")
    appeal = Appeal.objects.create(
        match=match, match_label="E1 R2", player=Player.objects.get(membership_number="1003"), side=2,
        reported_games1=2, reported_games2=0, reported_draws=0, claimed_games1=0, claimed_games2=2, claimed_draws=0,
        explanation="I won.",
    )  # fmt: skip

    other = Appeal.objects.create(
        match=match, match_label="E1 R2", player=Player.objects.get(membership_number="1001"), side=1,
        reported_games1=2, reported_games2=0, reported_draws=0, claimed_games1=2, claimed_games2=0, claimed_draws=1,
        explanation="There was a draw too.",
    )  # fmt: skip

    correction = corrections.appeal_accept(appeal=appeal, by=admin, reason="The slip says so.")
    corrections.appeal_reject(appeal=other, by=admin, reason="The slip says otherwise.")

    [run] = RecomputeRun.objects.all()  # a rejection changes no result
    assert (run.category.slug, run.requested_by) == ("constructed", admin)
    assert run.reason == f"correction #{correction.pk}: result corrected in Munich Open"


def test_a_correction_of_a_draft_queues_nothing(events, admin):
    Event.objects.filter(code="E1").update(status=EventStatus.DRAFT)

    corrections.match_correct(match=the_match("E1", 2, "1001"), result=Result(0, 2), reason="Early fix.", by=admin)

    assert not RecomputeRun.objects.exists()
