#!/usr/bin/env bash
# Serve the site as in production on this machine: migrations, static files,
# JOB_WORKERS background job workers and gunicorn in front (docs/deployment.md).
#
#   DJANGO_SECRET_KEY=... DJANGO_ALLOWED_HOSTS=ratings.example.org \
#   DATABASE_URL=postgres://ratings@db.example.org/ratings scripts/serve_prod.sh
#
# Environment (besides the settings of config/settings.py and config/gunicorn.py):
#   JOB_WORKERS  job worker processes on this machine (default 2; 0 for a web-only machine)
#   MIGRATE      1 (default) runs the migrations first; 0 where another machine runs them
#   JOB_NICE     CPU priority of the job workers (default 10: pages are served first, recomputes use the rest)
# Stops the job workers when gunicorn stops (Ctrl+C, SIGTERM).
set -euo pipefail
cd "$(dirname "$0")/.."

: "${DJANGO_SECRET_KEY:?set DJANGO_SECRET_KEY (a long random string; see docs/deployment.md)}"
: "${DJANGO_ALLOWED_HOSTS:?set DJANGO_ALLOWED_HOSTS (the host names of the site, comma-separated)}"
: "${DATABASE_URL:?set DATABASE_URL (postgres://user:password@host:5432/name)}"
export DJANGO_DEBUG=0
PY=.venv/bin/python
JOB_WORKERS=${JOB_WORKERS:-2}

if [ "${MIGRATE:-1}" = 1 ]; then
  $PY manage.py migrate --noinput
fi
$PY manage.py collectstatic --noinput -v0
$PY manage.py check --deploy  # warnings are printed; errors stop here

pids=()
stop() {
  trap - EXIT INT TERM
  [ ${#pids[@]} -eq 0 ] || kill -TERM "${pids[@]}" 2>/dev/null || true
  wait
}
trap stop EXIT INT TERM
for number in $(seq 1 "$JOB_WORKERS"); do
  nice -n "${JOB_NICE:-10}" $PY manage.py db_worker --no-reload --worker-id "$(hostname)-$$-$number" &
  pids+=($!)
done
.venv/bin/gunicorn -c config/gunicorn.py config.wsgi &
pids+=($!)
wait -n  # when any of them stops (gunicorn on a signal, or a crash), stop the rest
