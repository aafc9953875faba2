#!/usr/bin/env python3
"""Two "machines" on one PostgreSQL and one Redis: both serve, their four job workers share the work,
and no list is ever recomputed by two workers at once.

    .venv/bin/python scripts/scale_out_check.py [--database-url postgres://postgres@127.0.0.1:5432/ratings_scale]

Two copies of scripts/serve_prod.sh (ports 8011 and 8012, two job workers each, the same
environment but for the port) stand for two machines; a Redis server of its own (port 6391, nothing
saved) is their shared cache. Then: every page checked on both answers 200; every list's recompute
is queued three times over; when all runs are done, the runs of each list never overlapped in time
(runs claimed together share one execution), and which machine carried out which job is listed.
The world is seed_demo's default (3,000 players) when the database is empty. Exits 1 when a check fails.
"""

import argparse
import json
import shutil
import subprocess
from contextlib import ExitStack
from pathlib import Path

from ops import (
    RESULTS,
    command_line,
    database_ensure,
    machine,
    manage,
    now,
    production_env,
    production_server,
    psql,
    say,
    url_status,
    wait_for,
)

PAGES = ["/", "/rankings/constructed/", "/rankings/constructed/?country=DE", "/players/", "/events/", "/healthz"]
REDIS_PORT = 6391


def overlapping(intervals: list[tuple[str, str]]) -> list[tuple]:
    executions = sorted(set(intervals))  # runs claimed together share their start and end
    return [(a, b) for a, b in zip(executions, executions[1:], strict=False) if b[0] < a[1]]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", default="postgres://postgres@127.0.0.1:5432/ratings_scale")
    parser.add_argument("--out", type=Path, default=RESULTS / "scale-out")
    args = parser.parse_args()
    out = args.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    url = args.database_url
    database_ensure(url)
    checks = {}
    with ExitStack() as stack:
        cache = {}
        if shutil.which("redis-server"):
            redis = subprocess.Popen(
                ["redis-server", "--port", str(REDIS_PORT), "--save", "", "--appendonly", "no"],
                stdout=(out / "redis.log").open("w"), stderr=subprocess.STDOUT,
            )  # fmt: skip
            stack.callback(lambda: (redis.terminate(), redis.wait()))
            cache = {
                "CACHE_BACKEND": "django.core.cache.backends.redis.RedisCache",
                "CACHE_LOCATION": f"redis://127.0.0.1:{REDIS_PORT}/0",
                "CACHE_KEY_PREFIX": "scale-check",
            }
        else:
            say("no redis-server: each process keeps its own cache")
        envs = [
            production_env(url, port, JOB_WORKERS="2", MIGRATE="0", DJANGO_STATIC_ROOT=str(out / "static"),
                           GUNICORN_ACCESS_LOG=str(out / f"access-{port}.log"), WEB_CONCURRENCY="2", **cache)
            for port in (8011, 8012)
        ]  # fmt: skip
        manage("migrate", "--noinput", "-v0", env=envs[0])
        if psql(url, "SELECT count(*) FROM players_player") == "0":
            say("loading the demo world")
            manage("seed_demo", env=envs[0])
        load, started = machine(), now()
        bases = []
        for env in envs:
            server, base = stack.enter_context(production_server(env, out / f"server-{env['GUNICORN_BIND'][-4:]}.log"))
            bases.append(base)
        say(f"two machines up: {', '.join(bases)}")
        answers = {f"{base}{page}": url_status(base + page, timeout=60) for base in bases for page in PAGES}
        checks["every page answers 200 on both machines"] = set(answers.values()) == {200}
        if cache:
            keys = subprocess.run(
                ["redis-cli", "-p", str(REDIS_PORT), "--scan", "--pattern", "scale-check:*"],
                capture_output=True, text=True,
            ).stdout.split()  # fmt: skip
            checks["the machines share the Redis cache (entries written there)"] = len(keys) > 0

        first = int(psql(url, "SELECT coalesce(max(id), 0) FROM ratings_recomputerun"))
        for _ in range(3):
            manage("recompute_enqueue", "--reason", "scale-out check", env=envs[0], capture=True)
        runs_sql = f"FROM ratings_recomputerun WHERE id > {first}"
        wait_for(lambda: psql(url, f"SELECT count(*) {runs_sql} AND status IN ('queued', 'running')") == "0",
                 "every run to be done", timeout=1800, every=1)  # fmt: skip
        rows = [
            row.split("|")
            for row in psql(
                url,
                "SELECT c.slug, r.status, r.started_at, r.finished_at, r.error = '' FROM ratings_recomputerun r"
                f" JOIN ratings_category c ON c.id = r.category_id WHERE r.id > {first} ORDER BY r.id",
            ).splitlines()
        ]
        checks["every run is done"] = all(row[1] == "done" for row in rows)
        checks["no run was retried (no deadlock, no lost connection)"] = all(row[4] == "t" for row in rows)
        by_list = {}
        for slug, _, started_at, finished_at, _ in rows:
            by_list.setdefault(slug, []).append((started_at, finished_at))
        overlaps = {slug: overlapping(intervals) for slug, intervals in by_list.items()}
        checks["no list was recomputed by two workers at once"] = not any(overlaps.values())
        jobs = psql(
            url,
            "SELECT worker_ids FROM django_tasks_database_dbtaskresult"
            " WHERE task_path = 'ratings.tasks.recompute_task' AND status = 'SUCCESSFUL'",
        ).splitlines()
        workers = {}
        for ids in jobs:
            for worker in json.loads(ids):
                instance = worker.rsplit("-", 1)[0]
                workers[instance] = workers.get(instance, 0) + 1

    lines = [
        f"# Two machines, one PostgreSQL, {started}",
        "",
        f"Command: `{command_line()}`. Machine: {load}.",
        f"Runs queued: {len(rows)} ({len(by_list)} lists x 3); executions per list (runs merged when claimed "
        "together): " + ", ".join(f"{slug} {len(set(intervals))}" for slug, intervals in sorted(by_list.items())),
        "Jobs carried out per machine (serve_prod instance): "
        + ", ".join(f"{name}: {count}" for name, count in sorted(workers.items())),
        "",
        *[f"- [{'x' if ok else ' '}] {check}" for check, ok in checks.items()],
    ]
    print("\n".join(lines))
    return 0 if all(checks.values()) else 1


if __name__ == "__main__":
    raise SystemExit(main())
