from datetime import date

from django.core.management.base import BaseCommand, CommandError

from ratings.models import Category
from ratings.services import recompute_enqueue


class Command(BaseCommand):
    help = (
        "Queue recompute jobs for the job workers (as the admin's Recompute action does): every category, or one. "
        "Prints the ids of the queued runs, one per line."
    )

    def add_arguments(self, parser):
        parser.add_argument("--category", help="Category slug (default: every category).")
        parser.add_argument("--since", help="YYYY-MM-DD: keep the history before this date, recompute the rest.")
        parser.add_argument("--reason", default="queued from the command line")

    def handle(self, *args, category, since, reason, **options):
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
            run = recompute_enqueue(category=each, since=since_date, reason=reason)
            if run:  # derived lists have no runs of their own: they follow their components
                self.stdout.write(str(run.pk))
