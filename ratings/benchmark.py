"""`manage.py bench`: the performance targets of the product, measured against a limit taken in the same run.

The limit is what a category recompute cannot beat by much: a plain Python
loop applying the Elo update to the same matches, plus a COPY of two history
rows per match into an unindexed table. Everything else is reported as a
ratio to it.
"""

import os
import re
import resource
import subprocess
import sys
import time
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

from django.conf import settings
from django.db import connection, transaction

from events.demo import demo_bundle_write
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


def bundle_prepare(directory: Path, *, players: int, matches: int, seed: int) -> dict:
    marker = directory / f"bench-{players}-{matches}-{seed}.done"
    if marker.exists():
        return {"cached": True}
    directory.mkdir(parents=True, exist_ok=True)
    for old in directory.glob("*"):
        old.unlink()
    counts = demo_bundle_write(directory, players=players, events=max(20, matches // MATCHES_PER_EVENT), seed=seed)
    (directory / "categories.csv").write_text(BENCH_CATEGORIES, encoding="utf-8")
    marker.write_text(str(counts))
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


def last_week_correction() -> tuple[str, int]:
    """Flip the result of one match in the last week of the history; returns (since date, matches after it)."""
    match = Match.objects.filter(participant2__isnull=False).select_related("event").order_by("-event__date").first()
    since = match.event.date - timedelta(days=7)
    later = Match.objects.filter(event__date__gte=since).count()
    Match.objects.filter(pk=match.pk).update(games1=match.games2, games2=match.games1)
    return since.isoformat(), later


def data_directory() -> Path:
    return Path(os.environ.get("BENCH_DATA", settings.BASE_DIR / "bench-data"))


def peak_mb_self() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


__all__ = ["Figure", "bundle_prepare", "data_directory", "last_week_correction", "limit_measure", "run_measured"]
