"""A ranking list as CSV or JSON: the pages' exports and `manage.py export_ratings` write the same columns and values.

The columns are `ratings.selectors.rankings.EXPORT_COLUMNS`; a row is a tuple
of their values in that order. Both formats are written in batches of rows,
so a list of any length streams without being held in memory as text (and
without a network write per row).
"""

import csv
import json
from collections.abc import Iterable, Iterator

from lib.spreadsheet import spreadsheet_safe
from ratings.selectors.rankings import EXPORT_COLUMNS

BATCH = 1000


# How a value is written in a CSV cell, by column (any other column: as it is). A rating is written exactly
# (repr round-trips the float); the texts a spreadsheet may run are defused.
_CSV_CELL = {
    "rank": lambda rank: "" if rank is None else rank,
    "player_id": spreadsheet_safe,
    "name": spreadsheet_safe,
    "rating": repr,
    "ranked": int,
}
_CSV_CELLS = [_CSV_CELL.get(column, lambda value: value) for column in EXPORT_COLUMNS]


def csv_cells(row: tuple) -> list:
    """One row's CSV cells, in EXPORT_COLUMNS order."""
    return [cell(value) for cell, value in zip(_CSV_CELLS, row, strict=True)]


def export_record(row: tuple) -> dict:
    """One row as a JSON object keyed by EXPORT_COLUMNS (rank null when unranked, ranked a boolean)."""
    return dict(zip(EXPORT_COLUMNS, row, strict=True))


class _Line:
    """The file-like object csv.writer needs, handing back each line instead of storing it."""

    def write(self, line: str) -> str:
        return line


def _batched(pieces: Iterable[str]) -> Iterator[str]:
    batch = []
    for piece in pieces:
        batch.append(piece)
        if len(batch) == BATCH:
            yield "".join(batch)
            batch = []
    if batch:
        yield "".join(batch)


def csv_lines(rows: Iterable[tuple]) -> Iterator[str]:
    """The header, then a line per row, in batches of lines."""
    return _batched(_csv_lines(rows))


def _csv_lines(rows: Iterable[tuple]) -> Iterator[str]:
    writer = csv.writer(_Line(), lineterminator="\n")
    yield writer.writerow(EXPORT_COLUMNS)
    for row in rows:
        yield writer.writerow(csv_cells(row))


def json_chunks(rows: Iterable[tuple]) -> Iterator[str]:
    """A JSON array of `export_record`s, one a line, in batches of lines."""
    return _batched(_json_pieces(rows))


def _json_pieces(rows: Iterable[tuple]) -> Iterator[str]:
    yield "["
    separator = "\n"
    for row in rows:
        yield separator + json.dumps(export_record(row), ensure_ascii=False)
        separator = ",\n"
    yield "\n]\n"
