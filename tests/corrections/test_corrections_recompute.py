"""Corrections (SPEC 5): after a correction the ratings equal a full recompute, and the impact preview predicts
them.

Two worlds: the default test bundle (tests/bundles.py) imported and rated
(`rated_default_bundle`); and random swiss events written in bulk,
for comparing a recompute after a correction with a full recompute.
"""

import math
import random
from datetime import date, timedelta

import pytest

from corrections import services
from corrections.services import NewMatch, Result
from events.models import Event, EventStatus, Match
from players.models import Participant, Player
from ratings import impact as impact_module
from ratings.impact import MatchChange, correction_impact, merge_impact
from ratings.models import Category, CurrentRating, RatingEntry, RecomputeRun, RecomputeStatus
from ratings.selectors.lists import category_standings
from ratings.services.recompute import category_recompute
from tests.corrections.correcting import EXACT, run_queued, the_match

pytestmark = pytest.mark.django_db


# exact recomputes --------------------------------------------------------------------------------------

RESULTS = [(2, 0), (2, 1), (1, 2), (0, 2), (1, 1), (0, 0), (2, 0)]


def a_world(*, seed=11, players=10, events=6, rounds=3):
    """Random swiss events of standard 14 days apart, written in bulk (nothing queued); oldest first."""
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


@pytest.mark.parametrize("ruleset", ["dci-2001", "dci-1997", "match-points"])
@pytest.mark.parametrize("kind", ["result", "removal", "addition"])
@pytest.mark.parametrize("seed", [3, 17])
@pytest.mark.parametrize("wide", [False, True])
def test_the_impact_preview_replays_only_what_the_change_reaches_and_predicts_the_recompute(
    admin, monkeypatch, ruleset, kind, seed, wide
):
    """Among many players, late in the history, a change reaches some of them: their matches are replayed, each
    from their state just before they meet somebody already reached (a provisional player's running totals
    included); the others' matches end as stored and are skipped. Reaching more than a share of the players
    (`wide`), every match is replayed from everyone's state at the date instead. The preview is what the
    recompute publishes, for every player, either way."""
    if wide:
        monkeypatch.setattr("ratings.impact.REACH_COUNTED_AFTER", 2)
        monkeypatch.setattr("ratings.impact.REACH_SHARE", 0.05)
    category = a_ruleset_category(ruleset)
    events = a_world(seed=seed, players=60, events=7, rounds=2)
    category_recompute(category=category)
    apply, change = a_change(kind, events[4])
    rated = []
    with monkeypatch.context() as patched:
        patched.setattr(impact_module, "states_replayed", counted(rated, impact_module.states_replayed))
        impacts = correction_impact(change=change)
    [impact] = [each for each in impacts if each.category == category]
    now = current(category)
    apply(admin)
    run_queued()

    predicted = {row.participant_id: row for row in impact.rows}
    assert 2 <= len(predicted) < len(now)  # some reached, not everyone
    assert impact.matches_replayed == 3 * 2 * 30 + (1 if kind == "addition" else -1 if kind == "removal" else 0)
    # The matches of those not reached were skipped, in every list the event feeds (constructed too).
    replayed = sum(each.matches_replayed for each in impacts)
    assert len(rated) == replayed if wide else len(rated) < replayed
    for who, rating in current(category).items():
        expected = predicted[who].rating_after if who in predicted else now[who]
        assert math.isclose(rating, expected, rel_tol=0, abs_tol=EXACT), (who, rating, expected)


def counted(calls: list, replay):
    """`replay` (ratings.engine.history.states_replayed), noting each match it is given in `calls`."""

    def replay_and_count(ruleset, matches, *args):
        matches = list(matches)
        calls.extend(match[1:3] for match in matches)
        return replay(ruleset, matches, *args)

    return replay_and_count


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


def test_the_impact_preview_sorts_by_the_size_of_the_change_and_flags_the_two_sides(rated_default_bundle):
    match = the_match("E1", 2, "1001")
    [impact] = correction_impact(
        change=MatchChange(match.event, 2, match.participant1_id, match.participant2_id, match.pk, 0, 2)
    )

    changes = [abs(row.change) for row in impact.rows]
    assert changes == sorted(changes, reverse=True)
    assert {row.display_id for row in impact.rows if row.in_match} == {"1001", "1003"}
    assert impact.rows[0].in_match  # the two sides move most
    assert impact.recomputes_pending == 0


def test_the_impact_preview_names_why_a_category_cannot_move(rated_default_bundle):
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


@pytest.mark.parametrize("named", [1, 2, 5])
def test_an_impact_names_only_the_largest_changes_and_the_two_sides_and_counts_the_rest(named):
    """What the preview's page shows (corrections.tables.impact_tables): the largest changes, in the order of
    every change named, the match's two sides wherever they stand; the others are counted, not named."""
    events = a_world(players=12, events=4)
    category_recompute(category=Category.objects.get(slug="constructed"))
    _, change = a_change("result", events[1])
    [every] = correction_impact(change=change)

    [largest] = correction_impact(change=change, named=named)

    def size(row) -> float:
        return abs(row.change) if row.change is not None else float("inf")

    assert every.changes == len(every.rows) > named + 2
    assert largest.changes == every.changes
    edge = size(every.rows[named - 1])
    assert largest.rows == [row for row in every.rows if size(row) >= edge or row.in_match]
    assert largest.rows[:named] == every.rows[:named]
    assert {row.participant_id for row in largest.rows if row.in_match} == {change.participant1, change.participant2}


