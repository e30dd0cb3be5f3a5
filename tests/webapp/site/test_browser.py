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
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Literal

import pytest
from playwright.sync_api import Browser, Page, expect, sync_playwright

from grader.problem import REPO_ROOT, load_problem
from tests.webapp.support.running_site import RunningSite

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

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Debian's chromium is not installed"),
]


@pytest.fixture(scope="module")
def running_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningSite | None]:
    """The site these tests started (None when they try one that runs already)."""
    if os.environ.get("JAXJUDGE_TEST_SITE_URL"):
        yield None
        return
    running = RunningSite(f"sqlite:///{tmp_path_factory.mktemp('site') / 'db.sqlite3'}")
    yield running
    running.stop()


@pytest.fixture(scope="module")
def site(running_site: RunningSite | None) -> str:
    """The site's base URL."""
    return running_site.url if running_site else os.environ["JAXJUDGE_TEST_SITE_URL"].rstrip("/")


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


@pytest.fixture(params=[(1400, 900), (390, 844)], ids=["1400x900", "390x844"])
def sized_page(browser: Browser, request: pytest.FixtureRequest) -> Iterator[Page]:
    """A page at the two sizes every journey of the workspace is tried at."""
    width, height = request.param
    context = browser.new_context(viewport={"width": width, "height": height})
    context.set_default_timeout(15_000)
    yield context.new_page()
    context.close()


def fill_sign_up(page: Page, site: str, username: str, confirmation: str = "a-long-password-42") -> str:
    """Send the sign-up form for a new name (new on every run, even against a long-lived site)."""
    page.goto(f"{site}/accounts/signup/")
    username = f"{username}-{secrets.token_hex(3)}"
    page.get_by_label("Username").fill(username)
    page.get_by_label(re.compile(r"^Password:?$")).fill("a-long-password-42")
    page.get_by_label("Password confirmation").fill(confirmation)
    page.get_by_role("button", name="Sign up").click()
    return username


def sign_up(page: Page, site: str, username: str) -> str:
    username = fill_sign_up(page, site, username)
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


