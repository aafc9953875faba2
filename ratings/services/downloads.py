"""Each Elo list's whole history as one compressed CSV, for anyone who wants to study it (the ranking page links it).

A row per participant per rated match, in rating order: the match and its
event, who played whom, the score and everything that explains the change
(the ratings before, the opponent's, the expected score, K and why). It is
written into the site's storage (MEDIA_ROOT, or whatever STORAGES["default"]
names) under a name holding the history version, then made the linked one
on the category in one update; the file it replaces is deleted after. The
recompute job writes it after publishing, and the job workers write any
missing one when they start and hourly (a new site, a lost file).

The file is a series of gzip members (which every gzip reader reads as one
stream): the header, then the rows in parts of about PART_ROWS, each part
ending where a rating sequence number does. After a recompute from a date
only the parts from the first rewritten row on are written again; the parts
before it are copied from the file it replaces (on PostgreSQL, where new
history rows always take new ids, so the first rewritten row is the first
with an id beyond the file's). Names are read from today's lists as the rows
are written, so a file is written whole on a new day's first recompute, and
after a player's details are corrected (list_edits), as well as after a full
recompute.

V:EKN lists score events rather than matches and derived lists have no
history of their own: they have no such file.
"""

import csv
import gzip
import io
import tempfile
from dataclasses import dataclass, field

from django.core.files import File
from django.core.files.storage import default_storage
from django.db import connection, transaction
from django.db.models import F, Max, Min
from django.utils import timezone

from events.models import Event
from ratings import category_tables
from ratings.models import Category, CurrentRating, RatingEntry, Ruleset

HISTORY_COLUMNS = [
    "seq", "event_date", "event_id", "event", "round", "match_id", "player_id", "name", "opponent_id", "opponent",
    "score", "rating_before", "rating_after", "opponent_rating", "expected", "k", "k_reason", "matches", "provisional",
]  # fmt: skip
_READ = [
    "seq", "event_date", "event_id", "round", "match_id", "participant_id", "opponent_id", "score", "rating_before",
    "rating_after", "opponent_rating", "expected", "k", "k_reason", "matches", "provisional",
]  # fmt: skip
ROWS_AT_ONCE = 10_000
# Rows of a part of the file (a gzip member) at least: a correction's recompute writes the parts from its first
# rewritten row on again. 50,000 rows are about 10 MB of CSV, 2.7 MB packed, a fifth of a second to write.
PART_ROWS = 50_000


def has_history_file(category: Category) -> bool:
    return category.ruleset not in (Ruleset.VEKN, Ruleset.DERIVED)


def history_file_write(*, category: Category) -> bool:
    """Write the category's history file when it is not of the current history; True when written."""
    version = category.history_version
    if not has_history_file(category) or (category.history_file and category.history_file_version == version):
        return False
    # Read first: a row written after this read has a larger id, so the next file writes it again. Only where
    # a file's parts are kept (_Parts.stored).
    last_id = 0
    if connection.vendor == "postgresql":
        last_id = RatingEntry.objects.filter(category=category).aggregate(last=Max("id"))["last"] or 0
    with tempfile.TemporaryFile() as raw:
        parts = _parts_kept(category)
        if parts is None or not _kept_copied(category, parts, raw):
            raw.seek(0)
            raw.truncate()
            parts = _Parts(day=timezone.localdate().isoformat(), list_edits=category.list_edits)
            with _member(raw) as header:
                header.write((",".join(HISTORY_COLUMNS) + "\n").encode())
        if connection.vendor == "postgresql":
            _rows_copied(category, raw, parts)
        else:
            with _member(raw) as packed:
                parts.rows += _rows_written(category, packed)
        parts.last_id = last_id
        size = raw.tell()
        raw.seek(0)
        saved = default_storage.save(f"downloads/{category.slug}-history-{version}.csv.gz", File(raw))
    replaced = category.history_file
    linked = Category.objects.filter(pk=category.pk).update(
        history_file=saved, history_file_bytes=size, history_file_rows=parts.rows, history_file_version=version,
        history_file_built_at=timezone.now(), history_file_parts=parts.stored(),
    )  # fmt: skip
    if replaced and replaced != saved:
        default_storage.delete(replaced)
    return bool(linked)


