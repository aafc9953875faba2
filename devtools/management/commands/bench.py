from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django.db import connection

from config.startup import collector_tuned
from devtools import bench_pages, benchmark
from ratings.models import Category, Ruleset

FULL_RUNS = 3  # an odd number: the median is one of them


class Command(BaseCommand):
    help = "Measure import, recompute and page times at scale against a limit measured in the same run."

    def add_arguments(self, parser):
        parser.add_argument("--players", type=int, default=100_000)
        parser.add_argument("--matches", type=int, default=1_000_000, help="About this many matches.")
        parser.add_argument("--seed", type=int, default=1)
        parser.add_argument(
            "--one-list",
            action="store_true",
            help="The world of earlier benches: one list (constructed) takes every individual Magic format.",
        )
        parser.add_argument(
            "--pages-only", action="store_true", help="Only time the pages, on the world a previous run left."
        )

    def handle(self, *args, players, matches, seed, one_list, pages_only, **options):
        if connection.vendor != "postgresql":
            raise CommandError("The benchmark runs on PostgreSQL: set DATABASE_URL (make bench does).")
        if pages_only:
            if not Category.objects.filter(slug="constructed", formats__contains="standard").exists():
                raise CommandError("No bench world in this database: run the whole bench first.")
            self.pages_report(site_pages=not one_list)
            return
        directory = benchmark.data_directory()
        world = "one list takes every Magic format" if one_list else "every list of the demo world"
        self.stdout.write(f"World: {players:,} players, ~{matches:,} matches, {world} (bundle in {directory})")
        counts = benchmark.bundle_prepare(directory, players=players, matches=matches, seed=seed, one_list=one_list)
        self.stdout.write(f"  bundle: {counts}")
        call_command("flush", interactive=False, verbosity=0)
        call_command("migrate", "ratings", "0001", verbosity=0)
        call_command("migrate", verbosity=0)

        # -v 2: the import says where its time went, step by step.
        _, peak, output = benchmark.run_measured("import_results", str(directory), "--no-recompute", "-v", "2")
        seconds = benchmark.reported_seconds(output)
        self.stdout.write(output.strip())
        if one_list:
            self.one_list_report(benchmark.Figure("import bundle", seconds, peak, "<= 4 x limit"))
        else:
            self.every_list_report(benchmark.Figure("import bundle", seconds, peak, "<= 3 x limit"))

    # The world users have: every list ------------------------------------------------------------------------

    def every_list_report(self, imported: benchmark.Figure):
        limit = self.limit_lists_report()
        first = self.last_limit
        figures = [imported]

        # Every list as `recompute_ratings` does it (each list published, then its derived lists rebuilt, the
        # composite also for itself). The machine's speed drifts within minutes: each run is measured right
        # after a limit of its own, and the three are judged by the median ratio.
        fulls = []
        for number in range(1, FULL_RUNS + 1):
            run_limit = limit if number == 1 else self.limit_lists_report()
            _, peak, output = benchmark.run_measured("recompute_ratings")
            name = f"recompute_ratings, every list ({number} of {FULL_RUNS})"
            fulls.append(
                benchmark.Figure(name, benchmark.reported_total(output), peak, "<= 1.5 x; stretch 1.0 x", run_limit)
            )
        figures += fulls
        median = sorted(fulls, key=lambda figure: figure.seconds / figure.limit)[len(fulls) // 2]

        # Each list alone, its derived lists rebuilt after it (the cleanup), against a limit of their own.
        list_limit = self.limit_lists_report()
        for category in Category.objects.order_by("position", "pk"):
            _, peak, output = benchmark.run_measured("recompute_ratings", "--category", category.slug)
            published, cleanup = benchmark.reported_lists(output)[category.slug]
            if category.ruleset == Ruleset.DERIVED:  # built from its components: one figure
                alone = benchmark.Figure(f"  {category.slug} alone", published + cleanup, peak, limit=list_limit)
                figures.append(alone)
                continue
            figures.append(benchmark.Figure(f"  {category.slug}: published", published, peak, limit=list_limit))
            name = f"  {category.slug}: derived lists after it (cleanup)"
            figures.append(benchmark.Figure(name, cleanup, limit=list_limit))

        since = benchmark.last_week(Category.objects.get(slug="constructed"))
        # The job after a publication writes the list's history file: whole after a full recompute (every Elo
        # list's here), in part after a correction (constructed's) (ratings.services.downloads).
        whole = benchmark.Figure("  every list's history file, written whole", benchmark.history_files_written())
        corrected = benchmark.correction_published(since)
        self.stdout.write(f"Corrected: {corrected.match}; runs {[run.pk for run in corrected.runs]}")
        in_part = benchmark.Figure("  the history file after the correction", benchmark.history_files_written())
        whole.limit = in_part.limit = median.limit
        correction = benchmark.Figure(
            "a correction last week, published with composite", corrected.seconds, target="<= 5 % of full"
        )
        correction.limit = median.limit
        _, peak, output = benchmark.run_measured("recompute_ratings", "--since", since.isoformat())
        incremental = benchmark.Figure(
            f"recompute_ratings --since {since}, every list", benchmark.reported_total(output), peak, "<= 10 % of full"
        )
        incremental.limit = median.limit
        figures += [correction, whole, in_part, incremental]

        self.figures_write(limit, figures, title=f"limit ({limit_name(first)}), first")
        self.stdout.write(f"{'every list, median of the ratios':56} {'':9} {median.seconds / median.limit:8.2f}")
        self.stdout.write(f"{'a correction / that full':56} {correction.seconds / median.seconds:9.1%}")
        self.stdout.write(f"{'recompute --since last week / that full':56} {incremental.seconds / median.seconds:9.1%}")
        self.pages_report(site_pages=True)

    def limit_lists_report(self) -> float:
        measured = benchmark.limit_lists_measure()
        self.last_limit = measured
        lists = ", ".join(f"{slug} {count:,}" for slug, count in measured.matches.items())
        self.stdout.write(
            f"Limit on {measured.rated:,} matches ({lists}): loop {measured.loop:.2f} s"
            f" + binary COPY {measured.copying:.2f} s = {measured.seconds:.2f} s"
        )
        return measured.seconds

    # The one-list world of earlier benches --------------------------------------------------------------------

    def one_list_report(self, imported: benchmark.Figure):
        category = Category.objects.get(slug="constructed")
        limit = self.limit_report(category)
        figures = [imported]

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

        self.figures_write(limit, figures, title="limit (plain loop + COPY), first")
        self.stdout.write(f"{'full recompute, median of the ratios':56} {'':9} {median.seconds / median.limit:8.2f}")
        job = jobs[fulls.index(median)]
        self.stdout.write(f"{'incremental / that full (published)':56} {incremental.seconds / median.seconds:9.1%}")
        self.stdout.write(f"{'incremental / that full (whole jobs)':56} {incremental_job.seconds / job.seconds:9.1%}")
        self.pages_report(site_pages=False)

    def limit_report(self, category) -> float:
        loop, copying, rated = benchmark.limit_measure(category)
        limit = loop + copying
        self.stdout.write(f"Limit on {rated:,} matches: loop {loop:.2f} s + COPY {copying:.2f} s = {limit:.2f} s")
        return limit

    # Both ----------------------------------------------------------------------------------------------------

    def figures_write(self, limit: float, figures: list[benchmark.Figure], *, title: str):
        self.stdout.write("")
        self.stdout.write(f"{'measurement':56} {'seconds':>9} {'x limit':>8} {'peak MB':>8}  target")
        self.stdout.write(f"{title:56} {limit:9.2f} {1.0:8.2f} {'':>8}")
        for figure in figures:
            peak = f"{figure.peak_mb:8.0f}" if figure.peak_mb is not None else f"{'':>8}"
            ratio = figure.seconds / (figure.limit or limit)
            self.stdout.write(f"{figure.name:56} {figure.seconds:9.2f} {ratio:8.2f} {peak}  {figure.target}")

    def pages_report(self, *, site_pages: bool):
        # This process serves the pages below as a worker of the site's does (config.wsgi): its collector set
        # the same way, or pages that build many objects would be timed with collections the site does not make.
        collector_tuned()
        self.stdout.write("")
        self.stdout.write(f"{'page (server time, in process)':72} {'median ms':>10} {'worst ms':>9} {'queries':>8}")
        self.page_figures_write(bench_pages.pages_measure(site_pages=site_pages))
        if site_pages:
            self.stdout.write("every other page a visitor opens")
            self.page_figures_write(bench_pages.visitor_pages_measure())
        self.stdout.write("the API")
        self.page_figures_write(bench_pages.api_pages_measure())
        self.stdout.write("signed in as an admin")
        self.page_figures_write(bench_pages.signed_in_pages_measure())
        self.stdout.write("signed in as an organizer")
        self.page_figures_write(bench_pages.organizer_pages_measure())
        self.stdout.write("signed in as a player")
        self.page_figures_write(bench_pages.player_pages_measure())
        self.stdout.write(
            "Targets: median under 50 ms; queries that do not grow with the page or the history;"
            " a new past date's first request <= 1 s."
        )

    def page_figures_write(self, figures: list[bench_pages.PageFigure]):
        for page in figures:
            queries = "" if page.queries < 0 else str(page.queries)  # a first request: its queries not counted
            self.stdout.write(f"{page.name:72} {page.median_ms:10.1f} {page.worst_ms:9.1f} {queries:>8}")


def limit_name(limit: benchmark.Limit) -> str:
    return f"{len(limit.matches)} lists: loop + binary COPY"
