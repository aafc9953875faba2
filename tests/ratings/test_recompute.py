"""Recomputing rating histories (SPEC 3, 5): what a recompute writes, from a date on, queued by signals, all or nothing.

Worlds are built with the bundle importer or with bulk ORM writes (neither
sends signals), so that a test sees only the recomputes it asks for.
"""

import math
import random
from datetime import date, timedelta

import pytest
from django.core.management import CommandError, call_command
from django.db import connection, transaction

from events.models import Event, EventStatus, Match, Standing
from organize.importer import results_import
from players.models import Participant, Player, Team
from ratings import category_tables, services
from ratings.engine import expected_score
from ratings.models import Category, CurrentRank, CurrentRating, EventScore, RatingEntry, RecomputeRun, RecomputeStatus
from ratings.selectors.lists import category_standings, ranking_list
from ratings.services import category_recompute, recompute_enqueue, recompute_run_execute
from tests.bundles import Bundle

pytestmark = pytest.mark.django_db

E1_DATE = date(2003, 5, 1)
E2_DATE = date(2003, 6, 14)
E3_DATE = date(2003, 7, 5)
E4_DATE = date(2003, 8, 2)
EXACT = 1e-9


def category(slug) -> Category:
    return Category.objects.get(slug=slug)


def participant(number) -> int:
    return Player.objects.get(membership_number=number).participant_id


def team_participant(*members) -> int:
    return Team.objects.get(member_key=" ".join(sorted(members))).participant_id


def a_player(number, country="", region="") -> int:
    player = Player.objects.create(
        participant=Participant.objects.create(kind=Participant.Kind.PLAYER),
        membership_number=number,
        name=f"Player {number}",
        country=country,
        region=region,
    )
    return player.participant_id


def import_default_bundle(tmp_path):
    return results_import(source=Bundle(tmp_path).write())


def entries(slug, **where):
    return RatingEntry.objects.filter(category=category(slug), **where)


def rating_after(slug, number_or_participant, **where) -> float:
    """The participant's rating after their last entry."""
    who = number_or_participant if isinstance(number_or_participant, int) else participant(number_or_participant)
    return entries(slug, participant_id=who, **where).order_by("-seq").first().rating_after


def queued_runs():
    """(category slug, since) of every queued run, sorted."""
    return sorted(RecomputeRun.objects.filter(status=RecomputeStatus.QUEUED).values_list("category__slug", "since"))


# a world of random results, written without signals ---------------------------------------------------

RESULTS = [(2, 0), (2, 1), (1, 2), (0, 2), (1, 1), (0, 0), (2, 0)]


def a_world(*, seed=7, players=9, events=6, rounds=3, format="standard", start=date(2003, 1, 4)):
    """Random swiss events 14 days apart (odd player counts give byes); returns the events, oldest first."""
    rng = random.Random(seed)
    people = [a_player(f"W{seed}-{n}") for n in range(players)]
    made = Event.objects.bulk_create(
        Event(
            code=f"W{seed}-{index}",
            name=f"World event {index}",
            date=start + timedelta(days=14 * index),
            format=format,
            k=rng.choice([8, 16, 24, 32, 40, 48]),
            player_count=[8, 20, 40, 7, 12, 64][index % 6],
            level2_judge=rng.random() < 0.5,
            status=EventStatus.SUBMITTED,
        )
        for index in range(events)
    )
    Match.objects.bulk_create(_random_rounds(rng, made, people, rounds))
    return sorted(made, key=lambda event: (event.date, event.pk))


def _random_rounds(rng, events, people, rounds):
    matches = []
    for event in events:
        for number in range(1, rounds + 1):
            seating = rng.sample(people, len(people))
            for one, two in zip(seating[::2], seating[1::2], strict=False):
                games1, games2 = rng.choice(RESULTS)
                matches.append(Match(event=event, round=number, participant1_id=one, participant2_id=two,
                                     games1=games1, games2=games2))  # fmt: skip
            if len(seating) % 2:
                matches.append(Match(event=event, round=number, participant1_id=seating[-1]))
    return matches


def an_event_with_random_rounds(*, on, seed=99, format="standard", rounds=2, **fields):
    """A submitted event among the world's players, written without signals."""
    rng = random.Random(seed)
    people = list(Player.objects.filter(membership_number__startswith="W").values_list("participant_id", flat=True))
    event = Event.objects.bulk_create(
        [
            Event(
                code=f"X{seed}",
                name=f"Extra {seed}",
                date=on,
                format=format,
                k=fields.pop("k", 24),
                player_count=fields.pop("player_count", 16),
                level2_judge=True,
                status=EventStatus.SUBMITTED,
                **fields,
            )
        ]
    )[0]
    Match.objects.bulk_create(_random_rounds(rng, [event], people, rounds))
    return event


