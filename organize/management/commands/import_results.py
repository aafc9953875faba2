import time

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from organize.importer import BundleInvalid, results_import
from ratings.services import recompute_enqueue_affected


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

    def handle(self, *args, path, dry_run, no_recompute, by=None, **options):
        started = time.monotonic()
        admin = None
        if by:
            admin = get_user_model().objects.filter(username=by).first()
            if admin is None:
                raise CommandError(f"--by {by}: no user has this username; nothing was saved.")
        try:
            report = results_import(source=path, dry_run=dry_run, corrected_by=admin, reason=f"re-import of {path}")
        except BundleInvalid as invalid:
            for error in invalid.errors:
                self.stderr.write(str(error))
            raise CommandError(f"{len(invalid.errors)} error(s); nothing was saved.") from None
        self.stdout.write(str(report))
        self.stdout.write(f"Checked{'' if dry_run else ' and saved'} in {time.monotonic() - started:.2f} s.")
        if dry_run or not report.affected:
            return
        if no_recompute:
            self.stdout.write("Ratings not recomputed (--no-recompute): run recompute_ratings when ready.")
            return
        runs = recompute_enqueue_affected(affected=report.affected, reason=f"import of {path}", requested_by=admin)
        self.stdout.write(f"{len(runs)} recompute(s) queued for the job worker.")
