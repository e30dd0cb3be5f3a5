"""What the browser tests do in a real browser, as a student does it: sign up, type code into the
editor, wait for a verdict; and where Debian's chromium and axe-core (the accessibility
checker) are."""

from __future__ import annotations

import re
import secrets
import shutil
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from grader.problem import REPO_ROOT

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


SOLUTIONS = REPO_ROOT / "solutions" / "aot_compiled_sum"


VERDICT_TIMEOUT_MS = 60_000
# What marks a test module of real-browser journeys (its ``pytestmark``).
BROWSER_TESTS = [
    pytest.mark.browser,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Debian's chromium is not installed"),
]


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


def sign_in(page: Page, site: str, username: str, password: str) -> None:
    """Sign in through the site's form, and see the account's name in the header."""
    page.goto(f"{site}/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("link", name=username)).to_be_visible()


def write_code(page: Page, code: str) -> None:
    """Select everything in the CodeMirror editor and type (paste) the new code over it."""
    editor = page.get_by_test_id("code-editor").locator(".cm-content")
    editor.click()
    page.keyboard.press("Control+A")
    page.keyboard.press("Delete")
    page.keyboard.insert_text(code)


def expect_verdict(page: Page, verdict: str) -> None:
    expect(page.get_by_test_id("verdict")).to_contain_text(verdict, timeout=VERDICT_TIMEOUT_MS)


RAISES_ON_LINE_5 = """import jax
import jax.numpy as jnp

def aot_compiled_sum(x):
    return jax.jit(jnp.sum).lower(x).compile()(x) + undefined_name
"""


def refuse_sign_up(page: Page, site: str) -> None:
    fill_sign_up(page, site, "refused", confirmation="another-password-42")


AXE = REPO_ROOT / "webapp" / "frontend" / "node_modules" / "axe-core" / "axe.min.js"


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


def overflow(page: Page) -> int:
    """How much wider than the window the page is (0 or less: nothing to scroll sideways)."""
    return int(page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth"))
