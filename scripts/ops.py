"""What the load and fault scripts share: running manage.py, a production server, psql, waiting.

Plain subprocesses: nothing here imports Django, so the scripts never set it up themselves.
"""

import os
import secrets
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import urlparse

ROOT = Path(__file__).resolve().parent.parent
PY = str(ROOT / ".venv" / "bin" / "python")
VENV_BIN = ROOT / ".venv" / "bin"
# Where the scripts leave their results (logs, locust's CSV files, summary.md): outside the
# checkout, and not in bench-data/, which the bench empties.
RESULTS = Path(os.environ.get("OPS_RESULTS", "/tmp/ratings-ops"))


def say(*parts) -> None:
    print(f"[{datetime.now(UTC):%H:%M:%S}]", *parts, flush=True)


def now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def manage(*args: str, env: dict, capture: bool = False, check: bool = True) -> str:
    result = subprocess.run([PY, "manage.py", *args], cwd=ROOT, env=env, text=True, capture_output=capture, check=False)
    if check and result.returncode:
        raise SystemExit(f"manage.py {' '.join(args)} failed:\n{result.stdout or ''}{result.stderr or ''}")
    return result.stdout or ""


def psql(database_url: str, sql: str) -> str:
    result = subprocess.run(["psql", database_url, "-AtXq", "-c", sql], capture_output=True, text=True)
    if result.returncode:
        raise RuntimeError(f"psql: {result.stderr.strip()}")
    return result.stdout.strip()


def database_ensure(database_url: str) -> None:
    """Create the database named in the URL when it is missing (the server must be running)."""
    url = urlparse(database_url)
    name = url.path.lstrip("/")
    server = database_url.rsplit("/", 1)[0] + "/postgres"
    if psql(server, f"SELECT count(*) FROM pg_database WHERE datname = '{name}'") == "0":
        say(f"creating database {name}")
        psql(server, f'CREATE DATABASE "{name}"')


def pg_bin() -> Path:
    """The newest PostgreSQL server's programs (initdb, pg_ctl, pg_basebackup), for clusters of our own."""
    versions = sorted(Path("/usr/lib/postgresql").glob("*/bin"), key=lambda path: int(path.parent.name))
    if not versions:
        raise SystemExit("no PostgreSQL server binaries under /usr/lib/postgresql (apt-get install postgresql)")
    return versions[-1]


def as_postgres(*command) -> list[str]:
    """PostgreSQL refuses to run as root: run its tools as the postgres user then."""
    command = [str(part) for part in command]
    return ["runuser", "-u", "postgres", "--", *command] if os.geteuid() == 0 else command


def cluster_init(data: Path) -> None:
    """Create a PostgreSQL cluster of our own in `data` (user postgres, trust: local replication too), unless
    there is one; its parent directory is the postgres user's when we are root."""
    if (data / "PG_VERSION").exists():
        return
    data.parent.mkdir(parents=True, exist_ok=True)
    if os.geteuid() == 0:
        subprocess.run(["chown", "postgres", str(data.parent)], check=True)
    initdb = as_postgres(pg_bin() / "initdb", "-D", data, "-A", "trust", "-U", "postgres")
    subprocess.run(initdb, check=True, stdout=subprocess.DEVNULL)


def pg_ctl(data: Path, *args, check: bool = True) -> int:
    """pg_ctl on a cluster of ours; its exit code. Unchecked, it says nothing (a server already stopped)."""
    quiet = None if check else subprocess.DEVNULL
    command = as_postgres(pg_bin() / "pg_ctl", "-D", data, *args)
    return subprocess.run(command, check=check, stdout=subprocess.DEVNULL, stderr=quiet).returncode


def production_env(database_url: str, port: int, **extra: str) -> dict:
    """A production configuration for a server on this machine, over plain HTTP on 127.0.0.1."""
    return {
        **os.environ,
        "DATABASE_URL": database_url,
        "DJANGO_DEBUG": "0",
        "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
        "DJANGO_SECURE_SSL_REDIRECT": "0",  # no TLS proxy in front here
        "GUNICORN_BIND": f"127.0.0.1:{port}",
        **extra,
    }


def url_status(url: str, timeout: float = 5) -> int | None:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code
    except (urllib.error.URLError, OSError):
        return None


def url_text(url: str, timeout: float = 30) -> str:
    with urllib.request.urlopen(url, timeout=timeout) as response:
        return response.read().decode()


def wait_for(condition, what: str, timeout: float = 300, every: float = 0.5):
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise SystemExit(f"gave up waiting for {what} after {timeout:.0f} s")
        time.sleep(every)


@contextmanager
def production_server(env: dict, log: Path):
    """scripts/serve_prod.sh in its own process group, stopped (the whole group) when the block ends."""
    handle = log.open("w")
    server = subprocess.Popen(
        ["bash", "scripts/serve_prod.sh"], cwd=ROOT, env=env, stdout=handle, stderr=subprocess.STDOUT,
        start_new_session=True,
    )  # fmt: skip
    try:
        base = f"http://{env['GUNICORN_BIND']}"
        wait_for(lambda: server.poll() is not None or url_status(base + "/healthz") == 200, "the server to answer")
        if server.poll() is not None:
            raise SystemExit(f"the server stopped; see {log}")
        yield server, base
    finally:
        if server.poll() is None:
            os.killpg(server.pid, signal.SIGTERM)
            try:
                server.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(server.pid, signal.SIGKILL)
                server.wait()
        handle.close()


def run_status(database_url: str, run_id: int) -> str:
    return psql(database_url, f"SELECT status FROM ratings_recomputerun WHERE id = {int(run_id)}")


def recompute_queue(env: dict, category: str, reason: str) -> int:
    out = manage("recompute_enqueue", "--category", category, "--reason", reason, env=env, capture=True)
    return int(out.split()[0])


def history_fingerprint(database_url: str, category: str) -> str:
    """The category's published history as one digest: equal digests, equal histories."""
    return psql(
        database_url,
        "SELECT count(*) || ' rows, md5 ' || md5(string_agg(participant_id || ':' || seq || ':' || rating_after::text,"
        " ',' ORDER BY seq, participant_id)) FROM ratings_ratingentry"
        f" WHERE category_id = (SELECT id FROM ratings_category WHERE slug = '{category}')",
    )


def machine() -> str:
    load = os.getloadavg()
    return f"{os.cpu_count()} cores, load average {load[0]:.2f} / {load[1]:.2f} / {load[2]:.2f} at start"


def command_line() -> str:
    return " ".join([Path(sys.argv[0]).as_posix(), *sys.argv[1:]])
