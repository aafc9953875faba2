from django.core.management.base import BaseCommand, CommandError

from ratings.services.official import official_lists_publish


class Command(BaseCommand):
    help = (
        "Publish every list's official list at the last month ends where missing (the job workers publish last "
        "month's on the first of the month). For a new site: older month ends are published with today's history."
    )

    def add_arguments(self, parser):
        parser.add_argument("--months", type=int, default=1, help="How many month ends back (default 1: last month).")

    def handle(self, *args, months, **options):
        if not 1 <= months <= 120:
            raise CommandError("--months must be between 1 and 120.")
        published = official_lists_publish(months=months)
        for official in published:
            self.stdout.write(f"Published {official.category.name} as of {official.as_of}: {official.ranked} ranked.")
        self.stdout.write(self.style.SUCCESS(f"{len(published)} official list(s) published."))
