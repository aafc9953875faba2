"""What submitting an event would do to the ratings, computed by the engine and written nowhere.

Each participant starts from their state just before the event in rating
order (SPEC 3: event date, then the order events were recorded), read from
the stored history; whoever has none starts at the category's start rating.
The event's matches are then rated round by round with the category's
ruleset, exactly as a recompute would. V:EKN events get their event points.
Nothing is written: published ratings (RatingEntry, CurrentRating) stay as they are.
"""

from dataclasses import dataclass, field
from datetime import date

from django.utils.translation import gettext

from events.models import Event, Match, Standing
from events.selectors import MatchRow, event_matches
from ratings.engine import LOSS, WIN, EventPoints, ParticipantState, RatingChange, ruleset_for, vekn_event_points
from ratings.engine.history import result_of
from ratings.engine.rulesets import DCI_1997_MIN_PLAYERS
from ratings.models import Category, Ruleset
from ratings.selectors import history
from ratings.selectors.history import categories_rating, history_start_seq


def states_before(
    *, category: Category, participants, event_date: date, event_id: int | None = None
) -> dict[int, ParticipantState]:
    """Each participant's state in `category` just before an event on `event_date` (recorded as `event_id`).

    The state after their last history row before the event, as a recompute
    from that point would start from (the 1997 provisional totals included).
    Participants without history are left out: the ruleset starts them at the
    start rating.
    """
    start_seq = history_start_seq(category, event_date, event_id=event_id)
    return history.states_before(category, start_seq, set(participants))


# Elo categories -------------------------------------------------------------------------------


@dataclass
class ParticipantPreview:
    """One participant's ratings over the event: before their first match and after their last."""

    participant: int
    rating_before: float
    rating_after: float
    matches_before: int
    wins: int = 0
    draws: int = 0
    losses: int = 0
    provisional: bool = False  # still rated by the provisional formula after the event
    k_reasons: list[str] = field(default_factory=list)

    @property
    def change(self) -> float:
        return self.rating_after - self.rating_before

    @property
    def matches(self) -> int:
        return self.wins + self.draws + self.losses


@dataclass
class MatchPreview:
    match: Match | MatchRow
    change1: RatingChange
    change2: RatingChange


@dataclass
class EloPreview:
    category: Category
    participants: list[ParticipantPreview]  # biggest gain first
    matches: list[MatchPreview]
    not_rated_because: str = ""  # set when the ruleset does not rate this event at all

    kind = "elo"


def elo_preview(*, category: Category, event: Event, matches) -> EloPreview:
    """Rate `matches` (the event's, byes included or not) in round order from the stored states."""
    ruleset = ruleset_for(
        category.ruleset, provisional_until=category.provisional_until, start_rating=category.start_rating
    )
    played = sorted((m for m in matches if m.participant2_id is not None), key=lambda m: (m.round, m.pk or 0))
    if not ruleset.is_rated(event.player_count):
        return EloPreview(
            category,
            [],
            [],
            gettext("%(list)s rates only events of at least %(count)s players")
            % {"list": category.label, "count": DCI_1997_MIN_PLAYERS},
        )
    participants = {m.participant1_id for m in played} | {m.participant2_id for m in played}
    states = states_before(category=category, participants=participants, event_date=event.date, event_id=event.pk)
    previews = {
        participant: ParticipantPreview(
            participant,
            states[participant].rating if participant in states else category.start_rating,
            states[participant].rating if participant in states else category.start_rating,
            states[participant].matches if participant in states else 0,
        )
        for participant in participants
    }
    rated = []
    for match in played:
        result = result_of(match.games1, match.games2)
        change1, change2 = ruleset.rate_pair(
            match.participant1_id,
            match.participant2_id,
            result,
            event.k,
            event.player_count,
            event.level2_judge,
            states,
        )
        rated.append(MatchPreview(match, change1, change2))
        for change, outcome in ((change1, result), (change2, 1.0 - result)):
            preview = previews[change.participant]
            preview.rating_after = change.rating_after
            preview.provisional = change.provisional
            if outcome == WIN:
                preview.wins += 1
            elif outcome == LOSS:
                preview.losses += 1
            else:
                preview.draws += 1
            if change.k_reason not in preview.k_reasons and not change.provisional:
                preview.k_reasons.append(change.k_reason)
    ordered = sorted(previews.values(), key=lambda row: (-row.change, row.participant))
    return EloPreview(category, ordered, rated)


# V:EKN categories ------------------------------------------------------------------------------


@dataclass
class StandingPreview:
    standing: Standing
    points: EventPoints


@dataclass
class VeknPreview:
    category: Category
    standings: list[StandingPreview]  # in rank order
    players: int  # N in the coefficient

    kind = "vekn"

    @property
    def coefficient(self) -> float:
        return self.standings[0].points.coefficient if self.standings else 0.0


def vekn_preview(*, category: Category, event: Event, standings) -> VeknPreview:
    rows = [
        StandingPreview(
            standing,
            vekn_event_points(
                vp=standing.vp, gw=standing.gw, final=standing.final, players=event.player_count, level=event.level
            ),
        )
        for standing in sorted(standings, key=lambda s: (s.rank, s.participant_id))
    ]
    return VeknPreview(category, rows, event.player_count)


# An event -----------------------------------------------------------------------------------


def event_preview(*, event: Event) -> list[EloPreview | VeknPreview]:
    """For each category the event feeds, what its stored results would do to the ratings."""
    categories = categories_rating(format=event.format, team_size=event.team_size)
    previews: list[EloPreview | VeknPreview] = []
    matches = standings = None
    for category in categories:
        if category.ruleset == Ruleset.VEKN:
            if standings is None:
                standings = list(Standing.objects.filter(event=event))
            previews.append(vekn_preview(category=category, event=event, standings=standings))
        elif category.ruleset != Ruleset.DERIVED:
            if matches is None:
                # As plain rows: 3,720 Match instances were most of the 5,500 model instances a 900-player
                # event's preview built a request.
                matches = event_matches(event=event)
            previews.append(elo_preview(category=category, event=event, matches=matches))
    return previews