def test_a_new_student_fails_reads_why_opens_the_insight_fixes_and_compares(sized_page: Page, site: str) -> None:
    page = sized_page
    username = sign_up(page, site, "newstudent")
    page.get_by_role("link", name=re.compile("Ahead-of-time compilation")).click()
    expect(page.get_by_test_id("code-editor")).to_be_visible()  # CodeMirror, not the bare textarea
    expect(page.get_by_test_id("code-editor")).to_contain_text("def aot_compiled_sum(x):")

    # Run (Ctrl-Enter in the editor): the visible tests only.
    write_code(page, (SOLUTIONS / "wrong_value.py").read_text())
    page.get_by_test_id("code-editor").locator(".cm-content").press("Control+Enter")
    expect_verdict(page, "Wrong answer")
    expect(page.get_by_test_id("verdict")).to_have_attribute("data-verdict", "wrong_answer")  # for scripts
    tests = page.locator("table.tests")
    expect(tests).to_contain_text("visible")
    expect(tests).not_to_contain_text("hidden")
    # Why, in a JAX learner's words: the property, the input as JAX code, expected vs got.
    expect(tests).to_contain_text("Sums a small float vector.")
    expect(page.get_by_test_id("failing-input").first).to_contain_text(
        "x = jnp.array([0., 1., 2., 3., 4.], dtype=jnp.float32)"
    )
    expect(tests).to_contain_text("but 10.0 was expected")
    # What JAX did, in the console's next tabs (reached with the arrow keys, as in any tab list):
    # one trace, lowering and compile per call, and the StableHLO it compiled.
    page.get_by_role("tab", name="Result").focus()
    page.keyboard.press("ArrowRight")
    expect(page.get_by_role("tab", name="Output")).to_have_attribute("aria-selected", "true")
    expect(page.get_by_test_id("panel-result")).to_be_hidden()
    page.keyboard.press("ArrowRight")
    expect(page.get_by_role("tab", name="JAX insight")).to_be_focused()
    insight = page.get_by_test_id("insight")
    expect(insight).to_contain_text("XLA compiles")
    expect(page.get_by_test_id("insight-calls")).to_contain_text("float32[5]")
    insight.get_by_text("StableHLO").first.click()
    expect(insight.locator("pre.stablehlo").first).to_contain_text("stablehlo.reduce")

    # Submit a wrong solution (Ctrl-Shift-Enter): hidden tests too, told without their code. The
    # console turns back to the result by itself.
    page.get_by_test_id("code-editor").locator(".cm-content").press("Control+Shift+Enter")
    expect_verdict(page, "Wrong answer")
    expect(page.get_by_test_id("panel-result")).to_be_visible()
    expect(tests).to_contain_text("hidden")
    expect(page.locator("table.tests .outcome-failed").first).to_be_visible()
    for internal in ("Failing test case", "Falsifying", "submission=", "settings.verbosity", "assert_same_array"):
        expect(tests).not_to_contain_text(internal)

    # Then the right one, and the reference's executable beside the student's.
    write_code(page, load_problem("aot_compiled_sum").reference_solution.read_text())
    page.get_by_role("button", name="Submit").click()
    expect_verdict(page, "Accepted (100/100)")
    expect(page.locator("table.tests .outcome-failed")).to_have_count(0)
    expect(page.get_by_test_id("artifacts-yours")).to_contain_text("FLOPs")
    expect(page.get_by_test_id("artifacts-reference")).to_contain_text("FLOPs")
    page.get_by_role("tab", name="Submissions").click()
    expect(page.locator("#history tbody tr")).to_have_count(3)
    expect(page.locator("#history tbody tr").first).to_contain_text("Accepted")

    # The draft was kept: a reload shows the last code, not the starter.
    page.reload()
    expect(page.get_by_test_id("code-editor")).to_contain_text(".lower(x).compile()")

    page.get_by_role("link", name="Solution").click()
    expect(page.get_by_test_id("solution")).to_contain_text("jax.jit(jnp.sum).lower(x).compile()")
    page.get_by_role("link", name=username).click()
    expect(page.locator('td[data-slug="aot_compiled_sum"]')).to_have_text("solved")
    page.goto(f"{site}/")
    section = page.locator('[data-section="Lowering and compiling"]')
    expect(section.get_by_test_id("section-progress")).to_contain_text("1/")


def test_the_workspace_is_side_by_side_on_a_wide_screen_and_stacked_on_a_phone(browser: Browser, site: str) -> None:
    for width, height, side_by_side in ((1400, 900, True), (390, 844, False)):
        context = browser.new_context(viewport={"width": width, "height": height})
        page = context.new_page()
        sign_up(page, site, f"layout{width}")
        page.goto(f"{site}/problems/aot_compiled_sum/")
        statement = page.locator("section.statement").bounding_box()
        work = page.locator("section.work").bounding_box()
        assert statement and work
        if side_by_side:
            assert work["x"] >= statement["x"] + statement["width"] - 1, (statement, work)
            # The editor and the buttons are on the first screen.
            run = page.get_by_role("button", name="Run visible tests").bounding_box()
            assert run and run["y"] + run["height"] <= height
            expect(page.locator(".splitter")).to_be_visible()
        else:
            assert work["y"] >= statement["y"] + statement["height"] - 1, (statement, work)
            # Nothing runs off the side of a phone: no page scrolls sideways (wide tables scroll
            # in their own box).
            for path in ("/", "/problems/aot_compiled_sum/"):
                page.goto(f"{site}{path}")
                assert page.evaluate("document.documentElement.scrollWidth") <= width, path
            expect(page.locator(".splitter")).to_be_hidden()
            # Why a test failed is on the screen, not off to the right of a wide table.
            write_code(page, (SOLUTIONS / "wrong_value.py").read_text())
            page.get_by_role("button", name="Run visible tests").click()
            expect_verdict(page, "Wrong answer")
            for why in (page.get_by_test_id("failing-input").first, page.locator("td.feedback .message").first):
                box = why.bounding_box()
                assert box and box["x"] >= 0 and box["x"] + box["width"] <= width, box
        context.close()