def a_ruleset_category(ruleset: str) -> Category:
    """A category rating "standard" events by `ruleset` (constructed for dci-2001)."""
    if ruleset == "dci-2001":
        return category("constructed")
    return Category.objects.create(
        slug=f"standard-{ruleset}",
        name=f"Standard ({ruleset})",
        ruleset=ruleset,
        formats="standard",
        team_size=1,
        provisional_until=8 if ruleset == "dci-1997" else 0,
        ranked_after=25 if ruleset == "dci-1997" else 16,
    )


def by_seq(cat):
    """(participant, seq) -> (match, rating after) over the category's whole history."""
    return {
        (who, seq): (match, after)
        for who, seq, match, after in RatingEntry.objects.filter(category=cat).values_list(
            "participant_id", "seq", "match_id", "rating_after"
        )
    }


def by_match(cat):
    """(participant, match) -> rating after over the category's whole history."""
    return {
        (who, match): after
        for who, match, after in RatingEntry.objects.filter(category=cat).values_list(
            "participant_id", "match_id", "rating_after"
        )
    }


def rows_before(cat, day):
    """Every stored value of every entry before `day`, ids included."""
    return set(RatingEntry.objects.filter(category=cat, event_date__lt=day).values_list())


def assert_same_ratings(partial, full):
    assert partial.keys() == full.keys()
    for key, value in full.items():
        other = partial[key]
        if isinstance(value, tuple):
            assert other[0] == value[0], key
            assert math.isclose(other[1], value[1], rel_tol=0, abs_tol=EXACT), (key, other, value)
        else:
            assert math.isclose(other, value, rel_tol=0, abs_tol=EXACT), (key, other, value)


# what a recompute writes -------------------------------------------------------------------------------


def test_a_recompute_writes_two_history_rows_per_rated_match_and_none_for_a_bye(tmp_path):
    import_default_bundle(tmp_path)

    result = category_recompute(category=category("constructed"))

    bye = Match.objects.get(event__code="E1", participant2__isnull=True)
    assert (result.matches_rated, result.entries_written) == (5, 10)  # E1: 6 matches, one a bye
    assert entries("constructed").count() == 10
    assert not entries("constructed", match=bye).exists()
    assert sorted(entries("constructed").values_list("seq", flat=True)) == [1, 1, 2, 2, 3, 3, 4, 4, 5, 5]
    assert entries("constructed", participant_id=participant("1005")).count() == 2  # rounds 2 and 3, not the bye


def test_the_recomputed_constructed_history_matches_the_numbers_by_hand(tmp_path):
    import_default_bundle(tmp_path)

    category_recompute(category=category("constructed"))

    # E1 is a 32-K event; round 1: 1001 beats 1002, 1003 draws 1004, 1005 has a bye.
    first = entries("constructed", round=1, participant_id=participant("1001")).get()
    assert (first.rating_before, first.rating_after, first.k, first.k_reason) == (1600, 1616, 32, "event K 32")
    assert rating_after("constructed", "1002") == 1584
    assert entries("constructed", round=1, participant_id=participant("1003")).get().rating_after == 1600
    # round 2: 1001 (1616) beats 1003 (1600); 1005 (1600) beats 1004 (1600)
    second = entries("constructed", round=2, participant_id=participant("1001")).get()
    assert second.opponent_rating == 1600
    assert second.rating_after == pytest.approx(1616 + 32 * (1 - expected_score(1616, 1600)), abs=EXACT)
    assert second.rating_after == pytest.approx(1631.26369, abs=1e-5)  # We = 1 / (10^-0.04 + 1) = 0.52301
    assert entries("constructed", round=2, participant_id=participant("1004")).get().rating_after == 1584
    # round 3 (elimination): 1001 beats 1005 (1616)
    last = entries("constructed", round=3, participant_id=participant("1005")).get()
    assert last.rating_before == 1616
    assert last.matches == 2
    assert rating_after("constructed", "1001") == pytest.approx(
        second.rating_after + 32 * (1 - expected_score(second.rating_after, 1616)), abs=EXACT
    )
    assert sum(rating_after("constructed", n) - 1600 for n in ["1001", "1002", "1003", "1004", "1005"]) == (
        pytest.approx(0, abs=1e-9)
    )


def test_a_recompute_marks_submitted_events_rated_and_leaves_draft_events_out(tmp_path):
    import_default_bundle(tmp_path)
    draft = Event.objects.create(
        name="Unsubmitted", date=date(2003, 5, 10), format="standard", player_count=2, status=EventStatus.DRAFT
    )
    draft_match = Match.objects.create(
        event=draft, round=1, participant1_id=participant("1001"), participant2_id=participant("1006"), games1=2
    )

    category_recompute(category=category("constructed"))

    statuses = dict(Event.objects.values_list("name", "status"))
    assert statuses == {
        "Munich Open": "rated",  # E1, constructed
        "Paris Draft": "submitted",  # limited: not recomputed yet
        "Team Cup": "submitted",  # team-constructed: not recomputed yet
        "Vampire Night": "submitted",
        "Unsubmitted": "draft",
    }
    assert not entries("constructed", match=draft_match).exists()
    assert not entries("constructed", participant_id=participant("1006")).exists()
    assert not RecomputeRun.objects.exists()  # a draft event queues nothing


