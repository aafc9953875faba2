"""An event's final standings from its matches (SPEC 5b): plain functions of numbers, no database.

Match points (3 a win, 1 a draw, a bye a 2-0 win) and the DCI tiebreakers
over the non-elimination rounds: opponents' match-win percentage, own
game-win percentage, opponents' game-win percentage, each percentage at
least 1/3. The elimination rounds then decide the top places. Percentages
are exact fractions, so two players are tied only when they truly are.
"""

from collections.abc import Iterable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import NamedTuple

FLOOR = Fraction(1, 3)
WIN_POINTS, DRAW_POINTS = 3, 1
BYE_GAMES = (2, 0)


@dataclass(frozen=True, slots=True)
class PlayedMatch:
    round: int
    participant1: int
    participant2: int | None  # None: a bye
    games1: int
    games2: int
    draws: int = 0
    elimination: bool = False


@dataclass(slots=True)
class Placing:
    """One participant's line of the standings."""

    participant: int
    place: int = 0
    match_points: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    game_points: int = 0
    games: int = 0
    rounds: int = 0  # non-elimination rounds played, byes included
    opponents: list[int] = field(default_factory=list)
    mw: Fraction = FLOOR  # match-win percentage, at least 1/3
    gw: Fraction = FLOOR
    omw: Fraction = Fraction(0)  # no opponent (only byes): nothing to average
    ogw: Fraction = Fraction(0)
    eliminated_in: int | None = None  # the elimination round lost (None: not in them, or the winner)
    won_elimination: bool = False

    @property
    def key(self) -> tuple:
        """The Swiss order: higher sorts first."""
        return (self.match_points, self.omw, self.gw, self.ogw)


def _score(placing: Placing, won: int, lost: int, drawn: int) -> None:
    """A match of the non-elimination rounds, from this side."""
    placing.rounds += 1
    if won > lost:
        placing.wins += 1
        placing.match_points += WIN_POINTS
    elif won < lost:
        placing.losses += 1
    else:
        placing.draws += 1
        placing.match_points += DRAW_POINTS
    placing.game_points += WIN_POINTS * won + DRAW_POINTS * drawn
    placing.games += won + lost + drawn


def event_standings(matches: Iterable[PlayedMatch]) -> list[Placing]:
    """Everyone who played, in their final order with their place; equal lines share a place."""
    placings: dict[int, Placing] = {}
    elimination = []

    def placing_of(participant: int) -> Placing:
        found = placings.get(participant)
        if found is None:
            found = placings[participant] = Placing(participant)
        return found

    for match in matches:
        first = placing_of(match.participant1)
        second = placing_of(match.participant2) if match.participant2 is not None else None
        if match.elimination:
            if second is not None:
                elimination.append(match)
            continue
        if second is None:
            _score(first, *BYE_GAMES, 0)
            continue
        _score(first, match.games1, match.games2, match.draws)
        _score(second, match.games2, match.games1, match.draws)
        first.opponents.append(second.participant)
        second.opponents.append(first.participant)

    for placing in placings.values():
        if placing.rounds:
            placing.mw = max(FLOOR, Fraction(placing.match_points, WIN_POINTS * placing.rounds))
        if placing.games:
            placing.gw = max(FLOOR, Fraction(placing.game_points, WIN_POINTS * placing.games))
    for placing in placings.values():
        if placing.opponents:
            count = len(placing.opponents)
            placing.omw = sum((placings[other].mw for other in placing.opponents), Fraction(0)) / count
            placing.ogw = sum((placings[other].gw for other in placing.opponents), Fraction(0)) / count

    swiss = sorted(placings.values(), key=lambda placing: placing.key, reverse=True)
    _elimination_results(elimination, placings)
    in_elimination = [placing for placing in swiss if placing.won_elimination or placing.eliminated_in is not None]
    decided = {placing.participant for placing in in_elimination}
    # The winner first, then by the elimination round lost (the final's loser before the semi-finals'), each
    # group in its Swiss order (sorted() keeps that order among equals); everyone else after, in the Swiss order.
    top = sorted(in_elimination, key=lambda placing: (not placing.won_elimination, -(placing.eliminated_in or 0)))
    rest = [placing for placing in swiss if placing.participant not in decided]
    ordered = top + rest
    _number(ordered, top_count=len(top))
    return ordered


def _elimination_results(elimination: list[PlayedMatch], placings: dict[int, Placing]) -> None:
    """Who lost in which elimination round, and who won the last one."""
    if not elimination:
        return
    final_round = max(match.round for match in elimination)
    for match in elimination:
        if match.games1 == match.games2:
            continue  # a drawn elimination match decides nothing (refused by the importer)
        winner, loser = (
            (match.participant1, match.participant2)
            if match.games1 > match.games2
            else (match.participant2, match.participant1)
        )
        placings[loser].eliminated_in = match.round
        if match.round == final_round:
            placings[winner].won_elimination = True
            placings[winner].eliminated_in = None


def _number(ordered: list[Placing], *, top_count: int) -> None:
    """Places 1, 2, ... in order. Below the elimination places, equal Swiss lines share a place (1, 2, 2, 4).

    In the elimination places a line is its own place: the rounds decided them,
    and players who lost in the same round are ordered by their Swiss line,
    sharing a place only when that is equal too.
    """
    previous = None
    for index, placing in enumerate(ordered):
        if index < top_count:
            group = (placing.won_elimination, placing.eliminated_in, placing.key)
        else:
            group = ("swiss", placing.key)
        if group != previous:
            placing.place = index + 1
        else:
            placing.place = ordered[index - 1].place
        previous = group


class StandingLine(NamedTuple):
    """A line of the standings as pages show it and keep it: plain numbers, cheap to store and read back."""

    place: int
    participant: int
    match_points: int
    wins: int
    draws: int
    losses: int
    omw: float | None  # None: no opponent to average (only byes)
    gw: float
    ogw: float | None
    won_elimination: bool


def standing_lines(placings: list[Placing]) -> list[StandingLine]:
    return [
        StandingLine(
            placing.place,
            placing.participant,
            placing.match_points,
            placing.wins,
            placing.draws,
            placing.losses,
            float(placing.omw) if placing.opponents else None,
            float(placing.gw),
            float(placing.ogw) if placing.opponents else None,
            placing.won_elimination,
        )  # fmt: skip
        for placing in placings
    ]
