"""Real-browser journeys: Debian's chromium, headless, driven by Playwright, against the real site.

The site runs as ``make run`` runs it (gunicorn, a grading worker, the bwrap sandbox, real
JAX) on a SQLite database of its own; the tests only click, type and read, like a student.
To try a site that is already running (``make run`` on a fresh clone, say), point
JAXJUDGE_TEST_SITE_URL at it: the tests then sign up new students there.

One site and one browser serve every module of this package; each test gets a page of its own.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, sync_playwright

from tests.webapp.support.browser_steps import CHROMIUM, CHROMIUM_FLAGS
from tests.webapp.support.running_site import RunningSite


@pytest.fixture(scope="package")
def running_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningSite | None]:
    """The site these tests started (None when they try one that runs already)."""
    if os.environ.get("JAXJUDGE_TEST_SITE_URL"):
        yield None
        return
    running = RunningSite(f"sqlite:///{tmp_path_factory.mktemp('site') / 'db.sqlite3'}")
    yield running
    running.stop()


@pytest.fixture(scope="package")
def site(running_site: RunningSite | None) -> str:
    """The site's base URL."""
    return running_site.url if running_site else os.environ["JAXJUDGE_TEST_SITE_URL"].rstrip("/")


@pytest.fixture(scope="package")
def browser() -> Iterator[Browser]:
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        yield launched
        launched.close()


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context()
    context.set_default_timeout(15_000)
    yield context.new_page()
    context.close()


@pytest.fixture(params=[(1400, 900), (390, 844)], ids=["1400x900", "390x844"])
def sized_page(browser: Browser, request: pytest.FixtureRequest) -> Iterator[Page]:
    """A page at the two sizes every journey of the workspace is tried at."""
    width, height = request.param
    context = browser.new_context(viewport={"width": width, "height": height})
    context.set_default_timeout(15_000)
    yield context.new_page()
    context.close()
