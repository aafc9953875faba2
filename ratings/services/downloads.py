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
    listed = CurrentRating.objects.filter(category=category).values_list("participant_id", "display_id", "name")
    identities = {participant: (shown, name) for participant, shown, name in listed}
    entries = RatingEntry.objects.filter(category=category)
    events = dict(Event.objects.filter(pk__in=entries.values("event_id")).values_list("pk", "name"))
    rows = 0
    with tempfile.TemporaryFile() as raw:
        # mtime 0: the same history gives the same bytes, whenever written.
        with (
            gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as packed,
            io.TextIOWrapper(packed, encoding="utf-8", newline="") as text,
        ):
            writer = csv.writer(text)
            writer.writerow(HISTORY_COLUMNS)
            for entry in (
                entries.order_by("seq", "participant_id").values_list(*_READ).iterator(chunk_size=ROWS_AT_ONCE)
            ):
                (seq, day, event, round_, match, participant, opponent, score, before, after, opponents, expected,
                 k, k_reason, matches, provisional) = entry  # fmt: skip
                shown, name = identities.get(participant, (str(participant), ""))
                opponent_shown, opponent_name = identities.get(opponent, (str(opponent), ""))
                writer.writerow(
                    (seq, day.isoformat(), event, events.get(event, ""), round_, match, shown, name, opponent_shown,
                     opponent_name, repr(score), repr(before), repr(after), repr(opponents), repr(expected),
                     "" if k is None else repr(k), k_reason, matches, int(provisional))
                )  # fmt: skip
                rows += 1
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


def history_files_refresh() -> list[Category]:
    """Write every history file that is missing or of an older history; the categories written."""
    stale = Category.objects.exclude(ruleset__in=[Ruleset.VEKN, Ruleset.DERIVED]).exclude(
        history_file_version=F("history_version")
    )
    return [category for category in stale if history_file_write(category=category)]
