"""Reads of the organizers' pages: whose events, what is stored, how the rating job is doing."""

from dataclasses import dataclass

from django.db.models import Count, Q, QuerySet
from django.http import Http404
from django.shortcuts import get_object_or_404

from accounts.selectors import user_manages_all_events
from events.models import Event, EventStatus, Match, Standing
from events.selectors import rows_per_event
from ratings.models import RecomputeRun
from ratings.selectors.history import categories_rating


def organize_events(*, user) -> QuerySet[Event]:
    """The events a user may manage: an organizer's own; every event for admins."""
    events = Event.objects.all()
    if not user_manages_all_events(user=user):
        events = events.filter(organizer=user)
    return events.select_related("organizer")


def events_results_counted(*, event_ids) -> dict[int, tuple[int, int]]:
    """event id -> (its matches, its standings), for the page of events shown (events.selectors.rows_per_event)."""
    matches, standings = rows_per_event(Match, event_ids=event_ids), rows_per_event(Standing, event_ids=event_ids)
    return {pk: (matches.get(pk, 0), standings.get(pk, 0)) for pk in event_ids}


def organize_event_get(*, user, event_id: int) -> Event:
    """One of the user's events; someone else's is "not found", so its existence is not given away."""
    return get_object_or_404(organize_events(user=user), pk=event_id)


@dataclass(frozen=True)
class ResultsSummary:
    rounds: list[int]
    matches: int
    byes: int
    standings: int
    participants: int

    @property
    def empty(self) -> bool:
        return not self.matches and not self.standings


def event_rounds(*, event: Event) -> list[int]:
    """The numbers of the rounds an event has matches in, in order."""
    # Ordered by round: the model's order would join the events.
    return list(Match.objects.filter(event=event).order_by("round").values_list("round", flat=True).distinct())


def event_results_summary(*, event: Event) -> ResultsSummary:
    matches = Match.objects.filter(event=event)
    rounds = event_rounds(event=event)
    counts = matches.aggregate(all=Count("id"), byes=Count("id", filter=Q(participant2__isnull=True)))
    # order_by(): the model's order would join the events to sort ids that go into a set.
    seats = set(matches.order_by().values_list("participant1_id", flat=True))
    seats |= set(matches.exclude(participant2__isnull=True).order_by().values_list("participant2_id", flat=True))
    standings = Standing.objects.filter(event=event)
    seats |= set(standings.order_by().values_list("participant_id", flat=True))
    return ResultsSummary(rounds, counts["all"], counts["byes"], standings.count(), len(seats))


@dataclass(frozen=True)
class RoundTyped:
    """A stored round as its form shows it: each match's row as typed (MatchRowForm's fields), and whether it
    is an elimination round."""

    rows: list[dict[str, str]]
    elimination: bool


def round_typed(*, event: Event, round_number: int) -> RoundTyped:
    """The stored matches of an event's round, in the order they were stored, as the round's form shows them."""
    # The values only: as model instances with their players, a 450-match round took 20 ms to read.
    stored = (
        Match.objects.filter(event=event, round=round_number)
        .order_by("id")
        .values_list(
            "participant1__player__membership_number",
            "participant2__player__membership_number",
            "games1",
            "games2",
            "draws",
            "elimination",
        )
    )
    rows, elimination = [], False
    for player1, player2, games1, games2, draws, eliminating in stored:
        rows.append(
            {
                "player1": player1,
                "player2": player2 or "",  # a bye
                "games1": str(games1),
                "games2": str(games2),
                "draws": str(draws) if draws else "",
            }
        )
        elimination = elimination or eliminating
    return RoundTyped(rows, elimination)


def standings_typed(*, event: Event) -> list[dict[str, str]]:
    """An event's stored standings, best first, as the standings form shows them (StandingRowForm's fields)."""
    stored = (
        Standing.objects.filter(event=event)
        .order_by("rank", "id")
        .values_list("participant__player__membership_number", "rank", "vp", "gw", "final")
    )
    return [
        {"player": player, "rank": str(rank), "vp": f"{vp.normalize():f}", "gw": str(gw), "final": final}
        for player, rank, vp, gw, final in stored
    ]


def event_rating_jobs(*, event: Event) -> list[RecomputeRun]:
    """For each category the event feeds, the latest recompute covering its date since it was recorded.

    Submitting queues one per category (ratings.receivers); runs queued together
    are carried out together, so the latest one tells how the rating is doing.
    """
    if event.status == EventStatus.DRAFT:
        return []
    jobs = []
    for category in categories_rating(format=event.format, team_size=event.team_size):
        run = (
            RecomputeRun.objects.filter(category=category, queued_at__gte=event.created_at)
            .filter(Q(since__isnull=True) | Q(since__lte=event.date))
            .select_related("category")
            .order_by("-queued_at", "-id")
            .first()
        )
        if run is not None:
            jobs.append(run)
    return jobs


def event_for_viewer(*, user, event_id: int) -> Event:
    """An event's public page; a draft only for those who manage it (anyone else: not found)."""
    event = get_object_or_404(Event, pk=event_id)
    if event.status == EventStatus.DRAFT and not (
        user.is_authenticated and organize_events(user=user).filter(pk=event.pk).exists()
    ):
        raise Http404("No such event.")
    return event
