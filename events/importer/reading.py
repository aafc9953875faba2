"""Read a results bundle (a folder or a .zip of UTF-8 CSV files) into rows with line numbers."""

import codecs
import csv
import io
import operator
import zipfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from events.importer.errors import BUNDLE_FILES, BundleError

REQUIRED_FILES = ("players.csv", "events.csv", "matches.csv")

# Required and optional columns per file (SPEC 6). Unknown columns are ignored.
COLUMNS = {
    "categories.csv": (("slug", "name", "ruleset", "formats", "team_size", "ranked_after"), ("components",)),
    "players.csv": (("id", "name"), ("country", "region")),
    "teams.csv": (("id", "name", "member1", "member2", "member3"), ()),
    "events.csv": (
        ("id", "name", "date", "format", "k", "players", "level2_judge"),
        ("team_size", "structure", "country", "city", "level"),
    ),
    "matches.csv": (
        ("event_id", "round", "player1_id", "player2_id", "player1_games", "player2_games", "draws"),
        ("elimination",),
    ),
    "standings.csv": (("event_id", "player_id", "rank", "vp", "gw", "final"), ()),
}


def bundle_columns(file: str) -> tuple[str, ...]:
    """Every column the importer reads in `file`, required first: the order bundles are written in."""
    required, optional = COLUMNS[file]
    return (*required, *optional)


# A zip may not unpack to more than this: a guard against zip bombs.
MAX_UNPACKED_BYTES = 2 * 1024**3


@dataclass
class Table:
    """One CSV file, parsed row by row on demand so a million-row file is never all in memory at once."""

    file: str
    text: str
    columns: tuple[str, ...]  # the known columns, required then optional, in COLUMNS order
    positions: tuple[int | None, ...]  # where each known column sits in a row (None: absent)
    width: int
    blank_values: tuple[str, ...] = ()  # per known column, what a blank or absent value reads as ("" if empty)

    def rows(self, errors: list[BundleError], *, last_line: int | None = None) -> Iterator[tuple[int, tuple[str, ...]]]:
        """(line number, stripped values in `columns` order) for every data row; bad rows become errors.

        With `last_line`, reading stops after that line.
        """
        reader = csv.reader(io.StringIO(self.text, newline=""), strict=True)
        next(reader)
        previous_end = reader.line_num
        width = self.width
        # Absent optional columns read the empty string appended to every row.
        pick = operator.itemgetter(*(width if at is None else at for at in self.positions))
        try:
            for fields in reader:
                line = previous_end + 1
                if last_line is not None and line > last_line:
                    return
                previous_end = reader.line_num
                if not fields or (len(fields) == 1 and not fields[0].strip()):
                    continue
                if len(fields) != width:
                    errors.append(
                        BundleError(
                            self.file, line, "-", f"expected {width} fields as in the header, found {len(fields)}"
                        )
                    )
                    continue
                fields.append("")
                values = tuple(map(str.strip, pick(fields)))
                if self.blank_values:
                    values = tuple(value or blank for value, blank in zip(values, self.blank_values, strict=True))
                yield line, values
        except csv.Error as exc:
            errors.append(BundleError(self.file, reader.line_num, "-", f"malformed CSV: {exc}"))


def _line_of_offset(data: bytes, offset: int) -> int:
    return data.count(b"\n", 0, offset) + 1


def _decode(file: str, data: bytes, errors: list[BundleError]) -> str | None:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        # utf-8-sig decodes after the byte-order mark, so offsets start past it.
        bom = len(codecs.BOM_UTF8) if data.startswith(codecs.BOM_UTF8) else 0
        line = _line_of_offset(data, exc.start + bom)
        errors.append(BundleError(file, line, "-", "the file is not valid UTF-8 text"))
        return None
    if "\x00" in text:  # no text has it, and PostgreSQL refuses it in any text column
        line = _line_of_offset(data, data.index(b"\x00"))
        errors.append(BundleError(file, line, "-", "the file holds binary data (a NUL character), not CSV text"))
        return None
    return text


