"""Reads of an event's ratings: the lists it feeds, its V:EKN scores, each participant's rating change."""

from dataclasses import dataclass

from django.core.cache import cache

from events.models import Event, Match
from lib.lookups import any_of
from players.links import NamedParticipant
from players.selectors import participant_names
from ratings.models import Category, CurrentRating, EventScore, RatingEntry, Ruleset


def event_categories(*, event: Event) -> list[Category]:
    """The categories this event's results feed (SPEC 2)."""
    return Category.objects.rating(format=event.format, team_size=event.team_size)


def event_scores(*, event: Event, categories) -> dict[int, EventScore]:
    """participant id -> their V:EKN points for the event (the first V:EKN category rating it)."""
    vekn = [category.pk for category in categories if category.ruleset == Ruleset.VEKN]
    if not vekn:
        return {}
    scores = {}
    for score in EventScore.objects.filter(event=event, category_id__in=vekn).order_by("-category_id"):
        scores[score.participant_id] = score
    return scores


@dataclass(slots=True)
class ParticipantChange:
    """A participant's rating change over one event in one category: before the first match, after the last."""

    participant: NamedParticipant
    rating_before: float
    rating_after: float
    wins: int = 0
    draws: int = 0
    losses: int = 0

    @property
    def change(self) -> float:
        return self.rating_after - self.rating_before

    @property
    def matches(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def name(self) -> str:
        return self.participant.name


@dataclass(slots=True)
class CategoryChanges:
    category: Category
    rows: list[ParticipantChange]  # biggest gain first
    by_match: dict[tuple[int, int], float]  # (match id, participant id) -> change in that match


def _event_seq_window(category: Category, event: Event, participant_ids, rated_matches: int) -> tuple[int, int] | None:
    """The seq range that holds the event's history rows in the category, or None if it cannot be found.

    A category rates matches one after the other (date, event, round), one
    seq each, so an event's rows are consecutive: any one of their seqs,
    give or take the event's number of matches, bounds them all. That seq is
    read from the history of the participant with the fewest matches.
    """
    newcomer = (
        CurrentRating.objects.filter(any_of("participant_id", participant_ids), category=category)
        .order_by("matches", "participant_id")
        .values_list("participant_id", flat=True)
        .first()
    )
    if newcomer is None:
        return None
    seq = (
        RatingEntry.objects.filter(category=category, participant_id=newcomer, event_id=event.pk)
        .order_by("seq")
        .values_list("seq", flat=True)
        .first()
    )
    if seq is None:
        return None
    return seq - rated_matches + 1, seq + rated_matches - 1


def _event_entries(category: Category, event: Event, participant_ids, rated_matches: int):
    """The event's history rows in one category, through the (category, seq) index when the window is known."""
    entries = (
        RatingEntry.objects.filter(category=category, event_id=event.pk)
        .order_by("seq")
        .values_list("participant_id", "match_id", "rating_before", "rating_after", "score")
    )
    window = _event_seq_window(category, event, participant_ids, rated_matches)
    if window is None:  # e.g. today's list not built yet: go through each participant's history instead
        return entries.filter(any_of("participant_id", participant_ids))
    return entries.filter(seq__range=window)


def event_rating_changes(*, event: Event, categories) -> list[CategoryChanges]:
    """Each participant's rating change in each Elo category the event feeds.

    History rows have no event index; the event's rows are read as one seq
    range per category (three small queries per category, whatever the size
    of the event or of the history), never participant by participant. What
    they add up to is kept until the category's next recompute: the players
    and teams, whose names may change meanwhile, are read each time.
    """
    elo = [category for category in categories if category.ruleset not in (Ruleset.VEKN, Ruleset.DERIVED)]
    if not elo:
        return []
    keys = {category.pk: f"event-sums:{category.pk}:{category.history_version}:{event.pk}" for category in elo}
    kept = cache.get_many(keys.values())
    if len(kept) < len(keys):  # the event's matches are read only to add up what is not kept
        pairs = list(
            Match.objects.filter(event=event, participant2__isnull=False)
            .order_by()
            .values_list("participant1_id", "participant2_id")
        )
        participant_ids = {participant for pair in pairs for participant in pair}
        for category in elo:
            if keys[category.pk] not in kept and participant_ids:
                kept[keys[category.pk]] = _event_sums_read(category, event, participant_ids, len(pairs))
                cache.set(keys[category.pk], kept[keys[category.pk]], EVENT_SUMS_SECONDS)
    sums = [kept.get(keys[category.pk], _NO_SUMS) for category in elo]
    if not any(each.rows for each in sums):
        return []
    shown = {row[0] for each in sums for row in each.rows}
    participants = participant_names(participant_ids=shown)
    found = []
    for category, each in zip(elo, sums, strict=True):
        rows = [
            ParticipantChange(participants[participant_id], before, after, wins, draws, losses)
            for participant_id, before, after, wins, draws, losses in each.rows
        ]
        rows.sort(key=lambda row: (-row.change, row.name))
        found.append(CategoryChanges(category, rows, each.by_match))
    return found


# An event's history rows in a category change only with a recompute of it, which bumps its history_version: their
# sums are kept under that version. The 3,749 matches of a 900-player event cost 60 ms to read and add up.
EVENT_SUMS_SECONDS = 60 * 60


@dataclass(frozen=True, slots=True)
class _EventSums:
    rows: list[tuple[int, float, float, int, int, int]]  # participant id, rating before and after, W, D, L
    by_match: dict[tuple[int, int], float]  # (match id, participant id) -> change in that match


_NO_SUMS = _EventSums([], {})


def _event_sums_read(category: Category, event: Event, participant_ids, rated_matches: int) -> _EventSums:
    rows: dict[int, list] = {}  # participant id -> [before, after, wins, draws, losses]
    by_match = {}
    for participant_id, match_id, before, after, score in _event_entries(
        category, event, participant_ids, rated_matches
    ):
        row = rows.get(participant_id)
        if row is None:
            row = rows[participant_id] = [before, after, 0, 0, 0]
        row[1] = after
        row[2 if score >= 1 else 4 if score <= 0 else 3] += 1
        by_match[(match_id, participant_id)] = after - before
    return _EventSums([(participant_id, *row) for participant_id, row in rows.items()], by_match)