def test_a_full_recompute_replaces_the_previous_history(tmp_path):
    import_default_bundle(tmp_path)
    category_recompute(category=category("constructed"))
    Match.objects.filter(event__code="E1", round=1, participant1_id=participant("1001")).update(games1=0, games2=2)

    category_recompute(category=category("constructed"))

    assert entries("constructed").count() == 10
    assert entries("constructed", round=1, participant_id=participant("1002")).get().rating_after == 1616


def test_events_on_the_same_date_are_rated_in_the_order_they_were_recorded(tmp_path):
    bundle = Bundle(tmp_path)
    for file in ("events.csv", "matches.csv", "standings.csv"):
        bundle.rows[file] = []
    bundle.add_event("B", date="2004-01-10", format="standard", k="32")  # first in the file
    bundle.add_event("A", date="2004-01-10", format="standard", k="32")
    bundle.add_match("B", 1, "1001", "1002", 2, 0, 0)
    bundle.add_match("A", 1, "1002", "1001", 2, 0, 0)
    results_import(source=bundle.write())

    category_recompute(category=category("constructed"))

    assert list(entries("constructed").order_by("seq", "participant").values_list("seq", "event__code")) == [
        (1, "B"),
        (1, "B"),
        (2, "A"),
        (2, "A"),
    ]
    back = 32 * (1 - expected_score(1584, 1616))
    assert rating_after("constructed", "1002") == pytest.approx(1584 + back, abs=EXACT)
    assert rating_after("constructed", "1001") == pytest.approx(1616 - back, abs=EXACT)


# recomputing from a date -------------------------------------------------------------------------------


def _change_a_result(events):
    event = events[3]
    played = Match.objects.filter(event=event, participant2__isnull=False).order_by("id")[1]
    Match.objects.filter(pk=played.pk).update(games1=played.games2, games2=played.games1 + 1)
    return event.date


def _add_an_event_in_the_past(events):
    return an_event_with_random_rounds(on=events[2].date + timedelta(days=3)).date


def _add_an_event_on_an_existing_date(events):
    return an_event_with_random_rounds(on=events[2].date).date  # recorded later: rated after the other


def _add_an_event_at_the_end(events):
    return an_event_with_random_rounds(on=events[-1].date + timedelta(days=30)).date


CHANGES = {
    "a result changed": _change_a_result,
    "an event added in the past": _add_an_event_in_the_past,
    "an event added on an existing date": _add_an_event_on_an_existing_date,
    "an event added after the last": _add_an_event_at_the_end,
}


@pytest.mark.parametrize("ruleset", ["dci-2001", "dci-1997", "match-points"])
@pytest.mark.parametrize("change", CHANGES.values(), ids=CHANGES.keys())
def test_a_recompute_from_a_date_equals_a_full_recompute_and_keeps_the_history_before_it(ruleset, change):
    cat = a_ruleset_category(ruleset)
    events = a_world()
    category_recompute(category=cat)
    total_before = RatingEntry.objects.filter(category=cat).count()
    since = change(events)
    kept = rows_before(cat, since)
    assert kept  # the change is in the middle of the history (or after it), not at its start

    partial_result = category_recompute(category=cat, since=since)
    partial = by_seq(cat)

    assert rows_before(cat, since) == kept
    full_result = category_recompute(category=cat)
    assert_same_ratings(partial, by_seq(cat))
    assert partial_result.matches_rated == RatingEntry.objects.filter(category=cat, event_date__gte=since).count() / 2
    assert full_result.entries_written == RatingEntry.objects.filter(category=cat).count()
    assert full_result.entries_written >= total_before


def test_the_world_exercises_provisional_and_established_dci_1997_entries():
    cat = a_ruleset_category("dci-1997")
    a_world()

    category_recompute(category=cat)

    provisional = RatingEntry.objects.filter(category=cat, provisional=True)
    established = RatingEntry.objects.filter(category=cat, provisional=False)
    assert provisional.count() == 9 * 8  # 9 players, provisional for their first 8 matches each
    assert established.exists()
    # the event of 7 players (the 4th) is not rated
    assert not RatingEntry.objects.filter(category=cat, event__code="W7-3").exists()
    assert RatingEntry.objects.filter(category=cat, event__code="W7-4").exists()


def test_a_recompute_after_an_event_is_removed_equals_a_full_recompute():
    cat = category("constructed")
    events = a_world()
    category_recompute(category=cat)
    removed = events[2]
    kept = rows_before(cat, removed.date)

    removed.delete()
    [run] = RecomputeRun.objects.filter(category=cat)
    assert run.since == removed.date
    recompute_run_execute(run_id=run.pk)
    partial = by_match(cat)

    assert rows_before(cat, removed.date) == kept
    category_recompute(category=cat)
    assert_same_ratings(partial, by_match(cat))
    assert not RatingEntry.objects.filter(category=cat, event_id=removed.pk).exists()


