from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django.db import connection

from devtools import benchmark
from ratings.models import Category

FULL_RUNS = 3  # an odd number: the median is one of them


class Command(BaseCommand):
    help = "Measure import, recompute and page times at scale against a limit measured in the same run."

    def add_arguments(self, parser):
        parser.add_argument("--players", type=int, default=100_000)
        parser.add_argument("--matches", type=int, default=1_000_000, help="About this many matches.")
        parser.add_argument("--seed", type=int, default=1)
        parser.add_argument(
            "--pages-only", action="store_true", help="Only time the pages, on the world a previous run left."
        )

    def handle(self, *args, players, matches, seed, pages_only, **options):
        if connection.vendor != "postgresql":
            raise CommandError("The benchmark runs on PostgreSQL: set DATABASE_URL (make bench does).")
        if pages_only:
            if not Category.objects.filter(slug="constructed", formats__contains="standard").exists():
                raise CommandError("No bench world in this database: run the whole bench first.")
            self.pages_report()
            return
        directory = benchmark.data_directory()
        self.stdout.write(f"World: {players:,} players, ~{matches:,} matches (bundle in {directory})")
        counts = benchmark.bundle_prepare(directory, players=players, matches=matches, seed=seed)
        self.stdout.write(f"  bundle: {counts}")
        call_command("flush", interactive=False, verbosity=0)
        call_command("migrate", "ratings", "0001", verbosity=0)
        call_command("migrate", verbosity=0)

        figures = []
        _, peak, output = benchmark.run_measured("import_results", str(directory), "--no-recompute")
        seconds = benchmark.reported_seconds(output)
        self.stdout.write(output.strip())
        figures.append(benchmark.Figure("import bundle", seconds, peak, "<= 4 x limit"))

        category = Category.objects.get(slug="constructed")
        limit = self.limit_report(category)

        # Published: until the new history and list are committed and visible. The whole job also
        # rebuilds the lists derived from this one (the composite), each in its own transaction.
        # This machine's speed drifts by a third within minutes: each full recompute is measured
        # right after a limit of its own, and judged by the median of three.
        fulls, jobs = [], []
        for number in range(1, FULL_RUNS + 1):
            run_limit = limit if number == 1 else self.limit_report(category)
            _, peak, output = benchmark.run_measured("recompute_ratings", "--category", "constructed")
            name = f"full recompute ({number} of {FULL_RUNS})"
            seconds = benchmark.reported_seconds(output)
            fulls.append(benchmark.Figure(name, seconds, peak, "<= 1.5 x limit, < 1 GB", limit=run_limit))
            jobs.append(
                benchmark.Figure(f"  {name}, whole job", benchmark.reported_job_seconds(output), limit=run_limit)
            )
        figures += fulls + jobs
        median = sorted(fulls, key=lambda figure: figure.seconds / figure.limit)[len(fulls) // 2]

        since, later = benchmark.last_week_correction()
        _, peak, output = benchmark.run_measured("recompute_ratings", "--category", "constructed", "--since", since)
        seconds = benchmark.reported_seconds(output)
        incremental = benchmark.Figure(f"recompute from {since} ({later:,} matches)", seconds, peak, "< 10% of full")
        incremental_job = benchmark.Figure("  the same, whole job", benchmark.reported_job_seconds(output))
        figures += [incremental, incremental_job]

        self.stdout.write("")
        self.stdout.write(f"{'measurement':48} {'seconds':>9} {'x limit':>8} {'peak MB':>8}  target")
        self.stdout.write(f"{'limit (plain loop + COPY), first':48} {limit:9.2f} {1.0:8.2f} {'':>8}")
        for figure in figures:
            peak = f"{figure.peak_mb:8.0f}" if figure.peak_mb is not None else f"{'':>8}"
            ratio = figure.seconds / (figure.limit or limit)
            self.stdout.write(f"{figure.name:48} {figure.seconds:9.2f} {ratio:8.2f} {peak}  {figure.target}")
        self.stdout.write(f"{'full recompute, median of the ratios':48} {'':9} {median.seconds / median.limit:8.2f}")
        job = jobs[fulls.index(median)]
        self.stdout.write(f"{'incremental / that full (published)':48} {incremental.seconds / median.seconds:9.1%}")
        self.stdout.write(f"{'incremental / that full (whole jobs)':48} {incremental_job.seconds / job.seconds:9.1%}")

        self.pages_report()

    def limit_report(self, category) -> float:
        loop, copying, rated = benchmark.limit_measure(category)
        limit = loop + copying
        self.stdout.write(f"Limit on {rated:,} matches: loop {loop:.2f} s + COPY {copying:.2f} s = {limit:.2f} s")
        return limit

    def pages_report(self):
        self.stdout.write("")
        self.stdout.write(f"{'page (server time, in process)':64} {'median ms':>10} {'worst ms':>9} {'queries':>8}")
        for page in benchmark.pages_measure():
            queries = "" if page.queries < 0 else str(page.queries)
            self.stdout.write(f"{page.name:64} {page.median_ms:10.1f} {page.worst_ms:9.1f} {queries:>8}")
        self.stdout.write("Targets: median under 50 ms; queries that do not grow with the page or the history.")
