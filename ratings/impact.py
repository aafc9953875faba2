"""What a correction would do to the ratings: the engine replayed on a copy, nothing published.

For each category the match's event feeds, the category's matches from the
event's date on are replayed in rating order with the correction applied (a new
result, the match removed, or a match added), and each participant's final
rating is compared with their current one, their last history row. Nothing is
written.

Only the matches the change reaches are replayed: those of the two sides from
the event's date on (from their state where a recompute from that date
starts), and those of everyone who meets somebody already reached, from their
state just before that meeting in the stored history. A match between two
players the change has not reached ends as stored, so it is skipped. Whom
it reaches is found along the history when many matches came since (each
one reached names whom they meet next: _along_history), else by going
through every match since in rating order; when it reaches most players,
every match since is replayed.
"""

import functools
import heapq
import math
from dataclasses import dataclass, field

from django.utils.translation import gettext

from events.models import Event, EventStatus, Match
from ratings.engine import ruleset_for
from ratings.engine.history import states_replayed
from ratings.models import Category, RecomputeRun, RecomputeStatus, Ruleset
from ratings.selectors.history import (
    categories_rating,
    category_events,
    entry_seqs,
    event_facts,
    events_of,
    history_last_entry_seq,
    history_start_seq,
    matches_by_id,
    matches_in_rating_order,
    rows_from,
    states_before,
    states_before_each,
)
from ratings.selectors.lists import current_ratings, participant_identities

# Replays of unaffected participants give bit-identical ratings; anything closer than this is unchanged.
UNCHANGED = 1e-9


@dataclass(frozen=True, slots=True)
class MatchChange:
    """A match as a correction would leave it.

    `match_id` None: the match is added. `games1` and `games2` None: the match
    is removed. Otherwise the stored match gets these games.
    """

    event: Event
    round: int
    participant1: int
    participant2: int | None
    match_id: int | None = None
    games1: int | None = None
    games2: int | None = None

    @property
    def removes(self) -> bool:
        return self.games1 is None


@dataclass(frozen=True, slots=True)
class RatingImpact:
    participant_id: int
    display_id: str  # membership number; for a team its members' numbers
    name: str
    rating_now: float | None  # None: no rated match in the category yet
    rating_after: float | None  # None: no rated match left in the category
    in_match: bool  # one of the two sides of the corrected match

    @property
    def change(self) -> float | None:
        if self.rating_now is None or self.rating_after is None:
            return None
        return self.rating_after - self.rating_now


@dataclass
class CategoryImpact:
    category: Category
    rows: list[RatingImpact] = field(default_factory=list)  # largest change first: all, or those named
    changes: int = 0  # ratings that change, named or not
    matches_replayed: int = 0
    recomputes_pending: int = 0  # queued or running: the published ratings are about to move anyway
    not_rated: str = ""  # why this category's ratings cannot move


def correction_impact(*, change: MatchChange, named: int | None = None) -> list[CategoryImpact]:
    """Each rating that would change in each category the match feeds, with its value now and after: every
    one, or with `named` the `named` largest changes and the match's sides' (the others are counted)."""
    event = change.event
    impacts = []
    for category in categories_rating(format=event.format, team_size=event.team_size):
        impact = CategoryImpact(category)
        impacts.append(impact)
        if event.status == EventStatus.DRAFT:
            impact.not_rated = gettext("the event is a draft: it is not rated yet")
        elif category.ruleset == Ruleset.VEKN:
            impact.not_rated = gettext("V:EKN rating points come from the standings, not from matches")
        elif change.participant2 is None:
            impact.not_rated = gettext("a bye is never rated")
        else:
            _replay(impact, change, named)
    return impacts


def _replay(impact: CategoryImpact, change: MatchChange, named: int | None) -> None:
    sides = {change.participant1, change.participant2}
    event = change.event
    # A stored match changed or removed: its two sides are as stored until it.
    stored = None if change.match_id is None else (event.date, event.pk, change.round, change.match_id)
    _replayed(impact, event.date, lambda ordered, events: _corrected(ordered, change, events), sides, stored, named)


