"""Reads for pages: each returns what a template needs in a fixed number of queries."""

from dataclasses import dataclass
from datetime import date

from django.core.cache import cache
from django.db.models import Count, Q, QuerySet
from django.http import Http404
from django.shortcuts import get_object_or_404
from django.utils import timezone

from corrections.selectors import corrections_of_matches
from events.models import Event, EventStatus, Match, Standing
from players.links import participant_entity
from players.models import Participant, Player
from ratings.models import Category, CurrentRating, EventScore, RatingEntry, Ruleset


def event_for_viewer(*, user, event_id: int) -> Event:
    """An event's public page; a draft only for those who manage it (anyone else: not found)."""
    from events.organize_selectors import organize_events

    event = get_object_or_404(Event, pk=event_id)
    if event.status == EventStatus.DRAFT and not (
        user.is_authenticated and organize_events(user=user).filter(pk=event.pk).exists()
    ):
        raise Http404("No such event.")
    return event


def event_list_recent(*, limit: int = 10):
    return Event.objects.public().annotate(match_count=Count("matches")).order_by("-date", "-id")[:limit]


WORLD_SUMMARY_SECONDS = 60


def world_summary() -> dict:
    """Headline counts for the home page, at most a minute old.

    Counting a million matches costs about half a second: under load, on
    every visit to the home page, it was a third of the server's work.
    """
    return cache.get_or_set("world-summary", _world_counts, WORLD_SUMMARY_SECONDS)


def _world_counts() -> dict:
    return {
        "players": Player.objects.public().count(),
        "countries": Player.objects.public().exclude(country="").values("country").distinct().count(),
        "events": Event.objects.public().count(),
        "matches": Match.objects.filter(event__in=Event.objects.public()).count(),
    }


# Match pages -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class MatchCorrection:
    """A correction of a match's result (SPEC 5): who, when, the old and new result, and why."""

    corrected_on: date
    corrected_by: str
    old_result: str
    new_result: str
    reason: str
    url: str = ""  # its entry in the public correction log

    def __str__(self):
        return (
            f"{self.corrected_on:%Y-%m-%d}: {self.old_result} → {self.new_result} by {self.corrected_by}: {self.reason}"
        )


def match_corrections(*, match_ids) -> dict[int, list[MatchCorrection]]:
    """match id -> its corrections, oldest first, for marking corrected matches wherever they are shown.

    One query for all `match_ids`: the player history, head-to-head and event
    pages call this for the rows they show and mark every match it returns.
    """
    found: dict[int, list[MatchCorrection]] = {}
    if not match_ids:
        return found
    for correction in corrections_of_matches(match_ids=match_ids):
        found.setdefault(correction.match_id, []).append(
            MatchCorrection(
                corrected_on=timezone.localdate(correction.corrected_at),
                corrected_by=correction.corrected_by_name,
                old_result=correction.old_result,
                new_result=correction.new_result,
                reason=correction.reason,
                url=correction.get_absolute_url(),
            )
        )
    return found


# Event pages -------------------------------------------------------------------------


def event_list() -> QuerySet[Event]:
    """Every event, newest first (the order they were recorded breaks ties on a date)."""
    return Event.objects.public().order_by("-date", "-id")


def event_formats() -> list[str]:
    return list(Event.objects.public().order_by("format").values_list("format", flat=True).distinct())


def event_years() -> list[int]:
    return [day.year for day in Event.objects.public().dates("date", "year", order="DESC")]


def event_countries() -> list[str]:
    return list(
        Event.objects.public().exclude(country="").order_by("country").values_list("country", flat=True).distinct()
    )


@dataclass(frozen=True, slots=True)
class Round:
    number: int
    matches: int  # byes included
    elimination: bool

    @property
    def label(self) -> str:
        """Round 3; elimination rounds by their size: Final, Semifinals, Quarterfinals, Round of 16."""
        if not self.elimination:
            return f"Round {self.number}"
        return {1: "Final", 2: "Semifinals", 4: "Quarterfinals"}.get(self.matches, f"Round of {2 * self.matches}")


def event_rounds(*, event: Event) -> list[Round]:
    rows = (
        Match.objects.filter(event=event)
        .values("round")
        .annotate(matches=Count("id"), elimination=Count("id", filter=Q(elimination=True)))
        .order_by("round")
    )
    return [Round(row["round"], row["matches"], row["elimination"] > 0) for row in rows]


def event_matches(*, event: Event, round: int | None = None) -> QuerySet[Match]:
    """The event's matches in round order, with both sides' players or teams."""
    matches = Match.objects.filter(event=event)
    if round is not None:
        matches = matches.filter(round=round)
    return matches.select_related(
        "participant1__player", "participant1__team", "participant2__player", "participant2__team"
    ).order_by("round", "id")


def event_standings(*, event: Event) -> list[Standing]:
    return list(
        Standing.objects.filter(event=event)
        .select_related("participant__player", "participant__team")
        .order_by("rank", "participant_id")
    )


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

    participant: Participant
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
        entity = participant_entity(self.participant)
        return (entity.name or str(entity)) if entity else str(self.participant)


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
        CurrentRating.objects.filter(category=category, participant_id__in=participant_ids)
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
        return entries.filter(participant_id__in=sorted(participant_ids))
    return entries.filter(seq__range=window)


def event_rating_changes(*, event: Event, categories) -> list[CategoryChanges]:
    """Each participant's rating change in each Elo category the event feeds.

    History rows have no event index; the event's rows are read as one seq
    range per category (three small queries per category, whatever the size
    of the event or of the history), never participant by participant.
    """
    elo = [category for category in categories if category.ruleset not in (Ruleset.VEKN, Ruleset.DERIVED)]
    if not elo:
        return []
    pairs = list(
        Match.objects.filter(event=event, participant2__isnull=False)
        .order_by()
        .values_list("participant1_id", "participant2_id")
    )
    participant_ids = {participant for pair in pairs for participant in pair}
    if not participant_ids:
        return []
    participants = {
        participant.pk: participant
        for participant in Participant.objects.filter(pk__in=participant_ids).select_related("player", "team")
    }
    found = []
    for category in elo:
        changes = CategoryChanges(category, [], {})
        by_participant: dict[int, ParticipantChange] = {}
        for participant_id, match_id, before, after, score in _event_entries(
            category, event, participant_ids, len(pairs)
        ):
            row = by_participant.get(participant_id)
            if row is None:
                row = by_participant[participant_id] = ParticipantChange(participants[participant_id], before, after)
                changes.rows.append(row)
            row.rating_after = after
            if score >= 1:
                row.wins += 1
            elif score <= 0:
                row.losses += 1
            else:
                row.draws += 1
            changes.by_match[(match_id, participant_id)] = after - before
        changes.rows.sort(key=lambda row: (-row.change, row.name))
        found.append(changes)
    return found
