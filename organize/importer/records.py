"""What a valid bundle is made of: each row of its files checked and typed.

Categories, players, teams and events are records; matches, for their number,
are packed integers (MatchRows) and standings plain tuples.
"""

from array import array
from collections.abc import Iterator
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


class RefTable:
    """The participant ids a bundle's results name, each string kept once; rows hold its index."""

    __slots__ = ("index", "refs")

    def __init__(self):
        self.refs = [""]  # 0: no participant (a bye's player 2)
        self.index = {"": 0}

    def index_of(self, ref: str) -> int:
        found = self.index.get(ref)
        if found is None:
            found = self.index[ref] = len(self.refs)
            self.refs.append(ref)
        return found

    def kept(self, ref: str) -> str:
        """The one copy of `ref` the table keeps (a row's own copy can then be freed)."""
        return self.refs[self.index_of(ref)]


class MatchRows:
    """One event's checked matches, packed as 4-byte integers: 32 bytes a match instead of a tuple of eight
    objects and two strings (about 270 bytes), so that ten million matches fit in memory.

    Iterating gives each match, in file order, as the tuple
    (line, round, ref1, ref2 or "", games1, games2, draws, elimination).
    """

    __slots__ = ("refs", "values")
    WIDTH = 8

    def __init__(self, refs: RefTable):
        self.refs = refs
        self.values = array("I")  # unsigned 4 bytes: lines (a bundle is under 4 GB), rounds, games, ref indexes

    def append(
        self, line: int, round_number: int, ref1: str, ref2: str, games1, games2, draws, elimination
    ) -> tuple[int, int]:
        """Hold one match; returns the indexes of its two participants in the ref table (0: a bye's side 2)."""
        index_of = self.refs.index_of
        index1, index2 = index_of(ref1), index_of(ref2)
        self.values.extend((line, round_number, index1, index2, games1, games2, draws, elimination))
        return index1, index2

    def __len__(self) -> int:
        return len(self.values) // self.WIDTH

    def packed(self) -> Iterator[tuple[int, ...]]:
        """Each match as held, in file order: (line, round, ref1 index, ref2 index, games1, games2, draws,
        elimination), the refs by their index in the ref table (0: a bye's missing side), elimination 0 or 1."""
        values = iter(self.values)
        return zip(*[values] * self.WIDTH, strict=True)

    def rows_mapped(self, event_id: int, ids: list) -> Iterator[tuple]:
        """Each match as a row of the match table, in file order: (event_id, round, participant1, participant2,
        games1, games2, draws, elimination), a participant's id read from `ids` by its index in the ref table
        (`ids[0]`: a bye's missing side). The writer maps each of a bundle's ids once, not once a match."""
        for _line, rnd, ref1, ref2, games1, games2, draws, elimination in self.packed():
            yield (event_id, rnd, ids[ref1], ids[ref2], games1, games2, draws, elimination == 1)

    def __iter__(self) -> Iterator[tuple]:
        refs = self.refs.refs
        for line, rnd, ref1, ref2, games1, games2, draws, elimination in self.packed():
            yield (line, rnd, refs[ref1], refs[ref2], games1, games2, draws, elimination == 1)


# Standings are plain tuples, far fewer than matches: (line, ref, rank, vp, gw, final)


@dataclass
class ValidBundle:
    categories: list[CategoryRecord]
    players: dict[str, PlayerRecord]
    teams: dict[str, TeamRecord]
    events: dict[str, EventRecord]  # in file order: the order events are recorded in
    matches: dict[str, MatchRows]  # by event code
    standings: dict[str, list[tuple]]  # by event code
    registered_players: set[str]  # numbers used but not listed: already in the database
