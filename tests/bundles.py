"""Results bundles (SPEC 6) built from Python rows, written into a test's tmp_path.

`Bundle()` starts from a small valid world, so a test changes one thing:

- six players in four countries (one with a region inferred nowhere, one with no country),
- two teams of three (T1, T2),
- E1: an individual constructed event (with a bye and an elimination round),
- E2: an individual limited event with `players` given and `k` blank,
- E3: a team event (standard, team size 3),
- E4: a vtes event with standings only.

The `add_*` and `change_*` methods return the line number of the row, as the
importer reports it (the header is line 1).
"""

import csv
import io
import zipfile
from pathlib import Path

from events.models import Event, Match, Standing
from organize.importer.errors import BUNDLE_FILES
from organize.importer.reading import bundle_columns
from players.models import Participant, Player, Team
from ratings.models import Category

COLUMNS = {file: list(bundle_columns(file)) for file in BUNDLE_FILES}

# The order files are written in (and listed in a zip).
FILES = tuple(COLUMNS)


def _players():
    return [
        {"id": "1001", "name": "Alice Archer", "country": "DE", "region": "DE-BY"},
        {"id": "1002", "name": "Bruno Becker", "country": "DE", "region": ""},
        {"id": "1003", "name": "Chloé Dubois", "country": "FR", "region": "FR-IDF"},
        {"id": "1004", "name": "Dan Evans", "country": "US", "region": "US-CA"},
        {"id": "1005", "name": "Emi Fujita", "country": "JP", "region": ""},
        {"id": "1006", "name": "Finn Gallagher", "country": "", "region": ""},
    ]


def _teams():
    return [
        {"id": "T1", "name": "Bavarian Dragons", "member1": "1001", "member2": "1002", "member3": "1003"},
        {"id": "T2", "name": "West Coast", "member1": "1004", "member2": "1005", "member3": "1006"},
    ]


def _events():
    return [
        {
            "id": "E1",
            "name": "Munich Open",
            "date": "2003-05-01",
            "format": "standard",
            "k": "32",
            "players": "",
            "level2_judge": "1",
            "team_size": "",
            "structure": "swiss-top8",
            "country": "DE",
            "city": "Munich",
            "level": "",
        },
        {
            "id": "E2",
            "name": "Paris Draft",
            "date": "2003-06-14",
            "format": "booster-draft",
            "k": "",
            "players": "8",
            "level2_judge": "0",
            "team_size": "1",
            "structure": "swiss",
            "country": "FR",
            "city": "Paris",
            "level": "",
        },
        {
            "id": "E3",
            "name": "Team Cup",
            "date": "2003-07-05",
            "format": "standard",
            "k": "16",
            "players": "",
            "level2_judge": "0",
            "team_size": "3",
            "structure": "",
            "country": "",
            "city": "",
            "level": "",
        },
        {
            "id": "E4",
            "name": "Vampire Night",
            "date": "2003-08-02",
            "format": "vtes",
            "k": "",
            "players": "",
            "level2_judge": "0",
            "team_size": "",
            "structure": "",
            "country": "US",
            "city": "Boston",
            "level": "national",
        },
    ]


def match(event_id, round, player1, player2="", games1="", games2="", draws="", elimination=""):
    return {
        "event_id": event_id,
        "round": str(round),
        "player1_id": player1,
        "player2_id": player2,
        "player1_games": str(games1),
        "player2_games": str(games2),
        "draws": str(draws),
        "elimination": str(elimination),
    }


def _matches():
    return [
        match("E1", 1, "1001", "1002", 2, 1, 0),
        match("E1", 1, "1003", "1004", 1, 1, 1),
        match("E1", 1, "1005"),  # a bye
        match("E1", 2, "1001", "1003", 2, 0, 0),
        match("E1", 2, "1004", "1005", 0, 2, 0),
        match("E1", 3, "1001", "1005", 2, 1, 0, elimination=1),
        match("E2", 1, "1001", "1006", 2, 0, 0),
        match("E2", 1, "1002", "1003", 1, 2, 0),
        match("E3", 1, "T1", "T2", 2, 1, 0),
    ]


def standing(event_id, player, rank, vp="0", gw="0", final=""):
    return {"event_id": event_id, "player_id": player, "rank": str(rank), "vp": str(vp), "gw": str(gw), "final": final}


def _standings():
    return [
        standing("E4", "1001", 1, "3.5", 2, "winner"),
        standing("E4", "1004", 2, "2", 1, "finalist"),
        standing("E4", "1006", 3, "0.5", 0, ""),
    ]


# What the default bundle holds once imported.
DEFAULT_COUNTS = {"Player": 6, "Team": 2, "Event": 4, "Match": 9, "Standing": 3, "Participant": 8}


def db_counts() -> dict[str, int]:
    """How many rows of each kind an import writes are stored."""
    return {model.__name__: model.objects.count() for model in (Player, Team, Event, Match, Standing, Participant)}


def db_snapshot() -> dict[str, set]:
    """Every stored row of the kinds an import writes, ids included, to compare before and after."""
    return {
        "players": set(Player.objects.values_list()),
        "teams": set(Team.objects.values_list()),
        "members": set(Team.members.through.objects.values_list()),
        "events": set(Event.objects.values_list()),
        "matches": set(Match.objects.values_list()),
        "standings": set(Standing.objects.values_list()),
        "participants": set(Participant.objects.values_list()),
        "categories": set(Category.objects.values_list()),
    }


