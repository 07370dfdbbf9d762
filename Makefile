# make run: set up .venv, migrate the embedded SQLite database, load demo data, serve on 127.0.0.1:8000
# make test: set up .venv and run the whole test suite (PostgreSQL too when TEST_DATABASE_URL is set)
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 8000
WORKERS ?= 2

.PHONY: run test fuzz bench venv clean

venv: $(VENV)/.installed

$(VENV)/.installed: requirements.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check -r requirements.txt
	touch $@

run: venv
	$(BIN)/flask --app wsgi db upgrade
	$(BIN)/flask --app wsgi demo load
	$(BIN)/gunicorn --config gunicorn.conf.py --bind $(HOST):$(PORT) --workers $(WORKERS) --access-logfile - wsgi:app

test: venv
	$(BIN)/python -m pytest

# schemathesis against openapi.yaml and the app under gunicorn, with a token for every role
fuzz: venv
	$(BIN)/python tests/contract/fuzz.py

# the benchmarks of bench/README.md, against the local PostgreSQL and a local S3 server, in a
# venv of their own on the Python that runs the app (BENCH_PYTHON to try another)
BENCH_VENV := .venv-bench

# The venv is made again when the Python asked for is another (or requirements.txt changed).
bench:
	@python="$$(command -v "$${BENCH_PYTHON:-$(PYTHON)}")"; \
	if [ "$$(readlink -f $(BENCH_VENV)/bin/python)" != "$$(readlink -f "$$python")" ] \
	   || [ requirements.txt -nt $(BENCH_VENV)/.installed ]; then \
	  rm -rf $(BENCH_VENV) && "$$python" -m venv $(BENCH_VENV) \
	  && $(BENCH_VENV)/bin/pip install --quiet --disable-pip-version-check -r requirements.txt \
	  && touch $(BENCH_VENV)/.installed; \
	fi
	$(BENCH_VENV)/bin/python bench/run.py

clean:
	rm -rf $(VENV) $(BENCH_VENV) instance .pytest_cache
