"""Reads for pages: each returns what a template needs in a fixed number of queries."""

from dataclasses import dataclass

from django.core.cache import cache
from django.db import connection
from django.db.models import Count, IntegerField, OuterRef, Q, QuerySet, Subquery
from django.db.models.functions import Coalesce

from events.models import Event, Match, Standing
from players.models import Player


def event_list_recent(*, limit: int = 10):
    """The newest `limit` events with their numbers of matches, in one query.

    Each event's matches are counted by a subquery through the matches' event
    index, for the events shown only: a join and GROUP BY counted every match
    of every event before the LIMIT (130 ms at a million matches).
    """
    matches = (
        Match.objects.filter(event=OuterRef("pk"))
        .order_by()
        .values("event")
        .annotate(count=Count("id"))
        .values("count")
    )
    return (
        Event.objects.public()
        .order_by("-date", "-id")
        .annotate(match_count=Coalesce(Subquery(matches, output_field=IntegerField()), 0))[:limit]
    )


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


# Event pages -------------------------------------------------------------------------


def event_list() -> QuerySet[Event]:
    """Every event, newest first (the order they were recorded breaks ties on a date)."""
    return Event.objects.public().order_by("-date", "-id")


@dataclass(frozen=True, slots=True)
class EventFilterValues:
    """What the event list's filters offer: the formats, years and countries of the events shown."""

    formats: list[str]
    years: list[int]  # newest first
    countries: list[str]  # codes


EVENT_FILTER_SECONDS = 60


def event_filter_values() -> EventFilterValues:
    """The event list's filter values, at most a minute old.

    Each is a scan of every event (three, a fifth of the event list's time at
    7,000 events) for values that change only when an event of a new format,
    year or country is published or one is edited: the filters offer it
    within a minute.
    """
    return cache.get_or_set("event-filter-values", _event_filter_values, EVENT_FILTER_SECONDS)


def _event_filter_values() -> EventFilterValues:
    return EventFilterValues(formats=event_formats(), years=event_years(), countries=event_countries())


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


def event_matches(*, event: Event, round: int | None = None) -> list[Match]:
    """The event's matches in round order, their sides by id only.

    A big round's 450 matches joined with their 900 participants and players
    cost 40 ms: the page names the sides from participant_names, most of
    which it has read already for the rating changes.
    """
    matches = Match.objects.filter(event=event)
    if round is not None:
        matches = matches.filter(round=round)
    return list(matches.order_by("round", "id"))


def event_standings(*, event: Event) -> list[Standing]:
    return list(
        Standing.objects.filter(event=event)
        .select_related("participant__player", "participant__team")
        .order_by("rank", "participant_id")
    )


def players_last_events(*, players, per_player: int = 3) -> dict[int, list[Event]]:
    """player id -> the last `per_player` events they played (newest first), for many players in two queries."""
    by_participant = {player.participant_id: player.pk for player in players}
    if not by_participant:
        return {}
    match = Match._meta.db_table
    event = Event._meta.db_table
    marks = ", ".join(["%s"] * len(by_participant))
    sql = f"""
        SELECT participant_id, event_id FROM (
            SELECT played.participant_id, played.event_id,
                   ROW_NUMBER() OVER (PARTITION BY played.participant_id ORDER BY e.date DESC, e.id DESC) AS n
            FROM (
                SELECT participant1_id AS participant_id, event_id FROM {match} WHERE participant1_id IN ({marks})
                UNION
                SELECT participant2_id, event_id FROM {match} WHERE participant2_id IN ({marks})
            ) played
            JOIN {event} e ON e.id = played.event_id
        ) numbered
        WHERE n <= %s
    """
    ids = list(by_participant)
    with connection.cursor() as cursor:
        cursor.execute(sql, [*ids, *ids, per_player])
        rows = cursor.fetchall()
    events = Event.objects.in_bulk({event_id for _, event_id in rows})
    found: dict[int, list[Event]] = {player_id: [] for player_id in by_participant.values()}
    for participant_id, event_id in rows:
        found[by_participant[participant_id]].append(events[event_id])
    for played in found.values():
        played.sort(key=lambda each: (each.date, each.pk), reverse=True)
    return found