@dataclass
class _Parts:
    """Where the file's parts start, to copy those a recompute from a date left as they were."""

    day: str  # the day the file was last written whole: its names are of that day's lists
    list_edits: int  # the category's list_edits then
    starts: list = field(default_factory=list)  # [first seq, byte offset, rows before] of each part, in order
    size: int = 0  # the bytes kept from the file it replaces
    rows: int = 0
    last_id: int = 0  # the largest history id when the file was begun: a larger one is a row written since
    last_seq: int = 0  # the last seq kept: the rows after it are written

    def stored(self) -> dict | None:
        if connection.vendor != "postgresql":
            return None  # SQLite may give a new row the id of a deleted one: no file is written in part there
        return {"day": self.day, "list_edits": self.list_edits, "starts": self.starts, "last_id": self.last_id}


def _parts_kept(category: Category) -> _Parts | None:
    """The parts of the category's current file that its history still has as they were, or None (written
    whole): those wholly before the first row with an id beyond the file's, or beyond the history's last."""
    stored = category.history_file_parts
    if not stored or connection.vendor != "postgresql" or not category.history_file:
        return None
    if stored["day"] != timezone.localdate().isoformat() or stored["list_edits"] != category.list_edits:
        return None
    history = RatingEntry.objects.filter(category=category)
    rewritten = history.filter(id__gt=stored["last_id"]).aggregate(first=Min("seq"))["first"]
    after_last = (history.aggregate(last=Max("seq"))["last"] or 0) + 1  # the history may have lost its end
    first_changed = after_last if rewritten is None else min(rewritten, after_last)
    starts = [start for start in stored["starts"] if start[0] <= first_changed]
    if len(starts) < 2:  # no part wholly before the first change: written whole
        return None
    first_seq, offset, rows_before = starts.pop()  # the part holding the first change is written again
    return _Parts(
        day=stored["day"], list_edits=stored["list_edits"], starts=starts, size=offset, rows=rows_before,
        last_seq=first_seq - 1,
    )  # fmt: skip


def _kept_copied(category: Category, parts: _Parts, raw) -> bool:
    """The first `parts.size` bytes of the category's current file copied into `raw`; False when the file is
    shorter, or cannot be read (then it is written whole)."""
    left = parts.size
    try:
        with default_storage.open(category.history_file, "rb") as old:
            while left:
                chunk = old.read(min(left, 1 << 20))
                if not chunk:
                    return False
                raw.write(chunk)
                left -= len(chunk)
    except OSError:
        return False
    return True


def _member(raw) -> gzip.GzipFile:
    """A gzip member of its own at the end of `raw` (closing it leaves `raw` open). mtime 0: the same history
    gives the same bytes, whenever written. Level 1: at a million matches 4 s instead of 12 s (level 6) for a
    file 17 % larger."""
    return gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, compresslevel=1)


def _number(value: float) -> str:
    """A float as PostgreSQL writes it (the shortest text that reads back exactly, no ".0" on whole numbers),
    so that the file is the same on either database."""
    text = repr(value)
    return text[:-2] if text.endswith(".0") else text


def _rows_written(category: Category, packed) -> int:
    """The rows as CSV lines written by Python (SQLite); how many."""
    listed = CurrentRating.objects.filter(category=category).values_list("participant_id", "display_id", "name")
    identities = {participant: (shown, name) for participant, shown, name in listed}
    entries = RatingEntry.objects.filter(category=category)
    events = dict(Event.objects.filter(pk__in=entries.values("event_id")).values_list("pk", "name"))
    rows = 0
    text = io.TextIOWrapper(packed, encoding="utf-8", newline="")
    writer = csv.writer(text, lineterminator="\n")  # as PostgreSQL writes CSV
    for entry in entries.order_by("seq", "participant_id").values_list(*_READ).iterator(chunk_size=ROWS_AT_ONCE):
        (seq, day, event, round_, match, participant, opponent, score, before, after, opponents, expected,
         k, k_reason, matches, provisional) = entry  # fmt: skip
        shown, name = identities.get(participant, (str(participant), ""))
        opponent_shown, opponent_name = identities.get(opponent, (str(opponent), ""))
        writer.writerow(
            (seq, day.isoformat(), event, events.get(event, ""), round_, match, shown, name, opponent_shown,
             opponent_name, _number(score), _number(before), _number(after), _number(opponents),
             _number(expected), "" if k is None else _number(k), k_reason, matches, "1" if provisional else "0")
        )  # fmt: skip
        rows += 1
    text.flush()
    text.detach()  # the gzip stream stays open for the caller
    return rows


