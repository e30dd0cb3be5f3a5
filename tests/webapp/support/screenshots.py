"""``make screenshots``: the catalog, a refused sign-up, the problem page and its console (the
tests Run checks, a failing result, an error's line marked in the editor, a run under way with
its clock and Cancel, the JAX insight) and the editorial, as a student sees them, at 1400×900
and 390×844, for a reviewer to look at; then a course (``tests/webapp/support/course_demo.py``): its
page, an assignment and a problem opened from it (handed in within the grace) as a student
reads them, and as its instructor reads them: the gradebook with one assignment's problems
shown, the set-up pages (create a course, edit it, edit an assignment with its problem picker,
a student's extension and override, a regrade's confirmation), the roster after an upload
refused for two bad lines, and the assignment's problem statistics.

Run: .venv/bin/python -m tests.webapp.support.screenshots [OUT_DIR]   (default out/screenshots)

Starts the site as ``make run`` does on a throwaway database (real worker, sandbox and JAX),
signs a student up in Debian's chromium, fails a visible test, opens the insight tab, starts
an endless loop and cancels it, then submits the reference and compares; writes one PNG per
step and size.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page, expect, sync_playwright

from grader.problem import REPO_ROOT, load_problem, solutions_dir
from tests.webapp.support import course_demo
from tests.webapp.support.browser_steps import (
    CHROMIUM,
    CHROMIUM_FLAGS,
    RAISES_ON_LINE_5,
    VERDICT_TIMEOUT_MS,
    refuse_sign_up,
    sign_in,
    sign_up,
    write_code,
)
from tests.webapp.support.running_site import RunningSite

SIZES = {"desktop": (1400, 900), "phone": (390, 844)}
SLUG = "aot_compiled_sum"


def screenshot(page: Page, path: Path, *, full_page: bool) -> Path:
    """The page as it stands once loaded. Headless chromium now and then refuses a capture
    while the page is still settling ("Unable to capture screenshot"): a second try, after
    the page has finished loading, takes it."""
    for attempt in range(2):
        page.wait_for_load_state()
        try:
            page.screenshot(path=str(path), full_page=full_page)
            break
        except PlaywrightError:
            if attempt:
                raise
            page.wait_for_timeout(500)
    return path


def journey(page: Page, site: str, out: Path, size: str) -> list[Path]:
    shots = []

    def shot(name: str, *, full_page: bool = False) -> None:
        shots.append(screenshot(page, out / f"{name}-{size}.png", full_page=full_page))

    page.goto(f"{site}/")
    shot("catalog", full_page=True)
    refuse_sign_up(page, site)
    shot("sign-up-refused")
    sign_up(page, site, f"shots-{size}")
    page.goto(f"{site}/problems/{SLUG}/")
    expect(page.get_by_test_id("code-editor")).to_be_visible()
    shot("problem")
    write_code(page, (solutions_dir() / SLUG / "wrong_value.py").read_text())
    page.get_by_role("button", name="Run visible tests").click()
    expect(page.get_by_test_id("verdict")).to_contain_text("Wrong answer", timeout=VERDICT_TIMEOUT_MS)
    page.get_by_test_id("verdict").scroll_into_view_if_needed()
    shot("failing-result")
    # A Submit that fails some tests and passes others: the failures first, the passes folded.
    write_code(page, (solutions_dir() / SLUG / "wrong_sums_first_axis.py").read_text())
    page.get_by_role("button", name="Submit").click()
    expect(page.get_by_test_id("verdict")).to_contain_text("Runtime error", timeout=VERDICT_TIMEOUT_MS)
    shot("failing-submit")
    write_code(page, (solutions_dir() / SLUG / "wrong_value.py").read_text())
    page.get_by_role("button", name="Run visible tests").click()
    expect(page.get_by_test_id("verdict")).to_contain_text("Wrong answer", timeout=VERDICT_TIMEOUT_MS)
    page.get_by_role("tab", name="JAX insight").click()
    page.get_by_test_id("insight").get_by_text("StableHLO").first.click()
    page.get_by_test_id("insight").scroll_into_view_if_needed()
    shot("insight")
    page.get_by_role("tab", name="Testcases").click()
    shot("testcases")
    write_code(page, RAISES_ON_LINE_5)
    page.get_by_role("button", name="Run visible tests").click()
    expect(page.get_by_test_id("verdict")).to_contain_text("Runtime error", timeout=VERDICT_TIMEOUT_MS)
    page.get_by_test_id("panel-result").locator("a[data-line]").first.scroll_into_view_if_needed()
    shot("error-line-marked")
    write_code(page, "def aot_compiled_sum(x):\n    while True:\n        pass\n")
    page.get_by_role("button", name="Run visible tests").click()
    expect(page.get_by_test_id("verdict")).to_contain_text("running", timeout=VERDICT_TIMEOUT_MS)
    page.wait_for_timeout(1500)
    shot("running-with-cancel")
    page.get_by_role("button", name="Cancel").click()
    expect(page.get_by_test_id("verdict")).to_contain_text("Cancelled", timeout=VERDICT_TIMEOUT_MS)
    shot("cancelled")
    write_code(page, load_problem(SLUG).reference_solution.read_text())
    page.get_by_role("button", name="Submit").click()
    expect(page.get_by_test_id("verdict")).to_contain_text("Accepted", timeout=VERDICT_TIMEOUT_MS)
    expect(page.get_by_test_id("solved-banner")).to_be_visible()
    shot("solved")
    page.get_by_role("tab", name="JAX insight").click()
    page.get_by_test_id("artifacts-reference").scroll_into_view_if_needed()
    shot("insight-with-reference")
    page.goto(f"{site}/problems/{SLUG}/solution/")  # solved: the editorial, no gate
    expect(page.get_by_test_id("solution")).to_be_visible()
    shot("editorial", full_page=True)
    return shots


# A roster with two bad lines (an email that is none, a username listed twice): the page
# lists both, and enrols nobody.
BAD_ROSTER = b"""username,email,name,student_id,section
nora,nora@university.example.edu,Nora Bloom,20260101,Monday
omar,omar-at-university,Omar Haddad,20260102,Monday
nora,nora.b@university.example.edu,Nora Bloom,20260103,Thursday
"""


def course_journey(page: Page, site: str, out: Path, size: str) -> list[Path]:
    shots = []

    def shot(name: str) -> None:
        shots.append(screenshot(page, out / f"{name}-{size}.png", full_page=True))

    course = f"{site}/courses/jax-in-practice"
    sign_in(page, site, course_demo.STUDENT, course_demo.PASSWORD)
    page.goto(f"{course}/")
    shot("course")
    page.get_by_role("link", name="Week 1: compiling").click()
    expect(page.get_by_text("Your score:")).to_be_visible()
    shot("assignment")
    # The problem the student handed in 10 s late, opened from the assignment: its banner
    # names the assignment, the due time in the student's zone, the grace and the neighbours.
    page.goto(f"{site}/problems/{course_demo.LATE_BY_SECONDS}/?assignment=jax-in-practice/week-1")
    expect(page.get_by_test_id("in-assignment")).to_be_visible()
    expect(page.get_by_test_id("code-editor")).to_be_visible()
    shot("problem-in-assignment")
    page.context.clear_cookies()
    sign_in(page, site, course_demo.INSTRUCTOR, course_demo.PASSWORD)
    page.goto(f"{course}/gradebook/?assignment=week-1")
    expect(page.locator("table.gradebook tbody tr")).to_have_count(len(course_demo.STUDENTS))
    shot("gradebook")
    # The set-up pages, as the course's instructor (who may create courses) reads them.
    page.goto(f"{site}/courses/new/")
    expect(page.get_by_role("heading", name="Create a course")).to_be_visible()
    shot("course-create")
    page.goto(f"{course}/edit/")
    expect(page.get_by_role("heading", name="Edit the course")).to_be_visible()
    shot("course-edit")
    page.goto(f"{course}/week-1/edit/")
    expect(page.locator("fieldset.problem-picker")).to_be_visible()
    shot("assignment-edit")
    # Students with one already: each form lists what they have.
    page.goto(f"{course}/students/{course_demo.EXTENDED}/extension/")
    expect(page.get_by_test_id("extensions")).to_be_visible()
    shot("extension")
    page.goto(f"{course}/students/{course_demo.OVERRIDDEN}/override/")
    expect(page.get_by_test_id("overrides")).to_be_visible()
    shot("override")
    page.goto(f"{course}/regrade/confirm/?target=week-1")
    expect(page.get_by_test_id("regrade-count")).to_be_visible()
    shot("regrade-confirm")
    page.goto(f"{course}/roster/")
    page.get_by_label("Roster (CSV)").set_input_files(
        {"name": "roster.csv", "mimeType": "text/csv", "buffer": BAD_ROSTER}
    )
    page.get_by_role("button", name="Invite").click()
    expect(page.get_by_test_id("roster-errors")).to_be_visible()
    shot("roster-refused")
    # Week 1, whose due time has passed (the page opens on the one released last: week 2, not yet handed in).
    page.goto(f"{course}/gradebook/statistics/?assignment=week-1")
    expect(page.get_by_test_id("problem-statistics")).to_have_count(len(course_demo.PROBLEMS))
    shot("statistics")
    return shots


def main(argv: list[str]) -> int:
    out = Path(argv[0] if argv else "out/screenshots")
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="jaxjudge-shots-") as directory:
        site = RunningSite(f"sqlite:///{Path(directory) / 'db.sqlite3'}")
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
                subprocess.run(
                    [
                        sys.executable,
                        "manage.py",
                        "shell",
                        "-c",
                        "from tests.webapp.support.course_demo import make; make()",
                    ],
                    cwd=REPO_ROOT,
                    env=site.env,
                    check=True,
                )
                for size, (width, height) in SIZES.items():
                    for walk in (journey, course_journey):
                        # The phone is a touch screen, as a student's is: no keyboard hints shown.
                        touch = size == "phone"
                        context = browser.new_context(
                            viewport={"width": width, "height": height}, has_touch=touch, is_mobile=touch
                        )
                        context.set_default_timeout(15_000)
                        for path in walk(context.new_page(), site.url, out, size):
                            print(path)
                        context.close()
                browser.close()
        finally:
            site.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