def merge_impact(*, kept: int, merged: int, events, named: int | None = None) -> list[CategoryImpact]:
    """What merging the participant `merged` into `kept` would do to each Elo list the merged one's `events`
    feed: every match of the list from the earliest of them replayed with `kept` playing `merged`'s matches.
    `merged` has no history before its first event, so nothing before it moves. `named`: as correction_impact."""
    events = [event for event in events if event.status != EventStatus.DRAFT]
    impacts = {}
    for event in sorted(events, key=lambda event: event.date):
        for category in categories_rating(format=event.format, team_size=event.team_size):
            if category.ruleset != Ruleset.VEKN and category.pk not in impacts:
                impacts[category.pk] = (CategoryImpact(category), event.date)

    def moved(ordered, _events):
        for pk, event_id, round_number, side1, side2, games1, games2 in ordered:
            yield (
                pk, event_id, round_number, kept if side1 == merged else side1, kept if side2 == merged else side2,
                games1, games2,
            )  # fmt: skip

    for impact, since in impacts.values():
        _replayed(impact, since, moved, {kept, merged}, None, named)
    return [impact for impact, _ in impacts.values()]


def _replayed(
    impact: CategoryImpact, since, replayed_rows, marked: set, changed_match: tuple | None, named: int | None
) -> None:
    """Replay the category's matches from `since` as `replayed_rows(ordered, events)` gives them (the stored ones
    in rating order, changed), as far as the change reaches from `marked`; each rating that moves goes into
    `impact`, those of `marked` marked. Only `marked` may play matches other than the stored ones.

    `changed_match` (date, event, round, id): the stored match where `marked` are first reached, from their
    state just before it; None: they are reached from `since` on. `named`: as correction_impact."""
    category = impact.category
    start_seq = history_start_seq(category, since)
    ruleset = ruleset_for(
        category.ruleset, provisional_until=category.provisional_until, start_rating=category.start_rating
    )
    impact.recomputes_pending = RecomputeRun.objects.filter(
        category=category, status__in=[RecomputeStatus.QUEUED, RecomputeStatus.RUNNING]
    ).count()
    along = None
    if not impact.recomputes_pending and _history_current(category):
        along = _along_history(category, ruleset, replayed_rows, marked, changed_match, start_seq)
    if along is not None:
        reached_at, replayed, impact.matches_replayed, events = along
        reached = set(reached_at)
        states = states_before_each(category, reached_at)
        states_replayed(ruleset, replayed, events, states)
    else:
        reached, states = _replayed_from_matches(
            impact, ruleset, since, replayed_rows, marked, changed_match, start_seq
        )

    # Their ratings today: today's list, published with the history (each one's last row of it), read in one
    # pass rather than looked up row by row in the history (0.2 s for 100,000 at a million matches).
    now = current_ratings(category, reached)
    moved = []
    for participant in reached:
        before = now.get(participant)
        after = states[participant].rating if participant in states else None
        if before is not None and after is not None and abs(after - before) <= UNCHANGED:
            continue
        if before is None and after is None:
            continue
        moved.append((participant, before, after))
    impact.changes = len(moved)
    impact.rows = _largest_named(category, moved, marked, named)


def _replayed_from_matches(impact, ruleset, since, replayed_rows, marked, changed_match, start_seq):
    """(who the change reaches, their states after it) from every stored match since `since`, read in rating
    order: the reach is found by going through them, and when it is most of those who play (or some of its
    matches are not in the history yet), every one of them is replayed."""
    category = impact.category
    events = event_facts(category_events(category).filter(date__gte=since))
    matches = Match.objects.filter(
        event__in=category_events(category), event__date__gte=since, participant2__isnull=False
    )
    ordered = matches_in_rating_order(matches)
    rated_events = {pk for pk, (_, _, players, _) in events.items() if ruleset.is_rated(players)}

    playing = functools.cache(ordered.participants)  # everyone who plays from `since`: counted once if at all
    rows = replayed_rows(ordered, events)
    reach = _reach(rows, events, rated_events, marked, changed_match, start_seq, playing=playing)
    met_seqs = {} if reach is None else entry_seqs(category, reach.met_at)
    whole = reach is None or len(met_seqs) < len(reach.met_at)
    if not whole:
        reached, replayed = reach.reached, reach.replayed
        impact.matches_replayed = reach.rated
        # Each one's state where the change reaches them: at `since`, or just before that meeting.
        states = states_before(category, start_seq, reached - set(met_seqs)) | states_before_each(category, met_seqs)
    else:
        # Every match from `since` replayed, from everyone's state there: the change reaches most players (so
        # looking each one up where it reaches them costs more), or the history is not recomputed yet.
        reached = (playing() | marked) - {None}
        replayed = (
            (event_id, participant1, participant2, games1, games2)
            for _, event_id, _, participant1, participant2, games1, games2 in replayed_rows(ordered, events)
            if event_id in rated_events
        )
        states = states_before(category, start_seq, reached)
    applied = states_replayed(ruleset, replayed, events, states)
    if whole:
        impact.matches_replayed = applied
    return reached, states


