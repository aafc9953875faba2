import time
from datetime import date

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, no_translations
from django.db import transaction

from events.services import results_changed_send
from organize.importer import BundleInvalid, ImportReport, results_import
from ratings.models import Category, RecomputeRun
from ratings.services.runs import recompute_enqueue


class Command(BaseCommand):
    help = "Import a results bundle (a folder or .zip of CSV files, SPEC section 6)."

    def add_arguments(self, parser):
        parser.add_argument("path", help="Folder or .zip holding players.csv, events.csv, matches.csv, ...")
        parser.add_argument("--dry-run", action="store_true", help="Check the bundle and report; save nothing.")
        parser.add_argument(
            "--no-recompute", action="store_true", help="Save the results but do not recompute ratings now."
        )
        parser.add_argument(
            "--by",
            metavar="USERNAME",
            help="The admin running the import: changed results of rated events are recorded as corrections "
            "by this user (default: each event's organizer).",
        )

    @no_translations  # the report and the bundle's errors in English, whatever language was active
    def handle(self, *args, path, dry_run, no_recompute, by=None, **options):
        started = time.monotonic()
        admin = None
        if by:
            admin = get_user_model().objects.filter(username=by).first()
            if admin is None:
                raise CommandError(f"--by {by}: no user has this username; nothing was saved.")
        try:
            # The runs are queued in the import's transaction: a worker that sees them sees the results.
            with transaction.atomic():
                report = results_import(source=path, dry_run=dry_run, corrected_by=admin, reason=f"re-import of {path}")
                recompute = bool(report.affected) and not (dry_run or no_recompute)
                runs = _recompute_queue(report, reason=f"import of {path}", by=admin) if recompute else []
        except BundleInvalid as invalid:
            for error in invalid.errors:
                self.stderr.write(str(error))
            raise CommandError(f"{len(invalid.errors)} error(s); nothing was saved.") from None
        self.stdout.write(str(report))
        if options["verbosity"] >= 2:
            self.stdout.write(f"  where the time went: {report.phases}")
        self.stdout.write(f"Checked{'' if dry_run else ' and saved'} in {time.monotonic() - started:.2f} s.")
        if dry_run or not report.affected:
            return
        if no_recompute:
            self.stdout.write("Ratings not recomputed (--no-recompute): run recompute_ratings when ready.")
            return
        self.stdout.write(f"{len(runs)} recompute(s) queued for the job worker.")


def _recompute_queue(report: ImportReport, *, reason: str, by) -> list[RecomputeRun]:
    """One run per list the import changes: the changed results say so, and a list the bundle redefined
    (categories.csv) is recomputed whole."""
    runs = results_changed_send(kinds=report.kinds, reason=reason, requested_by=by)
    redefined = [slug for slug, since in report.affected.items() if since == date.min]
    queued = {run.category_id: run for run in runs}
    for category in Category.objects.filter(slug__in=redefined):
        if category.pk in queued:  # queued just now, in this transaction, from a date: made whole instead
            RecomputeRun.objects.filter(pk=queued[category.pk].pk).update(since=None)
        elif run := recompute_enqueue(category=category, since=None, reason=reason, requested_by=by):
            runs.append(run)
    return runs