def _parse_table(
    file: str, text: str, errors: list[BundleError], blank_values: dict[str, str] | None = None
) -> Table | None:
    """The file's header checked and its known columns located.

    `blank_values` (column -> value) makes those columns optional and gives
    what a blank or absent value reads as: one event's results need no event_id.
    """
    required, optional = COLUMNS[file]
    blank_values = blank_values or {}
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    try:
        header = next(reader)
    except StopIteration:
        errors.append(BundleError(file, 1, "-", "the file is empty: a header row is required"))
        return None
    except csv.Error as exc:
        errors.append(BundleError(file, 1, "-", f"malformed CSV: {exc}"))
        return None
    names = [name.strip().lower() for name in header]
    missing = [column for column in required if column not in names and column not in blank_values]
    for column in missing:
        errors.append(BundleError(file, 1, column, "required column is missing from the header"))
    if missing:
        return None
    known = (*required, *optional)
    positions = tuple(names.index(column) if column in names else None for column in known)
    blanks = tuple(blank_values.get(column, "") for column in known) if blank_values else ()
    return Table(file, text, known, positions, len(names), blanks)


def _files_in_folder(folder: Path) -> dict[str, bytes]:
    return {name: (folder / name).read_bytes() for name in BUNDLE_FILES if (folder / name).is_file()}


# What zipfile raises for a damaged or unusual archive (bad checksums, cut short, encrypted, unknown compression).
ZIP_DAMAGE = (
    zipfile.BadZipFile,
    zipfile.LargeZipFile,
    EOFError,
    OSError,
    NotImplementedError,
    RuntimeError,
    ValueError,
    zlib.error,
)


def _files_in_zip(path: Path, errors: list[BundleError]) -> dict[str, bytes]:
    try:
        archive = zipfile.ZipFile(path)
    except ZIP_DAMAGE:
        errors.append(BundleError(path.name, 1, "-", "not a valid .zip file"))
        return {}
    with archive:
        # Accept the files at the top of the archive or inside one folder (a zipped folder).
        members = {}
        for info in archive.infolist():
            name = info.filename.rsplit("/", 1)[-1]
            if name in BUNDLE_FILES and not info.is_dir():
                if name in members:
                    errors.append(BundleError(name, 1, "-", f"the archive holds more than one {name}"))
                members[name] = info
        if sum(info.file_size for info in members.values()) > MAX_UNPACKED_BYTES:
            errors.append(BundleError(path.name, 1, "-", "the archive unpacks to more than 2 GiB"))
            return {}
        files = {}
        for name, info in members.items():
            try:
                files[name] = archive.read(info)
            except ZIP_DAMAGE as exc:
                errors.append(
                    BundleError(name, 1, "-", f"cannot be unpacked from {path.name}: the archive is damaged ({exc})")
                )
        return files


def bundle_read(source: Path) -> tuple[dict[str, Table], list[BundleError]]:
    """Every bundle file that is present, parsed; and the errors found on the way."""
    errors: list[BundleError] = []
    source = Path(source)
    if source.is_dir():
        raw = _files_in_folder(source)
    elif source.is_file() and source.suffix.lower() == ".zip":
        raw = _files_in_zip(source, errors)
    else:
        what = "does not exist" if not source.exists() else "is neither a folder nor a .zip file"
        return {}, [BundleError(str(source), 0, "-", f"the bundle {what}")]
    archive_unreadable = bool(errors)
    for name in REQUIRED_FILES:
        if name not in raw and not archive_unreadable:
            errors.append(BundleError(name, 0, "-", "required file is missing from the bundle"))
    return tables_parse(raw, errors), errors


def tables_parse(
    raw: dict[str, bytes], errors: list[BundleError], *, blank_values: dict[str, str] | None = None
) -> dict[str, Table]:
    """The files of `raw` (name -> bytes) decoded and their headers checked; problems go to `errors`."""
    tables = {}
    for name in BUNDLE_FILES:
        if name in raw:
            text = _decode(name, raw[name], errors)
            table = _parse_table(name, text, errors, blank_values) if text is not None else None
            if table is not None:
                tables[name] = table
    return tables


def iter_rows(tables: dict[str, Table], file: str, errors: list[BundleError]):
    table = tables.get(file)
    return table.rows(errors) if table else iter(())
