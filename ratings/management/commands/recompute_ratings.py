import time

from django.core.management.base import BaseCommand

from ratings.management.arguments import add_category_and_since, categories_and_since
from ratings.services.recompute import category_recompute


class Command(BaseCommand):
    help = "Recompute rating histories now (not in the job worker): every category, or one."

    def add_arguments(self, parser):
        add_category_and_since(parser)

    def handle(self, *args, category, since, **options):
        categories, since_date = categories_and_since(category, since)
        for each in categories:
            started = time.monotonic()
            result = category_recompute(category=each, since=since_date)
            self.stdout.write(
                f"{each.slug}: {result.matches_rated} rated, {result.entries_written} history rows, "
                f"cleanup {time.monotonic() - started - result.published_seconds:.2f} s, "
                f"published in {result.published_seconds:.2f} s"
            )
