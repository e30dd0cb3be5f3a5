"""Running code in a real browser: the solution gate, the journey without JavaScript, a Submit
showing each test as it ends, the console across a reload, dates, and Cancel of a long run."""

from __future__ import annotations

import re

from playwright.sync_api import Browser, Page, expect

from grader.problem import load_problem
from tests.webapp.support.browser_steps import (
    BROWSER_TESTS,
    SOLUTIONS,
    VERDICT_TIMEOUT_MS,
    expect_verdict,
    sign_up,
    write_code,
)

pytestmark = BROWSER_TESTS


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
    # The first failure is open without a script: its whole message is there to read.
    expect(page.get_by_test_id("failure-message").first).to_contain_text("but 10.0 was expected")
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
    page.get_by_test_id("passes").locator("summary").click()
    expect(page.get_by_test_id("passed-test")).to_have_count(tests)
    expect(page.get_by_test_id("result")).not_to_have_attribute("aria-busy", "true")


SLOW_RIGHT_ANSWER = """import time

import jax
import jax.numpy as jnp


def aot_compiled_sum(x):
    time.sleep(1.0)  # three visible tests: a Run of about three seconds, long enough to reload during it
    return jax.jit(jnp.sum).lower(x).compile()(x)
"""


# To the second, in the reader's zone and saying which ("2026-11-28 11:17:33 UTC", "... CET", "... UTC+05:30").
DATE = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d (UTC|[A-Z]{2,5}|UTC[+-]\d\d:\d\d)$")


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
    # One line, as the student chose it: no test listed as killed by the stopping.
    expect(page.get_by_test_id("verdict")).to_have_text(
        re.compile(r"^\s*Cancelled after \d+\.\d s\.\s*$"), timeout=5_000
    )
    result = page.get_by_test_id("result").inner_text()
    assert "signal" not in result and "SIGKILL" not in result and "killed" not in result, result
    expect(page.get_by_test_id("failure")).to_have_count(0)
    expect(page.get_by_role("button", name="Cancel")).to_be_hidden()
    expect(clock).to_have_text("")
    expect(page.get_by_role("button", name="Run visible tests")).to_be_enabled()
    page.get_by_role("tab", name="Submissions").click()
    expect(page.locator("#history tbody tr").first).to_contain_text("cancelled")