def _history_current(category: Category) -> bool:
    """Whether the category's history holds every rated match, none of its recomputes pending: the last one
    asked for is done (or none was ever asked for: the lists were computed by the command), not failed."""
    last = RecomputeRun.objects.filter(category=category).order_by("-pk").values_list("status", flat=True).first()
    return last in (None, RecomputeStatus.DONE)


# Rated matches since the change from which the reach is followed along the history rather than found by going
# through every match since; and how far it is followed before going through them after all.
ALONG_HISTORY_FROM = 20_000
ALONG_HISTORY_REACHED_AT_MOST = 1_000
ALONG_HISTORY_ROWS_AT_MOST = 100_000


def _along_history(category, ruleset, replayed_rows, marked: set, changed_match, start_seq: int):
    """(participant -> the seq where the change reaches them, the matches replayed as states_replayed takes
    them, how many rated matches a recompute from there replays, the events) found along the history: from
    the change's place, each reached participant's later rows name whom they meet next. None when the
    matches since are few (going through them costs less), when the changed match is not in the history, or
    when the reach grows past ALONG_HISTORY_REACHED_AT_MOST participants or ALONG_HISTORY_ROWS_AT_MOST rows.

    An appeal of a match three years old at ten million matches read the two million matches since (1.5 s)
    to find that the change reaches its two players alone. The history holds every rated match once a
    recompute has run, which the caller makes sure of.
    """
    last_seq = history_last_entry_seq(category)
    if last_seq < start_seq or last_seq - start_seq + 1 < ALONG_HISTORY_FROM:
        return None
    sides = marked - {None}
    if changed_match is None:
        start = start_seq
    else:
        side = next(iter(sides))
        found = entry_seqs(category, {side: (changed_match[-1], start_seq)})
        if side not in found:  # not rated: the change moves nothing, which going through the matches shows
            return None
        start = found[side]
    reached_at = dict.fromkeys(sides, start)
    fetched: dict[int, int] = {}  # match -> seq, every match of somebody reached from where they are reached on
    frontier = dict(reached_at)
    while frontier:
        rows = rows_from(category, frontier, at_most=ALONG_HISTORY_ROWS_AT_MOST - len(fetched))
        if rows is None:
            return None
        frontier = {}
        for _, seq, opponent, match in rows:
            fetched[match] = seq
            if seq < reached_at.get(opponent, last_seq + 1):
                reached_at[opponent] = frontier[opponent] = seq
        if len(reached_at) > ALONG_HISTORY_REACHED_AT_MOST:
            return None
    ordered = sorted(matches_by_id(list(fetched)), key=lambda row: fetched[row[0]])
    events = event_facts(events_of({row[1] for row in ordered}))
    stream = list(replayed_rows(ordered, events))
    events |= event_facts(events_of({row[1] for row in stream} - events.keys()))
    rated = {pk for pk, (_, _, players, _) in events.items() if ruleset.is_rated(players)}
    replayed = [
        (event_id, one, two, games1, games2) for _, event_id, _, one, two, games1, games2 in stream if event_id in rated
    ]
    # What a recompute from the change replays: every rated match since, the change's own added or taken out.
    stored = sum(row[1] in rated for row in ordered)
    return reached_at, replayed, last_seq - start_seq + 1 + len(replayed) - stored, events


def _size(before: float | None, after: float | None) -> float:
    """How much a rating changes; a rating that appears or goes changes most."""
    return math.inf if before is None or after is None else abs(after - before)