def test_hints_are_revealed_one_at_a_time_and_the_split_moves(page: Page, site: str) -> None:
    page.set_viewport_size({"width": 1400, "height": 900})
    page.goto(f"{site}/problems/aot_compiled_sum/")
    hints = page.locator("details.hint")
    expect(hints).to_have_count(3)
    expect(hints.nth(0)).to_be_visible()
    expect(hints.nth(1)).to_be_hidden()
    hints.nth(0).locator("summary").click()
    expect(hints.nth(1)).to_be_visible()
    expect(hints.nth(2)).to_be_hidden()

    before = page.locator("section.statement").bounding_box()
    splitter = page.locator(".splitter")
    splitter.focus()
    for _ in range(3):
        splitter.press("ArrowRight")
    after = page.locator("section.statement").bounding_box()
    assert before and after and after["width"] >= before["width"] + 100
    # The split is remembered: the next page opens with it where it was left.
    page.reload()
    remembered = page.locator("section.statement").bounding_box()
    assert remembered and abs(remembered["width"] - after["width"]) <= 2


def test_the_split_between_editor_and_console_moves_from_the_keyboard_and_is_remembered(page: Page, site: str) -> None:
    page.set_viewport_size({"width": 1400, "height": 900})
    sign_up(page, site, "resizer")
    page.goto(f"{site}/problems/aot_compiled_sum/")
    console = page.get_by_test_id("console")
    before = console.bounding_box()
    divider = page.get_by_role("separator", name="Resize the console")
    divider.focus()
    for _ in range(2):
        divider.press("ArrowUp")
    after = console.bounding_box()
    assert before and after and after["height"] >= before["height"] + 60, (before, after)
    value = int(divider.get_attribute("aria-valuenow") or 0)
    assert 0 < value < 100
    page.reload()
    remembered = page.get_by_test_id("console").bounding_box()
    assert remembered and abs(remembered["height"] - after["height"]) <= 2


def test_the_solution_gate_records_a_reveal_and_the_textarea_works_without_the_editor(page: Page, site: str) -> None:
    # This student's page never gets the editor bundle: the plain textarea must do.
    page.route("**/editor.bundle*.js", lambda route: route.abort())  # its collected name has a hash
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
    expect_verdict(page, "Accepted")

    page.goto(f"{site}/progress/")
    expect(page.locator('td[data-slug="aot_compiled_sum"]')).to_have_text("solved after viewing the solution")


def test_the_whole_journey_works_with_javascript_turned_off(browser: Browser, site: str) -> None:
    context = browser.new_context(java_script_enabled=False)
    context.set_default_timeout(15_000)
    page = context.new_page()
    sign_up(page, site, "nojs")

    # The catalog's filters are a plain GET form.
    page.get_by_label("Section").select_option("Lowering and compiling")
    page.get_by_role("button", name="Filter").click()
    expect(page.get_by_test_id("section")).to_have_count(1)
    page.get_by_role("link", name=re.compile("Ahead-of-time compilation")).click()

    # Every hint opens by itself (<details>); the shortcut labels are hidden, as the shortcuts need
    # the script; the bare textarea takes the code.
    page.get_by_text("Hint 1 of").click()
    page.get_by_text("Hint 2 of").click()
    expect(page.locator("details.hint[open]")).to_have_count(2)
    expect(page.locator(".actions kbd").first).to_be_hidden()
    textarea = page.get_by_label("Your solution")
    textarea.fill((SOLUTIONS / "wrong_value.py").read_text())
    page.get_by_role("button", name="Run visible tests").click()

    # The submission's page reloads itself (a meta refresh) until the verdict is in.
    expect(page).to_have_url(re.compile(r"/submissions/\d+/$"))
    expect_verdict(page, "Wrong answer")
    expect(page.get_by_test_id("failing-input").first).to_contain_text("dtype=jnp.float32")
    expect(page.locator("table.tests")).to_contain_text("but 10.0 was expected")
    insight = page.get_by_test_id("insight")
    expect(insight).to_have_attribute("open", "")  # open from the start: no script needed to read it
    insight.get_by_text("StableHLO").first.click()
    expect(insight.locator("pre.stablehlo").first).to_contain_text("stablehlo.reduce")

    page.get_by_role("link", name=re.compile("Ahead-of-time compilation")).click()
    page.get_by_label("Your solution").fill(load_problem("aot_compiled_sum").reference_solution.read_text())
    page.get_by_role("button", name="Submit").click()
    expect_verdict(page, "Accepted (100/100)")
    expect(page.get_by_test_id("artifacts-reference")).to_contain_text("FLOPs")
    context.close()