# the reach followed along the history ------------------------------------------------------------------


def impact_rows(impact) -> list[tuple]:
    return [(row.participant_id, row.rating_now, row.rating_after, row.in_match) for row in impact.rows]


@pytest.fixture
def along_history(monkeypatch):
    """Calls of rows_from, once the reach is followed along the history however few the matches since."""
    calls = []
    monkeypatch.setattr(impact_module, "ALONG_HISTORY_FROM", 0)
    monkeypatch.setattr(impact_module, "rows_from", counted_calls(calls, impact_module.rows_from))
    return calls


def counted_calls(calls: list, function):
    def call(*args, **kwargs):
        calls.append(args)
        return function(*args, **kwargs)

    return call


@pytest.mark.parametrize("ruleset", ["dci-2001", "dci-1997", "match-points"])
@pytest.mark.parametrize("kind", ["result", "removal", "addition"])
@pytest.mark.parametrize("seed", [3, 17])
def test_the_reach_followed_along_the_history_is_the_reach_found_through_the_matches(
    monkeypatch, along_history, ruleset, kind, seed
):
    """Every rating the same to the last bit, and the same count of matches replayed, whether who the change
    reaches is found by going through every match since or by following each one reached to whom they meet."""
    category = a_ruleset_category(ruleset)
    events = a_world(seed=seed, players=60, events=7, rounds=2)
    category_recompute(category=category)
    _, change = a_change(kind, events[4])

    [along] = [each for each in correction_impact(change=change) if each.category == category]
    assert along_history  # followed along the history
    monkeypatch.setattr(impact_module, "ALONG_HISTORY_FROM", 10**9)
    [through] = [each for each in correction_impact(change=change) if each.category == category]

    assert 2 <= along.changes == through.changes
    assert impact_rows(along) == impact_rows(through)
    assert along.matches_replayed == through.matches_replayed


def test_a_merge_followed_along_the_history_is_the_merge_found_through_the_matches(monkeypatch, along_history):
    category = a_ruleset_category("dci-1997")
    events = a_world(seed=5, players=30, events=6, rounds=2)
    category_recompute(category=category)
    kept, merged = (Participant.objects.get(player__membership_number=number).pk for number in ("R1", "R2"))
    later = [event for event in events if event.date >= events[3].date]

    along = merge_impact(kept=kept, merged=merged, events=later)
    assert along_history
    monkeypatch.setattr(impact_module, "ALONG_HISTORY_FROM", 10**9)
    through = merge_impact(kept=kept, merged=merged, events=later)

    assert [impact_rows(each) for each in along] == [impact_rows(each) for each in through]
    assert [each.matches_replayed for each in along] == [each.matches_replayed for each in through]


@pytest.mark.parametrize("limit", ["ALONG_HISTORY_REACHED_AT_MOST", "ALONG_HISTORY_ROWS_AT_MOST"])
def test_a_reach_too_wide_to_follow_is_found_through_the_matches(monkeypatch, along_history, limit):
    category = a_ruleset_category("dci-2001")
    events = a_world(seed=3, players=60, events=7, rounds=2)
    category_recompute(category=category)
    _, change = a_change("result", events[4])
    monkeypatch.setattr(impact_module, "ALONG_HISTORY_FROM", 10**9)
    [through] = [each for each in correction_impact(change=change) if each.category == category]
    monkeypatch.setattr(impact_module, "ALONG_HISTORY_FROM", 0)
    monkeypatch.setattr(impact_module, limit, 3)
    going_through = []
    monkeypatch.setattr(
        impact_module, "matches_in_rating_order", counted_calls(going_through, impact_module.matches_in_rating_order)
    )

    [impact] = [each for each in correction_impact(change=change) if each.category == category]

    assert along_history and going_through  # tried along the history, then went through the matches
    assert impact_rows(impact) == impact_rows(through)


@pytest.mark.parametrize("status", [RecomputeStatus.QUEUED, RecomputeStatus.RUNNING, RecomputeStatus.FAILED])
def test_with_a_recompute_pending_or_failed_the_reach_is_found_through_the_matches(along_history, status):
    """Results changed and not rated yet are not in the history: the matches are gone through instead."""
    category = a_ruleset_category("dci-2001")
    events = a_world(seed=3, players=20, events=5, rounds=2)
    category_recompute(category=category)
    RecomputeRun.objects.create(category=category, status=RecomputeStatus.DONE, since=events[1].date)
    RecomputeRun.objects.create(category=category, status=status, since=events[2].date)
    _, change = a_change("result", events[3])

    [impact] = [each for each in correction_impact(change=change) if each.category == category]

    assert not along_history
    assert impact.recomputes_pending == (status != RecomputeStatus.FAILED)
    RecomputeRun.objects.filter(status=status).update(status=RecomputeStatus.DONE)
    correction_impact(change=change)
    assert along_history  # once it is done
