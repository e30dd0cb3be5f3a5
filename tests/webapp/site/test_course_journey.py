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
from zoneinfo import ZoneInfo

import pytest
from playwright.sync_api import Browser, Page, expect

from grader.problem import REPO_ROOT
from tests.webapp.support import course_demo
from tests.webapp.support.browser_steps import (
    AXE,
    AXE_CHECK,
    CHROMIUM,
    SOLUTIONS,
    VERDICT_TIMEOUT_MS,
    expect_verdict,
    overflow,
    sign_in,
    sign_up,
    write_code,
)
from tests.webapp.support.lti_course import ASSIGNMENT_SLUG, SAM, linked_course
from tests.webapp.support.lti_platform import Platform
from tests.webapp.support.running_site import RunningSite

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Debian's chromium is not installed"),
]


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


def watch_for_the_admin(page: Page, opened: list[str]) -> Page:
    """Record in ``opened`` every request the page makes to the admin (the journey makes none)."""
    page.on("request", lambda request: opened.append(request.url) if "/admin/" in request.url else None)
    return page


def typed(when: datetime, zone: str) -> str:
    """``when`` as a person in ``zone`` types it into a date and time box (to the minute)."""
    return when.astimezone(ZoneInfo(zone)).strftime("%Y-%m-%dT%H:%M")


def shown(when: datetime, zone: str) -> str:
    """``when`` as the site shows it to a reader in ``zone``: "2026-11-29 17:59 EST"."""
    local = when.astimezone(ZoneInfo(zone))
    return local.strftime("%Y-%m-%d %H:%M ") + (local.tzname() or "")


def pick(page: Page, slug: str, *, position: int, points: int) -> None:
    """Find a problem in the assignment's picker by searching for it, tick it and give it a place."""
    page.get_by_label("Search the problems").fill(slug)
    row = page.locator("table.picker tbody tr", has=page.locator("code", has_text=re.compile(f"^{slug}$")))
    row.get_by_role("checkbox").check()
    page.get_by_label(f"Points of {slug}").fill(str(points))
    page.get_by_label(f"Position of {slug}").fill(str(position))


PROBLEMS = ("positive_sum", "aot_compiled_sum", "batched_dot")  # the assignment's order