def test_an_event_added_in_the_past_through_the_orm_is_rated_by_the_queued_run_as_by_a_full_recompute():
    cat = category("constructed")
    events = a_world()
    category_recompute(category=cat)
    day = events[1].date + timedelta(days=1)
    players = list(Player.objects.filter(membership_number__startswith="W").order_by("pk"))

    added = Event.objects.create(
        name="Late report", date=day, format="standard", k=40, player_count=8, status=EventStatus.SUBMITTED
    )
    for number, (one, two) in enumerate([(0, 1), (2, 3), (0, 3), (1, 2)], start=1):
        Match.objects.create(
            event=added,
            round=(number + 1) // 2,
            participant1_id=players[one].participant_id,
            participant2_id=players[two].participant_id,
            games1=2,
            games2=number % 2,
        )

    [run] = RecomputeRun.objects.all()
    assert (run.category, run.since, run.status) == (cat, day, RecomputeStatus.QUEUED)
    done = recompute_run_execute(run_id=run.pk)
    assert (done.status, done.computed_since) == (RecomputeStatus.DONE, day)
    assert RatingEntry.objects.filter(category=cat, event=added).count() == 8
    partial = by_seq(cat)
    category_recompute(category=cat)
    assert_same_ratings(partial, by_seq(cat))


# signals ------------------------------------------------------------------------------------------------


@pytest.fixture
def events(tmp_path):
    """The default bundle, imported (no signals, no runs)."""
    import_default_bundle(tmp_path)
    return {event.code: event for event in Event.objects.all()}


def test_saving_a_match_of_a_submitted_event_queues_a_recompute_from_its_date(events):
    match = Match.objects.get(event__code="E1", round=1, participant1_id=participant("1001"))

    match.games2 = 2
    match.save()

    assert queued_runs() == [("constructed", E1_DATE)]
    assert RecomputeRun.objects.get().reason == "result changed in Munich Open (2003-05-01)"


def test_adding_a_match_to_a_limited_event_queues_limited_only(events):
    Match.objects.create(
        event=events["E2"], round=2, participant1_id=participant("1001"), participant2_id=participant("1002"), games1=2
    )

    assert queued_runs() == [("limited", E2_DATE)]


def test_deleting_a_match_queues_a_recompute_from_its_events_date(events):
    Match.objects.get(event__code="E2", participant1_id=participant("1002")).delete()

    assert queued_runs() == [("limited", E2_DATE)]
    assert RecomputeRun.objects.get().reason == "result removed in Paris Draft (2003-06-14)"


def test_a_team_events_match_queues_the_team_category(events):
    match = Match.objects.get(event__code="E3")
    match.games1, match.games2 = 0, 2
    match.save()

    assert queued_runs() == [("team-constructed", E3_DATE)]


def test_a_vtes_standing_saved_or_deleted_queues_vtes(events):
    standing = Standing.objects.get(event__code="E4", participant_id=participant("1006"))
    standing.vp = 1
    standing.save()
    standing.delete()

    assert queued_runs() == [("vtes", E4_DATE)]


def test_moving_an_event_later_recomputes_from_its_old_date(events):
    event = events["E1"]
    event.date = date(2003, 9, 1)
    event.save()

    assert queued_runs() == [("constructed", E1_DATE)]
    assert RecomputeRun.objects.get().reason == "Munich Open (2003-09-01) changed"


def test_moving_an_event_earlier_recomputes_from_its_new_date(events):
    event = events["E2"]
    event.date = date(2002, 12, 24)
    event.save()

    assert queued_runs() == [("limited", date(2002, 12, 24))]


def test_changing_an_events_format_recomputes_both_the_old_and_the_new_category(events):
    event = events["E1"]
    event.format = "sealed"
    event.date = date(2003, 6, 1)
    event.save()

    assert queued_runs() == [("constructed", E1_DATE), ("limited", E1_DATE)]


@pytest.mark.parametrize(("field", "value"), [("k", 48), ("player_count", 40), ("level2_judge", False)])
def test_changing_a_rated_field_of_an_event_queues_a_recompute(events, field, value):
    event = events["E1"]
    setattr(event, field, value)
    event.save()

    assert queued_runs() == [("constructed", E1_DATE)]


def test_renaming_an_event_queues_nothing(events):
    event = events["E1"]
    event.name = "Munich Open 2003"
    event.city = "München"
    event.save()

    assert queued_runs() == []


def test_deleting_a_submitted_event_queues_one_recompute_per_category(events):
    events["E1"].delete()
    events["E3"].delete()

    assert queued_runs() == [("constructed", E1_DATE), ("team-constructed", E3_DATE)]
    assert RecomputeRun.objects.count() == 2


