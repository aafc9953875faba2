#!/usr/bin/env python3
"""Reads from a hot standby under load, on this machine (make scale-check): the standby serves the pages,
a correction reaches it at once, and killing it costs no request.

    .venv/bin/python scripts/scale_check.py [--users 50] [--seconds 60] [--players 100000] [--events 7000]

What it starts, all on this machine and all stopped at the end:
- a primary PostgreSQL cluster of its own (initdb into --cluster-dir, port 5496), into which the load
  test's world is loaded the first time (seed_demo: a few minutes) and kept for the next runs;
- a hot standby of it, made afresh each run with `pg_basebackup -R` (port 5497, hot_standby_feedback on);
- Redis (port 6393, nothing saved): the cache both servers share;
- two servers (scripts/serve_prod.sh: gunicorn, DEBUG off, one job worker each; ports 8031 and 8032)
  whose public pages read the standby (DATABASE_REPLICA_URLS);
- nginx in front of both on port 8030 (Debian's package, installed with apt when missing).
Then, through nginx, the load test (locust, scripts/locustfile.py; each user with an address of its own, as
a load balancer in front would pass it on) while a full recompute of every list runs in the job workers;
5 s in, a match of `limited` is corrected (the correction service, as an admin's form does), and the
moments its recompute is published on the primary and shown by the standby are taken by polling both;
halfway, or once the standby shows the correction if that comes later, the standby is killed
(`pg_ctl stop -m immediate`), and the load test goes on to its end.

It prints the requests served, the errors (locust's failures, 5xx answers in the access logs, tracebacks in
the servers' logs), the share of page reads the standby served before it was killed (the access logs say
where each request read: lib/replicas.py), and the seconds from the correction's publication on the
primary to its visibility on the standby. The last line carries those figures. Exits 1 when a request
failed, the standby served 90 % of the page reads or fewer, or the correction was not seen on it.
Figures in docs/deployment.md ("Reads from standbys").
"""

import argparse
import contextlib
import csv
import json
import os
import shutil
import subprocess
import threading
import time
from contextlib import ExitStack
from datetime import datetime
from pathlib import Path

import psycopg
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
    say,
    url_status,
    url_text,
    wait_for,
)
from world_sample import world_sample

PRIMARY_PORT, STANDBY_PORT, REDIS_PORT = 5496, 5497, 6393
PROXY_PORT, SERVER_PORTS = 8030, (8031, 8032)
DATABASE = "ratings_scale"
CORRECTED = "limited"  # the list a match is corrected in while every list is recomputed
SHARE_NEEDED = 90.0  # % of the page reads the standby must serve while it runs
# gunicorn's access log: when, what, the answer, and where its reads went (lib/replicas.READS_ENVIRON_KEY)
ACCESS_FORMAT = "%(t)s|%(m)s|%(U)s|%(s)s|%({ratings.reads}e)s"

# The most recent decisive match of a rated `limited` event: the one the check corrects (id, participant 1, date).
MATCH_SQL = f"""
SELECT m.id, m.participant1_id, e.date FROM events_match m JOIN events_event e ON e.id = m.event_id
WHERE e.format = ANY(string_to_array((SELECT formats FROM ratings_category WHERE slug = '{CORRECTED}'), ' '))
  AND e.status = 'rated' AND m.participant2_id IS NOT NULL AND m.draws = 0 AND NOT m.elimination
  AND m.games1 <> m.games2
ORDER BY e.date DESC, m.id DESC LIMIT 1
"""
# Run by manage.py shell with the match's id: its result the other way round, through the correction
# service (an admin's correction form calls the same).
CORRECTION = """
from corrections.services import Result, match_correct
from events.models import Match
match = Match.objects.get(pk={match})
match_correct(match=match, result=Result(match.games2, match.games1), by=None,
              reason="scale check: a result reported the wrong way round")
"""