def test_a_submit_shows_each_test_as_it_ends_then_the_verdict_once(page: Page, site: str) -> None:
    sign_up(page, site, "watcher")
    page.goto(f"{site}/problems/value_and_grad_of/")
    expect(page.get_by_test_id("code-editor")).to_be_visible()
    # Record every test shown while grading, and what the verdict line said at that moment.
    page.evaluate(
        """() => {
        window.shownLive = [];
        new MutationObserver((changes) => {
          for (const change of changes) for (const node of change.addedNodes) {
            if (node.dataset && node.dataset.testid === "live-test") {
              const verdict = document.querySelector('[data-testid="verdict"]');
              const busy = document.getElementById("result").getAttribute("aria-busy");
              window.shownLive.push({ text: node.textContent, verdict: verdict.textContent, busy });
            }
          }
        }).observe(document.getElementById("result"), { childList: true, subtree: true });
      }"""
    )
    write_code(page, load_problem("value_and_grad_of").reference_solution.read_text())
    page.get_by_role("button", name="Submit").click()
    expect_verdict(page, "Accepted (100/100)")

    shown = page.evaluate("window.shownLive")
    assert shown, "no test was shown before the verdict"
    assert all(s["verdict"].startswith("running…") and s["busy"] == "true" for s in shown), shown
    assert shown[0]["text"].startswith("✓") and "(visible)" in shown[0]["text"]
    # Then the scored result replaced them, and the region is read out again.
    expect(page.get_by_test_id("live-tests")).to_have_count(0)
    problem = load_problem("value_and_grad_of")
    tests = (problem.visible_tests + problem.hidden_tests).count("\ndef test_")
    expect(page.locator("table.tests .outcome-passed")).to_have_count(tests)
    expect(page.get_by_test_id("result")).not_to_have_attribute("aria-busy", "true")


SLOW_RIGHT_ANSWER = """import time

import jax
import jax.numpy as jnp


def aot_compiled_sum(x):
    time.sleep(1.0)  # three visible tests: a Run of about three seconds, long enough to reload during it
    return jax.jit(jnp.sum).lower(x).compile()(x)
"""
DATE = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$")


def test_the_console_keeps_code_and_result_on_one_screen_and_the_result_across_a_reload(
    browser: Browser, site: str
) -> None:
    for width, height in ((1400, 900), (390, 844)):
        context = browser.new_context(viewport={"width": width, "height": height})
        context.set_default_timeout(15_000)
        page = context.new_page()
        sign_up(page, site, f"console{width}")
        page.goto(f"{site}/problems/aot_compiled_sum/")
        # Before any Run: the tests that Run checks, in the first tab.
        expect(page.get_by_role("tab", name="Testcases")).to_have_attribute("aria-selected", "true")
        expect(page.get_by_test_id("panel-testcases")).to_contain_text("def test_")

        write_code(page, SLOW_RIGHT_ANSWER)
        page.get_by_role("button", name="Run visible tests").click()
        expect(page.get_by_test_id("panel-result")).to_be_visible()
        expect(page.get_by_test_id("verdict")).to_contain_text("…")
        # Reloaded while the Run is being graded: the page follows it to its verdict by itself.
        page.reload()
        expect(page.locator("#result[data-status-url]")).to_have_count(1)
        expect(page.get_by_role("button", name="Submit")).to_be_disabled()
        expect_verdict(page, "Accepted (100/100)")
        expect(page.get_by_role("button", name="Submit")).to_be_enabled()
        # Reloaded again: the latest result opens the console.
        page.reload()
        expect(page.get_by_role("tab", name="Result")).to_have_attribute("aria-selected", "true")
        expect(page.get_by_test_id("verdict")).to_contain_text("Accepted (100/100)")
        expect(page.get_by_test_id("panel-result")).to_contain_text("Your latest run")
        if width == 1400:
            # Code and verdict on one screen, side by side with the statement, nothing scrolled.
            for what in (page.get_by_test_id("code-editor"), page.get_by_test_id("verdict")):
                box = what.bounding_box()
                assert box and box["y"] >= 0 and box["y"] + min(box["height"], 40) <= height, box
        page.get_by_role("tab", name="Output").click()
        expect(page.get_by_test_id("panel-output")).to_contain_text("printed nothing")
        page.get_by_role("tab", name="Submissions").click()
        when = page.locator('#history td[data-label="When"]').first
        assert DATE.match(when.inner_text().strip()), when.inner_text()
        # Every tab is on the screen and nothing scrolls sideways, whatever the width.
        for tab in page.get_by_role("tab").all():
            box = tab.bounding_box()
            assert box and box["x"] >= 0 and box["x"] + box["width"] <= width, box
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        context.close()


