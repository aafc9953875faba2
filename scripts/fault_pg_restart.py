#!/usr/bin/env python3
"""Restart PostgreSQL while the site is under load and a recompute runs: the site and the job worker
must come back by themselves, and the interrupted recompute must be carried out.

    .venv/bin/python scripts/fault_pg_restart.py [--users 20] [--seconds 60] [--players 20000] [--events 1500]
    .venv/bin/python scripts/fault_pg_restart.py --database-url postgres://... \
        --restart-command "pg_ctlcluster 15 main restart"

By default it runs its own PostgreSQL cluster (initdb into --cluster-dir, port 5499), so that
restarting it disturbs nobody else on the machine; with --database-url and --restart-command it
restarts a real one instead. Steps: load a demo world (once), start scripts/serve_prod.sh (gunicorn,
DEBUG off, one job worker), run locust (scripts/locustfile.py); 15 s in, queue a full recompute of
`constructed`, wait until it runs, restart PostgreSQL; when locust ends, report the failed requests
second by second around the restart, and check that /healthz answers, that requests succeeded again
after the restart, and that the recompute was retried and done, with nothing restarted by hand.
Exits 1 when a check fails. Figures in docs/reliability.md.
"""

import argparse
import csv
import shlex
import subprocess
import threading
import time
from pathlib import Path

from ops import (
    RESULTS,
    ROOT,
    VENV_BIN,
    as_postgres,
    cluster_init,
    command_line,
    database_ensure,
    machine,
    manage,
    now,
    pg_bin,
    pg_ctl,
    production_env,
    production_server,
    psql,
    recompute_queue,
    run_status,
    say,
    url_status,
    wait_for,
)

PORT = 5499
RECOVERED_WITHIN = 30  # seconds after the restart by which requests must succeed again


def private_cluster(directory: Path) -> tuple[str, str]:
    """Start (creating it the first time) a cluster of our own; its URL and the command that restarts it."""
    data = directory / "data"
    cluster_init(data)
    options, log = f"-p {PORT} -k {directory}", directory / "server.log"
    if pg_ctl(data, "status", check=False) != 0:
        pg_ctl(data, "-o", options, "-l", log, "-w", "start")
    restart = as_postgres(pg_bin() / "pg_ctl", "-D", data, "-o", options, "-l", log, "-m", "fast", "-w", "restart")
    restart = shlex.join(restart)
    return f"postgres://postgres@127.0.0.1:{PORT}/ratings_fault", restart


