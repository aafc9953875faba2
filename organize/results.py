"""An event's results as the importer's files, whichever way the organizer gives them.

Uploads arrive as files already. Round-by-round and standings forms, and the
results stored so far, are written here as the same CSV files, so every way
in goes through one validator (organize.importer.event_results) and its
errors can be shown next to the form row or file row they belong to.
"""

import csv
import io
from collections import defaultdict
from dataclasses import dataclass, field

from events.models import Event, Match, Standing
from organize.importer.errors import BundleError
from organize.importer.event_results import EventResultsCheck, event_ref, event_results_check
from organize.importer.reading import bundle_columns, tables_parse
from players.links import participant_entity
from players.models import Team


def csv_bytes(file: str, rows: list[dict]) -> bytes:
    """`rows` written as `file` with the importer's columns; each row is one line (line = index + 2)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    columns = bundle_columns(file)
    writer.writerow(columns)
    for row in rows:
        # One row, one line: a line break typed into a form cannot shift the line numbers.
        writer.writerow([" ".join(str(row.get(column, "")).split()) for column in columns])
    return out.getvalue().encode()


def _team_ref(team: Team) -> str:
    return f"T{team.participant_id}"


def stored_results_rows(event: Event) -> dict[str, list[dict]]:
    """The event's stored matches and standings (and its teams) as rows of the importer's files."""
    ref = event_ref(event)
    matches = (
        Match.objects.filter(event=event)
        .select_related("participant1__player", "participant1__team", "participant2__player", "participant2__team")
        .order_by("round", "id")
    )
    standings = Standing.objects.filter(event=event).select_related("participant__player", "participant__team")
    teams: dict[str, Team] = {}

    def name(participant) -> str:
        entity = participant_entity(participant)
        if entity is None:
            return ""
        if isinstance(entity, Team):
            teams[_team_ref(entity)] = entity
            return _team_ref(entity)
        return entity.membership_number

    rows = {
        "matches.csv": [
            {
                "event_id": ref,
                "round": match.round,
                "player1_id": name(match.participant1),
                "player2_id": name(match.participant2),
                "player1_games": match.games1,
                "player2_games": match.games2,
                "draws": match.draws,
                "elimination": int(match.elimination),
            }
            for match in matches
        ],
        "standings.csv": [
            {
                "event_id": ref,
                "player_id": name(standing.participant),
                "rank": standing.rank,
                "vp": f"{standing.vp.normalize():f}",
                "gw": standing.gw,
                "final": standing.final,
            }
            for standing in standings.order_by("rank", "participant_id")
        ],
        "teams.csv": [],
    }
    for ref_, team in teams.items():
        members = sorted(team.members.values_list("membership_number", flat=True))
        rows["teams.csv"].append(
            {"id": ref_, "name": team.name, **{f"member{n}": member for n, member in enumerate(members, start=1)}}
        )
    return rows


def stored_results_files(event: Event) -> dict[str, bytes]:
    """The stored results as files, for checking them again against the event's current details."""
    return {file: csv_bytes(file, rows) for file, rows in stored_results_rows(event).items() if rows}


def stored_results_problems(event: Event) -> list[BundleError]:
    """What stops the stored results from being submitted as they are (the event's details may have changed
    since they were saved), each located by round and pairing rather than by a line of a file nobody sent."""
    stored = stored_results_rows(event)
    check = event_results_check(
        event=event, files={file: csv_bytes(file, rows) for file, rows in stored.items() if rows}
    )
    problems = []
    for error in check.errors:
        where = error.file
        if error.file == "matches.csv" and error.line >= 2:
            row = stored["matches.csv"][error.line - 2]
            where = f"Round {row['round']}, {row['player1_id']} vs {row['player2_id'] or 'bye'}"
        elif error.file == "standings.csv" and error.line >= 2:
            where = f"Standing of {stored['standings.csv'][error.line - 2]['player_id']}"
        problems.append(BundleError(where, 0, error.column, error.message))
    return problems


# Forms as files --------------------------------------------------------------------------------

MATCH_FORM_COLUMNS = {  # matches.csv column -> round form field
    "player1_id": "player1",
    "player2_id": "player2",
    "player1_games": "games1",
    "player2_games": "games2",
    "draws": "draws",
}
STANDING_FORM_COLUMNS = {"player_id": "player", "rank": "rank", "vp": "vp", "gw": "gw", "final": "final"}


@dataclass
class FormFiles:
    """Files built from stored results with some rows replaced by form rows."""

    files: dict[str, bytes]
    form_lines: dict[int, int]  # line in the edited file -> index of the form row it came from
    edited_file: str
    other_lines: dict[int, str] = field(default_factory=dict)  # line -> where the stored row is shown


def round_files(event: Event, *, round_number: int, rows: list[tuple[int, dict]], elimination: bool) -> FormFiles:
    """The event's results with round `round_number` replaced by `rows`: (form row index, values typed)."""
    stored = stored_results_rows(event)
    matches = []
    form_lines, other_lines = {}, {}
    kept = [row for row in stored["matches.csv"] if row["round"] != round_number]
    # Earlier rounds first, then this one, then later ones: lines follow the rounds.
    for row in [row for row in kept if row["round"] < round_number]:
        other_lines[len(matches) + 2] = f"round {row['round']}"
        matches.append(row)
    for index, row in rows:
        form_lines[len(matches) + 2] = index
        matches.append(
            {
                "event_id": event_ref(event),
                "round": round_number,
                "player1_id": row.get("player1", ""),
                "player2_id": row.get("player2", ""),
                "player1_games": row.get("games1", ""),
                "player2_games": row.get("games2", ""),
                "draws": row.get("draws", ""),
                "elimination": "1" if elimination else "0",
            }
        )
    for row in [row for row in kept if row["round"] > round_number]:
        other_lines[len(matches) + 2] = f"round {row['round']}"
        matches.append(row)
    stored["matches.csv"] = matches
    files = {file: csv_bytes(file, rows) for file, rows in stored.items() if rows or file == "matches.csv"}
    return FormFiles(files, form_lines, "matches.csv", other_lines)