def test_a_draft_event_queues_nothing_until_it_is_submitted(events):
    draft = Event.objects.create(
        name="Draft", date=date(2003, 4, 1), format="standard", player_count=2, status=EventStatus.DRAFT
    )
    match = Match.objects.create(
        event=draft, round=1, participant1_id=participant("1001"), participant2_id=participant("1002"), games1=2
    )
    match.games2 = 1
    match.save()
    draft.date = date(2003, 3, 1)
    draft.save()
    match.delete()
    assert queued_runs() == []

    draft.status = EventStatus.SUBMITTED
    draft.save()

    assert queued_runs() == [("constructed", date(2003, 3, 1))]


def test_deleting_a_draft_event_queues_nothing(events):
    draft = Event.objects.create(
        name="Draft", date=date(2003, 4, 1), format="standard", player_count=2, status=EventStatus.DRAFT
    )
    Match.objects.create(
        event=draft, round=1, participant1_id=participant("1001"), participant2_id=participant("1002"), games1=2
    )

    draft.delete()

    assert queued_runs() == []


def test_withdrawing_a_submitted_event_to_draft_queues_its_category(events):
    event = events["E2"]
    event.status = EventStatus.DRAFT
    event.save()

    assert queued_runs() == [("limited", E2_DATE)]


def test_changes_inside_one_transaction_make_one_run_per_category_from_the_earliest_date(events):
    with transaction.atomic():
        Match.objects.create(
            event=events["E2"], round=2, participant1_id=participant("1001"), participant2_id=participant("1002")
        )
        match = Match.objects.get(event__code="E1", round=1, participant1_id=participant("1001"))
        match.games2 = 2
        match.save()
        events["E2"].date = date(2003, 4, 1)
        events["E2"].save()
        later = Match.objects.get(event__code="E2", participant1_id=participant("1001"), round=1)
        later.games1 = 1
        later.save()

    assert queued_runs() == [("constructed", E1_DATE), ("limited", date(2003, 4, 1))]
    assert RecomputeRun.objects.count() == 2


def test_changes_in_separate_transactions_queue_separate_runs(events, django_capture_on_commit_callbacks):
    match = Match.objects.get(event__code="E1", round=1, participant1_id=participant("1001"))
    with django_capture_on_commit_callbacks(execute=True), transaction.atomic():
        match.games2 = 2
        match.save()
    with django_capture_on_commit_callbacks(execute=True) as callbacks, transaction.atomic():
        match.games1 = 0
        match.save()

    assert queued_runs() == [("constructed", E1_DATE), ("constructed", E1_DATE)]
    assert len(callbacks) == 2  # the task to carry the run out, and forgetting the transaction's runs


def test_a_rolled_back_change_does_not_swallow_a_later_change_of_another_category(events):
    match = Match.objects.get(event__code="E1", round=1, participant1_id=participant("1001"))
    with pytest.raises(RuntimeError), transaction.atomic():
        match.games2 = 2
        match.save()  # queues constructed, then the transaction fails
        raise RuntimeError("the admin form failed")
    assert RecomputeRun.objects.count() == 0

    limited = Match.objects.get(event__code="E2", participant1_id=participant("1002"))
    limited.games1 = 2
    limited.save()
    match.refresh_from_db()
    match.games2 = 2
    match.save()

    assert queued_runs() == [("constructed", E1_DATE), ("limited", E2_DATE)]


# carrying out queued runs ------------------------------------------------------------------------------


def test_executing_a_run_carries_out_every_queued_run_of_its_category_at_once(events):
    constructed, limited = category("constructed"), category("limited")
    first = recompute_enqueue(category=constructed, since=date(2003, 5, 2), reason="one")
    second = recompute_enqueue(category=constructed, since=E1_DATE, reason="two")
    third = recompute_enqueue(category=constructed, since=date(2004, 1, 1), reason="three")
    other = recompute_enqueue(category=limited, since=E2_DATE, reason="other")

    done = recompute_run_execute(run_id=first.pk)

    assert done.pk == first.pk
    for run in (first, second, third):
        run.refresh_from_db()
        assert run.status == RecomputeStatus.DONE
        assert run.computed_since == E1_DATE
        assert (run.matches_rated, run.entries_written) == (5, 10)
        assert run.started_at <= run.finished_at
        assert run.error == ""
    other.refresh_from_db()
    assert other.status == RecomputeStatus.QUEUED
    assert entries("constructed").count() == 10
    assert not entries("limited").exists()


def test_a_full_run_queued_with_dated_ones_makes_the_merged_recompute_full(events, monkeypatch):
    constructed = category("constructed")
    dated = recompute_enqueue(category=constructed, since=date(2003, 6, 1), reason="dated")
    full = recompute_enqueue(category=constructed, since=None, reason="full")
    calls = []
    real = services.category_recompute
    monkeypatch.setattr(services, "category_recompute", lambda **kw: calls.append(kw) or real(**kw))

    recompute_run_execute(run_id=dated.pk)

    assert calls == [{"category": constructed, "since": None}]
    full.refresh_from_db()
    assert (full.status, full.computed_since, full.matches_rated) == (RecomputeStatus.DONE, None, 5)


