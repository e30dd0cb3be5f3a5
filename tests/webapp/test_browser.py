"""Real-browser journeys: Debian's chromium, headless, driven by Playwright, against the real site.

The site runs as ``make run`` runs it (gunicorn, a grading worker, the bwrap sandbox, real
JAX) on a SQLite database of its own; the tests only click, type and read, like a student.
To try a site that is already running (``make run`` on a fresh clone, say), point
JAXJUDGE_TEST_SITE_URL at it: the tests then sign up new students there.
"""

from __future__ import annotations

import os
import re
import secrets
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect, sync_playwright

from grader.problem import load_problem
from tests.webapp.site import RunningSite

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
# No first-run work, no calls home: this machine's network is closed and root needs --no-sandbox.
CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SOLUTIONS = Path(__file__).resolve().parents[2] / "solutions" / "aot_compiled_sum"
VERDICT_TIMEOUT_MS = 60_000

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Debian's chromium is not installed")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The site's base URL."""
    if url := os.environ.get("JAXJUDGE_TEST_SITE_URL"):
        yield url.rstrip("/")
        return
    running = RunningSite(f"sqlite:///{tmp_path_factory.mktemp('site') / 'db.sqlite3'}")
    yield running.url
    running.stop()


@pytest.fixture(scope="module")
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


def sign_up(page: Page, site: str, username: str) -> str:
    page.goto(f"{site}/accounts/signup/")
    username = f"{username}-{secrets.token_hex(3)}"  # new on every run, even against a long-lived site
    page.get_by_label("Username").fill(username)
    page.get_by_label(re.compile(r"^Password:?$")).fill("a-long-password-42")
    page.get_by_label("Password confirmation").fill("a-long-password-42")
    page.get_by_role("button", name="Sign up").click()
    expect(page.get_by_role("link", name=username)).to_be_visible()
    return username


def write_code(page: Page, code: str) -> None:
    """Select everything in the CodeMirror editor and type (paste) the new code over it."""
    editor = page.get_by_test_id("code-editor").locator(".cm-content")
    editor.click()
    page.keyboard.press("Control+A")
    page.keyboard.press("Delete")
    page.keyboard.insert_text(code)


def expect_verdict(page: Page, verdict: str) -> None:
    expect(page.get_by_test_id("verdict")).to_contain_text(verdict, timeout=VERDICT_TIMEOUT_MS)


def test_anonymous_visitors_read_but_cannot_attempt_or_see_the_solution(page: Page, site: str) -> None:
    page.goto(f"{site}/")
    page.get_by_role("link", name=re.compile("Ahead-of-time compilation")).click()
    expect(page.get_by_role("heading", name="Why this matters")).to_be_visible()
    expect(page.get_by_text("to attempt this problem and view the solution")).to_be_visible()
    expect(page.get_by_test_id("code-editor")).to_have_count(0)
    expect(page.get_by_role("button", name="Submit")).to_have_count(0)

    page.goto(f"{site}/problems/aot_compiled_sum/solution/")
    expect(page).to_have_url(re.compile(r"/accounts/login/"))
    assert "lower(x).compile()" not in page.content()


def test_a_new_student_runs_submits_wrong_then_right_and_sees_the_solution(page: Page, site: str) -> None:
    username = sign_up(page, site, "newstudent")
    page.get_by_role("link", name=re.compile("Ahead-of-time compilation")).click()
    expect(page.get_by_test_id("code-editor")).to_be_visible()  # CodeMirror, not the bare textarea
    expect(page.get_by_test_id("code-editor")).to_contain_text("def aot_compiled_sum(x):")

    # Run (Ctrl-Enter in the editor): the visible tests only.
    write_code(page, (SOLUTIONS / "wrong_value.py").read_text())
    page.get_by_test_id("code-editor").locator(".cm-content").press("Control+Enter")
    expect_verdict(page, "wrong_answer")
    expect(page.locator("table.tests")).to_contain_text("visible")
    expect(page.locator("table.tests")).not_to_contain_text("hidden")

    # Submit a wrong solution: hidden tests too, each with its outcome and message.
    page.get_by_role("button", name="Submit").click()
    expect_verdict(page, "wrong_answer")
    expect(page.locator("table.tests")).to_contain_text("hidden")
    expect(page.locator("table.tests .outcome-failed").first).to_be_visible()
    expect(page.locator("table.tests")).to_contain_text("Failing test case")

    # Then the right one.
    write_code(page, load_problem("aot_compiled_sum").reference_solution.read_text())
    page.get_by_role("button", name="Submit").click()
    expect_verdict(page, "accepted (100/100)")
    expect(page.locator("table.tests .outcome-failed")).to_have_count(0)
    expect(page.locator("#history tbody tr")).to_have_count(3)

    # The draft was kept: a reload shows the last code, not the starter.
    page.reload()
    expect(page.get_by_test_id("code-editor")).to_contain_text(".lower(x).compile()")

    page.get_by_role("link", name="Solution").click()
    expect(page.get_by_test_id("solution")).to_contain_text("jax.jit(jnp.sum).lower(x).compile()")
    page.get_by_role("link", name=username).click()
    expect(page.locator('td[data-slug="aot_compiled_sum"]')).to_have_text("solved")


def test_the_solution_gate_records_a_reveal_and_the_textarea_works_without_the_editor(page: Page, site: str) -> None:
    # This student's page never gets the editor bundle: the plain textarea must do.
    page.route("**/editor.bundle.js", lambda route: route.abort())
    sign_up(page, site, "peeker")
    page.goto(f"{site}/problems/aot_compiled_sum/solution/")
    expect(page.get_by_test_id("solution")).to_have_count(0)
    page.get_by_role("button", name="Reveal the solution").click()
    expect(page.get_by_test_id("solution")).to_contain_text(".lower(x).compile()")

    page.goto(f"{site}/problems/aot_compiled_sum/")
    textarea = page.get_by_label("Your solution")
    expect(textarea).to_be_visible()
    expect(page.get_by_test_id("code-editor")).to_have_count(0)
    textarea.fill(load_problem("aot_compiled_sum").reference_solution.read_text())
    page.get_by_role("button", name="Submit").click()
    expect_verdict(page, "accepted")

    page.goto(f"{site}/progress/")
    expect(page.locator('td[data-slug="aot_compiled_sum"]')).to_have_text("solved after viewing the solution")
