"""Reads for pages: each returns what a template needs in a fixed number of queries."""

from dataclasses import dataclass
from typing import NamedTuple

from django.core.cache import cache
from django.db import connection
from django.db.models import Count, F, IntegerField, Max, OuterRef, Q, QuerySet, Subquery, Sum
from django.db.models.functions import Coalesce
from django.utils.translation import pgettext

from events import standings as computed_standings
from events.models import Event, Match, Standing
from events.standings import PlayedMatch, StandingLine, standing_lines
from lib.counting import CountKept
from players.links import NamedParticipant
from players.models import Player
from players.selectors import participant_names


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


def rows_per_event(model, *, event_ids) -> dict[int, int]:
    """event id -> how many rows of `model` (Match, Standing) it has, for the events of a page once it is read:
    one grouped query through the model's event index. Annotated on the events instead, every match of every
    event was grouped for a page of 50 (0.2-0.65 s at a million matches), or, paged with OFFSET, counted for
    every event skipped as well."""
    counted = model.objects.filter(event_id__in=list(event_ids)).order_by().values("event_id")
    return dict(counted.annotate(rows=Count("*")).values_list("event_id", "rows"))


def event_list() -> QuerySet[Event]:
    """Every event, newest first (the order they were recorded breaks ties on a date)."""
    return Event.objects.public().order_by("-date", "-id")


EVENT_COUNT_SECONDS = 60


class CountedEvents(CountKept):
    """Events (a queryset, filtered and ordered) for a paginated table, their number kept a minute per filter
    (lib.counting.CountKept): counting them is a scan of every event, 35 ms of the event list's 70 at
    100,000 events."""

    def __init__(self, events: QuerySet[Event], *, filters: str):
        super().__init__(events, name=f"events:{filters}", seconds=EVENT_COUNT_SECONDS)


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
            return pgettext("a round of an event", "Round %(number)s") % {"number": self.number}
        if self.matches == 1:
            return pgettext("elimination round", "Final")
        if self.matches == 2:
            return pgettext("elimination round", "Semifinals")
        if self.matches == 4:
            return pgettext("elimination round", "Quarterfinals")
        return pgettext("elimination round", "Round of %(players)s") % {"players": 2 * self.matches}


def event_rounds(*, event: Event) -> list[Round]:
    rows = (
        Match.objects.filter(event=event)
        .values("round")
        .annotate(matches=Count("id"), elimination=Count("id", filter=Q(elimination=True)))
        .order_by("round")
    )
    return [Round(row["round"], row["matches"], row["elimination"] > 0) for row in rows]


class MatchRow(NamedTuple):
    """What the event page shows of a match, read as a plain tuple."""

    pk: int
    round: int
    participant1_id: int
    participant2_id: int | None
    games1: int
    games2: int
    draws: int
    elimination: bool

    @property
    def is_bye(self) -> bool:
        return self.participant2_id is None


def event_matches(
    *, event: Event, round: int | None = None, offset: int = 0, limit: int | None = None
) -> list[MatchRow]:
    """The event's matches in round order (in a round, as they were listed), their sides by id only; with
    `limit`, that many from the `offset`-th on.

    A big round's 450 matches joined with their 900 participants and players
    cost 40 ms: the page names the sides from participant_names, most of
    which it has read already for the rating changes. Read as tuples: 450
    Match instances cost another 5 ms.
    """
    matches = Match.objects.filter(event=event)
    if round is not None:
        matches = matches.filter(round=round)
    rows = matches.order_by("round", "id").values_list(*MatchRow._fields)
    if limit is not None:
        rows = rows[offset : offset + limit]
    return [MatchRow(*row) for row in rows]


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


# Standings computed from the matches (SPEC 5b) ------------------------------------------------------------------

STANDINGS_SECONDS = 24 * 60 * 60


