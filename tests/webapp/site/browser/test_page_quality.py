"""What every page owes its reader, checked in a real browser: a light first page, a name for
each page, the system's dark theme, and no serious accessibility violation."""

from __future__ import annotations

import re
from typing import Literal

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.webapp.support.browser_steps import (
    AXE,
    AXE_CHECK,
    BROWSER_TESTS,
    SOLUTIONS,
    expect_verdict,
    refuse_sign_up,
    sign_up,
    write_code,
)

pytestmark = BROWSER_TESTS


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
        # The click starts a navigation; checking before it ends reads a page being torn down.
        page.wait_for_url(re.compile(r"/submissions/\d+/$"))
        page.wait_for_load_state()
        check(page, f"submission {width} {scheme}")
        for path in ("/progress/", "/problems/aot_compiled_sum/solution/"):
            page.goto(f"{site}{path}")
            check(page, f"{path} {width} {scheme}")
        page.get_by_role("button", name="Reveal the solution").click()
        check(page, f"editorial {width} {scheme}")
        context.close()
    assert not found, found
