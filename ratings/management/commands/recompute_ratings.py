import time
from datetime import date

from django.core.management.base import BaseCommand, CommandError

from ratings.models import Category
from ratings.services import category_recompute


class Command(BaseCommand):
    help = "Recompute rating histories now (not in the job worker): every category, or one."

    def add_arguments(self, parser):
        parser.add_argument("--category", help="Category slug (default: every category).")
        parser.add_argument("--since", help="YYYY-MM-DD: keep the history before this date, recompute the rest.")

    def handle(self, *args, category, since, **options):
        categories = Category.objects.all()
        if category:
            categories = categories.filter(slug=category)
            if not categories:
                raise CommandError(f"unknown category {category!r}")
        try:
            since_date = date.fromisoformat(since) if since else None
        except ValueError:
            raise CommandError(f"--since {since!r} is not a date in the form YYYY-MM-DD") from None
        for each in categories:
            started = time.monotonic()
            result = category_recompute(category=each, since=since_date)
            self.stdout.write(
                f"{each.slug}: {result.matches_rated} rated, {result.entries_written} history rows, "
                f"cleanup {time.monotonic() - started - result.published_seconds:.2f} s, "
                f"published in {result.published_seconds:.2f} s"
            )