def standings_files(event: Event, *, rows: list[tuple[int, dict]]) -> FormFiles:
    """The event's results with the standings replaced by `rows`: (form row index, values typed)."""
    stored = stored_results_rows(event)
    stored["standings.csv"] = [
        {
            "event_id": event_ref(event),
            "player_id": row.get("player", ""),
            "rank": row.get("rank", ""),
            "vp": row.get("vp", ""),
            "gw": row.get("gw", ""),
            "final": row.get("final", ""),
        }
        for _, row in rows
    ]
    files = {file: csv_bytes(file, rows) for file, rows in stored.items() if rows or file == "standings.csv"}
    form_lines = {line: index for line, (index, _) in enumerate(rows, start=2)}
    return FormFiles(files, form_lines, "standings.csv")


# Errors where they belong ----------------------------------------------------------------------


@dataclass
class RowProblems:
    """One row of an uploaded file with its problems: shown together."""

    file: str
    line: int
    values: list[tuple[str, str, list[str]]]  # (column, value, messages about it) in the file's column order
    row_messages: list[str]  # about the row as a whole


# Problems shown on a page at most; the rest are counted. A file of a million bad lines would otherwise
# make a page of hundreds of megabytes, and the first problems usually explain the others.
PROBLEMS_SHOWN = 200


@dataclass
class PlacedErrors:
    general: list[BundleError] = field(default_factory=list)  # about the event or a whole file
    rows: list[RowProblems] = field(default_factory=list)  # rows of uploaded files
    form_rows: dict[int, dict[str, list[str]]] = field(default_factory=dict)  # form row -> field -> messages
    players: dict[str, list[str]] = field(default_factory=dict)  # membership number -> messages (unknown)
    not_shown: int = 0  # problems past the first PROBLEMS_SHOWN

    @property
    def count(self) -> int:
        return (
            len(self.general)
            + sum(len(row.row_messages) + sum(len(v[2]) for v in row.values) for row in self.rows)
            + sum(len(messages) for fields in self.form_rows.values() for messages in fields.values())
        )


def _unknown_player(error: BundleError) -> str | None:
    prefix = "unknown player '"
    if error.message.startswith(prefix):
        return error.message[len(prefix) :].split("'", 1)[0]
    return None


def upload_errors_placed(check: EventResultsCheck, files: dict[str, bytes]) -> PlacedErrors:
    """Each error of an uploaded file next to its row (with the row's values), the rest on their own."""
    placed = PlacedErrors(not_shown=max(0, len(check.errors) - PROBLEMS_SHOWN))
    by_line: dict[tuple[str, int], list[BundleError]] = defaultdict(list)
    for error in check.errors[:PROBLEMS_SHOWN]:
        if error.line >= 2 and error.file in files:
            by_line[error.file, error.line].append(error)
        else:
            placed.general.append(error)
        number = _unknown_player(error)
        if number:
            placed.players.setdefault(number, []).append(f"{error.file} line {error.line}")
    if not by_line:
        return placed
    sink: list[BundleError] = []
    # event_id may be absent from one event's files, as when they were checked.
    tables = tables_parse({file: files[file] for file, _ in by_line}, sink, blank_values={"event_id": ""})
    for file, table in tables.items():
        # Read up to the last row with a shown problem, not the rest of the file.
        last_line = max(line for problem_file, line in by_line if problem_file == file)
        for line, values in table.rows(sink, last_line=last_line):
            errors = by_line.pop((file, line), None)
            if not errors:
                continue
            columns = [
                (column, value, [e.message for e in errors if e.column == column])
                for column, value, position in zip(table.columns, values, table.positions, strict=True)
                if position is not None
            ]
            known = {column for column, _, _ in columns}
            placed.rows.append(RowProblems(file, line, columns, [e.message for e in errors if e.column not in known]))
    for (file, line), errors in by_line.items():  # rows the reader could not split into values
        placed.rows.append(
            RowProblems(file, line, [], [e.message if e.column == "-" else f"{e.column}: {e.message}" for e in errors])
        )
    placed.rows.sort(key=lambda row: (row.file, row.line))
    return placed


def form_errors_placed(check: EventResultsCheck, form_files: FormFiles, columns: dict[str, str]) -> PlacedErrors:
    """Each error of a form-built file on the form row and field it came from; the rest on their own."""
    placed = PlacedErrors(not_shown=max(0, len(check.errors) - PROBLEMS_SHOWN))
    for error in check.errors[:PROBLEMS_SHOWN]:
        number = _unknown_player(error)
        index = form_files.form_lines.get(error.line) if error.file == form_files.edited_file else None
        if index is not None:
            field_name = columns.get(error.column, "__all__")
            placed.form_rows.setdefault(index, {}).setdefault(field_name, []).append(error.message)
            if number:
                placed.players.setdefault(number, []).append(f"row {index + 1}")
        else:
            where = form_files.other_lines.get(error.line) if error.file == form_files.edited_file else None
            placed.general.append(
                BundleError(where or error.file, error.line, error.column, error.message) if where else error
            )
    return placed