def score_sql(match: tuple[int, int], *, committed: bool) -> str:
    """Participant 1's score in the corrected match's history row (it changes when the correction is
    published), and with `committed` when the row's transaction committed (the primary tracks it)."""
    match_id, participant = match
    return (
        f"SELECT score::text, {'pg_xact_commit_timestamp(xmin)' if committed else 'NULL'} FROM ratings_ratingentry"
        f" WHERE category_id = (SELECT id FROM ratings_category WHERE slug = '{CORRECTED}')"
        f" AND participant_id = {int(participant)} AND match_id = {int(match_id)}"
    )


def cluster(data: Path, port: int, *settings: str) -> list[str]:
    """pg_ctl's options for a cluster of ours: its port, its socket beside its data (pg_basebackup would
    find it inside), `-c` settings, its log in its data."""
    options = " ".join([f"-p {port}", f"-k {data.parent}", *(f"-c {setting}" for setting in settings)])
    return ["-o", options, "-l", str(data / "server.log")]


def primary_start(directory: Path) -> str:
    """Start (creating it the first time) the primary; its URL. initdb lets local replication in (trust)."""
    data = directory / "primary"
    cluster_init(data)
    if pg_ctl(data, "status", check=False) != 0:
        pg_ctl(
            data,
            *cluster(data, PRIMARY_PORT, "max_wal_senders=4", "shared_buffers=512MB", "track_commit_timestamp=on"),
            "-w",
            "start",
        )
    return f"postgres://postgres@127.0.0.1:{PRIMARY_PORT}/{DATABASE}"


def standby_start(directory: Path) -> tuple[str, Path]:
    """A fresh hot standby of the primary: copied with pg_basebackup (-R: it follows the primary), started."""
    data = directory / "standby"
    if (data / "PG_VERSION").exists():
        pg_ctl(data, "-m", "immediate", "stop", check=False)
        shutil.rmtree(data)
    say("copying the primary into a standby (pg_basebackup)")
    subprocess.run(as_postgres(pg_bin() / "pg_basebackup", "-h", "127.0.0.1", "-p", PRIMARY_PORT, "-U", "postgres",
                               "-D", data, "-R", "-X", "stream", "-c", "fast"), check=True)  # fmt: skip
    pg_ctl(data, *cluster(data, STANDBY_PORT, "hot_standby=on", "hot_standby_feedback=on"), "-w", "start")
    return f"postgres://postgres@127.0.0.1:{STANDBY_PORT}/{DATABASE}", data


