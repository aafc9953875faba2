"""A ranking list as CSV or JSON, in the columns and values of `manage.py export_ratings`.

Both are written in batches of rows, so a list of any length streams without
being held in memory as text (and without a network write per row).
"""

import csv
import json
from collections.abc import Iterable, Iterator

from lib.spreadsheet import spreadsheet_safe
from ratings.ranking_pages import EXPORT_COLUMNS

BATCH = 1000


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
    return _batched(_csv_lines(rows))


def _csv_lines(rows: Iterable[tuple]) -> Iterator[str]:
    writer = csv.writer(_Line(), lineterminator="\n")
    yield writer.writerow(EXPORT_COLUMNS)
    for rank, player_id, name, country, region, rating, matches, ranked in rows:
        yield writer.writerow(
            ["" if rank is None else rank, spreadsheet_safe(player_id), spreadsheet_safe(name), country, region,
             repr(rating), matches, int(ranked)]
        )  # fmt: skip


def json_chunks(rows: Iterable[tuple]) -> Iterator[str]:
    """A JSON array of objects keyed by EXPORT_COLUMNS (rank null when unranked, ranked a boolean)."""
    return _batched(_json_pieces(rows))


def _json_pieces(rows: Iterable[tuple]) -> Iterator[str]:
    yield "["
    separator = "\n"
    for row in rows:
        yield separator + json.dumps(dict(zip(EXPORT_COLUMNS, row, strict=True)), ensure_ascii=False)
        separator = ",\n"
    yield "\n]\n"