def test_a_run_already_carried_out_with_another_returns_without_recomputing(events, monkeypatch):
    constructed = category("constructed")
    first = recompute_enqueue(category=constructed, since=E1_DATE, reason="one")
    second = recompute_enqueue(category=constructed, since=E1_DATE, reason="two")
    recompute_run_execute(run_id=first.pk)

    def must_not_run(**kwargs):
        raise AssertionError("recomputed twice")

    monkeypatch.setattr(services, "category_recompute", must_not_run)
    again = recompute_run_execute(run_id=second.pk)

    assert again.pk == second.pk
    assert again.status == RecomputeStatus.DONE
    assert recompute_run_execute(run_id=first.pk).status == RecomputeStatus.DONE


def test_a_failing_recompute_marks_its_runs_failed_and_keeps_the_previous_history(monkeypatch):
    cat = category("constructed")
    world = a_world()
    category_recompute(category=cat)
    history = set(RatingEntry.objects.filter(category=cat).values_list())
    late = an_event_with_random_rounds(on=world[-1].date + timedelta(days=5))
    runs = [
        recompute_enqueue(category=cat, since=world[2].date, reason="one"),
        recompute_enqueue(category=cat, since=late.date, reason="two"),
    ]

    def engine_fails(*args, **kwargs):  # called after the old history has been deleted
        raise RuntimeError("the engine broke")

    monkeypatch.setattr(services, "history_rows", engine_fails)
    with pytest.raises(RuntimeError, match="the engine broke"):
        recompute_run_execute(run_id=runs[0].pk)

    assert set(RatingEntry.objects.filter(category=cat).values_list()) == history
    for run in runs:
        run.refresh_from_db()
        assert run.status == RecomputeStatus.FAILED
        assert run.error == "RuntimeError('the engine broke')"
        assert run.finished_at is not None
        assert run.matches_rated is None
    late.refresh_from_db()
    assert late.status == EventStatus.SUBMITTED


def test_a_failing_full_recompute_keeps_the_previous_history_and_list(monkeypatch):
    cat = category("constructed")
    a_world()
    category_recompute(category=cat)
    before = published(cat)

    def engine_fails_halfway(*args, **kwargs):  # after part of the new history has been written
        for written, row in enumerate(real(*args, **kwargs)):
            if written == 40:
                raise RuntimeError("the engine broke")
            yield row

    real = services.history_rows
    monkeypatch.setattr(services, "history_rows", engine_fails_halfway)
    with pytest.raises(RuntimeError, match="the engine broke"):
        category_recompute(category=cat)

    assert published(cat) == before
    if category_tables.swaps_tables():  # the half-written tables went with the transaction
        assert history_tables() == {category_tables.partition_name(RatingEntry, cat.pk)}


@pytest.mark.skipif(not category_tables.swaps_tables(), reason="tables are swapped on PostgreSQL only")
def test_a_full_recompute_failing_while_the_history_is_indexed_keeps_everything_as_it_was(monkeypatch):
    cat = category("constructed")
    a_world()
    category_recompute(category=cat)
    before, ratings = published(cat), ratings_by_seq(cat)

    def list_fails(*args, **kwargs):  # while the new history's indexes are being built
        raise RuntimeError("the list broke")

    monkeypatch.setattr(services, "current_rows_from_standings", list_fails)
    with pytest.raises(RuntimeError, match="the list broke"):
        category_recompute(category=cat)

    assert published(cat) == before
    assert history_tables() == {category_tables.partition_name(RatingEntry, cat.pk)}
    monkeypatch.undo()
    category_recompute(category=cat)  # the connection works on: the index thread ended with the failure
    assert ratings_by_seq(cat) == ratings


def published(cat) -> tuple[set, set]:
    """The category's history and today's list, row by row (ids included)."""
    return (
        set(RatingEntry.objects.filter(category=cat).values_list()),
        set(CurrentRating.objects.filter(category=cat).values_list()),
    )


def history_tables() -> set[str]:
    return tables_named(f"{RatingEntry._meta.db_table}_c%")


def ratings_by_seq(cat) -> set[tuple]:
    return set(RatingEntry.objects.filter(category=cat).values_list("seq", "participant_id", "rating_after"))


def tables_named(pattern: str) -> set[str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT relname FROM pg_class WHERE relkind = 'r' AND relname LIKE %s", [pattern])
        return {name for (name,) in cursor.fetchall()}


def rows_by_partition(model, category_id: int) -> list[tuple[str, int]]:
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT tableoid::regclass::text, COUNT(*) FROM {model._meta.db_table} WHERE category_id = %s GROUP BY 1",
            [category_id],
        )
        return cursor.fetchall()


