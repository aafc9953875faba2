#!/usr/bin/env python3
"""Load test end to end (make loadtest): a production server on a 100,000-player world, 50 users for
60 s on the ranking, player and event pages, while full recomputes of the largest list run one after
another in the job worker. Prints throughput, latency percentiles and errors, per page and overall.

    .venv/bin/python scripts/loadtest.py [--database-url postgres://postgres@127.0.0.1:5432/ratings_load]
        [--users 50] [--seconds 60] [--players 100000] [--events 7000] [--no-recompute] [--api-users N] [--out DIR]

Steps: create the database when missing and load the demo world into it when it is empty
(`seed_demo`, a few minutes the first time); start scripts/serve_prod.sh (gunicorn with DEBUG off,
one job worker); queue a full recompute of `constructed` and wait until it runs; run locust headless
(scripts/locustfile.py) while queueing the next full recompute whenever one ends; wait for the last
recompute; stop the server. Results go to --out (locust's CSV files, the server log, summary.md).
Exits 1 when any request failed. Figures in docs/reliability.md.
"""

import argparse
import csv
import json
import os
import subprocess
import threading
import time
from pathlib import Path

from ops import (
    RESULTS,
    ROOT,
    VENV_BIN,
    command_line,
    database_ensure,
    machine,
    manage,
    now,
    production_env,
    production_server,
    psql,
    recompute_queue,
    run_status,
    say,
    wait_for,
)
from world_sample import world_sample

CATEGORY = "constructed"


class Recomputes(threading.Thread):
    """Full recomputes of the category back to back, until stopped; the last one is waited for."""

    def __init__(self, env: dict, database_url: str):
        super().__init__(daemon=True)
        self.env, self.database_url = env, database_url
        self.stop = threading.Event()
        self.runs: list[int] = []

    def queue(self) -> int:
        run = recompute_queue(self.env, CATEGORY, "load test: full recompute under load")
        self.runs.append(run)
        return run

    def run(self):
        run = self.runs[-1]
        while True:
            status = run_status(self.database_url, run)
            if status in ("done", "failed"):
                if self.stop.is_set():
                    return
                run = self.queue()
            time.sleep(0.5)


def stats_rows(path: Path) -> list[dict]:
    with path.open(newline="") as handle:
        return list(csv.DictReader(handle))


