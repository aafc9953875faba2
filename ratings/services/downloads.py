"""Each Elo list's whole history as one compressed CSV, for anyone who wants to study it (the ranking page links it).

A row per participant per rated match, in rating order: the match and its
event, who played whom, the score and everything that explains the change
(the ratings before, the opponent's, the expected score, K and why). It is
written into the site's storage (MEDIA_ROOT, or whatever STORAGES["default"]
names) under a name holding the history version, then made the linked one
on the category in one update; the file it replaces is deleted after. The
recompute job writes it after publishing, and the job workers write any
missing one when they start and hourly (a new site, a lost file).

V:EKN lists score events rather than matches and derived lists have no
history of their own: they have no such file.
"""

import csv
import gzip
import io
import tempfile

from django.core.files import File
from django.core.files.storage import default_storage
from django.db import connection
from django.db.models import F
from django.utils import timezone

from events.models import Event
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


def has_history_file(category: Category) -> bool:
    return category.ruleset not in (Ruleset.VEKN, Ruleset.DERIVED)


def history_file_write(*, category: Category) -> bool:
    """Write the category's history file when it is not of the current history; True when written."""
    version = category.history_version
    if not has_history_file(category) or (category.history_file and category.history_file_version == version):
        return False
    with tempfile.TemporaryFile() as raw:
        # mtime 0: the same history gives the same bytes, whenever written. Level 1: at a million matches
        # 4 s instead of 12 s (level 6) for a file 17 % larger (50 MB instead of 43 MB).
        with gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, compresslevel=1) as packed:
            packed.write((",".join(HISTORY_COLUMNS) + "\n").encode())
            write = _rows_copied if connection.vendor == "postgresql" else _rows_written
            rows = write(category, packed)
        size = raw.tell()
        raw.seek(0)
        saved = default_storage.save(f"downloads/{category.slug}-history-{version}.csv.gz", File(raw))
    replaced = category.history_file
    linked = Category.objects.filter(pk=category.pk).update(
        history_file=saved, history_file_bytes=size, history_file_rows=rows, history_file_version=version,
        history_file_built_at=timezone.now(),
    )  # fmt: skip
    if replaced and replaced != saved:
        default_storage.delete(replaced)
    return bool(linked)


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


def _rows_copied(category: Category, packed) -> int:
    """The rows as CSV written by PostgreSQL (COPY ... TO STDOUT), streamed into the file; how many. Formatting a
    million rows in the database takes a fraction of what Python takes. Its floats are the shortest text that
    reads back exactly (extra_float_digits 1, the default), as `_number` writes them."""
    history, listed, events = RatingEntry._meta.db_table, CurrentRating._meta.db_table, Event._meta.db_table
    sql = f"""
        COPY (
            SELECT h.seq, h.event_date, h.event_id, e.name, h.round, h.match_id,
                   COALESCE(p.display_id, h.participant_id::text), p.name,
                   COALESCE(o.display_id, h.opponent_id::text), o.name,
                   h.score, h.rating_before, h.rating_after, h.opponent_rating, h.expected, h.k, h.k_reason,
                   h.matches, CASE WHEN h.provisional THEN 1 ELSE 0 END
            FROM {history} h
            LEFT JOIN {events} e ON e.id = h.event_id
            LEFT JOIN {listed} p ON p.category_id = h.category_id AND p.participant_id = h.participant_id
            LEFT JOIN {listed} o ON o.category_id = h.category_id AND o.participant_id = h.opponent_id
            WHERE h.category_id = {int(category.pk)}
            ORDER BY h.seq, h.participant_id
        ) TO STDOUT WITH (FORMAT csv)
    """
    rows = 0
    with connection.cursor() as cursor, cursor.cursor.copy(sql) as copy:
        for block in copy:
            packed.write(block)
            rows += bytes(block).count(b"\n")
    return rows


def history_files_refresh() -> list[Category]:
    """Write every history file that is missing or of an older history; the categories written."""
    stale = Category.objects.exclude(ruleset__in=[Ruleset.VEKN, Ruleset.DERIVED]).exclude(
        history_file_version=F("history_version")
    )
    return [category for category in stale if history_file_write(category=category)]