class Bundle:
    """A results bundle as rows of dicts per file, written on demand."""

    def __init__(self, folder: Path):
        self.folder = Path(folder)
        self.rows: dict[str, list[dict]] = {
            "categories.csv": [],
            "players.csv": _players(),
            "teams.csv": _teams(),
            "events.csv": _events(),
            "matches.csv": _matches(),
            "standings.csv": _standings(),
        }
        self.columns = {file: list(columns) for file, columns in COLUMNS.items()}
        self.raw: dict[str, bytes] = {}  # files written byte for byte instead of from rows
        self.absent: set[str] = {"categories.csv"}  # files not written
        self._writes = 0

    # rows ---------------------------------------------------------------

    def add(self, file: str, **values) -> int:
        """Append a row (missing columns blank); returns its line number."""
        self.absent.discard(file)
        self.rows[file].append({column: str(value) for column, value in values.items()})
        return len(self.rows[file]) + 1

    def change(self, file: str, index: int, **values) -> int:
        """Change the row at `index` (0-based); returns its line number."""
        self.rows[file][index].update({column: str(value) for column, value in values.items()})
        return index + 2

    def find(self, file: str, **where) -> int:
        """The index of the first row whose values include `where`."""
        for index, row in enumerate(self.rows[file]):
            if all(row.get(column) == str(value) for column, value in where.items()):
                return index
        raise LookupError(f"no row in {file} with {where}")

    def remove(self, file: str, **where) -> None:
        del self.rows[file][self.find(file, **where)]

    def add_player(self, id, name="New Player", country="", region="") -> int:
        return self.add("players.csv", id=id, name=name, country=country, region=region)

    def add_team(self, id, members, name="") -> int:
        member1, member2, member3 = members
        return self.add("teams.csv", id=id, name=name, member1=member1, member2=member2, member3=member3)

    def add_event(self, id, **values) -> int:
        row = {**_events()[0], "id": id, "name": f"Event {id}", **values}
        return self.add("events.csv", **row)

    def add_match(self, *args, **kwargs) -> int:
        return self.add("matches.csv", **match(*args, **kwargs))

    def add_standing(self, *args, **kwargs) -> int:
        return self.add("standings.csv", **standing(*args, **kwargs))

    def add_category(self, slug, name=None, ruleset="dci-2001", formats="standard", team_size="1", ranked_after="10"):
        return self.add(
            "categories.csv",
            slug=slug,
            name=slug.title() if name is None else name,
            ruleset=ruleset,
            formats=formats,
            team_size=team_size,
            ranked_after=ranked_after,
        )

    def change_player(self, id, **values) -> int:
        return self.change("players.csv", self.find("players.csv", id=id), **values)

    def change_team(self, id, **values) -> int:
        return self.change("teams.csv", self.find("teams.csv", id=id), **values)

    def change_event(self, id, **values) -> int:
        return self.change("events.csv", self.find("events.csv", id=id), **values)

    def change_match(self, event_id, round, player1, **values) -> int:
        index = self.find("matches.csv", event_id=event_id, round=round, player1_id=player1)
        return self.change("matches.csv", index, **values)

    def line_of(self, file: str, **where) -> int:
        return self.find(file, **where) + 2

    # files --------------------------------------------------------------

    def without(self, *files: str) -> "Bundle":
        self.absent.update(files)
        return self

    def drop_column(self, file: str, column: str) -> "Bundle":
        self.columns[file].remove(column)
        return self

    def write_raw(self, file: str, data: bytes | str) -> "Bundle":
        self.absent.discard(file)
        self.raw[file] = data.encode() if isinstance(data, str) else data
        return self

    def text(self, file: str) -> bytes:
        """The bytes of one file as it is written."""
        if file in self.raw:
            return self.raw[file]
        columns = list(self.columns[file])
        for row in self.rows[file]:
            columns += [column for column in row if column not in columns and column not in COLUMNS[file]]
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(columns)
        for row in self.rows[file]:
            writer.writerow([row.get(column, "") for column in columns])
        return out.getvalue().encode()

    def files(self) -> dict[str, bytes]:
        return {file: self.text(file) for file in FILES if file not in self.absent}

    def write(self) -> Path:
        """Write the bundle into a new folder; returns the folder."""
        self._writes += 1
        folder = self.folder / f"bundle{self._writes}"
        folder.mkdir(parents=True)
        for file, data in self.files().items():
            (folder / file).write_bytes(data)
        return folder

    def zip(self, inside: str = "") -> Path:
        """Write the bundle as a .zip, the files at the top or inside the folder `inside`."""
        self._writes += 1
        path = self.folder / f"bundle{self._writes}.zip"
        self.folder.mkdir(parents=True, exist_ok=True)
        with zipfile.ZipFile(path, "w") as archive:
            if inside:
                archive.writestr(f"{inside}/", "")
            for file, data in self.files().items():
                archive.writestr(f"{inside}/{file}" if inside else file, data)
        return path
