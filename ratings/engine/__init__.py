"""The rating engine: pure functions from results to ratings, with no knowledge of the ORM."""

from ratings.engine.elo import START_RATING, band_k, elo_update, expected_score, provisional_rating
from ratings.engine.ranking import competition_ranks, displayed, level_ranks
from ratings.engine.rulesets import (
    DRAW,
    LOSS,
    WIN,
    MatchInput,
    ParticipantState,
    RatingChange,
    Ruleset,
    rate_matches,
    ruleset_for,
)
from ratings.engine.vekn import (
    EventPoints,
    months_before,
    vekn_coefficient,
    vekn_counting_events,
    vekn_event_points,
    vekn_is_active,
    vekn_rating,
)

__all__ = [
    "DRAW",
    "LOSS",
    "START_RATING",
    "WIN",
    "EventPoints",
    "MatchInput",
    "ParticipantState",
    "RatingChange",
    "Ruleset",
    "band_k",
    "competition_ranks",
    "displayed",
    "elo_update",
    "expected_score",
    "level_ranks",
    "months_before",
    "provisional_rating",
    "rate_matches",
    "ruleset_for",
    "vekn_coefficient",
    "vekn_counting_events",
    "vekn_event_points",
    "vekn_is_active",
    "vekn_rating",
]
