import time

from django.core.management.base import BaseCommand

from ratings.management.arguments import add_category_and_since, categories_and_since
from ratings.services.every_list import ListRecomputed, lists_recompute


class Command(BaseCommand):
    help = (
        "Recompute rating histories now (not in the job worker): every category, or one. On PostgreSQL the lists"
        " are recomputed side by side, a process per two cores; the lists derived from them are built once, after."
    )

    def add_arguments(self, parser):
        add_category_and_since(parser)
        parser.add_argument(
            "--workers",
            type=int,
            default=None,
            help="Processes recomputing lists at once on PostgreSQL (default: one per core, while the largest"
            " lists at once fit in RECOMPUTE_MEMORY_MB; 1: one list after the other).",
        )

    def handle(self, *args, category, since, workers, verbosity, **options):
        self.verbosity = verbosity
        categories, since_date = categories_and_since(category, since)
        started = time.monotonic()
        recomputed = lists_recompute(
            categories=list(categories), since=since_date, workers=workers, on_done=self.list_report
        )
        if recomputed.derived:
            slugs = ", ".join(each.slug for each in recomputed.derived)
            self.stdout.write(f"{slugs}: derived, built in {recomputed.derived_seconds:.2f} s")
        lists = len(recomputed.done) + len(recomputed.derived)
        self.stdout.write(f"Recomputed {lists} lists in {time.monotonic() - started:.2f} s.")

    def list_report(self, one: ListRecomputed) -> None:
        result = one.result
        self.stdout.write(
            f"{one.category.slug}: {result.matches_rated} rated, {result.entries_written} history rows, "
            f"cleanup {one.seconds - result.published_seconds:.2f} s, "
            f"published in {result.published_seconds:.2f} s"
        )
        if self.verbosity >= 2:
            self.stdout.write(f"  where the time went: {result.phases}")
