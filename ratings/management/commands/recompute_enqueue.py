from django.core.management.base import BaseCommand

from ratings.management.arguments import add_category_and_since, categories_and_since
from ratings.services.runs import recompute_enqueue


class Command(BaseCommand):
    help = (
        "Queue recompute jobs for the job workers (as the admin's Recompute action does): every category, or one. "
        "Prints the ids of the queued runs, one per line."
    )

    def add_arguments(self, parser):
        add_category_and_since(parser)
        parser.add_argument("--reason", default="queued from the command line")

    def handle(self, *args, category, since, reason, **options):
        categories, since_date = categories_and_since(category, since)
        for each in categories:
            run = recompute_enqueue(category=each, since=since_date, reason=reason)
            if run:  # derived lists have no runs of their own: they follow their components
                self.stdout.write(str(run.pk))