def test_a_date_written_by_the_page_script_reads_as_the_server_writes_it(page: Page, site: str) -> None:
    sign_up(page, site, "dates")
    page.goto(f"{site}/problems/aot_compiled_sum/")
    write_code(page, (SOLUTIONS / "wrong_value.py").read_text())
    page.get_by_role("button", name="Run visible tests").click()
    expect_verdict(page, "Wrong answer")
    page.get_by_role("tab", name="Submissions").click()
    added = page.locator('#history td[data-label="When"]').first.inner_text().strip()
    page.reload()
    page.get_by_role("tab", name="Submissions").click()
    assert DATE.match(added) and page.locator('#history td[data-label="When"]').first.inner_text().strip() == added


ENDLESS_LOOP = "def aot_compiled_sum(x):\n    while True:\n        pass\n"


def test_a_long_run_shows_its_clock_against_the_limit_and_cancel_stops_it(sized_page: Page, site: str) -> None:
    page = sized_page
    sign_up(page, site, "canceller")
    page.goto(f"{site}/problems/aot_compiled_sum/")
    write_code(page, ENDLESS_LOOP)
    page.get_by_role("button", name="Run visible tests").click()
    clock = page.get_by_test_id("elapsed")
    expect(clock).to_contain_text(re.compile(r"^\d+\.\d s of at most 60 s$"))
    expect(page.get_by_test_id("verdict")).to_contain_text("running", timeout=VERDICT_TIMEOUT_MS)
    first = clock.inner_text()
    page.wait_for_timeout(500)
    assert clock.inner_text() != first  # it counts
    page.get_by_role("button", name="Cancel").click()
    # Stopped long before the limit (how soon is measured by bench.web_verdict --cancel).
    expect(page.get_by_test_id("verdict")).to_contain_text("Cancelled", timeout=5_000)
    expect(page.get_by_test_id("result")).to_contain_text("you stopped it after")
    expect(page.get_by_role("button", name="Cancel")).to_be_hidden()
    expect(clock).to_have_text("")
    expect(page.get_by_role("button", name="Run visible tests")).to_be_enabled()
    page.get_by_role("tab", name="Submissions").click()
    expect(page.locator("#history tbody tr").first).to_contain_text("cancelled")


RAISES_ON_LINE_5 = """import jax
import jax.numpy as jnp

def aot_compiled_sum(x):
    return jax.jit(jnp.sum).lower(x).compile()(x) + undefined_name
"""