def test_an_instructor_sets_up_and_runs_a_course_on_the_site_and_never_opens_the_admin(
    browser: Browser, running_site: RunningSite
) -> None:
    site = running_site.url
    admin: list[str] = []
    # Two students sign up from New York and London (the browser gives the site their zones);
    # the site's administrator makes a third person, in Paris, an instructor.
    ada_page = watch_for_the_admin(new_page(browser, zone="America/New_York"), admin)
    bob_page = watch_for_the_admin(new_page(browser, zone="Europe/London"), admin)
    teacher = watch_for_the_admin(new_page(browser, zone="Europe/Paris"), admin)
    ada, bob, grace = sign_up(ada_page, site, "ada"), sign_up(bob_page, site, "bob"), sign_up(teacher, site, "grace")
    make_instructor(running_site, grace)

    # Signed in again, the instructor lands on the invitation to create a first course.
    teacher.get_by_role("button", name="Sign out").click()
    sign_in(teacher, site, grace, "a-long-password-42")
    expect(teacher.get_by_test_id("first-course")).to_be_visible()
    teacher.get_by_role("link", name="Create your first course").click()
    teacher.get_by_label("Title").press_sequentially("JAX in practice")
    expect(teacher.get_by_label("Slug")).to_have_value("jax-in-practice")  # made from the title as it is typed
    teacher.get_by_role("button", name="Create the course").click()
    expect(teacher.get_by_role("heading", name="JAX in practice")).to_be_visible()

    # An assignment of three problems picked from the catalog, due tomorrow at 23:59 in Paris,
    # with a 5-minute grace. A form with no problem ticked is refused, saying why.
    teacher.get_by_role("link", name="Add an assignment").click()
    teacher.get_by_label("Title").fill("Week 1")
    now = datetime.now(UTC)
    paris_due = (now.astimezone(ZoneInfo("Europe/Paris")) + timedelta(days=1)).replace(hour=23, minute=59, second=0)
    due = paris_due.astimezone(UTC)
    expect(teacher.get_by_label("Due (Europe/Paris)")).to_be_visible()  # the form says which clock
    teacher.get_by_label("Released (Europe/Paris)").fill(typed(now - timedelta(hours=1), "Europe/Paris"))
    teacher.get_by_label("Due (Europe/Paris)").fill(typed(due, "Europe/Paris"))
    teacher.get_by_label("Grace period (minutes)").fill("5")
    teacher.get_by_role("button", name="Add the assignment").click()
    expect(teacher.get_by_test_id("problem-errors")).to_be_visible()
    for position, slug in enumerate(PROBLEMS, start=1):
        pick(teacher, slug, position=position, points=10)
    teacher.get_by_role("button", name="Add the assignment").click()
    expect(teacher.get_by_role("status")).to_contain_text("Week 1 is saved, with 3 problems.")
    expect(teacher.locator("table").get_by_text(shown(due, "Europe/Paris"))).to_be_visible()

    # The roster: a file with a bad line is refused whole, naming the line; the fixed file invites
    # both students and a third who has no account yet (the courses' worker emails each a link).
    teacher.get_by_role("link", name="Roster").click()
    header = "username,email,name,student_id,section\n"
    good = (
        f"{ada},ada@example.org,Ada Lovelace,S-001,A\n{bob},bob@example.org,Bob Kahn,S-002,B\n"
        "cyd,cyd@example.org,Cyd Charisse,S-003,A\n"
    )
    for text in (header + good.replace("bob@example.org", "bob-at-example.org"), header + good):
        teacher.get_by_label("Roster (CSV)").set_input_files(
            {"name": "roster.csv", "mimeType": "text/csv", "buffer": text.encode()}
        )
        teacher.get_by_role("button", name="Invite").click()
        if "bob-at" in text:
            errors = teacher.get_by_test_id("roster-errors")
            expect(errors).to_contain_text("1 line needs fixing")
            expect(errors).to_contain_text("line 3: 'bob-at-example.org' is not an email address")
    expect(teacher.get_by_test_id("roster-upload")).to_contain_text(
        "done: 1 accounts made to be activated, 2 invited with their own accounts"
    )
    for page, address, name in ((ada_page, "ada@example.org", ada), (bob_page, "bob@example.org", bob)):
        page.goto(emailed_link(running_site, address))
        page.get_by_role("button", name=f"Join as {name}").click()
        expect(page.get_by_role("heading", name="JAX in practice")).to_be_visible()
    cyd_page = watch_for_the_admin(new_page(browser, width=390, height=844), admin)  # on a phone, in UTC
    cyd_page.goto(emailed_link(running_site, "cyd@example.org"))
    cyd_page.get_by_label(re.compile(r"^New password:?$")).fill("cyds-own-password-5")
    cyd_page.get_by_label("New password confirmation").fill("cyds-own-password-5")
    cyd_page.get_by_role("button", name="Set the password and join").click()
    expect(cyd_page.get_by_role("heading", name="JAX in practice")).to_be_visible()
    assert overflow(cyd_page) <= 0

    # From the gradebook's rows: bob gets two more days, cyd 7 points by hand on the first problem.
    teacher.goto(f"{site}/courses/jax-in-practice/gradebook/")
    rows = teacher.locator("table.gradebook tbody tr")
    expect(rows).to_have_count(3)
    expect(rows.filter(has_text=ada)).to_contain_text("Ada Lovelace")  # the roster's record, not the account's
    teacher.get_by_role("link", name=f"Extension for {bob}").click()
    teacher.get_by_label("New due time (Europe/Paris)").fill(typed(due + timedelta(days=2), "Europe/Paris"))
    teacher.get_by_label("Reason").fill("Ill, with a note")
    teacher.get_by_role("button", name="Grant the extension").click()
    expect(rows.filter(has_text=bob)).to_contain_text("ext.")
    teacher.get_by_role("link", name="Override for cyd").click()
    first_problem = teacher.get_by_label("Problem").locator("option", has_text="Week 1: 1. ")
    teacher.get_by_label("Problem").select_option(first_problem.get_attribute("value"))
    teacher.get_by_label("Points").fill("7")
    teacher.get_by_label("Reason").fill("Graded by hand after the lab")
    teacher.get_by_role("button", name="Set the points").click()
    expect(rows.filter(has_text="cyd")).to_contain_text("override")

    # Ada, in New York, opens the first problem from the assignment: the due time in her clock;
    # she moves to the next problem from the page itself.
    ada_page.goto(f"{site}/courses/jax-in-practice/week-1/")
    ada_page.locator("table").get_by_role("link").first.click()
    banner = ada_page.get_by_test_id("in-assignment")
    expect(banner).to_contain_text("Week 1")
    expect(banner).to_contain_text(f"Due {shown(due, 'America/New_York')}")
    banner.locator("a[rel=next]").click()
    expect(ada_page).to_have_url(re.compile(r"/problems/aot_compiled_sum/\?assignment=jax-in-practice/week-1$"))

    # Bob and cyd hand in the same wrong answer to it. The instructor then moves the due time to
    # a few seconds from now (typed to the second, in Paris), and ada hands in the right answer
    # 10 s after it.
    for page in (bob_page, cyd_page):
        page.goto(f"{site}/problems/aot_compiled_sum/?assignment=jax-in-practice/week-1")
        write_code(page, (SOLUTIONS / "wrong_value.py").read_text())
        page.get_by_role("button", name="Submit").click()
        expect_verdict(page, "Wrong answer")
    write_code(ada_page, (SOLUTIONS / "reference.py").read_text())
    teacher.goto(f"{site}/courses/jax-in-practice/week-1/edit/")
    due = (datetime.now(UTC) + timedelta(seconds=15)).replace(microsecond=0)
    paris = due.astimezone(ZoneInfo("Europe/Paris")).strftime("%Y-%m-%dT%H:%M:%S")
    teacher.get_by_label("Due (Europe/Paris)").fill(paris)
    teacher.get_by_role("button", name="Save the assignment").click()
    expect(teacher.get_by_role("status")).to_contain_text("Week 1 is saved")
    ada_page.wait_for_timeout(max(0.0, (due + timedelta(seconds=10) - datetime.now(UTC)).total_seconds()) * 1000)
    ada_page.get_by_role("button", name="Submit").click()
    expect_verdict(ada_page, "Accepted")
    ada_page.reload()
    standing = ada_page.get_by_test_id("standing")
    expect(standing).to_contain_text("10 of 10")
    expect(standing).to_contain_text(re.compile(r"Handed in 1\d s after the due time, within the 5-minute grace"))
    expect(standing.locator("time")).to_have_text(re.compile(r":\d\d:\d\d E[SD]T$"))  # to the second, near the due time

    # The statistics name what most of the class got wrong, with the input it failed on.
    teacher.goto(f"{site}/courses/jax-in-practice/gradebook/")
    teacher.get_by_role("link", name="Problem statistics").click()
    worst = teacher.get_by_test_id("property").first
    expect(worst).to_contain_text("Matches the reference across lengths and dtypes")
    expect(worst).to_contain_text("2 of 3")
    expect(worst.locator("code", has_text=re.compile(r"^x: \w+\[[\d,]*\]$")).first).to_be_visible()
    assert not admin, f"the journey opened the admin: {admin}"


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
