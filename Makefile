# Two commands do everything on a fresh Debian/Ubuntu machine with Python 3.11:
#   make run    set up, then grade the bundled example submission and print the report
#   make test   set up, then lint, type-check and run the whole test suite
PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: run test setup system-packages lint database clean

# Until students can submit in the browser, the main job grades the bundled example.
run: setup database
	$(PY) -m grader grade --problem aot_compiled_sum solutions/aot_compiled_sum/reference.py

# The embedded SQLite database, migrated, with the catalog loaded from problems/.
database: setup
	$(PY) manage.py migrate --verbosity 0
	$(PY) manage.py syncproblems

test: setup lint
	$(PY) -m pytest

lint: setup
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy

setup: system-packages $(STAMP)

# bubblewrap is the sandbox; prlimit (util-linux) sets its resource limits.
system-packages:
	@if ! command -v bwrap >/dev/null || ! command -v prlimit >/dev/null; then \
		if [ "$$(id -u)" = 0 ]; then \
			apt-get update -qq && apt-get install -y -qq bubblewrap util-linux; \
		else \
			echo "error: install bubblewrap and util-linux (sudo apt-get install bubblewrap util-linux)" >&2; exit 1; \
		fi; \
	fi

$(STAMP): requirements.txt requirements-dev.txt
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip==26.3
	$(PY) -m pip install --quiet -r requirements-dev.txt
	touch $(STAMP)

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache db.sqlite3