@pytest.mark.skipif(not category_tables.swaps_tables(), reason="tables are partitioned on PostgreSQL only")
def test_on_postgresql_a_full_recompute_swaps_in_partitions_that_later_recomputes_update():
    cat, limited = category("constructed"), category("limited")
    world = a_world()

    first = category_recompute(category=cat)
    category_recompute(category=limited)
    listed = CurrentRating.objects.filter(category=cat).count()
    assert history_tables() == {
        category_tables.partition_name(RatingEntry, cat.pk),
        category_tables.partition_name(RatingEntry, limited.pk),
    }
    again = category_recompute(category=cat)
    Match.objects.filter(event=world[-1]).update(games1=0, games2=2)
    category_recompute(category=cat, since=world[-1].date)

    assert first.entries_written == again.entries_written > 0
    assert rows_by_partition(RatingEntry, cat.pk) == [
        (category_tables.partition_name(RatingEntry, cat.pk), first.entries_written)
    ]
    assert rows_by_partition(CurrentRating, cat.pk) == [(category_tables.partition_name(CurrentRating, cat.pk), listed)]
    assert not tables_named("%_next")
    # The ids stay unique across the swapped-in tables.
    for model in (RatingEntry, CurrentRating):
        ids = list(model.objects.values_list("id", flat=True))
        assert len(ids) == len(set(ids))


# V:EKN -------------------------------------------------------------------------------------------------


def test_a_vtes_recompute_stores_each_players_points_from_the_standings(events):
    result = category_recompute(category=category("vtes"))

    scores = {row.participant_id: row for row in EventScore.objects.filter(category=category("vtes"))}
    coefficient = math.log(9, 15) - 1 + 0.25  # 3 players, a national championship
    assert (result.matches_rated, result.entries_written) == (3, 3)
    winner, finalist, other = (scores[participant(n)] for n in ("1001", "1004", "1006"))
    assert winner.points == pytest.approx(5 + 4 * 3.5 + 8 * 2 + 90 * coefficient, abs=EXACT)
    assert winner.points == pytest.approx(40.523, abs=1e-3)
    assert (winner.final, winner.players, winner.event_date) == ("winner", 3, E4_DATE)
    assert winner.coefficient == pytest.approx(0.061368, abs=1e-6)
    assert finalist.points == pytest.approx(5 + 4 * 2 + 8 * 1 + 30 * coefficient, abs=EXACT)
    assert finalist.bonus == pytest.approx(1.841, abs=1e-3)
    assert (other.points, other.bonus) == (7.0, 0.0)
    assert Event.objects.get(code="E4").status == EventStatus.RATED


def test_vtes_standings_follow_the_window_and_inactivity(tmp_path):
    bundle = Bundle(tmp_path)
    bundle.add_event("V2", date="2004-06-01", format="vtes", k="", players="20", level="")
    bundle.add_standing("V2", "1004", 1, 6, 3, "winner")
    bundle.add_standing("V2", "1005", 2, 2, 1)
    results_import(source=bundle.write())
    vtes = category("vtes")
    category_recompute(category=vtes)
    winner_v2 = 53 + 90 * (math.log(400, 15) - 1)  # 162.12

    now = category_standings(category=vtes, as_of=date(2004, 9, 1))
    assert now[participant("1004")].rating == pytest.approx(22.841 + winner_v2, abs=1e-3)
    assert now[participant("1004")].matches == 2
    assert now[participant("1001")].rating == pytest.approx(40.523, abs=1e-3)  # 13 months: still in the window
    assert not now[participant("1001")].ranked  # but no event in the last 12 months
    assert now[participant("1004")].ranked and now[participant("1005")].ranked

    later = category_standings(category=vtes, as_of=date(2005, 2, 2))  # E4 is 18 months back: out
    assert later[participant("1004")].rating == pytest.approx(winner_v2, abs=1e-9)
    assert later[participant("1001")].rating == 0

    before = category_standings(category=vtes, as_of=date(2003, 8, 1))
    assert before == {}


def test_a_vtes_recompute_from_a_date_keeps_the_scores_before_it(tmp_path):
    bundle = Bundle(tmp_path)
    bundle.add_event("V2", date="2004-06-01", format="vtes", k="", players="20", level="")
    bundle.add_standing("V2", "1004", 1, 6, 3, "winner")
    results_import(source=bundle.write())
    vtes = category("vtes")
    category_recompute(category=vtes)
    before = set(EventScore.objects.filter(event__code="E4").values_list())
    Standing.objects.filter(event__code="V2").update(final="finalist")

    result = category_recompute(category=vtes, since=date(2004, 1, 1))

    assert result.matches_rated == 1
    assert set(EventScore.objects.filter(event__code="E4").values_list()) == before
    assert EventScore.objects.get(event__code="V2").points == pytest.approx(53 + 30 * (math.log(400, 15) - 1))


# composite and team categories -------------------------------------------------------------------------