def test_the_line_an_error_points_at_is_marked_in_the_editor_and_a_click_goes_there(
    sized_page: Page, site: str
) -> None:
    page = sized_page
    sign_up(page, site, "linemarks")
    page.goto(f"{site}/problems/aot_compiled_sum/")
    write_code(page, RAISES_ON_LINE_5)
    page.get_by_role("button", name="Run visible tests").click()
    expect_verdict(page, "Runtime error")
    link = page.get_by_test_id("panel-result").locator("a[data-line='5']").first
    expect(link).to_contain_text('File "solution.py", line 5')
    viewport = page.viewport_size
    assert viewport and page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]  # nothing sideways
    editor = page.get_by_test_id("code-editor")
    expect(editor.locator(".cm-error-line")).to_have_count(1)
    expect(editor.locator(".cm-error-line")).to_contain_text("undefined_name")
    expect(editor.locator(".cm-error-gutter")).to_have_text("5")
    # The cursor is elsewhere; following the link puts it on that line, in the editor.
    editor.locator(".cm-content").click()
    page.keyboard.press("Control+Home")
    expect(editor.locator(".cm-activeLine")).to_have_text("import jax")
    link.click()
    expect(editor.locator(".cm-activeLine")).to_contain_text("undefined_name")
    expect(editor.locator(".cm-content")).to_be_focused()

    # A syntax error marks its own line, and the marks of the last result go.
    write_code(page, "def aot_compiled_sum(x):\n    return x +\n")
    page.get_by_role("button", name="Run visible tests").click()
    expect_verdict(page, "Syntax error")
    expect(editor.locator(".cm-error-gutter")).to_have_text("2")
    expect(editor.locator(".cm-error-line")).to_have_text("    return x +")
    # After a reload the latest result is shown, and its line marked, as soon as the editor is there.
    page.reload()
    expect(page.get_by_test_id("code-editor").locator(".cm-error-gutter")).to_have_text("2")


def refuse_sign_up(page: Page, site: str) -> None:
    fill_sign_up(page, site, "refused", confirmation="another-password-42")


def test_sign_up_and_sign_in_say_what_was_wrong_beside_the_field_and_keep_what_was_typed(
    sized_page: Page, site: str
) -> None:
    page = sized_page
    refuse_sign_up(page, site)
    confirmation = page.get_by_label("Password confirmation")
    # Beside the field, read with it (aria-describedby), and the field marked invalid.
    error = page.locator(".field.invalid .errorlist")
    expect(error).to_have_count(1)
    expect(error).to_contain_text("The two password fields didn")
    expect(confirmation).to_have_attribute("aria-invalid", "true")
    described_by = confirmation.get_attribute("aria-describedby") or ""
    expect(page.locator(f"#{described_by.split()[-1]}")).to_contain_text("The two password fields didn")
    expect(page.get_by_label("Username")).to_have_value(re.compile(r"^refused-"))
    assert page.evaluate("getComputedStyle(document.querySelector('.errorlist')).color") != page.evaluate(
        "getComputedStyle(document.body).color"
    )

    page.get_by_role("link", name="Sign in").last.click()
    page.get_by_label("Username").fill("nobody-by-this-name")
    page.get_by_label("Password").fill("not-the-password")
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("alert")).to_contain_text("Please enter a correct username and password")
    expect(page.get_by_label("Username")).to_have_value("nobody-by-this-name")
    expect(page.get_by_role("heading", name="Sign in", level=1)).to_be_visible()


# What a staff member could type into on an admin page.
EDITABLE = "form input:not([type=hidden]):not([type=submit]), form select, form textarea"


