# Two commands do everything on a fresh Debian/Ubuntu machine with Python 3.11:
#   make run    set up, then serve the site at http://127.0.0.1:8000 with a grading worker
#   make test   set up, then lint, type-check and run the whole test suite
PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
EDITOR_BUNDLE := webapp/static/editor/editor.bundle.js
STATIC_MANIFEST := staticfiles/staticfiles.json
FRONTEND := webapp/frontend

.PHONY: run test test-fast setup system-packages browser postgres lint images base-image screenshots clean

# The web server and a grading worker on the embedded SQLite database (migrated and loaded
# with the catalog first). Ctrl-C stops both.
run: setup
	$(PY) -m webapp.serve

# The whole suite in two lanes side by side (tests/lanes.py), since much of it waits (on
# sandboxes, browsers, subprocesses) rather than computes: lint, the test files on SQLite and
# the grading queue's tests again on a throwaway PostgreSQL server (tests/postgres.py), shared
# out by the seconds each took (tests/lane_durations.json). Each lane's output is shown when
# both have ended, with its slowest tests.
test: setup browser postgres
	$(PY) -m tests.lanes

# The edit-test loop: the suite on SQLite without the tests marked slow or browser (pyproject.toml),
# so no real browser, no PostgreSQL and no validation of every problem; the hostile-notebook
# batch stays in. 1 min 41 s to 1 min 51 s here, up to 2 min 33 s while others loaded the machine.
# Lint, type-checks and the slow tests are `make test`'s.
test-fast: setup
	$(PY) -m pytest -m "not slow and not browser"

lint: setup
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports --no-cache

setup: system-packages $(STAMP) $(EDITOR_BUNDLE) $(STATIC_MANIFEST)

# Debian packages, installed when missing: $(call apt,COMMAND,PACKAGES).
define apt
	@if ! command -v $(1) >/dev/null; then \
		if [ "$$(id -u)" = 0 ]; then \
			apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(2); \
		else \
			echo "error: install $(2) (sudo apt-get install $(2))" >&2; exit 1; \
		fi; \
	fi
endef

# bubblewrap is the sandbox; prlimit (util-linux) sets its resource limits; npm builds the editor.
system-packages:
	$(call apt,bwrap,bubblewrap)
	$(call apt,prlimit,util-linux)
	$(call apt,npm,nodejs npm)

# The real-browser tests drive Debian's chromium (never a downloaded browser).
browser:
	$(call apt,chromium,chromium)

# The CodeMirror 6 editor, from the npm registry (exact versions in package-lock.json),
# bundled by esbuild. The page falls back to a plain textarea while it is missing.
$(EDITOR_BUNDLE): $(FRONTEND)/package.json $(FRONTEND)/package-lock.json $(FRONTEND)/src/editor.js
	cd $(FRONTEND) && npm ci --no-audit --no-fund --loglevel=error && npm run --silent build

# The static files as the site serves them (webapp/static_files.py): hashed names, gzip and brotli.
$(STATIC_MANIFEST): $(STAMP) $(EDITOR_BUNDLE) $(shell find webapp/static -type f -not -path '*/editor/*')
	$(PY) manage.py collectstatic --noinput --clear --verbosity 0

$(STAMP): requirements.txt requirements-dev.txt
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip==26.3
	$(PY) -m pip install --quiet -r requirements-dev.txt
	touch $(STAMP)

# The problem page and its console (tests, a failing result, a cancelled run, the insight), then a course: an assignment and a problem opened from it, the gradebook, the set-up pages (create, edit, an assignment's problem picker, an extension, an override, a regrade's confirmation), a refused roster and the problem statistics, at 1400x900 and 390x844, in out/screenshots.
screenshots: setup browser
	$(PY) -m tests.webapp.support.screenshots out/screenshots

# Debian's PostgreSQL server, for the tests that run on it (its programs live off PATH).
postgres:
	@if ! ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1; then \
		if [ "$$(id -u)" = 0 ]; then \
			apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql; \
		else \
			echo "error: install postgresql (sudo apt-get install postgresql)" >&2; exit 1; \
		fi; \
	fi

# The compose stack's images (docker-compose.yml), from wheels of the pinned requirements
# built here, so the image build itself needs no registry. BASE_IMAGE=jaxjudge-base:bookworm
# after `make base-image` where no image registry is reachable.
images: setup
	$(PY) -m pip wheel --quiet --no-deps -r requirements.txt -w deploy/wheels
	docker-compose build

# A base image from Debian's packages (debootstrap), for machines without an image registry.
base-image:
	$(call apt,debootstrap,debootstrap)
	deploy/base-image.sh jaxjudge-base:bookworm

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache db.sqlite3* $(FRONTEND)/node_modules webapp/static/editor staticfiles