def test_composite_is_the_mean_of_constructed_and_limited_with_1600_for_a_missing_one(events):
    Category.objects.filter(slug="constructed").update(ranked_after=3)
    category_recompute(category=category("constructed"))
    category_recompute(category=category("limited"))
    constructed = category_standings(category=category("constructed"))
    limited = category_standings(category=category("limited"))

    composite = category_standings(category=category("composite"))

    both, only_constructed, only_limited = participant("1001"), participant("1004"), participant("1006")
    assert composite.keys() == {participant(n) for n in ("1001", "1002", "1003", "1004", "1005", "1006")}
    assert composite[both].rating == (constructed[both].rating + limited[both].rating) / 2
    assert composite[only_constructed].rating == (1584 + 1600) / 2
    assert composite[only_limited].rating == (1600 + limited[only_limited].rating) / 2
    assert limited[only_limited].rating == 1592  # lost to 1001 in a 16-K event
    assert composite[both].matches == 3 + 1
    # 1001 is ranked in constructed (3 matches), nobody in limited (10 needed)
    assert constructed[both].ranked and not limited[both].ranked
    assert {who for who, standing in composite.items() if standing.ranked} == {both}


def test_composite_is_ranked_when_ranked_in_limited_alone(events):
    Category.objects.filter(slug="limited").update(ranked_after=1)
    category_recompute(category=category("constructed"))
    category_recompute(category=category("limited"))

    composite = category_standings(category=category("composite"))

    assert {who for who, standing in composite.items() if standing.ranked} == {
        participant(n) for n in ("1001", "1002", "1003", "1006")
    }


def test_a_team_category_rates_teams(events):
    category_recompute(category=category("team-constructed"))

    bavarians, west_coast = team_participant("1001", "1002", "1003"), team_participant("1004", "1005", "1006")
    assert dict(entries("team-constructed").values_list("participant_id", "rating_after")) == {
        bavarians: 1608,
        west_coast: 1592,
    }
    rows = ranking_list(category=category("team-constructed"))
    assert [(row.player_id, row.name, row.rating, row.matches, row.ranked) for row in rows] == [
        ("1001+1002+1003", "Bavarian Dragons", 1608, 1, False),
        ("1004+1005+1006", "West Coast", 1592, 1, False),
    ]


def test_a_team_event_is_not_rated_for_individuals(events):
    category_recompute(category=category("constructed"))

    assert not entries("constructed", event__code="E3").exists()
    assert Event.objects.get(code="E3").status == EventStatus.SUBMITTED


@pytest.mark.parametrize("command", ["recompute_ratings", "recompute_enqueue"])
@pytest.mark.parametrize(
    "arguments, message",
    [
        (["--category", "nope"], "unknown category 'nope'"),
        (["--since", "2004-02-30"], "--since '2004-02-30' is not a date in the form YYYY-MM-DD"),
    ],
)
def test_the_recompute_commands_refuse_an_unknown_category_or_an_impossible_date(command, arguments, message):
    with pytest.raises(CommandError, match=message):
        call_command(command, *arguments)
    assert not RecomputeRun.objects.exists()


@pytest.mark.skipif(not category_tables.swaps_tables(), reason="tables are swapped on PostgreSQL only")
def test_a_full_recompute_in_a_transaction_of_its_own_writes_todays_list_through_a_second_connection(
    transactional_db, monkeypatch
):
    cat = category("constructed")
    a_world()
    written_elsewhere = []
    real = category_tables.elsewhere

    def recorded(work, *args, **kwargs):
        written_elsewhere.append(work.__name__)
        return real(work, *args, **kwargs)

    monkeypatch.setattr(category_tables, "elsewhere", recorded)
    category_recompute(category=cat)
    listed = published(cat)[1]
    ranks = set(CurrentRank.objects.filter(category=cat).values_list("participant_id", "world_rank"))
    services.current_ratings_rebuild(category=cat)  # from the history just published, on this connection

    assert written_elsewhere == ["current_list_staged"]
    assert {row[2:] for row in listed} == {row[2:] for row in published(cat)[1]}  # all but the ids
    assert ranks == set(CurrentRank.objects.filter(category=cat).values_list("participant_id", "world_rank"))
    assert tables_named("%_next") == set()


@pytest.mark.skipif(not category_tables.swaps_tables(), reason="tables are swapped on PostgreSQL only")
def test_a_full_recompute_failing_after_its_list_was_written_elsewhere_leaves_no_table_behind(
    transactional_db, monkeypatch
):
    cat = category("constructed")
    a_world()
    category_recompute(category=cat)
    before = published(cat)

    def swap_fails(model, category_id, staging):
        raise RuntimeError("the swap broke")

    monkeypatch.setattr(category_tables, "staging_swap", swap_fails)
    with pytest.raises(RuntimeError, match="the swap broke"):
        category_recompute(category=cat)

    assert published(cat) == before
    assert tables_named("%_next") == set()
