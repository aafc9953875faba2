"""`manage.py bench`: the performance targets of the product, measured against a limit taken in the same run.

The limit is what a recompute cannot beat by much. In the world users have
(every list the demo world has: the default categories) it is one pass over
every rated match of every Elo list in plain Python applying the Elo update,
plus a binary COPY of two history rows per match into an unindexed table
(`limit_lists_measure`). In the one-list world (`--one-list`: one category takes
every individual Magic format) it is the same loop over that category's
matches, its rows formatted as text for the COPY, as it always was
(`limit_measure`). Everything else is reported as a ratio to it.
The pages are timed by devtools.bench_pages.
"""

import csv
import os
import random
import re
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path

from django.conf import settings
from django.db import connection, transaction
from django.db.models import F, FloatField
from django.db.models.functions import Cast

from corrections.services import Result, match_correct
from devtools.bench_pages import MARATHON_ID
from devtools.demo import demo_bundle_write
from events.models import Match
from ratings.models import Category, RecomputeRun, RecomputeStatus, Ruleset
from ratings.selectors.history import category_events
from ratings.services.downloads import history_files_refresh
from ratings.services.runs import recompute_run_execute

# The one-list world (--one-list): one category holding every individual Magic match, so the bench
# measures a category of the full size; the other Magic lists are pointed at no format. Without it the
# bundle has no categories.csv: the lists are the default categories (ratings migration 0002).
BENCH_CATEGORIES = """slug,name,ruleset,formats,team_size,ranked_after
constructed,Constructed,dci-2001,standard block extended sealed booster-draft rochester-draft vintage type-1.5,1,10
limited,Limited,dci-2001,bench-unused-limited,1,10
vintage,Vintage,dci-2001,bench-unused-vintage,1,10
"""
MATCHES_PER_EVENT = 139  # what the demo generator averages in a small world: a first guess
MATCHES_SHORT_AT_MOST = 0.95  # a bundle with fewer of the matches asked for is written again, with more events


@dataclass
class Figure:
    name: str
    seconds: float
    peak_mb: float | None = None
    target: str = ""
    limit: float | None = None  # the limit measured just before it, when not the run's first