def test_staff_read_a_report_in_the_admin_cannot_edit_its_result_and_regrade_it(
    browser: Browser, site: str, running_site: RunningSite | None
) -> None:
    if running_site is None:
        pytest.skip("a staff account is made on the database of a site these tests start")
    staff = f"staff-{secrets.token_hex(3)}"
    subprocess.run(
        [
            sys.executable,
            "manage.py",
            "createsuperuser",
            "--noinput",
            "--username",
            staff,
            "--email",
            "staff@example.org",
        ],
        cwd=REPO_ROOT,
        env={**running_site.env, "DJANGO_SUPERUSER_PASSWORD": "a-long-password-42"},
        check=True,
        capture_output=True,
    )
    student_page = browser.new_page()
    student = sign_up(student_page, site, "graded")
    student_page.goto(f"{site}/problems/aot_compiled_sum/")
    write_code(student_page, (SOLUTIONS / "wrong_value.py").read_text())
    student_page.get_by_role("button", name="Submit").click()
    expect_verdict(student_page, "Wrong answer")
    student_page.close()

    page = browser.new_page()
    page.set_default_timeout(15_000)
    page.goto(f"{site}/admin/")
    page.get_by_label("Username").fill(staff)
    page.get_by_label("Password").fill("a-long-password-42")
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("link", name="Progress", exact=True)).to_be_visible()  # not "Progresss"
    page.locator("tr.model-submission").get_by_role("link", name="Submissions").click()
    page.locator("#searchbar").fill(student)
    page.keyboard.press("Enter")
    rows = page.locator("#result_list tbody tr")
    expect(rows).to_have_count(1)
    expect(rows).to_contain_text("wrong_answer")
    rows.locator("th a, td a").first.click()
    # The report as a table of tests with the message the student read; nothing of the result editable.
    tests = page.locator(".field-test_results table")
    expect(tests).to_contain_text("test_")
    expect(tests).to_contain_text("failed")
    expect(page.locator(".field-verdict")).to_contain_text("wrong_answer")
    editable = page.locator(EDITABLE)
    expect(editable).to_have_count(0)

    page.go_back()
    rows.locator("input[type=checkbox]").check()
    page.get_by_role("combobox", name="Action").select_option(label="Grade the selected submissions again")
    page.get_by_role("button", name="Go").click()
    expect(page.locator(".messagelist")).to_contain_text("Queued 1 submission(s) to be graded again")
    # The list it leads to shows the grading's progress; reloaded, it reaches its verdict again.
    status = page.locator("#result_list tbody tr td.field-status")
    expect(status).to_have_text(re.compile("Queued|Running|Graded"))
    for _ in range(int(VERDICT_TIMEOUT_MS / 500)):
        if status.inner_text().strip() == "Graded":
            break
        page.wait_for_timeout(500)
        page.reload()
    expect(status).to_have_text("Graded")
    expect(page.locator("#result_list tbody tr td.field-verdict")).to_have_text("wrong_answer")
    expect(page.locator("#result_list tbody tr td.field-attempt")).to_have_text("2")
    # On a phone: the same report and the same list, nothing of the result editable.
    phone = browser.new_context(viewport={"width": 390, "height": 844}, storage_state=page.context.storage_state())
    small = phone.new_page()
    small.goto(page.url)
    expect(small.locator("#result_list tbody tr td.field-status")).to_have_text("Graded")
    small.locator("#result_list tbody tr").locator("th a, td a").first.click()
    expect(small.locator(".field-test_results table")).to_contain_text("failed")
    expect(small.locator(EDITABLE)).to_have_count(0)
    phone.close()
    page.close()


# What the page and everything it loads weigh compressed, as sent (cached or not).
PAGE_WEIGHT = """() => [...performance.getEntriesByType("navigation"), ...performance.getEntriesByType("resource")]
  .reduce((total, entry) => total + entry.encodedBodySize, 0)"""


def test_the_first_signed_in_problem_page_weighs_under_150_kb_compressed(page: Page, site: str) -> None:
    sign_up(page, site, "weight")
    page.goto(f"{site}/problems/aot_compiled_sum/")
    expect(page.get_by_test_id("code-editor")).to_be_visible()
    names = page.evaluate("performance.getEntriesByType('resource').map((entry) => entry.name)")
    assert any("editor.bundle." in name for name in names), names
    weight = page.evaluate(PAGE_WEIGHT)
    assert 20_000 < weight < 150_000, weight


