"""Import results bundles (SPEC section 6): all errors at once, nothing half-saved."""

from pathlib import Path

from django.db import transaction

from lib.timing import Phases
from organize.importer.errors import ERRORS_AT_MOST, BundleError, BundleInvalid, ErrorLog, TooManyErrors
from organize.importer.reading import bundle_read
from organize.importer.report import ImportReport
from organize.importer.validation import BundleValidator
from organize.importer.writing import BundleWriter
from organize.importer.writing_results import ImportCorrections

__all__ = ["BundleError", "BundleInvalid", "ImportReport", "results_import"]


def results_import(
    *, source: Path | str, dry_run: bool = False, organizer=None, corrected_by=None, reason: str = ""
) -> ImportReport:
    """Validate the bundle at `source` and write what differs from the database.

    Raises BundleInvalid with every error found; then nothing is written.
    With dry_run the report says what would change and nothing is written.
    Changed matches of events already rated are recorded as corrections, by
    `corrected_by` (default: each event's organizer) for `reason` (default:
    the re-import of the bundle).
    """
    phases = Phases()
    corrections = ImportCorrections(reason=reason or f"re-import of {Path(source).name}", by=corrected_by)
    tables, errors = bundle_read(Path(source))
    phases.lap("files opened")
    if errors:  # a file missing or unreadable: checking rows against it would only add noise
        raise BundleInvalid(errors)
    # A bundle of junk stops being checked after ERRORS_AT_MOST problems: their memory is bounded too.
    errors = ErrorLog(ERRORS_AT_MOST)
    with transaction.atomic():
        validator = BundleValidator(tables, errors, phases=phases)
        try:
            bundle = validator.validate_listed()
            writer = BundleWriter(bundle, dry_run=dry_run, organizer=organizer, corrections=corrections, phases=phases)
            # What the bundle lists is written while its results are checked, when it is all valid so far (and
            # rolled back with the rest if a result is not): the database's work beside Python's.
            validator.validate_results(bundle, meanwhile=None if errors or dry_run else writer.write_listed)
        except TooManyErrors:
            raise BundleInvalid([*errors, errors.stopped_note()]) from None
        if errors:
            raise BundleInvalid(errors)
        return writer.write()