def _rows_copied(category: Category, raw, parts: _Parts) -> None:
    """The rows after `parts.last_seq` as CSV written by PostgreSQL (COPY ... TO STDOUT), streamed into `raw` in
    parts of about PART_ROWS, each a gzip member; `parts` follows. Formatting a million rows in the database
    takes a fraction of what Python takes. Its floats are the shortest text that reads back exactly
    (extra_float_digits 1, the default), as `_number` writes them."""
    # The category's own partitions where they exist: through the parents, which have no statistics of their own,
    # PostgreSQL expected billions of rows from the joins and looked each name up by index, two lookups a row
    # (3.2 s at a million matches); on the partitions it hashes today's list once (1.0 s).
    history, listed = (category_tables.rows_table(model, category.pk) for model in (RatingEntry, CurrentRating))
    events = Event._meta.db_table
    sql = f"""
        COPY (
            SELECT h.seq, h.event_date, h.event_id, e.name, h.round, h.match_id,
                   COALESCE(p.display_id, h.participant_id::text), p.name,
                   COALESCE(o.display_id, h.opponent_id::text), o.name,
                   h.score, h.rating_before, h.rating_after, h.opponent_rating, h.expected, h.k, h.k_reason,
                   h.matches, CASE WHEN h.provisional THEN 1 ELSE 0 END
            FROM {history} h
            LEFT JOIN {events} e ON e.id = h.event_id
            LEFT JOIN {listed} p ON p.category_id = {int(category.pk)} AND p.participant_id = h.participant_id
            LEFT JOIN {listed} o ON o.category_id = {int(category.pk)} AND o.participant_id = h.opponent_id
            WHERE h.category_id = {int(category.pk)} AND h.seq > {int(parts.last_seq)}
            ORDER BY h.seq, h.participant_id
        ) TO STDOUT WITH (FORMAT csv)
    """
    part = _Part(raw, parts)
    with transaction.atomic(), connection.cursor() as cursor:
        # Memory to sort the rows without spilling to disk, for this transaction.
        cursor.execute("SELECT set_config('work_mem', '128MB', true)")
        with cursor.cursor.copy(sql) as copy:
            for block in copy:  # a row each: PostgreSQL sends a row of COPY ... TO in a message of its own
                row = bytes(block)
                if part.full():  # the part ends where a seq does: its seq is read only from here on
                    part.begin_unless_of(_seq_of(row))
                part.add(row)
    part.end()


def _seq_of(row: bytes) -> int:
    return int(row[: row.index(b",")])


class _Part:
    """The part of the file being written: a gzip member, its rows packed a batch at a time (a write per row cost
    more than the packing), a new one begun once PART_ROWS are in it and a row of a new seq comes."""

    def __init__(self, raw, parts: _Parts):
        self.raw, self.parts = raw, parts
        self.packed = None
        self.rows: list[bytes] = []
        self.count = PART_ROWS  # full until begun: the first row begins the first part
        self.seq = None  # the seq of the row that filled it

    def full(self) -> bool:
        return self.count >= PART_ROWS

    def begin_unless_of(self, seq: int) -> None:
        if seq == self.seq:
            return
        self.end()
        self.parts.starts.append([seq, self.raw.tell(), self.parts.rows])
        self.packed = _member(self.raw)
        self.count, self.seq = 0, None

    def add(self, row: bytes) -> None:
        self.rows.append(row)
        self.count += 1
        self.parts.rows += 1
        if self.count == PART_ROWS:
            self.seq = _seq_of(row)
        if len(self.rows) >= ROWS_AT_ONCE:
            self.packed.write(b"".join(self.rows))
            self.rows.clear()

    def end(self) -> None:
        if self.packed is not None:
            self.packed.write(b"".join(self.rows))
            self.rows.clear()
            self.packed.close()
            self.packed = None


def history_files_refresh() -> list[Category]:
    """Write every history file that is missing or of an older history; the categories written."""
    stale = Category.objects.exclude(ruleset__in=[Ruleset.VEKN, Ruleset.DERIVED]).exclude(
        history_file_version=F("history_version")
    )
    return [category for category in stale if history_file_write(category=category)]