def test_every_page_names_itself_and_the_home_page_says_where_to_start(browser: Browser, site: str) -> None:
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    page = context.new_page()
    page.goto(f"{site}/")
    expect(page.get_by_test_id("intro")).to_contain_text("Start with section 1")
    expect(page.get_by_test_id("intro").get_by_role("link", name="Sign up")).to_be_visible()
    # A skip link, first in the tab order, jumps over the header.
    page.keyboard.press("Tab")
    expect(page.get_by_role("link", name="Skip to the content")).to_be_focused()
    page.goto(f"{site}/problems/aot_compiled_sum/")
    invite = page.get_by_test_id("invite")
    expect(invite.get_by_role("link", name="Sign up")).to_be_visible()
    titles = {}
    for path in ("/", "/problems/aot_compiled_sum/", "/accounts/login/", "/accounts/signup/"):
        page.goto(f"{site}{path}")
        expect(page.locator("h1")).to_have_count(1)
        titles[path] = (page.title(), page.locator("h1").inner_text())
    assert len({title for title, _ in titles.values()}) == len(titles), titles
    assert titles["/problems/aot_compiled_sum/"][0].startswith(titles["/problems/aot_compiled_sum/"][1])
    context.close()


def test_the_dark_theme_follows_the_system_setting(browser: Browser, site: str) -> None:
    def background(scheme: Literal["light", "dark"]) -> str:
        context = browser.new_context(color_scheme=scheme)
        page = context.new_page()
        page.goto(f"{site}/")
        color = page.evaluate("getComputedStyle(document.body).backgroundColor")
        context.close()
        return color

    assert background("light") == "rgb(255, 255, 255)"
    assert background("dark") == "rgb(22, 24, 28)"


AXE = Path(__file__).resolve().parents[2] / "webapp" / "frontend" / "node_modules" / "axe-core" / "axe.min.js"
# axe-core's report, its serious and critical violations only. One exemption: CodeMirror's own
# scroll container (tabindex -1) is reached from the keyboard through its editable content.
AXE_CHECK = """async () => {
  const report = await axe.run(document, { resultTypes: ["violations"] });
  return report.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => ({ id: v.id, nodes: v.nodes.map((n) => n.html.slice(0, 160)) }))
    .filter((v) => !(v.id === "scrollable-region-focusable"
      && v.nodes.every((n) => n.includes('class="cm-scroller"'))));
}"""


@pytest.mark.skipif(not AXE.exists(), reason="axe-core is installed by make setup (npm ci)")
def test_no_page_has_a_serious_or_critical_accessibility_violation(browser: Browser, site: str) -> None:
    found: dict[str, list[dict[str, object]]] = {}

    def check(page: Page, name: str) -> None:
        viewport = page.viewport_size
        assert viewport and page.evaluate("document.documentElement.scrollWidth") <= viewport["width"], (
            f"{name} scrolls sideways"
        )
        page.add_script_tag(path=str(AXE))
        violations = page.evaluate(AXE_CHECK)
        if violations:
            found[name] = violations

    journeys: tuple[tuple[int, int, Literal["light", "dark"]], ...] = ((1400, 900, "light"), (390, 844, "dark"))
    for width, height, scheme in journeys:
        context = browser.new_context(viewport={"width": width, "height": height}, color_scheme=scheme)
        context.set_default_timeout(15_000)
        page = context.new_page()
        for path in ("/", "/problems/aot_compiled_sum/", "/accounts/login/", "/accounts/signup/"):
            page.goto(f"{site}{path}")
            check(page, f"{path} {width} {scheme}")
        refuse_sign_up(page, site)
        check(page, f"refused sign-up {width} {scheme}")
        sign_up(page, site, f"axe{width}")
        page.goto(f"{site}/problems/aot_compiled_sum/")
        check(page, f"problem {width} {scheme}")
        write_code(page, (SOLUTIONS / "wrong_value.py").read_text())
        page.get_by_role("button", name="Run visible tests").click()
        expect_verdict(page, "Wrong answer")
        check(page, f"result {width} {scheme}")
        page.get_by_role("tab", name="JAX insight").click()
        check(page, f"insight {width} {scheme}")
        page.get_by_role("tab", name="Submissions").click()
        page.locator("#history tbody a").first.click()
        check(page, f"submission {width} {scheme}")
        for path in ("/progress/", "/problems/aot_compiled_sum/solution/"):
            page.goto(f"{site}{path}")
            check(page, f"{path} {width} {scheme}")
        page.get_by_role("button", name="Reveal the solution").click()
        check(page, f"editorial {width} {scheme}")
        context.close()
    assert not found, found
