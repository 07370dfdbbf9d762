# make run: set up .venv with the runtime set (requirements.txt), migrate the embedded SQLite
#   database, load demo data, serve on 127.0.0.1:8000 (and its export pool on 8001)
# make test: add the test tools (requirements-dev.txt) and run the whole test suite (PostgreSQL too
#   when TEST_DATABASE_URL is set)
# make format: apply ruff's fixes and formatting (ruff.toml), which the test suite checks
# make lock: compile the three *.in files into their hash-locked *.txt at current releases
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 8000
# the app reads PORT too: its default public address (PUBLIC_BASE_URL) is on it
export PORT
WORKERS ?= 2
# The export pool (api/exports.py): sheets, binders and ZIPs, served beside the app on the next
# port by a worker of its own at a lower CPU priority, so that filings get the CPU first.
EXPORTS_PORT ?= $(shell echo $$(($(PORT) + 1)))
EXPORT_WORKERS ?= 1
EXPORTS_NICE ?= 10
# Where PostgreSQL runs on this machine, the backends that serve reads run at this niceness too
# (storage/db.py), so that filings' backends get the CPU first; 0 leaves them be.
DATABASE_READS_NICE ?= $(EXPORTS_NICE)
# The app server is a proxy more in front of the pool.
EXPORTS_TRUSTED_PROXIES ?= $(shell echo $$(( $${TRUSTED_PROXIES:-0} + 1 )))

.PHONY: run test format fuzz bench venv venv-dev lint-tools lock clean

PIP_INSTALL := --quiet --disable-pip-version-check --require-hashes

venv: $(VENV)/.installed

venv-dev: $(VENV)/.installed-dev

$(VENV)/.installed: requirements.txt
	[ -x $(BIN)/python ] || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install $(PIP_INSTALL) -r requirements.txt
	touch $@

$(VENV)/.installed-dev: $(VENV)/.installed requirements-dev.txt
	$(BIN)/pip install $(PIP_INSTALL) -r requirements.txt -r requirements-dev.txt
	touch $@

run: venv
	$(BIN)/flask --app wsgi db upgrade
	$(BIN)/flask --app wsgi demo load
	$(BIN)/flask --app wsgi notices run
	@echo "fogx is at $${PUBLIC_BASE_URL:-http://$(HOST):$(PORT)}/portal/ (the API's docs at /docs/). Sign in as a demo"
	@echo "person, password fogx-demo-password: dispatcher@, auditor@, admin@, operator@ or clerk@demo.fogx.test."
	DATABASE_READS_NICE=$(DATABASE_READS_NICE) TRUSTED_PROXIES=$(EXPORTS_TRUSTED_PROXIES) nice -n $(EXPORTS_NICE) $(BIN)/gunicorn --config gunicorn.conf.py --bind $(HOST):$(EXPORTS_PORT) \
	  --workers $(EXPORT_WORKERS) wsgi:app & exports=$$!; trap 'kill $$exports 2> /dev/null' EXIT INT TERM; \
	DATABASE_READS_NICE=$(DATABASE_READS_NICE) EXPORTS_URL=http://$(HOST):$(EXPORTS_PORT) $(BIN)/gunicorn --config gunicorn.conf.py --bind $(HOST):$(PORT) \
	  --workers $(WORKERS) wsgi:app

# The OpenAPI linter pinned in package-lock.json (tests/test_openapi_lint.py runs it); without
# node the test says what to install.
lint-tools: node_modules/.installed

node_modules/.installed: package.json package-lock.json
	if command -v npm > /dev/null; then \
	  npm ci --no-audit --no-fund --ignore-scripts --loglevel=error && touch $@; \
	fi

# The suite's files in parallel, a worker each at a time (each worker its own PostgreSQL database).
TEST_WORKERS ?= 3

test: venv-dev lint-tools
	$(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadfile

# ruff's fixes and its formatting, as tests/test_lint.py expects them (ruff.toml)
format: venv-dev
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

# schemathesis against openapi.yaml and the app under gunicorn, with a token for every role
fuzz: venv-dev
	$(BIN)/python tests/contract/fuzz.py

# the benchmarks of bench/README.md, against the local PostgreSQL and a local S3 server, in a
# venv of their own on the Python that runs the app (BENCH_PYTHON to try another)
BENCH_VENV := .venv-bench

# The venv is made again when the Python asked for is another (or a requirements file changed);
# it holds the runtime set and requirements-bench.txt (the local S3 server), no test tools.
bench:
	@python="$$(command -v "$${BENCH_PYTHON:-$(PYTHON)}")"; \
	if [ "$$(readlink -f $(BENCH_VENV)/bin/python)" != "$$(readlink -f "$$python")" ] \
	   || [ requirements.txt -nt $(BENCH_VENV)/.installed ] \
	   || [ requirements-bench.txt -nt $(BENCH_VENV)/.installed ]; then \
	  rm -rf $(BENCH_VENV) && "$$python" -m venv $(BENCH_VENV) \
	  && $(BENCH_VENV)/bin/pip install $(PIP_INSTALL) -r requirements.txt -r requirements-bench.txt \
	  && touch $(BENCH_VENV)/.installed; \
	fi
	$(BENCH_VENV)/bin/python bench/run.py

# pip-tools in a venv of its own, so that it never mixes into the locked sets
LOCK_VENV := .venv-lock
lock:
	[ -x $(LOCK_VENV)/bin/pip-compile ] || ($(PYTHON) -m venv $(LOCK_VENV) && $(LOCK_VENV)/bin/pip install --quiet pip-tools)
	for f in requirements.in requirements-dev.in requirements-bench.in; do \
	  $(LOCK_VENV)/bin/pip-compile --quiet --upgrade --generate-hashes --allow-unsafe --strip-extras \
	    --no-emit-index-url --no-emit-find-links $$f || exit 1; \
	done

clean:
	rm -rf $(VENV) $(BENCH_VENV) $(LOCK_VENV) node_modules instance .pytest_cache
