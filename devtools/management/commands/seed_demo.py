import tempfile
import time
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from devtools.demo import demo_bundle_write
from devtools.demo_accounts import demo_accounts_create, demo_activity_create
from organize.importer import BundleInvalid, results_import
from players.models import Player
from ratings.models import Category
from ratings.services.official import official_lists_publish
from ratings.services.recompute import category_recompute

ERRORS_SHOWN = 20
DEMO_OFFICIAL_MONTHS = 6


class Command(BaseCommand):
    help = "Load a made-up demo world: players, events and results, written as a bundle and imported."

    def add_arguments(self, parser):
        parser.add_argument("--players", type=int, default=3000, help="How many players (default 3000).")
        parser.add_argument("--events", type=int, default=300, help="How many events at most (default 300).")
        parser.add_argument("--seed", type=int, default=1, help="The same seed makes the same world (default 1).")
        parser.add_argument("--if-empty", action="store_true", help="Do nothing when the database already has players.")

    def handle(self, *args, players, events, seed, if_empty, **options):
        if players < 1 or events < 1:
            raise CommandError("--players and --events must be at least 1.")
        if if_empty and Player.objects.exists():
            self.stdout.write("The database already has players: demo world not loaded.")
            return
        with tempfile.TemporaryDirectory() as tmp:
            started = time.monotonic()
            counts = demo_bundle_write(Path(tmp), players=players, events=events, seed=seed)
            self.stdout.write(
                f"Demo bundle (seed {seed}): {counts['players']} players, {counts['teams']} teams, "
                f"{counts['events']} events, {counts['matches']} matches, {counts['standings']} standings "
                f"written in {time.monotonic() - started:.1f} s."
            )
            started = time.monotonic()
            try:
                report = results_import(source=Path(tmp))
            except BundleInvalid as invalid:
                # The generator made a bundle the importer refuses: a bug on one side or the other.
                for error in invalid.errors[:ERRORS_SHOWN]:
                    self.stderr.write(str(error))
                if len(invalid.errors) > ERRORS_SHOWN:
                    self.stderr.write(f"... and {len(invalid.errors) - ERRORS_SHOWN} more.")
                raise CommandError(f"The demo bundle has {len(invalid.errors)} error(s); nothing was saved.") from None
        self.stdout.write(str(report))
        self.stdout.write(self.style.SUCCESS(f"Demo world imported in {time.monotonic() - started:.1f} s."))
        # Rated at once rather than in the worker, so the site opens with full rankings.
        started = time.monotonic()
        for category in Category.objects.all():
            category_recompute(category=category)
        self.stdout.write(self.style.SUCCESS(f"Ratings computed in {time.monotonic() - started:.1f} s."))
        # An archive to look at: the official lists of the last months, as if the site had published them.
        published = official_lists_publish(months=DEMO_OFFICIAL_MONTHS)
        self.stdout.write(f"Official lists: {len(published)} published (the last {DEMO_OFFICIAL_MONTHS} month ends).")
        # Demo data only: their passwords are in the README.
        accounts = demo_accounts_create()
        # Then what they did on the site: corrections, an appeal, a claim, the organizer's events.
        accounts += demo_activity_create()
        self.stdout.write(f"Demo accounts: {'; '.join(accounts)}.")
