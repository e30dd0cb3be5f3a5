"""A course run in a real browser, from the instructor's first click to the late mark in the
gradebook, and a student arriving from the school's platform by LTI. The site runs as ``make
run`` runs it, on this test's own database (SQLite here; PostgreSQL in the PostgreSQL pass,
``tests/postgres.py``), with a real worker grading in the sandbox."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Literal

import pytest
from playwright.sync_api import Browser, Page, expect, sync_playwright

from grader.problem import REPO_ROOT
from tests.webapp.support import course_demo
from tests.webapp.support.browser_steps import (
    AXE,
    AXE_CHECK,
    CHROMIUM,
    CHROMIUM_FLAGS,
    SOLUTIONS,
    VERDICT_TIMEOUT_MS,
    expect_verdict,
    sign_in,
    sign_up,
    write_code,
)
from tests.webapp.support.lti_course import ASSIGNMENT_SLUG, SAM, linked_course
from tests.webapp.support.lti_platform import Platform
from tests.webapp.support.running_site import RunningSite, this_tests_database

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Debian's chromium is not installed"),
]


@pytest.fixture
def running_site(catalog: None, tmp_path: Path) -> Iterator[RunningSite]:
    """The site on this test's database, with the catalog in it; its emails are written to
    files in ``tmp_path / "mail"`` (the file backend)."""
    running = RunningSite(
        this_tests_database(), setup=False, extra_env={"JAXJUDGE_EMAIL_FILE_PATH": str(tmp_path / "mail")}
    )
    yield running
    running.stop()


EMAILED_LINK = re.compile(r"https?://\S+/courses/join/invited/[\w-]+/")


def emailed_link(site: RunningSite, address: str) -> str:
    """The link in the email the site wrote to ``address`` (the file backend's folder)."""
    folder = Path(site.env["JAXJUDGE_EMAIL_FILE_PATH"])
    for message in "\n".join(path.read_text() for path in sorted(folder.glob("*.log"))).split("-" * 79):
        if re.search(f"^To: {re.escape(address)}$", message, re.MULTILINE):
            found = EMAILED_LINK.search(message)
            assert found, message
            return found.group()
    raise AssertionError(f"no email to {address} in {folder}")


@pytest.fixture
def browser(running_site: RunningSite) -> Iterator[Browser]:
    """Started after the database work above and closed before it is emptied: Playwright's
    event loop in this thread would stop Django's database calls (they are not async-safe)."""
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        yield launched
        launched.close()


def make_instructor(site: RunningSite, username: str) -> None:
    """As the site's administrator would: ``manage.py instructor`` on the site's database."""
    subprocess.run(
        [sys.executable, "manage.py", "instructor", username],
        cwd=REPO_ROOT,
        env=site.env,
        check=True,
        capture_output=True,
    )


def new_page(browser: Browser, *, width: int = 1400, height: int = 900, zone: str = "UTC") -> Page:
    """A page in a context of its own (its own cookies: nobody signed in yet), at this size and time zone."""
    context = browser.new_context(viewport={"width": width, "height": height}, timezone_id=zone, locale="en-US")
    context.set_default_timeout(20_000)
    return context.new_page()


def open_admin(page: Page, site: str) -> None:
    """The admin, as the signed-in instructor sees it: their courses, nothing of the site's."""
    page.goto(f"{site}/admin/")
    expect(page.get_by_role("link", name="Courses", exact=True)).to_be_visible()
    expect(page.get_by_role("link", name="Submissions", exact=True)).to_have_count(0)


def fill_time(page: Page, field: str, when: datetime) -> None:
    """The admin's date and time boxes of ``field``, in the site's time zone (UTC)."""
    page.locator(f"#id_{field}_0").fill(when.strftime("%Y-%m-%d"))
    page.locator(f"#id_{field}_1").fill(when.strftime("%H:%M:%S"))


def test_an_instructor_runs_a_course_and_the_gradebook_marks_the_late_solution(
    browser: Browser, running_site: RunningSite
) -> None:
    site = running_site.url
    # Three people sign up; the site's administrator makes one of them an instructor.
    ada_page, bob_page, teacher = (
        new_page(browser, zone="America/New_York"),
        *(new_page(browser) for _ in range(2)),
    )
    ada, bob, grace = sign_up(ada_page, site, "ada"), sign_up(bob_page, site, "bob"), sign_up(teacher, site, "grace")
    make_instructor(running_site, grace)

    # The instructor creates the course and an assignment of two problems, due in a day.
    open_admin(teacher, site)
    teacher.goto(f"{site}/admin/courses/course/add/")
    teacher.get_by_label("Title").press_sequentially("JAX in practice")
    expect(teacher.get_by_label("Slug")).to_have_value("jax-in-practice")  # filled in from the title
    teacher.get_by_role("button", name="Save", exact=True).click()
    expect(teacher.locator(".messagelist")).to_contain_text("was added successfully")

    teacher.goto(f"{site}/courses/jax-in-practice/")  # the course's page leads to the admin's form
    teacher.get_by_role("link", name="Add an assignment").click()
    expect(teacher.get_by_label("Course").locator("option:checked")).to_have_text("JAX in practice")
    teacher.get_by_label("Title").fill("Week 1")
    now = datetime.now(UTC)
    fill_time(teacher, "release_at", now - timedelta(hours=1))
    fill_time(teacher, "due_at", now + timedelta(days=1))
    teacher.get_by_label("Late policy").select_option("penalty_per_day")
    teacher.get_by_label("Penalty percent per day").fill("10")
    for row, slug in enumerate(["aot_compiled_sum", "batched_dot"]):
        teacher.locator(f"#id_items-{row}-problem").select_option(label=slug)
        teacher.locator(f"#id_items-{row}-points").fill("10")
        teacher.locator(f"#id_items-{row}-position").fill(str(row))
    teacher.get_by_role("button", name="Save", exact=True).click()
    expect(teacher.locator(".messagelist")).to_contain_text("was added successfully")

    # It invites both students, and a third who has no account yet, from a CSV file on the
    # course's roster page; the courses' worker emails each a link.
    teacher.goto(f"{site}/courses/jax-in-practice/roster/")
    roster = (
        f"username,email,name,section\n{ada},ada@example.org,Ada L,A\n{bob},bob@example.org,Bob K,B\n"
        "cyd,cyd@example.org,Cyd N,A\n"
    )
    teacher.get_by_label("Roster (CSV)").set_input_files(
        {"name": "roster.csv", "mimeType": "text/csv", "buffer": roster.encode()}
    )
    teacher.get_by_role("button", name="Invite").click()
    expect(teacher.get_by_test_id("roster-upload")).to_contain_text(
        "done: 1 accounts made to be activated, 2 invited with their own accounts"
    )
    # Ada and Bob accept with their own (signed-in) accounts; Cyd chooses a password for the
    # account the roster made, and signs in with it.
    for page, address, name in ((ada_page, "ada@example.org", ada), (bob_page, "bob@example.org", bob)):
        page.goto(emailed_link(running_site, address))
        page.get_by_role("button", name=f"Join as {name}").click()
        expect(page.get_by_role("heading", name="JAX in practice")).to_be_visible()
    cyd_page = new_page(browser, width=390, height=844)  # on a phone
    cyd_page.goto(emailed_link(running_site, "cyd@example.org"))
    cyd_page.get_by_label(re.compile(r"^New password:?$")).fill("cyds-own-password-5")
    cyd_page.get_by_label("New password confirmation").fill("cyds-own-password-5")
    cyd_page.get_by_role("button", name="Set the password and join").click()
    expect(cyd_page.get_by_role("heading", name="JAX in practice")).to_be_visible()
    cyd_page.get_by_role("button", name="Sign out").click()
    cyd_page.goto(f"{site}/accounts/login/")
    cyd_page.get_by_label("Username").fill("cyd")
    cyd_page.get_by_label("Password").fill("cyds-own-password-5")
    cyd_page.get_by_role("button", name="Sign in").click()
    cyd_page.goto(f"{site}/courses/")
    expect(cyd_page.get_by_role("link", name="JAX in practice")).to_be_visible()
    assert overflow(cyd_page) <= 0

    # Ada solves the first problem before the deadline, from the assignment's page.
    ada_page.goto(f"{site}/courses/")
    ada_page.get_by_role("link", name="JAX in practice").click()
    ada_page.get_by_role("link", name="Week 1").click()
    expect(ada_page.get_by_text("Your score:")).to_contain_text("0 of 20 points")
    expect(ada_page.locator("time").first).to_contain_text(re.compile(r"E[SD]T$"))  # in her own time zone
    ada_page.locator("table").get_by_role("link").first.click()
    write_code(ada_page, (SOLUTIONS / "reference.py").read_text())
    ada_page.get_by_role("button", name="Submit").click()
    expect_verdict(ada_page, "Accepted")

    # The instructor closes the assignment now; ada solves the second problem after that.
    teacher.goto(f"{site}/admin/courses/assignment/")
    teacher.get_by_role("link", name="Week 1").click()
    fill_time(teacher, "due_at", datetime.now(UTC))
    teacher.get_by_role("button", name="Save", exact=True).click()
    expect(teacher.locator(".messagelist")).to_contain_text("was changed successfully")
    ada_page.wait_for_timeout(1500)  # the second hand-in lands in a later second than the due time

    ada_page.goto(f"{site}/problems/batched_dot/")
    write_code(ada_page, (SOLUTIONS.parent / "batched_dot" / "reference.py").read_text())
    ada_page.get_by_role("button", name="Submit").click()
    expect_verdict(ada_page, "Accepted")
    ada_page.goto(f"{site}/courses/jax-in-practice/week-1/")
    expect(ada_page.get_by_text("Your score:")).to_contain_text("19 of 20 points")
    expect(ada_page.locator(".late")).to_contain_text("1 day late: 10% off")

    # The gradebook: the three students, ada's 19 with the late mark, bob's 0; by problem, 10 and 9.
    teacher.goto(f"{site}/courses/jax-in-practice/gradebook/")
    rows = teacher.locator("table.gradebook tbody tr")
    expect(rows).to_have_count(3)
    ada_row = rows.filter(has_text=ada)
    expect(ada_row.locator("td").nth(2)).to_have_text("19 late")
    expect(rows.filter(has_text=bob).locator("td").nth(2)).to_have_text("0")
    teacher.get_by_label("Problems of").select_option(label="Week 1")
    teacher.get_by_role("button", name="Show").click()
    expect(ada_row.locator("td.problem-column")).to_have_text(["10", "9 late"])
    # Readable at 1400 px: the table fits without scrolling sideways.
    assert overflow(teacher) <= 0, f"the gradebook is {overflow(teacher)} px wider than the window"
    # The late solution's own page, as staff read it.
    ada_row.locator("td.problem-column").nth(1).get_by_role("link").click()
    expect(teacher.get_by_text(re.compile(f"By {re.escape(ada)} in"))).to_be_visible()
    expect(teacher.locator("#solution-code")).to_contain_text("def batched_dot")


@pytest.fixture
def lti_course(running_site: RunningSite) -> Iterator[Platform]:
    """A platform (Moodle-shaped) on 127.0.0.1, registered in the admin, whose instructor's first
    launch made the course, with an assignment of two problems (15 points) linked to it."""
    with Platform("moodle", running_site.url).serving() as platform:
        platform.register()
        linked_course(platform)
        yield platform


def test_an_lti_launch_signs_a_student_in_and_their_score_reaches_the_platform(
    lti_course: Platform, browser: Browser
) -> None:
    page = new_page(browser)
    # The platform's link: the tool's OIDC login, the platform's form, the launch, the assignment.
    page.goto(lti_course.login_url(SAM, custom={"jaxjudge_assignment": ASSIGNMENT_SLUG}))
    expect(page.get_by_role("heading", name="Week 1: tracing")).to_be_visible()
    expect(page.get_by_text("Your score:")).to_contain_text("0 of 15 points")
    expect(page.get_by_role("link", name=re.compile("^lti-"))).to_be_visible()  # signed in, by no name sent

    page.locator("table").get_by_role("link").first.click()
    write_code(page, (SOLUTIONS / "reference.py").read_text())
    page.get_by_role("button", name="Submit").click()
    expect_verdict(page, "Accepted")

    # The site's worker sends the new standing to the platform's line item.
    for _ in range(int(VERDICT_TIMEOUT_MS / 250)):
        if lti_course.scores:
            break
        page.wait_for_timeout(250)
    assert lti_course.scores, f"no score reached the platform; it refused: {lti_course.refusals}"
    score = lti_course.scores[-1]["score"]
    assert (score["userId"], score["scoreGiven"], score["scoreMaximum"]) == (SAM.sub, 10.0, 15.0)
    assert (score["activityProgress"], score["gradingProgress"]) == ("Submitted", "FullyGraded")


@pytest.fixture
def demo_course(running_site: RunningSite) -> RunningSite:
    """The course ``make screenshots`` shows: twelve students by an assignment of ten problems."""
    course_demo.make()
    return running_site


def overflow(page: Page) -> int:
    """How much wider than the window the page is (0 or less: nothing to scroll sideways)."""
    return int(page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth"))


@pytest.mark.skipif(not AXE.exists(), reason="axe-core is installed by make setup (npm ci)")
def test_the_course_pages_fit_a_1400_px_window_with_ten_problems_shown_and_a_phone(
    demo_course: RunningSite, browser: Browser
) -> None:
    """At 1400 px (light) and on a phone (dark): nothing to scroll sideways, the gradebook with
    ten problems shown included, and no serious or critical accessibility violation (axe-core)."""
    site = demo_course.url
    found: dict[str, object] = {}
    sizes: tuple[tuple[int, int, Literal["light", "dark"]], ...] = ((1400, 900, "light"), (390, 844, "dark"))
    for width, height, scheme in sizes:
        context = browser.new_context(viewport={"width": width, "height": height}, color_scheme=scheme)
        context.set_default_timeout(20_000)
        page = context.new_page()
        sign_in(page, site, course_demo.INSTRUCTOR, course_demo.PASSWORD)
        paths = ("gradebook/?assignment=week-1", "", "roster/", f"week-1/?student={course_demo.STUDENT}")
        for path in paths:
            page.goto(f"{site}/courses/jax-in-practice/{path}")
            if path.startswith("gradebook"):
                expect(page.locator("table.gradebook tbody tr")).to_have_count(len(course_demo.STUDENTS))
                if width == 1400:
                    expect(page.locator("table.gradebook thead th.problem-column")).to_have_count(10)
            assert overflow(page) <= 0, f"/courses/jax-in-practice/{path} is {overflow(page)} px wider than {width} px"
            page.add_script_tag(path=str(AXE))
            violations = page.evaluate(AXE_CHECK)
            if violations:
                found[f"{path or 'course'} {width} {scheme}"] = violations
        context.close()
    assert not found, found