def _fingerprints(event_ids) -> dict[int, tuple]:
    """event id -> what its standings depend on, summed up in one aggregate per event: any change of a match
    (added, removed, a result or a side corrected) changes it. Read through the matches' event index.

    Each match's values are weighted by its id: plain totals came back to what they were when two results
    were corrected in turn (2-0 and 0-2 made 0-2 and 2-0), or two players exchanged between matches, and the
    standings kept under the first totals were shown again."""
    rows = (
        Match.objects.filter(event_id__in=list(event_ids))
        .values("event_id")
        .annotate(
            count=Count("id"),
            last=Max("id"),
            results=Sum(F("id") * (F("games1") + 7 * F("games2") + 49 * F("draws") + 343 * F("round"))),
            sides=Sum(F("id") * (F("participant1_id") + 3 * Coalesce(F("participant2_id"), 0))),
            eliminations=Sum(F("id"), filter=Q(elimination=True), default=0),
        )
        .order_by()
    )
    return {
        row["event_id"]: (row["count"], row["last"], row["results"], row["sides"], row["eliminations"]) for row in rows
    }


def _printed(fingerprint: tuple) -> str:
    return "-".join(map(str, fingerprint))


def _standings_computed(event_ids) -> dict[int, list[StandingLine]]:
    matches: dict[int, list[PlayedMatch]] = {event_id: [] for event_id in event_ids}
    rows = (
        Match.objects.filter(event_id__in=list(event_ids))
        .order_by("event_id", "round", "id")
        .values_list(
            "event_id", "round", "participant1_id", "participant2_id", "games1", "games2", "draws", "elimination"
        )
    )
    for event_id, *match in rows:
        matches[event_id].append(PlayedMatch(*match))
    return {
        event_id: standing_lines(computed_standings.event_standings(played)) for event_id, played in matches.items()
    }


def _kept_by_fingerprint(prefix: str, event_ids, compute) -> dict:
    """event id -> compute({event id: its standings}) per event, kept in the cache under a fingerprint of the
    event's matches (so a correction shows at once); the standings are computed only for those not kept.
    Events without matches are left out."""
    keys = {
        event_id: f"{prefix}:{event_id}:{_printed(fingerprint)}"
        for event_id, fingerprint in _fingerprints(event_ids).items()
    }
    found = cache.get_many(keys.values())
    kept = {event_id: found[key] for event_id, key in keys.items() if key in found}
    missing = [event_id for event_id in keys if event_id not in kept]
    if missing:
        computed = {event_id: compute(lines) for event_id, lines in _standings_computed(missing).items()}
        cache.set_many({keys[event_id]: computed[event_id] for event_id in missing}, STANDINGS_SECONDS)
        kept |= computed
    return kept


def events_computed_standings(*, event_ids) -> dict[int, list[StandingLine]]:
    """event id -> its standings computed from its matches, for many events in a few queries."""
    return _kept_by_fingerprint("event-standings", event_ids, lambda lines: lines)


def event_computed_standings(*, event: Event) -> list[StandingLine]:
    return events_computed_standings(event_ids=[event.pk]).get(event.pk, [])


def events_winners(*, event_ids) -> dict[int, list[int]]:
    """event id -> the participant ids in first place: from the uploaded standings where there are some (SPEC
    5b: they take precedence), else from the matches. Empty for an event with no results yet.

    Lists of events need only the winners: they are kept apart from the whole standings, under the same
    fingerprints, so a page of fifty events reads fifty short lists.
    """
    uploaded: dict[int, list[int]] = {}
    for event_id, participant_id in (
        Standing.objects.filter(event_id__in=list(event_ids), rank=1)
        .order_by("event_id", "participant_id")
        .values_list("event_id", "participant_id")
    ):
        uploaded.setdefault(event_id, []).append(participant_id)
    computed = [event_id for event_id in event_ids if event_id not in uploaded]
    winners = _kept_by_fingerprint(
        "event-winners", computed, lambda lines: [line.participant for line in lines if line.place == 1]
    )
    return winners | uploaded


def events_winner_names(*, event_ids) -> dict[int, list[NamedParticipant]]:
    """event id -> its winners (several when they share first place), named, for lists of events."""
    winners = events_winners(event_ids=event_ids)
    names = participant_names(participant_ids={winner for found in winners.values() for winner in found})
    return {event_id: [names[winner] for winner in found if winner in names] for event_id, found in winners.items()}
