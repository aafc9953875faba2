"""One event's results as its organizer sends them: the bundle's files without events.csv.

The event itself is stored already (its details come from a form); its
matches, standings, and optionally players and teams, are checked by the same
validator as a whole bundle, so the rules are the same. They arrive as files
(an upload: read by the bundle's CSV reader) or as rows (typed into a form, or
the results stored so far: organize.importer.rows), never as rows written out
as CSV to be parsed back. event_id may be left out or blank: it then means
this event.
"""

from dataclasses import dataclass, field

from organize.importer.errors import ERRORS_AT_MOST, BundleError, ErrorLog, Origin, TooManyErrors
from organize.importer.reading import tables_parse
from organize.importer.records import EventRecord, PlayerRecord, ValidBundle
from organize.importer.rows import FileRows, Row, row_tables
from organize.importer.validation import BundleValidator

# The files one event's results may hold.
EVENT_RESULT_FILES = ("players.csv", "teams.csv", "matches.csv", "standings.csv")


@dataclass
class EventResultsCheck:
    bundle: ValidBundle | None  # None when a file could not be read at all
    errors: list[BundleError]  # sorted by file and line
    unregistered: list[str]  # membership numbers neither listed nor registered
    tables: dict[str, FileRows] = field(default_factory=dict)  # what was checked, file by file

    @property
    def valid(self) -> bool:
        return not self.errors

    def origin(self, error: BundleError) -> Origin | None:
        """Where the row that `error` is about came from (None: it is about no row, but the event or a file)."""
        table = self.tables.get(error.file)
        return table.origin(error.line) if table is not None else None


def event_ref(event) -> str:
    """What event_id says for this event: its bundle id when it was imported, else its number."""
    return event.code or str(event.pk)


def event_record(event) -> EventRecord:
    """The validator's view of a stored event."""
    return EventRecord(
        line=0,
        code=event_ref(event),
        name=event.name,
        date=event.date,
        format=event.format,
        k=event.k,
        player_count=event.player_count,
        level2_judge=event.level2_judge,
        team_size=event.team_size,
        structure=event.structure,
        country=event.country.code or "",
        city=event.city,
        level=event.level,
    )


def event_results_check(
    *,
    event,
    files: dict[str, bytes] | None = None,
    rows: dict[str, list[Row]] | None = None,
    new_players: dict[str, tuple[str, str]] | None = None,
) -> EventResultsCheck:
    """Check `event`'s results, given as `files` (name in EVENT_RESULT_FILES -> bytes) or as `rows` (name ->
    rows of that file); nothing is written.

    `new_players` (membership number -> (name, country)) are registered on the
    spot: they count as listed in players.csv.
    """
    if (files is None) == (rows is None):
        raise TypeError("event_results_check takes files or rows, one of them")
    errors = ErrorLog(ERRORS_AT_MOST)
    ref = event_ref(event)
    blank_values = {"event_id": ref}
    tables: dict[str, FileRows] = {}
    try:
        if rows is not None:
            tables = row_tables(
                {name: rows[name] for name in EVENT_RESULT_FILES if name in rows}, blank_values=blank_values
            )
        else:
            raw = {name: data for name, data in files.items() if name in EVENT_RESULT_FILES}
            tables = tables_parse(raw, errors, blank_values=blank_values)
        if errors:  # a file unreadable or missing a column: checking rows against it would only add noise
            return EventResultsCheck(None, sorted(errors, key=BundleError.sort_key), [], tables)
        validator = BundleValidator(tables, errors, only_event=ref)
        registered_here = [
            PlayerRecord(0, number, name, country, "") for number, (name, country) in (new_players or {}).items()
        ]
        bundle = validator.validate_event(event_record(event), registered_here)
    except TooManyErrors:
        return EventResultsCheck(None, sorted([*errors, errors.stopped_note()], key=BundleError.sort_key), [], tables)
    return EventResultsCheck(bundle, sorted(errors, key=BundleError.sort_key), validator.unregistered, tables)
