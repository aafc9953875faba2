#!/usr/bin/env python3
"""Kill a job worker in the middle of a full recompute at scale, and run two jobs of one list at once.

    .venv/bin/python scripts/fault_worker_kill.py [--database-url postgres://postgres@127.0.0.1:5432/ratings_load]
        [--category constructed] [--kill-after 10]

On the load test's world (scripts/loadtest.py loads it; about 1,000,000 matches):

1. A worker starts a full recompute; --kill-after seconds into it the worker gets SIGKILL. The
   published history must be the one from before (same digest), the run is left "running".
2. A new worker starts: it finds the stale run (nobody holds its category's lock), queues it again
   and carries it out. The history must then equal a clean full recompute (`recompute_ratings`).
3. Two workers, two full recomputes of the same list queued one after the other: the second waits
   for the first (it starts after the first has finished), never beside it.

Exits 1 when a check fails. tests/ratings/test_reliability_jobs.py checks the same on a small world in
every PostgreSQL test run; this is the same at the size of the load test. Figures in docs/reliability.md.
"""

import argparse
import os
import signal
import subprocess
import time

from ops import (
    PY,
    RESULTS,
    ROOT,
    command_line,
    history_fingerprint,
    machine,
    manage,
    now,
    psql,
    recompute_queue,
    run_status,
    say,
    wait_for,
)


def worker(env: dict, name: str, log) -> subprocess.Popen:
    return subprocess.Popen(
        [PY, "manage.py", "db_worker", "--no-reload", "--no-startup-delay", "--interval", "0.5", "--worker-id", name],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip


def stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=600)


def run_times(database_url: str, run_id: int) -> tuple[str, str, str]:
    row = psql(
        database_url,
        "SELECT status, to_char(started_at, 'YYYY-MM-DD HH24:MI:SS.MS'),"
        f" to_char(finished_at, 'YYYY-MM-DD HH24:MI:SS.MS') FROM ratings_recomputerun WHERE id = {run_id}",
    )
    return tuple(row.split("|"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", default="postgres://postgres@127.0.0.1:5432/ratings_load")
    parser.add_argument("--category", default="constructed")
    parser.add_argument("--kill-after", type=float, default=10.0, help="seconds into the recompute")
    args = parser.parse_args()
    url = args.database_url
    env = {**os.environ, "DATABASE_URL": url, "DJANGO_DEBUG": "0", "DJANGO_SECRET_KEY": "fault-test-only",
           "DJANGO_ALLOWED_HOSTS": "127.0.0.1"}  # fmt: skip
    if psql(url, "SELECT count(*) FROM players_player") == "0":
        raise SystemExit(f"no world in {url}: run make loadtest (or scripts/loadtest.py) first")
    log = RESULTS / "fault-worker-kill.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    checks = {}
    load, started = machine(), now()
    with log.open("w") as handle:
        say(f"1. {args.category}: digest of the published history")
        before = history_fingerprint(url, args.category)
        first = worker(env, "fault-first", handle)
        run = recompute_queue(env, args.category, "fault test: worker killed mid-recompute")
        wait_for(lambda: run_status(url, run) == "running", "the recompute to start")
        time.sleep(args.kill_after)
        still = run_status(url, run)
        first.kill()  # SIGKILL
        first.wait()
        killed_at = time.monotonic()
        say(f"   worker killed {args.kill_after:.0f} s into run {run} (status then: {still})")
        checks["the run was still running when the worker was killed"] = still == "running"
        during = history_fingerprint(url, args.category)
        checks["the published history is the one from before"] = during == before
        checks["the killed worker's run is left running"] = run_status(url, run) == "running"

        say("2. a new worker")
        second = worker(env, "fault-second", handle)
        final = wait_for(lambda: (status := run_status(url, run)) in ("done", "failed") and status, "the run", 1800)
        recovered_in = time.monotonic() - killed_at
        stop(second)
        note = psql(url, f"SELECT error FROM ratings_recomputerun WHERE id = {run}")
        checks["the new worker carried the run out"] = final == "done"
        after = history_fingerprint(url, args.category)
        say("   clean full recompute for comparison")
        manage("recompute_ratings", "--category", args.category, env=env, capture=True)
        clean = history_fingerprint(url, args.category)
        checks["the recovered history equals a clean full recompute"] = after == clean

        say("3. two jobs of one list, two workers")
        workers = [worker(env, f"fault-pair-{number}", handle) for number in (1, 2)]
        one = recompute_queue(env, args.category, "fault test: first of two")
        wait_for(lambda: run_status(url, one) == "running", "the first to start")
        two = recompute_queue(env, args.category, "fault test: second of two")
        waited = run_status(url, two)
        wait_for(lambda: run_status(url, two) in ("done", "failed"), "the second", 1800)
        for each in workers:
            stop(each)
        first_times, second_times = run_times(url, one), run_times(url, two)
        checks["the second job waited while the first ran"] = waited == "queued"
        checks["the second started after the first had finished"] = second_times[1] >= first_times[2]
        checks["both were done"] = first_times[0] == second_times[0] == "done"

    lines = [
        f"# Worker killed mid-recompute, {started}",
        "",
        f"Command: `{command_line()}`. Machine: {load}.",
        f"History of `{args.category}`: {before}.",
        f"Killed {args.kill_after:.0f} s into run {run}; the new worker finished it {recovered_in:.0f} s after the"
        f" kill (startup, recovery and a whole recompute). Its note: {note}",
        f"Two jobs: first {first_times[1]} to {first_times[2]}; second {second_times[1]} to {second_times[2]}.",
        "",
        *[f"- [{'x' if ok else ' '}] {check}" for check, ok in checks.items()],
    ]
    print("\n".join(lines))
    return 0 if all(checks.values()) else 1


if __name__ == "__main__":
    raise SystemExit(main())