def nginx_start(out: Path, stack: ExitStack) -> str:
    """nginx on PROXY_PORT, passing every request to one of the two servers in turn."""
    if not shutil.which("nginx"):
        if os.geteuid() != 0 or not shutil.which("apt-get"):
            raise SystemExit("nginx is missing: apt-get install nginx")
        say("installing nginx (apt)")
        subprocess.run(["apt-get", "update", "-qq"], check=True)
        subprocess.run(["apt-get", "install", "-y", "-qq", "nginx"], check=True, stdout=subprocess.DEVNULL,
                       env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"})  # fmt: skip
        subprocess.run(["systemctl", "disable", "--now", "nginx"], check=False, capture_output=True)
    prefix = out / "nginx"
    prefix.mkdir(exist_ok=True)
    prefix.chmod(0o777)  # its workers run as nobody when we are root: they write their temporary files here
    servers = "\n".join(f"    server 127.0.0.1:{port};" for port in SERVER_PORTS)
    (prefix / "nginx.conf").write_text(f"""daemon off;
worker_processes 1;
pid {prefix}/nginx.pid;
error_log {prefix}/error.log warn;
events {{ worker_connections 1024; }}
http {{
  access_log off;
  client_body_temp_path {prefix}/body; proxy_temp_path {prefix}/proxy;
  fastcgi_temp_path {prefix}/fastcgi; uwsgi_temp_path {prefix}/uwsgi; scgi_temp_path {prefix}/scgi;
  upstream ratings {{
{servers}
  }}
  server {{
    listen 127.0.0.1:{PROXY_PORT};
    location / {{
      proxy_pass http://ratings;
      proxy_set_header Host $host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_set_header X-Forwarded-Proto $scheme;
    }}
  }}
}}
""")
    proxy = subprocess.Popen(["nginx", "-p", str(prefix), "-c", str(prefix / "nginx.conf")],
                             stdout=(out / "nginx.log").open("w"), stderr=subprocess.STDOUT)  # fmt: skip
    stack.callback(lambda: (proxy.terminate(), proxy.wait()))
    base = f"http://127.0.0.1:{PROXY_PORT}"
    wait_for(lambda: url_status(base + "/healthz") == 200, "nginx to answer", timeout=60)
    return base


def redis_start(out: Path, stack: ExitStack) -> dict:
    if not shutil.which("redis-server"):
        raise SystemExit("redis-server is missing: apt-get install redis-server")
    redis = subprocess.Popen(["redis-server", "--port", str(REDIS_PORT), "--save", "", "--appendonly", "no"],
                             stdout=(out / "redis.log").open("w"), stderr=subprocess.STDOUT)  # fmt: skip
    stack.callback(lambda: (redis.terminate(), redis.wait()))
    return {
        "CACHE_BACKEND": "django.core.cache.backends.redis.RedisCache",
        "CACHE_LOCATION": f"redis://127.0.0.1:{REDIS_PORT}/0",
        "CACHE_KEY_PREFIX": "scale-check",
    }


class ScoreWatch(threading.Thread):
    """Polls a database for the corrected match's history row until its score differs from `before`: when
    it was first seen, and (on the primary, which tracks commit timestamps) when its transaction committed."""

    def __init__(self, database_url: str, match: tuple[int, int], before: str, *, primary: bool):
        super().__init__(daemon=True)
        self.database_url, self.before = database_url, before
        self.sql = score_sql(match, committed=primary)
        self.seen_at: float | None = None
        self.committed_at: float | None = None
        self.stop = threading.Event()

    def run(self):
        with contextlib.suppress(psycopg.Error), psycopg.connect(self.database_url, autocommit=True) as connection:
            while not self.stop.is_set():
                score, at = connection.execute(self.sql).fetchone()
                if score != self.before:
                    self.seen_at = time.time()
                    self.committed_at = at and at.timestamp()
                    return
                time.sleep(0.002)


def access_log_reads(paths: list[Path], before: float) -> tuple[dict[str, int], int]:
    """Where the page requests answered before `before` read (standby or primary), and the 5xx of all."""
    reads: dict[str, int] = {}
    server_errors = 0
    for path in paths:
        for line in path.read_text(errors="replace").splitlines():
            parts = line.split("|")
            if len(parts) != 5:
                continue
            stamp, _, _, status, where = parts
            server_errors += status.startswith("5")
            at = datetime.strptime(stamp, "[%d/%b/%Y:%H:%M:%S %z]").timestamp()
            if where != "-" and at < int(before):  # whole seconds before the kill; healthz has no reads
                reads[where] = reads.get(where, 0) + 1
    return reads, server_errors


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cluster-dir", type=Path, default=Path("/tmp/ratings-scale-pg"))
    parser.add_argument("--users", type=int, default=50)
    parser.add_argument("--seconds", type=int, default=60)
    parser.add_argument("--players", type=int, default=100_000)
    parser.add_argument("--events", type=int, default=7000)
    parser.add_argument("--correct-after", type=float, default=10, help="seconds into the load test")
    parser.add_argument("--out", type=Path, default=RESULTS / "scale-check")
    args = parser.parse_args()
    out = args.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    for log in out.glob("access-*.log"):  # gunicorn appends: this run's requests only
        log.unlink()
    directory = args.cluster_dir.resolve()

    primary = primary_start(directory)
    database_ensure(primary)
    setup = production_env(primary, SERVER_PORTS[0], MIGRATE="0")
    manage("migrate", "--noinput", "-v0", env=setup)
    if psql(primary, "SELECT count(*) FROM players_player") == "0":
        say(f"loading a world of {args.players:,} players ({args.events:,} events) into the primary: once")
        manage("seed_demo", "--players", str(args.players), "--events", str(args.events), env=setup)
    matches = int(psql(primary, "SELECT count(*) FROM events_match"))
    standby, standby_data = standby_start(directory)
    lag = wait_for(lambda: psql(standby, "SELECT 'replaying' WHERE pg_is_in_recovery()"), "the standby to replay")
    say(f"primary :{PRIMARY_PORT} and standby :{STANDBY_PORT} ({lag}); {matches:,} matches")

    checks, figures = {}, {}
    with ExitStack() as stack:
        stack.callback(lambda: pg_ctl(standby_data, "-m", "immediate", "stop", check=False))
        stack.callback(lambda: pg_ctl(directory / "primary", "-m", "fast", "stop", check=False))
        cache = redis_start(out, stack)
        # Two proxies: the load test's users come as through a load balancer (their addresses), then nginx.
        envs = [
            production_env(primary, port, JOB_WORKERS="1", MIGRATE="0", WEB_CONCURRENCY="2",
                           DATABASE_REPLICA_URLS=standby, DJANGO_STATIC_ROOT=str(out / "static"),
                           GUNICORN_ACCESS_LOG=str(out / f"access-{port}.log"),
                           GUNICORN_ACCESS_LOG_FORMAT=ACCESS_FORMAT, TRUSTED_PROXY_COUNT="2", **cache)
            for port in SERVER_PORTS
        ]  # fmt: skip
        for env in envs:
            stack.enter_context(production_server(env, out / f"server-{env['GUNICORN_BIND'][-4:]}.log"))
        base = nginx_start(out, stack)
        health = url_text(base + "/healthz")
        say(f"two servers behind nginx at {base}; /healthz: {' / '.join(health.splitlines())}")
        checks["/healthz through nginx reads the standby"] = "standby standby_0: lag" in health
        sample = out / "sample.json"
        sample.write_text(json.dumps(world_sample(base)))

        first_run = int(psql(primary, "SELECT coalesce(max(id), 0) FROM ratings_recomputerun"))
        manage("recompute_enqueue", "--reason", "scale check: every list under load", env=envs[0], capture=True)
        wait_for(lambda: psql(primary, f"SELECT 1 FROM ratings_recomputerun WHERE id > {first_run}"
                                       " AND status = 'running' LIMIT 1"), "a recompute to start")  # fmt: skip
        load, started = machine(), now()
        say(f"a full recompute of every list running; {args.users} users for {args.seconds} s through nginx")
        begun = time.monotonic()
        locust = subprocess.Popen(
            [str(VENV_BIN / "locust"), "-f", "scripts/locustfile.py", "--headless", "-u", str(args.users), "-r", "10",
             "-t", f"{args.seconds}s", "--host", base, "--csv", str(out / "locust"), "--only-summary",
             "--stop-timeout", "10"],
            cwd=ROOT, env={**os.environ, "LOAD_SAMPLE": str(sample), "LOAD_CLIENT_ADDRESSES": "1"},
        )  # fmt: skip
        stack.callback(lambda: locust.poll() is None and (locust.terminate(), locust.wait()))  # first, on an error
        time.sleep(args.correct_after)
        match_id, participant, day = psql(primary, MATCH_SQL).split("|")
        match = (int(match_id), int(participant))
        before = psql(primary, score_sql(match, committed=False)).split("|")[0]
        watches = [ScoreWatch(primary, match, before, primary=True), ScoreWatch(standby, match, before, primary=False)]
        for watch in watches:
            watch.start()
        manage("shell", "-c", CORRECTION.format(match=match_id), env=envs[0], capture=True)
        corrected_at = float(  # when the correction committed
            psql(primary, "SELECT extract(epoch FROM pg_xact_commit_timestamp(xmin)) FROM corrections_correction"
                          f" WHERE match_id = {match_id} ORDER BY id DESC LIMIT 1")
        )  # fmt: skip
        say(f"match {match_id} of {day} corrected; waiting for it in {CORRECTED} on the primary and the standby")
        # The standby dies halfway, or once it shows the correction if that comes later (but 10 s before the end).
        watches[1].join(timeout=max(0.0, begun + args.seconds - 10 - time.monotonic()))
        time.sleep(max(0.0, begun + args.seconds / 2 - time.monotonic()))
        for watch in watches:
            watch.stop.set()
        # Publication: the commit of the recompute's transaction on the primary (same clock as the polls).
        published, shown = watches[0].committed_at or watches[0].seen_at, watches[1].seen_at
        if published:
            figures["published"] = published - corrected_at
        if published and shown:
            figures["visible"] = shown - published
            say(f"published {figures['published']:.1f} s after the correction; on the standby "
                f"{figures['visible']:.3f} s later")  # fmt: skip
        killed_at = time.time()
        pg_ctl(standby_data, "-m", "immediate", "stop")
        say(f"standby killed (pg_ctl stop -m immediate), {time.monotonic() - begun:.0f} s into the load test")
        locust.wait()
        health_after = url_text(base + "/healthz")
        say(f"/healthz after: {' / '.join(health_after.splitlines())}")
        say("waiting for the recompute of every list to end")
        ours = f"FROM ratings_recomputerun r WHERE r.id > {first_run}"
        wait_for(lambda: psql(primary, f"SELECT count(*) {ours} AND status IN ('queued', 'running')") == "0",
                 "the recomputes to end", timeout=1800, every=1)  # fmt: skip
        runs = psql(primary, "SELECT (SELECT slug FROM ratings_category c WHERE c.id = r.category_id) || ' ' || status"
                             " || ' in ' || round(extract(epoch FROM finished_at - started_at)::numeric, 1) || ' s'"
                             f" {ours} ORDER BY r.id").splitlines()  # fmt: skip

    rows = list(csv.DictReader((out / "locust_stats.csv").open(newline="")))
    total = next(row for row in rows if row["Name"] == "Aggregated")
    requests, failures = int(total["Request Count"]), int(total["Failure Count"])
    reads, server_errors = access_log_reads([out / f"access-{port}.log" for port in SERVER_PORTS], killed_at)
    tracebacks = sum((out / f"server-{port}.log").read_text(errors="replace").count("Traceback")
                     for port in SERVER_PORTS)  # fmt: skip
    on_standby = sum(count for where, count in reads.items() if where.startswith("standby"))
    share = 100 * on_standby / max(1, sum(reads.values()))
    errors = failures + server_errors + tracebacks
    checks["no request failed (locust), no 5xx, no traceback"] = errors == 0
    checks[f"the standby served more than {SHARE_NEEDED:.0f} % of the page reads before it was killed"] = (
        share > SHARE_NEEDED
    )
    checks["the correction was seen on the standby"] = "visible" in figures
    checks["every recompute run is done"] = all(" done " in run for run in runs)
    checks["/healthz after the kill says the standby is not read"] = "standby standby_0: not read" in health_after
    visible = f"{figures['visible']:.3f} s" if "visible" in figures else "never seen"
    lines = [
        f"# Reads from a standby under load, {started}",
        "",
        f"Command: `{command_line()}`; {args.users} users, {args.seconds} s, {matches:,} matches. Machine: {load}.",
        f"Throughput: {float(total['Requests/s']):.1f} req/s, median {total['50%']} ms, p95 {total['95%']} ms.",
        "Page reads before the kill, by database: " + ", ".join(f"{k} {v}" for k, v in sorted(reads.items())),
        "Recompute runs during the test (the correction's among them): " + ", ".join(runs) + ".",
        "The correction was published on the primary "
        + (f"{figures['published']:.1f} s after it was made." if "published" in figures else "not before the kill."),
        "",
        *[f"- [{'x' if ok else ' '}] {check}" for check, ok in checks.items()],
        "",
        f"scale-check: {requests:,} requests, {errors} errors, standby {share:.1f} % of page reads before the kill, "
        f"correction visible on the standby {visible} after its publication on the primary",
    ]
    text = "\n".join(lines) + "\n"
    (out / "summary.md").write_text(text)
    print(text, end="")
    return 0 if all(checks.values()) else 1


if __name__ == "__main__":
    raise SystemExit(main())
