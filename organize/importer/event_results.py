"""One event's results as its organizer sends them: the bundle's files without events.csv.

The event itself is stored already (its details come from a form); its
matches, standings, and optionally players and teams, are checked by the same
reader and validator as a whole bundle, so the rules are the same. event_id
may be left out or blank: it then means this event.
"""

from dataclasses import dataclass

from organize.importer.errors import ERRORS_AT_MOST, BundleError, ErrorLog, TooManyErrors
from organize.importer.reading import tables_parse
from organize.importer.validation import BundleValidator, EventRecord, PlayerRecord, ValidBundle

# The files one event's results may hold.
EVENT_RESULT_FILES = ("players.csv", "teams.csv", "matches.csv", "standings.csv")


@dataclass
class EventResultsCheck:
    bundle: ValidBundle | None  # None when a file could not be read at all
    errors: list[BundleError]  # sorted by file and line
    unregistered: list[str]  # membership numbers neither listed nor registered

    @property
    def valid(self) -> bool:
        return not self.errors


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


def event_results_check(*, event, files: dict[str, bytes], new_players: dict[str, tuple[str, str]] | None = None):
    """Check `files` (name in EVENT_RESULT_FILES -> bytes) as `event`'s results; nothing is written.

    `new_players` (membership number -> (name, country)) are registered on the
    spot: they count as listed in players.csv.
    """
    errors = ErrorLog(ERRORS_AT_MOST)
    ref = event_ref(event)
    raw = {name: data for name, data in files.items() if name in EVENT_RESULT_FILES}
    try:
        tables = tables_parse(raw, errors, blank_values={"event_id": ref})
        if errors:  # a file unreadable or missing a column: checking rows against it would only add noise
            return EventResultsCheck(None, sorted(errors, key=BundleError.sort_key), [])
        validator = BundleValidator(tables, errors, unknown_event=f"these results are for event {ref} only")
        registered_here = [
            PlayerRecord(0, number, name, country, "") for number, (name, country) in (new_players or {}).items()
        ]
        bundle = validator.validate_event(event_record(event), registered_here)
    except TooManyErrors:
        return EventResultsCheck(None, sorted([*errors, errors.stopped_note()], key=BundleError.sort_key), [])
    return EventResultsCheck(bundle, sorted(errors, key=BundleError.sort_key), validator.unregistered)
