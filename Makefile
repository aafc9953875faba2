# Two commands for a fresh machine: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PORT ?= 8000
# The settings default to production (DEBUG off, a secret key required); these
# targets are for development. serve-prod sets DJANGO_DEBUG=0 itself.
export DJANGO_DEBUG ?= 1

.PHONY: install messages install-prod lock run test lint ci migrations-check bench serve-prod loadtest faults audit ops-install scale-check

# Both requirement files are locked with hashes (pip-tools): the runtime alone in
# production, the runtime and the test tools everywhere else.
$(VENV)/.installed: requirements.txt requirements-dev.txt
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --upgrade pip
	$(VENV)/bin/pip install --quiet --require-hashes -r requirements.txt -r requirements-dev.txt
	@# Browser tests drive Debian's chromium; install it when we can (root with apt).
	@if [ ! -x /usr/bin/chromium ] && [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; fi
	@[ -x /usr/bin/chromium ] || echo "note: /usr/bin/chromium is missing; browser tests will be skipped (apt-get install chromium)"
	touch $@

# The translations (locale/<language>/LC_MESSAGES/django.po), compiled whenever a catalog changes.
# Django's compilemessages runs GNU gettext's msgfmt: installed here when missing, as chromium is.
CATALOGS := $(wildcard locale/*/LC_MESSAGES/django.po)
%.mo: %.po  # after the virtualenv: install and install-prod name it first
	@if ! command -v msgfmt >/dev/null && [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gettext >/dev/null; fi
	@command -v msgfmt >/dev/null || { echo "msgfmt is missing: install GNU gettext (apt-get install gettext)"; exit 1; }
	$(PY) manage.py compilemessages --locale $(word 2,$(subst /, ,$@)) --ignore '.venv' --ignore 'node_modules' -v0

install: $(VENV)/.installed $(CATALOGS:.po=.mo)

# After marking new text for translation: every catalog gets the new strings (then translate them).
messages: install
	$(PY) manage.py makemessages --locale de --ignore '.venv' --ignore 'node_modules' --ignore 'tests' --no-obsolete --add-location file

# Production: the runtime only, no test tools.
$(VENV)/.installed-runtime: requirements.txt
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --upgrade pip
	$(VENV)/bin/pip install --quiet --require-hashes -r requirements.txt
	touch $@

install-prod: $(VENV)/.installed-runtime $(CATALOGS:.po=.mo)

# After changing requirements.in or requirements-dev.in: pin and hash again.
lock: install
	$(VENV)/bin/pip-compile -q --generate-hashes --allow-unsafe --strip-extras --no-emit-index-url --no-emit-find-links -o requirements.txt requirements.in
	$(VENV)/bin/pip-compile -q --generate-hashes --allow-unsafe --strip-extras --no-emit-index-url --no-emit-find-links -o requirements-dev.txt requirements-dev.in

# Migrate, load the demo world into an empty database, then serve the site
# with the background job worker beside it (stopped when the site stops).
run: install
	$(PY) manage.py migrate --noinput
	$(PY) manage.py seed_demo --if-empty
	$(PY) manage.py db_worker & worker=$$!; \
	trap 'kill $$worker 2>/dev/null' EXIT INT TERM; \
	$(PY) manage.py runserver 127.0.0.1:$(PORT)

# Two processes (pytest-xdist, a file's tests in one process); TEST_WORKERS=0 runs them in this one.
TEST_WORKERS ?= 2
test: install
	$(PY) -m pytest -n $(TEST_WORKERS)

# ruff, and the layers of docs/architecture.md (import-linter's contracts in pyproject.toml).
lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/lint-imports

migrations-check: install
	$(PY) manage.py makemigrations --check --dry-run

# Performance at scale on PostgreSQL (100,000 players, 1,000,000 matches); see docs/performance.md.
BENCH_DATABASE_URL ?= postgres://postgres@127.0.0.1:5432/ratings_bench
bench: install
	psql "$(BENCH_DATABASE_URL)" -c "SELECT 1" >/dev/null 2>&1 || createdb -h 127.0.0.1 -U postgres $(notdir $(BENCH_DATABASE_URL))
	DATABASE_URL=$(BENCH_DATABASE_URL) $(PY) manage.py migrate --noinput -v0
	DATABASE_URL=$(BENCH_DATABASE_URL) $(PY) manage.py bench $(BENCH_ARGS)

# Production serving on this machine: migrations, static files, job workers and gunicorn (docs/deployment.md).
# Needs DJANGO_SECRET_KEY, DJANGO_ALLOWED_HOSTS and DATABASE_URL; JOB_WORKERS (default 2) job workers.
serve-prod: install-prod
	bash scripts/serve_prod.sh

# Load and fault tests, the dependency audit: tools of scripts/requirements-ops.txt (docs/reliability.md).
$(VENV)/.ops-installed: scripts/requirements-ops.txt $(VENV)/.installed
	$(VENV)/bin/pip install --quiet -r scripts/requirements-ops.txt
	touch $@

ops-install: $(VENV)/.ops-installed

# 50 users for 60 s on a 100,000-player world (loaded once into LOAD_DATABASE_URL) while full recomputes run.
LOAD_DATABASE_URL ?= postgres://postgres@127.0.0.1:5432/ratings_load
loadtest: ops-install
	$(PY) scripts/loadtest.py --database-url $(LOAD_DATABASE_URL) $(LOADTEST_ARGS)

# A worker killed mid-recompute on the load test's world, then PostgreSQL restarted under load (a private cluster).
faults: ops-install
	$(PY) scripts/fault_worker_kill.py --database-url $(LOAD_DATABASE_URL)
	$(PY) scripts/fault_pg_restart.py

audit: ops-install
	$(PY) scripts/audit_dependencies.py requirements.txt requirements-dev.txt scripts/requirements-ops.txt

ci:
	bash .ci/run

# A primary and a hot standby of our own, two servers behind nginx, two job workers, Redis: the load test
# while recomputes run, a correction timed to the standby, the standby killed halfway (docs/deployment.md).
scale-check: ops-install
	$(PY) scripts/scale_check.py $(SCALE_CHECK_ARGS)
