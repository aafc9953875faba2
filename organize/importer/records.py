"""What a valid bundle is made of: each row of its files checked and typed.

Categories, players, teams and events are records; matches and standings are
plain tuples, for their number.
"""

from dataclasses import dataclass, field
from datetime import date


@dataclass(slots=True)
class CategoryRecord:
    line: int
    slug: str
    name: str
    ruleset: str
    formats: str
    team_size: int
    ranked_after: int
    components: str


@dataclass(slots=True)
class PlayerRecord:
    line: int
    number: str
    name: str
    country: str
    region: str


@dataclass(slots=True)
class TeamRecord:
    line: int
    ref: str
    name: str
    members: tuple[str, ...]


@dataclass(slots=True)
class EventRecord:
    line: int
    code: str
    name: str
    date: date
    format: str
    k: int
    player_count: int | None  # None: count the participants in the results
    level2_judge: bool
    team_size: int
    structure: str
    country: str
    city: str
    level: str
    participants: set[str] = field(default_factory=set)


# Matches and standings are plain tuples: a bundle may hold a million of them.
# match: (line, round, ref1, ref2 or "", games1, games2, draws, elimination)
# standing: (line, ref, rank, vp, gw, final)


@dataclass
class ValidBundle:
    categories: list[CategoryRecord]
    players: dict[str, PlayerRecord]
    teams: dict[str, TeamRecord]
    events: dict[str, EventRecord]  # in file order: the order events are recorded in
    matches: dict[str, list[tuple]]  # by event code
    standings: dict[str, list[tuple]]  # by event code
    registered_players: set[str]  # numbers used but not listed: already in the database
