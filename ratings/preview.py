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
from operator import itemgetter

from django.utils.translation import gettext

from events.models import Event, Standing
from events.selectors import MatchRow, event_matches
from ratings.engine import LOSS, WIN, EventPoints, ParticipantState, ruleset_for, vekn_event_points
from ratings.engine.history import history_rows
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
class EloPreview:
    category: Category
    participants: list[ParticipantPreview]  # biggest gain first
    not_rated_because: str = ""  # set when the ruleset does not rate this event at all

    kind = "elo"


def elo_preview(*, category: Category, event: Event, matches) -> EloPreview:
    """Rate `matches` (the event's, byes included or not) in round order from the stored states.

    Through the recompute's own loop (ratings.engine.history.history_rows), so
    the preview is what the recompute writes, row for row; each participant's
    rows are then summed up: their last rating, their record and their K.
    """
    ruleset = ruleset_for(
        category.ruleset, provisional_until=category.provisional_until, start_rating=category.start_rating
    )
    if not ruleset.is_rated(event.player_count):
        return EloPreview(
            category,
            [],
            gettext("%(list)s rates only events of at least %(count)s players")
            % {"list": category.label, "count": DCI_1997_MIN_PLAYERS},
        )
    played = sorted(
        (
            (m.pk or 0, event.pk, m.round, m.participant1_id, m.participant2_id, m.games1, m.games2)
            for m in matches
            if m.participant2_id is not None
        ),
        key=itemgetter(2, 0),  # round, then the order the matches were recorded
    )
    participants = {row[3] for row in played} | {row[4] for row in played}
    states = states_before(category=category, participants=participants, event_date=event.date, event_id=event.pk)
    start = ParticipantState(rating=category.start_rating)
    previews = {
        participant: ParticipantPreview(participant, state.rating, state.rating, state.matches)
        for participant in participants
        for state in (states.get(participant, start),)
    }
    events = {event.pk: (event.date, event.k, event.player_count, event.level2_judge)}
    for row in history_rows(ruleset, played, events, states, category_id=category.pk, first_seq=0):
        preview = previews[row[6]]
        preview.rating_after, score, reason, preview.provisional = row[9], row[12], row[14], row[16]
        if score >= WIN:  # S: 1 for a win, 0 for a loss, 1/2 or 1/3 for a draw by the ruleset
            preview.wins += 1
        elif score <= LOSS:
            preview.losses += 1
        else:
            preview.draws += 1
        if not preview.provisional and reason not in preview.k_reasons:
            preview.k_reasons.append(reason)
    ordered = sorted(previews.values(), key=lambda row: (-row.change, row.participant))
    return EloPreview(category, ordered)


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


def event_preview(*, event: Event, matches: list[MatchRow] | None = None) -> list[EloPreview | VeknPreview]:
    """For each category the event feeds, what its stored results would do to the ratings. `matches`:
    event_matches(event=event), when the caller has read them."""
    categories = categories_rating(format=event.format, team_size=event.team_size)
    previews: list[EloPreview | VeknPreview] = []
    standings = None
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
