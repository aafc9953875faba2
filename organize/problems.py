"""Problems of an event's results, each shown where the organizer gave the row: next to an uploaded file's
row (with its values), on the form row it was typed in, or by how the page names a stored row."""

import hashlib
import pickle
from collections import defaultdict
from dataclasses import dataclass, field

from django.core.cache import cache
from django.utils import timezone
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from corrections.models import PlayerMerge
from events.models import Event
from events.selectors import MatchRow
from lib.site_version import site_version
from organize.importer.errors import BundleError, Said
from organize.importer.event_results import EventResultsCheck, event_record, event_results_check
from organize.importer.reading import tables_parse
from organize.results import StoredResults, stored_results, stored_results_read
from players.models import Player
from ratings.models import Category


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


def _kind(message: str) -> str:
    """What a message of the validator is about (organize.importer.errors.Said), "" when it does not say."""
    return getattr(message, "kind", "")


def _unknown_player(error: BundleError) -> str | None:
    """The membership number of a player the results name but nobody registered, if `error` is about one."""
    return error.message.values["number"] if _kind(error.message) == "unknown_player" else None


def _file_line(file: str, line: int) -> str:
    return _("%(file)s line %(line)s") % {"file": file, "line": line}


def _form_row(index: int) -> str:
    return _("row %(number)s") % {"number": index + 1}


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
            placed.players.setdefault(number, []).append(_file_line(error.file, error.line))
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


# The validator speaks of files and lines (it checks uploads); typed and stored rows are spoken of as the pages
# show them. Its messages that name a file, a column or another row say what they are about (Said.kind, with
# their values), and are said again here in the forms' words; the others read the same in both.
_TWICE = ("plays_twice", "standing_twice")


class FormWords:
    """The validator's messages in the words of the results forms: players by name, rows by row or round."""

    def __init__(self, check: EventResultsCheck):
        self.check = check
        numbers = {error.message.values["ref"] for error in check.errors if _kind(error.message) in _TWICE}
        self.names = dict(
            Player.objects.filter(membership_number__in=sorted(numbers)).values_list("membership_number", "name")
        )

    def _row(self, file: str, line: int) -> str:
        table = self.check.tables.get(file)
        origin = table.origin(line) if table is not None else None
        if origin is not None and origin.form_row is not None:
            return _form_row(origin.form_row)
        if origin is not None and origin.label:
            return origin.label
        return _file_line(file, line)

    def __call__(self, error: BundleError) -> str:
        message = error.message
        kind = _kind(message)
        if not kind:
            return message
        values = message.values
        if kind in _TWICE:
            ref = values["ref"]
            who = f"{self.names[ref]} ({ref})" if ref in self.names else ref
            row = self._row(error.file, values["line"])
            if kind == "plays_twice":
                text = _("%(who)s already plays in round %(round)s (%(row)s)") % {
                    "who": who,
                    "round": values["round"],
                    "row": row,
                }
            else:
                text = _("%(who)s already has a standing (%(row)s)") % {"who": who, "row": row}
        elif kind == "winner_twice":
            text = _("the event already has a winner (%(row)s)") % {"row": self._row(error.file, values["line"])}
        elif kind == "no_results":
            text = _("no results yet: enter the matches of a round, or the standings")
        elif kind == "no_standings":
            text = _("a V:TES event needs its standings: enter them on the standings page")
        elif kind == "unknown_player":
            text = _("unknown player %(number)s: not registered yet: give their name and country below") % {
                "number": repr(values["number"])
            }
        elif kind == "player1_required":
            text = _("player 1 is required (a bye leaves player 2 blank)")
        else:
            return message
        return Said(text, kind, **values)


def form_errors_placed(check: EventResultsCheck, fields: dict[str, str]) -> PlacedErrors:
    """Each error of a row typed in a form on that form row, on the field of its column (`fields`: column ->
    field); an error of a stored row by how the page names it; the rest on their own. All in the form's words."""
    placed = PlacedErrors(not_shown=max(0, len(check.errors) - PROBLEMS_SHOWN))
    words = FormWords(check)
    for error in check.errors[:PROBLEMS_SHOWN]:
        error = BundleError(error.file, error.line, error.column, words(error))
        origin = check.origin(error)
        if origin is not None and origin.form_row is not None:
            field_name = fields.get(error.column, "__all__")
            placed.form_rows.setdefault(origin.form_row, {}).setdefault(field_name, []).append(error.message)
            if number := _unknown_player(error):
                placed.players.setdefault(number, []).append(_form_row(origin.form_row))
        elif origin is not None and origin.label:
            placed.general.append(BundleError(origin.label, error.line, error.column, error.message))
        else:
            placed.general.append(error)
    return placed


# How long the problems of a draft's stored results are kept: their key changes with anything they depend on.
STORED_PROBLEMS_SECONDS = 60 * 60


def stored_results_problems(event: Event, matches: list[MatchRow] | None = None) -> list[BundleError]:
    """What stops the stored results from being submitted as they are (the event's details may have changed
    since they were saved), each located by round and pairing rather than by a line of a file nobody sent.
    `matches`: event_matches(event=event), when the caller has read them.

    Shown on the draft's page and its preview, and kept in the cache under a digest of all the check reads:
    the stored results as read (the participants' numbers and names as they are now), the event's details,
    the categories, the merged numbers, the language, the day and the deployed code. A page viewed again
    reads the results (10 ms for 3,700 matches) but does not check them again (50 ms). Submitting checks
    them again, never from here.
    """
    stored = stored_results_read(event, matches)
    key = "stored-problems:" + _check_digest(event, stored)
    problems = cache.get(key)
    if problems is None:
        check = event_results_check(event=event, rows=stored_results(event, stored.rows()))
        words = FormWords(check)
        problems = []
        for error in check.errors:
            origin = check.origin(error)
            where = origin.label if origin is not None and origin.label else _("the event")
            problems.append(BundleError(where, 0, error.column, words(error)))
        cache.set(key, problems, STORED_PROBLEMS_SECONDS)
    return problems


def _check_digest(event: Event, stored: StoredResults) -> str:
    """A digest of what the check of `stored` reads: the results as read, and what the check reads besides them.

    Pickled rather than written out with repr: 0.7 ms instead of 3.8 for 3,700 matches. Equal values may
    pickle differently (pickle notes which objects are the same one), which costs a check, never a wrong
    answer: different values never pickle the same."""
    categories = Category.objects.order_by("slug").values_list("slug", "ruleset", "formats", "team_size")
    merged = PlayerMerge.objects.order_by("merged_number").values_list("merged_number", "kept__membership_number")
    parts = (
        site_version(),
        get_language(),
        timezone.localdate(),  # no rule of the check reads the day today, but one may
        event_record(event),
        (stored.ref, stored.matches, stored.standings, stored.named, stored.teams),
        list(categories),
        list(merged),
    )
    return hashlib.sha256(pickle.dumps(parts, protocol=5)).hexdigest()