def _largest_named(category: Category, moved: list[tuple], marked: set, named: int | None) -> list[RatingImpact]:
    """Of `moved` (participant, rating now, after), the `named` largest changes (all with None) and those of
    `marked`, named: largest first, equal ones by name.

    Only they are named: a change three years back at a million matches moves
    90,000 ratings, and reading all their names was a third of its preview.
    Every change at least as large as the `named`-th is named, so that equal
    ones are still put in order by name.
    """
    if named is not None and len(moved) > named:
        edge = heapq.nlargest(named, (_size(before, after) for _, before, after in moved))[-1]
        moved = [row for row in moved if _size(row[1], row[2]) >= edge or row[0] in marked]
    identities = participant_identities(category, [participant for participant, _, _ in moved])
    rows = []
    for participant, before, after in moved:
        number, name, *_ = identities.get(participant, (str(participant), f"#{participant}", "", ""))
        rows.append(RatingImpact(participant, number, name, before, after, participant in marked))
    rows.sort(key=lambda row: (-_size(row.rating_now, row.rating_after), row.name))
    return rows


@dataclass
class _Reach:
    reached: set[int]  # everyone the change reaches
    # Participant -> (the stored match where the change reaches them, a seq its history entry is not before);
    # the others are reached at `since`. Entries are numbered along the rating order: the nth rated match from
    # `since` is at start_seq + n or later (a match removed or added before it shifts that by one).
    met_at: dict[int, tuple[int, int]]
    replayed: list[tuple]  # their matches from there on: (event, side 1, side 2, games 1, games 2)
    rated: int  # rated matches from `since`: what a recompute from there replays


REACH_SHARE = 0.25  # reaching more of those who play than this, replaying every match from `since` costs less
REACH_COUNTED_AFTER = 1000  # reached, before those who play are counted for REACH_SHARE


def _reach(rows, events, rated_events, marked: set, changed_match, start_seq: int, *, playing) -> _Reach | None:
    """Who the change reaches in `rows` (in rating order), and where: the first meeting with somebody reached,
    or `changed_match` for `marked` (None: from the start). None when it reaches more than REACH_SHARE of
    `playing()`, everyone who plays in `rows`."""
    waiting = changed_match is not None  # for the changed match, to reach `marked` there
    reached: set[int] = set() if waiting else marked - {None}
    met_at: dict[int, tuple[int, int]] = {}
    replayed = []
    rated = 0
    most = None  # how many reached is too many, once that many are reached that it is worth counting
    for pk, event_id, round_number, participant1, participant2, games1, games2 in rows:
        if waiting and (events[event_id][0], event_id, round_number, pk) >= changed_match:
            waiting = False
            reached |= marked
            met_at.update(dict.fromkeys(marked, (changed_match[-1], start_seq + rated - 1)))
        if event_id not in rated_events:
            continue
        entry_from = start_seq + rated - 1  # this match's entries are not before it
        rated += 1
        if participant1 in reached:
            if participant2 not in reached:
                reached.add(participant2)
                met_at[participant2] = (pk, entry_from)
        elif participant2 in reached:
            reached.add(participant1)
            met_at[participant1] = (pk, entry_from)
        else:
            continue
        replayed.append((event_id, participant1, participant2, games1, games2))
        if len(reached) > (most or REACH_COUNTED_AFTER):
            if most is not None:
                return None
            most = max(REACH_COUNTED_AFTER, REACH_SHARE * len(playing()))
    if waiting:  # the match removed was the last: its sides keep their state before it
        reached |= marked
        met_at.update(dict.fromkeys(marked, (changed_match[-1], start_seq + rated - 1)))
    return _Reach(reached, met_at, replayed, rated)


def _corrected(ordered, change: MatchChange, events):
    """The stored matches in rating order (id, event, round, sides, games) with `change` applied."""
    event = change.event
    added = None
    if change.match_id is None:
        # A new match is recorded last: after every stored match of its round.
        added = (None, event.pk, change.round, change.participant1, change.participant2, change.games1, change.games2)
        added_key = (event.date, event.pk, change.round)
    for row in ordered:
        pk, event_id, round_number = row[0], row[1], row[2]
        if added is not None and (events[event_id][0], event_id, round_number) > added_key:
            yield added
            added = None
        if pk == change.match_id:
            if change.removes:
                continue
            row = (*row[:5], change.games1, change.games2)
        yield row
    if added is not None:
        yield added