def summary(out: Path, args, started: str, load: str, recomputes: list[tuple]) -> tuple[str, int]:
    rows = stats_rows(out / "locust_stats.csv")
    total = next(row for row in rows if row["Name"] == "Aggregated")
    failures = int(total["Failure Count"])
    lines = [
        f"# Load test, {started}",
        "",
        f"Command: `{command_line()}`; {args.users} users"
        + (f" and {args.api_users} programs calling the API" if args.api_users else "")
        + f", {args.seconds} s, database {args.database_url}.",
        f"Machine: {load}.",
        "",
        "| page | requests | failures | req/s | median ms | p95 ms | p99 ms | max ms |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in sorted(rows, key=lambda row: (row["Name"] == "Aggregated", row["Name"])):
        name = "**all pages**" if row["Name"] == "Aggregated" else row["Name"]
        lines.append(
            f"| {name} | {row['Request Count']} | {row['Failure Count']} | {float(row['Requests/s']):.1f} | "
            f"{row['50%']} | {row['95%']} | {row['99%']} | {float(row['Max Response Time']):.0f} |"
        )
    lines += ["", f"Full recomputes of `{CATEGORY}` in the job worker during the test:", ""]
    for run_id, status, started_at, finished_at, seconds, matches in recomputes:
        lines.append(f"- run {run_id}: {status}, {started_at} to {finished_at} ({seconds} s, {matches} matches)")
    failed = out / "locust_failures.csv"
    if failures and failed.exists():
        lines += ["", "Failures:", ""] + [f"- {row}" for row in stats_rows(failed)]
    return "\n".join(lines) + "\n", failures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", default="postgres://postgres@127.0.0.1:5432/ratings_load")
    parser.add_argument("--users", type=int, default=50)
    parser.add_argument("--seconds", type=int, default=60)
    parser.add_argument("--spawn-rate", type=int, default=10)
    parser.add_argument("--players", type=int, default=100_000)
    parser.add_argument("--events", type=int, default=7000)
    parser.add_argument("--port", type=int, default=8001)
    parser.add_argument("--web-workers", type=int, default=None, help="gunicorn processes (default: its config)")
    parser.add_argument("--no-recompute", action="store_true", help="no recompute during the test")
    parser.add_argument(
        "--api-users", type=int, default=0, help="programs reading the JSON API beside the users (locustfile.ApiClient)"
    )
    parser.add_argument("--out", type=Path, default=RESULTS / "loadtest")
    args = parser.parse_args()
    out = args.out.resolve()
    out.mkdir(parents=True, exist_ok=True)

    database_ensure(args.database_url)
    extra = {"JOB_WORKERS": "1", "MIGRATE": "0", "DJANGO_STATIC_ROOT": str(out / "static"),
             "GUNICORN_ACCESS_LOG": str(out / "access.log")}  # fmt: skip
    if args.web_workers:
        extra["WEB_CONCURRENCY"] = str(args.web_workers)
    env = production_env(args.database_url, args.port, **extra)
    say("migrating")
    manage("migrate", "--noinput", "-v0", env=env)
    players = int(psql(args.database_url, "SELECT count(*) FROM players_player"))
    if players == 0:
        say(f"loading a world of {args.players:,} players ({args.events:,} events): a few minutes, once")
        manage("seed_demo", "--players", str(args.players), "--events", str(args.events), env=env)
        players = int(psql(args.database_url, "SELECT count(*) FROM players_player"))
    matches = psql(args.database_url, "SELECT count(*) FROM events_match")
    say(f"world: {players:,} players, {int(matches):,} matches")

    load = machine()
    with production_server(env, out / "server.log") as (_, base):
        say(f"server up at {base}")
        recomputes = Recomputes(env, args.database_url)
        if not args.no_recompute:
            first = recomputes.queue()
            wait_for(lambda: run_status(args.database_url, first) in ("running", "done"), "the recompute to start")
            recomputes.start()
            say(f"full recompute of {CATEGORY} running (run {first}); starting {args.users} users")
        sample = out / "sample.json"  # what the users visit, read before the clock starts
        sample.write_text(json.dumps(world_sample(base)))
        started = now()
        # The user classes named: a class not named (ApiClient without --api-users) takes no users.
        classes = ["Visitor", *(["ApiClient"] if args.api_users else [])]
        locust = subprocess.run(
            [str(VENV_BIN / "locust"), "-f", "scripts/locustfile.py", "--headless",
             "-u", str(args.users + args.api_users), "-r", str(args.spawn_rate), "-t", f"{args.seconds}s",
             "--host", base, "--csv", str(out / "locust"), "--only-summary", "--stop-timeout", "10", *classes],
            cwd=ROOT,
            env={**os.environ, "LOAD_SAMPLE": str(sample), "LOAD_API_USERS": str(args.api_users)},
        )  # fmt: skip
        say(f"locust exited with {locust.returncode}")
        if not args.no_recompute:
            recomputes.stop.set()
            say("waiting for the last recompute to finish")
            recomputes.join(timeout=900)
    runs = []
    for run_id in recomputes.runs:
        row = psql(
            args.database_url,
            "SELECT status, to_char(started_at, 'HH24:MI:SS'), to_char(finished_at, 'HH24:MI:SS'),"
            " round(extract(epoch FROM finished_at - started_at)::numeric, 1), matches_rated"
            f" FROM ratings_recomputerun WHERE id = {run_id}",
        )
        runs.append((run_id, *row.split("|")))
    text, failures = summary(out, args, started, load, runs)
    (out / "summary.md").write_text(text)
    print(text)
    errors_logged = (out / "server.log").read_text(errors="replace").count("Traceback")
    say(f"server log: {errors_logged} tracebacks; results in {out}")
    return 1 if failures or errors_logged or locust.returncode else 0


if __name__ == "__main__":
    raise SystemExit(main())