def run_measured(*args: str) -> tuple[float, float, str]:
    """Run `manage.py ARGS` in a child process: (seconds, the peak resident MB of it and its own children, output).

    Not the `ru_maxrss` the kernel reports for a child: Linux starts a child's
    count at the peak of the process it was spawned from (the bench, holding
    the world it wrote), so every figure read at least the bench's own size.
    The child's high-water mark (VmHWM in /proc) is read while it runs instead;
    it only grows, so the last reading misses at most the final few milliseconds.
    A child that recomputes lists in processes of its own (ratings.services.every_list) holds memory in those
    too: the figure is then the most the child and its processes held together at one reading (their resident
    sizes added, pages they share counted in each), if that is more.
    """
    started = time.monotonic()
    process = subprocess.Popen(
        [sys.executable, "manage.py", *args],
        cwd=settings.BASE_DIR,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    peak_kb = [0]
    watcher = threading.Thread(target=_high_water_watch, args=(process, peak_kb), daemon=True)
    watcher.start()
    output = process.stdout.read()
    process.wait()
    watcher.join()
    seconds = time.monotonic() - started
    if process.returncode:
        raise RuntimeError(f"manage.py {' '.join(args)} failed:\n{output}")
    return seconds, peak_kb[0] / 1024, output


def _high_water_watch(process: subprocess.Popen, peak_kb: list[int], every: float = 0.02) -> None:
    """Keep in `peak_kb[0]` the highest of `process`'s VmHWM and of the resident sizes of it and its descendants
    added together, read until it ends."""
    while process.poll() is None:
        own = _status_kb(process.pid, "VmHWM:")
        together = sum(_status_kb(pid, "VmRSS:") for pid in _process_tree(process.pid))
        peak_kb[0] = max(peak_kb[0], own, together)
        time.sleep(every)


def _status_kb(pid: int, field: str) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(field):
                return int(line.split()[1])
    except (FileNotFoundError, ProcessLookupError, ValueError):
        pass  # ended between the poll and the read; a zombie has no memory lines
    return 0


def _process_tree(pid: int) -> list[int]:
    """`pid` and its descendants, as /proc lists each process's children (an ended one lists none)."""
    tree, waiting = [], [pid]
    while waiting:
        current = waiting.pop()
        tree.append(current)
        for thread in Path(f"/proc/{current}/task").glob("*"):  # a child is listed under the thread that forked it
            try:
                waiting.extend(int(child) for child in (thread / "children").read_text().split())
            except (FileNotFoundError, ProcessLookupError):
                continue
    return tree


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


REPORTED_LINE = re.compile(r"^([-\w]+(?:, [-\w]+)*): (.*?)$", re.MULTILINE)


def reported_lists(output: str) -> dict[str, tuple[float, float]]:
    """Each line's (published, cleanup) seconds as `recompute_ratings` reports them, keyed by its list(s).

    A list's line ends "cleanup C s, published in P s": "published" ends when its history and today's
    list are committed, "cleanup" is what follows (the lists derived from it rebuilt, when it runs
    alone). Lists derived once after all their components report "slugs: derived, built in P s".
    Their sum over the lines is the whole job.
    """
    found = {}
    for slugs, rest in REPORTED_LINE.findall(output):
        published = re.search(r"in ([0-9.]+) s$", rest)
        if published is None:
            continue
        cleanup = re.search(r"cleanup ([0-9.]+) s", rest)
        found[slugs] = (float(published[1]), float(cleanup[1]) if cleanup else 0.0)
    if not found:
        raise RuntimeError(f"no list reported in:\n{output}")
    return found


def reported_total(output: str) -> float:
    """The whole job of a `recompute_ratings` run, every list published and cleaned up, the derived ones built:
    its last line ("Recomputed N lists in T s."), as lists may be recomputed side by side."""
    total = re.search(r"^Recomputed \d+ lists in ([0-9.]+) s\.$", output, re.MULTILINE)
    if total is not None:
        return float(total[1])
    return sum(published + cleanup for published, cleanup in reported_lists(output).values())


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


def bundle_prepare(directory: Path, *, players: int, matches: int, seed: int, one_list: bool = False) -> dict:
    """Write the bench bundle into `directory` once a day (kept for later runs); returns its counts.

    The two worlds share the generated files: the one-list world adds its categories.csv, the realistic
    one has none (the default categories). The marker's version changes whenever the world does, so a
    bundle of an older bench is never reused.
    """
    marker = directory / f"bench-v5-{players}-{matches}-{seed}-{date.today()}.done"  # ends yesterday
    categories = directory / "categories.csv"
    if marker.exists():
        counts = {"cached": True}
    else:
        directory.mkdir(parents=True, exist_ok=True)
        for old in directory.glob("*"):
            old.unlink()
        # The world runs until yesterday, so "a correction last week" is what it says.
        yesterday = date.today() - timedelta(days=1)
        events = max(20, matches // MATCHES_PER_EVENT)
        for _ in range(2):
            counts = demo_bundle_write(
                directory, players=players, events=events, seed=seed, start=yesterday - timedelta(days=8 * 365),
                end=yesterday,
            )  # fmt: skip
            if counts["matches"] >= MATCHES_SHORT_AT_MOST * matches:
                break
            # Events are smaller in a larger world (nobody plays two events on one day): 95 matches an event
            # at ten million, 126 at one. Written again with as many more events as were missing.
            events = round(events * matches / max(1, counts["matches"]))
        _marathon_add(directory, seed=seed)
        marker.write_text(str(counts))
    if one_list:
        categories.write_text(BENCH_CATEGORIES, encoding="utf-8")
    else:
        categories.unlink(missing_ok=True)
    return counts


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


# The limit over every list: the history row's values, in the types a binary COPY is told up front.
LIMIT_TABLE = (
    "CREATE TEMP TABLE bench_limit (participant bigint, opponent bigint, rating_before float8,"
    " rating_after float8, opponent_rating float8, expected float8, k float8) ON COMMIT DROP"
)
LIMIT_TYPES = ["int8", "int8", "float8", "float8", "float8", "float8", "float8"]


@dataclass
class Limit:
    loop: float  # seconds of the plain Python loop over every list's matches
    copying: float  # seconds of the binary COPY of their rows
    matches: dict[str, int]  # rated matches per list

    @property
    def seconds(self) -> float:
        return self.loop + self.copying

    @property
    def rated(self) -> int:
        return sum(self.matches.values())


def elo_lists() -> list[Category]:
    """The lists an Elo update rates match by match: every stored category but the derived and V:EKN ones."""
    return list(Category.objects.exclude(ruleset__in=[Ruleset.DERIVED, Ruleset.VEKN]).order_by("position", "pk"))


def limit_matches(category: Category) -> list[tuple[int, int, int, int, float]]:
    """The matches `category` rates, in rating order: (participant 1, participant 2, games 1, games 2, K)."""
    return list(
        Match.objects.filter(event__in=category_events(category), participant2__isnull=False)
        .annotate(k=Cast("event__k", FloatField()))
        .order_by("event__date", "event_id", "round", "id")
        .values_list("participant1_id", "participant2_id", "games1", "games2", "k")
    )


def elo_rows(matches: list[tuple[int, int, int, int, float]], rows: list[tuple]) -> dict[int, float]:
    """The limit's loop: the Elo update over `matches` (limit_matches), two history rows per match appended
    to `rows` as values (not formatted: the COPY is binary); returns everyone's rating after them."""
    ratings: dict[int, float] = {}
    for p1, p2, g1, g2, k in matches:
        r1, r2 = ratings.get(p1, 1600.0), ratings.get(p2, 1600.0)
        expected = 1.0 / (10.0 ** ((r2 - r1) / 400.0) + 1.0)
        score = 1.0 if g1 > g2 else 0.0 if g1 < g2 else 0.5
        change = k * (score - expected)
        ratings[p1], ratings[p2] = r1 + change, r2 - change
        rows.append((p1, p2, r1, r1 + change, r2, expected, k))
        rows.append((p2, p1, r2, r2 - change, r1, 1.0 - expected, k))
    return ratings


def limit_lists_measure() -> Limit:
    """The floor a recompute of every list is measured against: the loop over every Elo list's rated
    matches (each list in rating order, from 1600), then a binary COPY of two rows per match into an
    unindexed table; the matches are read before each list's loop, outside the times."""
    loop = copying = 0.0
    counts: dict[str, int] = {}
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(LIMIT_TABLE)
        for category in elo_lists():
            matches = limit_matches(category)
            rows: list[tuple] = []
            started = time.monotonic()
            elo_rows(matches, rows)
            loop += time.monotonic() - started
            counts[category.slug] = len(matches)
            del matches
            started = time.monotonic()
            with cursor.cursor.copy("COPY bench_limit FROM STDIN (FORMAT BINARY)") as copy:
                copy.set_types(LIMIT_TYPES)
                for row in rows:
                    copy.write_row(row)
            copying += time.monotonic() - started
            del rows
    return Limit(loop, copying, counts)


def last_week(category: Category | None = None) -> date:
    """A week before today; a world smaller than the default may stop earlier: a week before its last match
    (of the category's events, with `category`)."""
    since = date.today() - timedelta(days=7)
    played = Match.objects.filter(participant2__isnull=False)
    if category is not None:
        played = played.filter(event__in=category_events(category))
    latest = played.order_by("-event__date").values_list("event__date")[:1]
    if latest and latest[0][0] < since:
        since = latest[0][0] - timedelta(days=7)
    return since


def last_week_correction() -> tuple[str, int]:
    """Flip the result of one match in the last week of the history; returns (since date, matches after it)."""
    since = last_week()
    match = (
        Match.objects.filter(participant2__isnull=False, event__date__gte=since)
        .select_related("event")
        .order_by("event__date")
        .first()
    )
    later = Match.objects.filter(event__date__gte=since).count()
    Match.objects.filter(pk=match.pk).update(games1=match.games2, games2=match.games1)
    return since.isoformat(), later


@dataclass
class Corrected:
    match: str  # which match, and how
    seconds: float  # the correction, then its runs carried out: every list it feeds published, derived ones too
    runs: list[RecomputeRun]


def correction_published(since: date, *, slug: str = "constructed") -> Corrected:
    """Correct a result in the list's events since `since` through the correction service (corrections.services
    `match_correct`), then carry out the runs it queued as the job worker does (ratings.services.runs): the list
    recomputed from the event's date and published, the lists derived from it rebuilt."""
    category = Category.objects.get(slug=slug)
    match = (
        Match.objects.filter(event__in=category_events(category), participant2__isnull=False, event__date__gte=since)
        .exclude(games1=F("games2"))
        .select_related("event")
        .order_by("event__date", "event_id", "round", "id")
        .first()
    )
    if match is None:
        raise RuntimeError(f"no decided {slug} match since {since} to correct")
    queued_before = set(RecomputeRun.objects.filter(status=RecomputeStatus.QUEUED).values_list("pk", flat=True))
    old = Result.of(match)
    started = time.monotonic()
    match_correct(
        match=match, result=Result(old.games2, old.games1, old.draws, old.elimination), reason="Bench: slips swapped.",
        by=None,
    )  # fmt: skip
    queued = RecomputeRun.objects.filter(status=RecomputeStatus.QUEUED).exclude(pk__in=queued_before).order_by("pk")
    runs = [recompute_run_execute(run_id=run.pk) for run in queued]
    seconds = time.monotonic() - started
    failed = [run for run in runs if run.status != RecomputeStatus.DONE]
    if not runs or failed:
        raise RuntimeError(f"the correction's runs did not all finish: {runs}")
    described = f"{match.event.date} {match.event.format}, round {match.round}: {old.games1}-{old.games2} swapped"
    return Corrected(described, seconds, runs)


def history_files_written() -> float:
    """Seconds to write every history file not of its list's current history, as the jobs after the lists'
    publications do (ratings.services.downloads)."""
    started = time.monotonic()
    history_files_refresh()
    return time.monotonic() - started


def data_directory() -> Path:
    return Path(os.environ.get("BENCH_DATA", settings.BASE_DIR / "bench-data"))


__all__ = [
    "Corrected",
    "Figure",
    "Limit",
    "bundle_prepare",
    "correction_published",
    "data_directory",
    "history_files_written",
    "last_week",
    "last_week_correction",
    "limit_lists_measure",
    "limit_measure",
    "reported_lists",
    "run_measured",
]
