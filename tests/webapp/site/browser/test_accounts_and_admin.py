"""Accounts and the admin in a real browser: what anonymous visitors may do, sign-up and sign-in
errors beside their fields, and staff reading a report in the admin."""

from __future__ import annotations

import re
import secrets
import subprocess
import sys

import pytest
from playwright.sync_api import Browser, Page, expect

from grader.problem import REPO_ROOT
from tests.webapp.support.browser_steps import (
    BROWSER_TESTS,
    SOLUTIONS,
    VERDICT_TIMEOUT_MS,
    expect_verdict,
    refuse_sign_up,
    sign_up,
    write_code,
)
from tests.webapp.support.running_site import RunningSite

pytestmark = BROWSER_TESTS


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
