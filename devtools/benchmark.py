"""`manage.py bench`: the performance targets of the product, measured against a limit taken in the same run.

The limit is what a category recompute cannot beat by much: a plain Python
loop applying the Elo update to the same matches, plus a COPY of two history
rows per match into an unindexed table. Everything else is reported as a
ratio to it.
"""

import csv
import os
import random
import re
import resource
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path

from django.conf import settings
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext, override_settings

from devtools.demo import demo_bundle_write
from events.models import Match
from ratings.models import Category

# One category holding every individual Magic match, so the bench measures a
# category of the full size; the other Magic lists are pointed at no format.
BENCH_CATEGORIES = """slug,name,ruleset,formats,team_size,ranked_after
constructed,Constructed,dci-2001,standard block extended sealed booster-draft rochester-draft vintage type-1.5,1,10
limited,Limited,dci-2001,bench-unused-limited,1,10
vintage,Vintage,dci-2001,bench-unused-vintage,1,10
"""
MATCHES_PER_EVENT = 139  # what the demo generator averages


@dataclass
class Figure:
    name: str
    seconds: float
    peak_mb: float | None = None
    target: str = ""
    limit: float | None = None  # the limit measured just before it, when not the run's first


def run_measured(*args: str) -> tuple[float, float, str]:
    """Run `manage.py ARGS` in a child process: (seconds, peak resident MB, output)."""
    started = time.monotonic()
    process = subprocess.Popen(
        [sys.executable, "manage.py", *args],
        cwd=settings.BASE_DIR,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    output = process.stdout.read()
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    seconds = time.monotonic() - started
    if process.returncode:
        raise RuntimeError(f"manage.py {' '.join(args)} failed:\n{output}")
    return seconds, usage.ru_maxrss / 1024, output


def reported_seconds(output: str) -> float:
    """The time a command reports for its own work ("... in 12.34 s"), without interpreter start-up."""
    found = re.findall(r"in ([0-9.]+) s", output)
    if not found:
        raise RuntimeError(f"no time reported in:\n{output}")
    return float(found[-1])


def reported_job_seconds(output: str) -> float:
    """A recompute's whole job as it reports it: published, then the lists derived from it ("cleanup")."""
    cleanup = re.findall(r"cleanup ([0-9.]+) s", output)
    return reported_seconds(output) + (float(cleanup[-1]) if cleanup else 0.0)


MARATHON_ID = "BENCH-MARATHON"
MARATHON_MATCHES = 2000


def _marathon_add(directory: Path, *, seed: int) -> None:
    """A player with a 2,000-match history (100 events of 20 rounds), for the player-page figure."""
    rng = random.Random(seed)
    with (directory / "players.csv").open(encoding="utf-8") as handle:
        others = [row["id"] for row in csv.DictReader(handle)]
    with (directory / "players.csv").open("a", encoding="utf-8", newline="") as handle:
        csv.writer(handle).writerow([MARATHON_ID, "Marathon Runner", "DE", "DE-BY"])
    events, matches = [], []
    rounds = 20
    for number in range(MARATHON_MATCHES // rounds):
        code = f"MARATHON-{number:03d}"
        day = date(2019, 1, 5) + timedelta(days=18 * number)
        events.append(
            {"id": code, "name": f"Marathon League {number + 1}", "date": day.isoformat(), "format": "standard",
             "k": "16", "level2_judge": "1"}
        )  # fmt: skip
        for opponent, rnd in zip(rng.sample(others, rounds), range(1, rounds + 1), strict=True):
            games1, games2 = rng.choice([(2, 0), (2, 1), (1, 2), (0, 2), (1, 1)])
            matches.append(
                {"event_id": code, "round": rnd, "player1_id": MARATHON_ID, "player2_id": opponent,
                 "player1_games": games1, "player2_games": games2, "draws": int(games1 == games2)}
            )  # fmt: skip
    for name, rows in (("events.csv", events), ("matches.csv", matches)):
        with (directory / name).open(encoding="utf-8") as handle:
            header = next(csv.reader(handle))
        with (directory / name).open("a", encoding="utf-8", newline="") as handle:
            csv.DictWriter(handle, header, restval="").writerows(rows)


def bundle_prepare(directory: Path, *, players: int, matches: int, seed: int) -> dict:
    marker = directory / f"bench-v3-{players}-{matches}-{seed}-{date.today()}.done"  # ends yesterday
    if marker.exists():
        return {"cached": True}
    directory.mkdir(parents=True, exist_ok=True)
    for old in directory.glob("*"):
        old.unlink()
    # The world runs until yesterday, so "a correction last week" is what it says.
    yesterday = date.today() - timedelta(days=1)
    counts = demo_bundle_write(
        directory, players=players, events=max(20, matches // MATCHES_PER_EVENT), seed=seed,
        start=yesterday - timedelta(days=8 * 365), end=yesterday,
    )  # fmt: skip
    _marathon_add(directory, seed=seed)
    (directory / "categories.csv").write_text(BENCH_CATEGORIES, encoding="utf-8")
    marker.write_text(str(counts))
    return counts


@dataclass
class PageFigure:
    name: str
    median_ms: float
    worst_ms: float
    queries: int


def page_measure(client, name: str, url: str, *, repeat: int = 15) -> PageFigure:
    """Median and worst server time of `repeat` requests (after one warm-up), and the queries of one."""
    response = client.get(url)
    if response.status_code != 200:
        raise RuntimeError(f"{url} answered {response.status_code}")
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        client.get(url)
        times.append((time.perf_counter() - started) * 1000)
    with CaptureQueriesContext(connection) as queries:
        client.get(url)
    return PageFigure(name, statistics.median(times), max(times), len(queries))


def pages_measure() -> list[PageFigure]:
    from django.test import Client

    from ratings.models import CurrentRating, RankingSnapshot, SnapshotRating

    client = Client()
    category = Category.objects.get(slug="constructed")
    lists = CurrentRating.objects.filter(category=category)
    sample = lists.filter(ranked=True).exclude(region="").order_by("world_rank")[0]

    def last_page(**level) -> int:
        return max(1, (lists.filter(**level).count() + 49) // 50)

    world, unranked = last_page(ranked=True), last_page(ranked=False)
    continent = last_page(ranked=True, continent=sample.continent)
    country = last_page(ranked=True, country=sample.country)
    base = "/rankings/constructed/"
    past = (date.today().replace(day=1) - timedelta(days=400)).isoformat()
    marathon_matches = lists.filter(display_id=MARATHON_ID).values_list("matches", flat=True).first()
    search = "?q=" + sample.name.split()[0]
    pages = [
        ("ranking: world, page 1", "/rankings/constructed/"),
        (f"ranking: world, last page ({world})", f"/rankings/constructed/?page={world}"),
        (f"ranking: world, middle page ({world // 2})", f"/rankings/constructed/?page={world // 2}"),
        ("ranking: continent", f"/rankings/constructed/?continent={sample.continent}"),
        (f"ranking: continent, last page ({continent})", f"{base}?continent={sample.continent}&page={continent}"),
        ("ranking: country", f"/rankings/constructed/?country={sample.country}"),
        (f"ranking: country, last page ({country})", f"/rankings/constructed/?country={sample.country}&page={country}"),
        ("ranking: region", f"/rankings/constructed/?country={sample.country}&region={sample.region}"),
        ("ranking: unranked list", "/rankings/constructed/?list=unranked"),
        (f"ranking: unranked, last page ({unranked})", f"/rankings/constructed/?list=unranked&page={unranked}"),
        (f"ranking: unranked, middle page ({unranked // 2})", f"{base}?list=unranked&page={unranked // 2}"),
        ("ranking: search", f"/rankings/constructed/{search}"),
        ("ranking: sorted by name, page 2", "/rankings/constructed/?sort=name&page=2"),
        (f"ranking: as of {past}", f"/rankings/constructed/?as_of={past}"),
        (f"ranking: as of {past}, last page", f"/rankings/constructed/?as_of={past}&page={world}"),
        (f"ranking: as of {past}, country", f"/rankings/constructed/?as_of={past}&country={sample.country}"),
        (f"ranking: as of {past}, unranked", f"/rankings/constructed/?as_of={past}&list=unranked"),
        (f"ranking: as of {past}, search", f"/rankings/constructed/{search}&as_of={past}"),
        (f"player page ({marathon_matches} matches)", f"/players/{MARATHON_ID}/"),
        ("player page, history page 40", f"/players/{MARATHON_ID}/?page=40"),
    ]  # fmt: skip
    # Past lists are written on their first request: start from none, so the first requests below are first.
    with connection.cursor() as cursor:
        cursor.execute(f"TRUNCATE {SnapshotRating._meta.db_table}, {RankingSnapshot._meta.db_table}")
    with override_settings(DEBUG=False):  # as in production: no query log, no debug templates
        figures = [page_measure(client, name, url) for name, url in pages]
        # A past date nobody asked for yet today: its list and the month end's before it are written.
        day = date.today() - timedelta(days=333)
        figures.append(_first_request("ranking: a new past date, first request", day, client))
        # Another day of that month: written from the month end's list and the history in between.
        other = day + timedelta(days=1 if day.day < 20 else -1)
        figures.append(_first_request("ranking: a day of the same month, first request", other, client))
    return figures


def _first_request(name: str, day: date, client) -> PageFigure:
    started = time.perf_counter()
    response = client.get(f"/rankings/constructed/?as_of={day.isoformat()}")
    first = (time.perf_counter() - started) * 1000
    if response.status_code != 200:
        raise RuntimeError(f"as_of={day} answered {response.status_code}")
    return PageFigure(f"{name} ({day.isoformat()})", first, first, -1)


def limit_measure(category: Category) -> tuple[float, float, int]:
    """(loop seconds, COPY seconds, matches): the floor a recompute of `category` is measured against."""
    matches = list(
        Match.objects.filter(
            event__format__in=category.format_list, event__team_size=category.team_size, participant2__isnull=False
        )
        .order_by("event__date", "event_id", "round", "id")
        .values_list("participant1_id", "participant2_id", "games1", "games2", "event__k")
    )
    started = time.monotonic()
    ratings: dict[int, float] = {}
    rows = []
    for p1, p2, g1, g2, k in matches:
        r1, r2 = ratings.get(p1, 1600.0), ratings.get(p2, 1600.0)
        expected = 1.0 / (10.0 ** ((r2 - r1) / 400.0) + 1.0)
        score = 1.0 if g1 > g2 else 0.0 if g1 < g2 else 0.5
        change = k * (score - expected)
        ratings[p1], ratings[p2] = r1 + change, r2 - change
        rows.append(f"{p1}\t{p2}\t{r1!r}\t{r1 + change!r}\t{r2!r}\t{expected!r}\t{k}\n")
        rows.append(f"{p2}\t{p1}\t{r2!r}\t{r2 - change!r}\t{r1!r}\t{1.0 - expected!r}\t{k}\n")
    loop = time.monotonic() - started
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(
            "CREATE TEMP TABLE bench_limit (participant bigint, opponent bigint, rating_before float8,"
            " rating_after float8, opponent_rating float8, expected float8, k float8) ON COMMIT DROP"
        )
        started = time.monotonic()
        with cursor.cursor.copy("COPY bench_limit FROM STDIN") as copy:
            for start in range(0, len(rows), 20_000):
                copy.write("".join(rows[start : start + 20_000]))
        copying = time.monotonic() - started
    return loop, copying, len(matches)


def last_week_correction() -> tuple[str, int]:
    """Flip the result of one match in the last week of the history; returns (since date, matches after it)."""
    since = date.today() - timedelta(days=7)
    latest = Match.objects.filter(participant2__isnull=False).order_by("-event__date").values_list("event__date")[:1]
    if latest and latest[0][0] < since:  # a world smaller than the default may stop earlier: its last week
        since = latest[0][0] - timedelta(days=7)
    match = (
        Match.objects.filter(participant2__isnull=False, event__date__gte=since)
        .select_related("event")
        .order_by("event__date")
        .first()
    )
    later = Match.objects.filter(event__date__gte=since).count()
    Match.objects.filter(pk=match.pk).update(games1=match.games2, games2=match.games1)
    return since.isoformat(), later


def data_directory() -> Path:
    return Path(os.environ.get("BENCH_DATA", settings.BASE_DIR / "bench-data"))


def peak_mb_self() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


__all__ = ["Figure", "bundle_prepare", "data_directory", "last_week_correction", "limit_measure", "run_measured"]
