"""Rows of the importer's files given as values (typed into a form, or read from the database), not as CSV text.

The validator reads every file through the same seam: per file, records of
(line, values in the file's column order), as the CSV reader (reading.Table)
yields them for an uploaded file. A `RowTable` yields the same records from
rows given as values, so what an organizer types is checked by the same rules
as what they upload, without being written as CSV and parsed back.

Each given row keeps its origin, so that its problems are shown where it came
from (the form row it was typed in, or how the page names a stored row). Its
line is its place in the file it stands for (the first row is line 2, under
the header): messages that name another row ("already plays in round 1 ...
(line 2)") read as they do for an uploaded file.
"""

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Protocol

from organize.importer.errors import BundleError, Origin
from organize.importer.reading import bundle_columns

FIRST_LINE = 2  # line 1 is a file's header


class FileRows(Protocol):
    """One file's records as the validator reads them: a CSV file's (reading.Table) or given rows (RowTable)."""

    file: str

    def rows(self, errors: list[BundleError], *, last_line: int | None = None) -> Iterator[tuple[int, tuple]]: ...

    def origin(self, line: int) -> Origin | None: ...


@dataclass(frozen=True, slots=True)
class Row:
    """One row of an importer file given as values: by the file's column names, with where it came from."""

    values: Mapping[str, object]
    origin: Origin = Origin()


class RowTable:
    """Rows given as values, read by the validator as it reads a CSV file's rows.

    Values are read as a CSV cell is read: as text, stripped, a blank one as
    `blank_values` says (what a blank event_id means). Columns the file does
    not know are ignored; a missing one reads as blank.
    """

    def __init__(self, file: str, rows: list[Row], *, blank_values: dict[str, str] | None = None):
        self.file = file
        self.columns = bundle_columns(file)
        blanks = [(blank_values or {}).get(column, "") for column in self.columns]
        self._records = [
            tuple(
                str(row.values.get(column, "")).strip() or blank
                for column, blank in zip(self.columns, blanks, strict=True)
            )
            for row in rows
        ]
        self._origins = [row.origin for row in rows]

    def rows(self, errors: list[BundleError], *, last_line: int | None = None) -> Iterator[tuple[int, tuple]]:
        """(line, values in `columns` order) of every row; given rows have no problem of form to report."""
        for line, values in enumerate(self._records, start=FIRST_LINE):
            if last_line is not None and line > last_line:
                return
            yield line, values

    def origin(self, line: int) -> Origin | None:
        """Where the row on `line` came from (None: no row of this table is on that line)."""
        index = line - FIRST_LINE
        return self._origins[index] if 0 <= index < len(self._origins) else None


def row_tables(rows: dict[str, list[Row]], *, blank_values: dict[str, str] | None = None) -> dict[str, RowTable]:
    """A table per file of `rows` (file name -> its rows)."""
    return {file: RowTable(file, file_rows, blank_values=blank_values) for file, file_rows in rows.items()}