def failures_by_second(history: Path) -> list[tuple[float, int, int]]:
    """(unix time, requests, failures) per second, from locust's full history (cumulative counts)."""
    rows = []
    previous_requests = previous_failures = 0
    with history.open(newline="") as handle:
        for row in csv.DictReader(handle):
            if row["Name"] != "Aggregated":
                continue
            requests, failures = int(row["Total Request Count"]), int(row["Total Failure Count"])
            rows.append((float(row["Timestamp"]), requests - previous_requests, failures - previous_failures))
            previous_requests, previous_failures = requests, failures
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", help="a real database (default: a private cluster)")
    parser.add_argument("--restart-command", help='e.g. "pg_ctlcluster 15 main restart" (with --database-url)')
    parser.add_argument("--cluster-dir", type=Path, default=Path("/tmp/ratings-fault-pg"))
    parser.add_argument("--users", type=int, default=20)
    parser.add_argument("--seconds", type=int, default=60)
    parser.add_argument("--players", type=int, default=20_000)
    parser.add_argument("--events", type=int, default=1500)
    parser.add_argument("--port", type=int, default=8002)
    parser.add_argument("--out", type=Path, default=RESULTS / "fault-pg-restart")
    args = parser.parse_args()
    if bool(args.database_url) != bool(args.restart_command):
        parser.error("--database-url and --restart-command go together")
    out = args.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    if args.database_url:
        database_url, restart = args.database_url, args.restart_command
    else:
        database_url, restart = private_cluster(args.cluster_dir)
    database_ensure(database_url)
    env = production_env(
        database_url, args.port, JOB_WORKERS="1", MIGRATE="0", DJANGO_STATIC_ROOT=str(out / "static"),
        GUNICORN_ACCESS_LOG=str(out / "access.log"), RECOMPUTE_RETRY_SECONDS="5",
    )  # fmt: skip
    manage("migrate", "--noinput", "-v0", env=env)
    if psql(database_url, "SELECT count(*) FROM players_player") == "0":
        say(f"loading a world of {args.players:,} players")
        manage("seed_demo", "--players", str(args.players), "--events", str(args.events), env=env)

    load, started = machine(), now()
    restart_at = {}
    run = {}
    with production_server(env, out / "server.log") as (_, base):
        say(f"server up at {base}; {args.users} users for {args.seconds} s")

        def fault():
            time.sleep(15)
            run["id"] = recompute_queue(env, "constructed", "fault test: full recompute during a database restart")
            wait_for(lambda: run_status(database_url, run["id"]) in ("running", "done"), "the recompute to start")
            run["status_before"] = run_status(database_url, run["id"])
            say(f"recompute {run['id']} {run['status_before']}; restarting PostgreSQL: {restart}")
            restart_at["start"] = time.time()
            # Output to a file, not a pipe: a restarted server keeps what it inherits open.
            with (out / "restart.log").open("w") as restart_log:
                result = subprocess.run(restart, shell=True, stdout=restart_log, stderr=subprocess.STDOUT)
            restart_at["end"] = time.time()
            say(f"PostgreSQL restarted in {restart_at['end'] - restart_at['start']:.1f} s (exit {result.returncode})")

        thread = threading.Thread(target=fault, daemon=True)
        thread.start()
        locust = subprocess.run(
            [str(VENV_BIN / "locust"), "-f", "scripts/locustfile.py", "--headless", "-u", str(args.users), "-r", "10",
             "-t", f"{args.seconds}s", "--host", base, "--csv", str(out / "locust"), "--csv-full-history",
             "--only-summary", "--stop-timeout", "10"],
            cwd=ROOT,
        )  # fmt: skip
        thread.join(timeout=120)
        health = url_status(base + "/healthz")
        say("waiting for the recompute to be done")
        final = wait_for(
            lambda: (status := run_status(database_url, run["id"])) in ("done", "failed") and status,
            "the interrupted recompute to be carried out",
            timeout=600,
        )
        note = psql(database_url, f"SELECT error FROM ratings_recomputerun WHERE id = {run['id']}")
        server_alive = url_status(base + "/healthz") == 200

    seconds = failures_by_second(out / "locust_stats_history.csv")
    failed = [(at, failures) for at, _, failures in seconds if failures]
    after = [(at, requests, failures) for at, requests, failures in seconds if at > restart_at["end"] + 1]
    recovered = next((at for at, requests, failures in after if requests and not failures), None)
    late_failures = sum(failures for at, _, failures in after if at > restart_at["end"] + RECOVERED_WITHIN)
    total = sum(requests for _, requests, _ in seconds)
    checks = {
        "requests succeed again after the restart": recovered is not None,
        f"no failed request later than {RECOVERED_WITHIN} s after the restart": late_failures == 0,
        "/healthz answers 200 after the restart": health == 200,
        "the interrupted recompute was carried out (done)": final == "done",
        "the server and its job worker were never restarted by hand": server_alive,
    }
    lines = [
        f"# PostgreSQL restart under load, {started}",
        "",
        f"Command: `{command_line()}`; {args.users} users, {args.seconds} s. Machine: {load}.",
        f"Restart: `{restart}` took {restart_at['end'] - restart_at['start']:.1f} s.",
        f"Requests: {total}; failed: {sum(f for _, f in failed)}, in the seconds "
        + (", ".join(f"{at - restart_at['start']:+.0f} s ({n})" for at, n in failed) or "none")
        + " (relative to the restart).",
        "First second with requests and no failure after the restart: "
        + (f"{recovered - restart_at['end']:+.0f} s" if recovered else "none"),
        f"Recompute run {run['id']}: {run['status_before']} when PostgreSQL restarted, then {final}; "
        f"its note: {note or '(none)'}",
        "",
        *[f"- [{'x' if ok else ' '}] {check}" for check, ok in checks.items()],
    ]
    text = "\n".join(lines) + "\n"
    (out / "summary.md").write_text(text)
    print(text)
    say(f"locust exited with {locust.returncode} (failures during the restart are expected); results in {out}")
    return 0 if all(checks.values()) else 1


if __name__ == "__main__":
    raise SystemExit(main())
