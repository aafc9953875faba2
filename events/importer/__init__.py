"""Import results bundles (SPEC section 6): all errors at once, nothing half-saved."""

from pathlib import Path

from django.db import transaction

from events.importer.errors import BundleError, BundleInvalid
from events.importer.reading import bundle_read
from events.importer.validation import BundleValidator
from events.importer.writing import BundleWriter, ImportReport

__all__ = ["BundleError", "BundleInvalid", "ImportReport", "results_import"]


def results_import(*, source: Path | str, dry_run: bool = False, organizer=None) -> ImportReport:
    """Validate the bundle at `source` and write what differs from the database.

    Raises BundleInvalid with every error found; then nothing is written.
    With dry_run the report says what would change and nothing is written.
    """
    tables, errors = bundle_read(Path(source))
    if errors:  # a file missing or unreadable: checking rows against it would only add noise
        raise BundleInvalid(errors)
    with transaction.atomic():
        bundle = BundleValidator(tables, errors).validate()
        if errors:
            raise BundleInvalid(errors)
        return BundleWriter(bundle, dry_run=dry_run, organizer=organizer).write()
