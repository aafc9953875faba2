import time

from django.core.management.base import BaseCommand

from ratings.management.arguments import add_category_and_since, categories_and_since
from ratings.models import Ruleset
from ratings.services.recompute import category_recompute, derived_lists_follow


class Command(BaseCommand):
    help = "Recompute rating histories now (not in the job worker): every category, or one."

    def add_arguments(self, parser):
        add_category_and_since(parser)

    def handle(self, *args, category, since, **options):
        categories, since_date = categories_and_since(category, since)
        # Every list: a derived list is built once, after all its components, not after each of them.
        together = not category
        results, derived = [], []
        for each in categories:
            if together and each.ruleset == Ruleset.DERIVED:
                derived.append(each)
                continue
            started = time.monotonic()
            result = category_recompute(category=each, since=since_date, derived_follow=not together)
            results.append(result)
            self.stdout.write(
                f"{each.slug}: {result.matches_rated} rated, {result.entries_written} history rows, "
                f"cleanup {time.monotonic() - started - result.published_seconds:.2f} s, "
                f"published in {result.published_seconds:.2f} s"
            )
        if not derived:
            return
        started = time.monotonic()
        followed = {each.pk for each in derived_lists_follow(results=results)}
        for each in derived:
            if each.pk not in followed:  # none of its components exists: its (empty) list is rebuilt as before
                category_recompute(category=each, since=since_date)
        self.stdout.write(
            f"{', '.join(each.slug for each in derived)}: derived, built in {time.monotonic() - started:.2f} s"
        )
