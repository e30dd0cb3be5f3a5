"""Every page of the site at a phone's width (390 px): none scrolls sideways, and nothing covers a
link or a button.

The walk follows the links a reader can follow, from where each starts, as three readers: a
visitor, a student of a course with a term's work in it (``course_demo``: graded Submits, late
ones, an extension, an override) and its instructor. It opens every problem page the catalog
lists (each of them, not a sample: the test fails if one was not reached), every course page the
instructor's links reach, and a few pages of each other kind (submission pages share one
template, so three of each are enough). A page fails the walk when it is wider than the window,
or when the middle of a visible link or button, scrolled into view, is another element's.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urljoin, urlsplit

import pytest
from django.urls import Resolver404, resolve
from playwright.sync_api import Browser, Page, ViewportSize

from tests.webapp.support import course_demo
from tests.webapp.support.browser_steps import CHROMIUM, overflow, sign_in
from tests.webapp.support.running_site import RunningSite
from webapp.catalog.models import Problem

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Debian's chromium is not installed"),
]

PHONE: ViewportSize = {"width": 390, "height": 844}
# Pages of one kind share a template: this many of each are opened (problem pages are each a
# kind of their own: their statements differ).
PER_KIND = 3
# Not pages to read: downloads, the admin (its own pages, walked by the access test), signing
# out, and the LTI endpoints (a platform's, not a reader's).
SKIPPED = re.compile(r"^/(admin|lti|accounts/logout|static)/|\.(csv|ipynb)$|/notebook/$|/download/?$")
# Query parameters that change what a page is; the rest (filters, sorting) do not.
KEPT_QUERY = ("assignment", "student", "target")
# The instructor's pages of a course the walk must reach, by URL name: each course page.
COURSE_PAGES = {
    "courses:list",
    "courses:detail",
    "courses:create",
    "courses:edit",
    "courses:assignment",
    "courses:assignment_create",
    "courses:assignment_edit",
    "courses:gradebook",
    "courses:statistics",
    "courses:roster",
    "courses:extension",
    "courses:override",
    "courses:regrade_confirm",
    "courses:submission",
}

# For each link and button shown: scrolled to the middle of the window, is its middle its own?
# (The first line of a link that wraps, where its text is.) The skip link sits off screen until
# focused, on purpose.
COVERED = """() => {
  const covered = [];
  for (const element of document.querySelectorAll("a[href], button")) {
    const folded = element.closest("[hidden], details:not([open]) > :not(summary)");
    if (element.classList.contains("skip-link") || folded) continue;
    const box = element.getClientRects()[0];
    if (!box || box.width < 1 || box.height < 1 || getComputedStyle(element).visibility === "hidden") continue;
    element.scrollIntoView({ block: "center", inline: "nearest" });
    const line = element.getClientRects()[0];
    const x = line.left + Math.min(line.width / 2, 8), y = line.top + line.height / 2;
    if (x < 0 || y < 0 || x > innerWidth || y > innerHeight) continue;
    const hit = document.elementFromPoint(x, y);
    if (hit && hit !== element && !element.contains(hit)) {
      covered.push(`${element.tagName.toLowerCase()} "${element.textContent.trim().slice(0, 40)}" under ` +
        `${hit.tagName.toLowerCase()}.${hit.className || ""} "${(hit.textContent || "").trim().slice(0, 40)}"`);
    }
  }
  window.scrollTo(0, 0);
  return covered;
}"""


# What sticks out past the window's right edge: the innermost such elements, to name in a failure.
STICKING_OUT = """() => {
  const width = document.documentElement.clientWidth;
  const all = Array.from(document.querySelectorAll("body *"));
  const out = all.filter((e) => e.getBoundingClientRect().right > width + 1);
  return out.filter((e) => !out.some((inner) => inner !== e && e.contains(inner))).slice(0, 4).map((e) =>
    `${e.tagName.toLowerCase()}.${e.className || ""} (${Math.round(e.getBoundingClientRect().right)} px)`);
}"""


# Where each link goes, and each reading form with the choices it starts with.
TARGETS = """found => found.map((e) => e.tagName === "A" ? e.getAttribute("href")
  : `${e.getAttribute("action")}?${new URLSearchParams(new FormData(e))}`)"""


def page_of(href: str, site: str) -> str | None:
    """The page a link opens, as a path and the query that matters; None when it is not a page to walk."""
    url = urlsplit(urljoin(site + "/", href))
    if f"{url.scheme}://{url.netloc}" != site or SKIPPED.search(url.path):
        return None
    query = urlencode(sorted((k, v) for k, v in parse_qsl(url.query) if k in KEPT_QUERY))
    return url.path + (f"?{query}" if query else "")


def kind_of(path: str) -> str:
    """Pages of one kind (one template, one URL pattern): a problem page is its own kind."""
    bare = path.split("?")[0]
    try:
        match = resolve(bare)
    except Resolver404:
        return bare
    if match.view_name == "catalog:detail":
        return path
    return f"{match.view_name}{'?' if '?' in path else ''}"


def walk(page: Page, site: str, starts: list[str], reader: str) -> tuple[set[str], dict[str, str]]:
    """Open every page reachable from ``starts`` (``PER_KIND`` of each kind); the paths opened,
    and what is wrong with each page that fails."""
    queue = [start for start in starts]
    seen: set[str] = set(queue)
    opened: set[str] = set()
    kinds: Counter[str] = Counter()
    wrong: dict[str, str] = {}
    while queue:
        path = queue.pop(0)
        kind = kind_of(path)
        if kinds[kind] >= PER_KIND:
            continue
        response = page.goto(site + path, wait_until="load")
        if response is None or response.status >= 400 or urlsplit(page.url).path != path.split("?")[0]:
            continue  # refused or sent elsewhere (signing in, say): not this reader's page
        kinds[kind] += 1
        opened.add(path)
        problems = []
        if (extra := overflow(page)) > 0:
            problems.append(f"{extra} px wider than the window: " + ", ".join(page.evaluate(STICKING_OUT)))
        if covered := page.evaluate(COVERED):
            problems.append("covered: " + "; ".join(covered[:5]))
        if problems:
            wrong[f"{reader} {path}"] = ", ".join(problems)
        # Links, and the pages forms that only read (method GET) open, such as a regrade's confirmation.
        for href in page.eval_on_selector_all("a[href]:not([download]), form[method=get i][action]", TARGETS):
            found = page_of(href, site)
            if found is not None and found not in seen:
                seen.add(found)
                queue.append(found)
    return opened, wrong


@pytest.fixture
def slugs(catalog: None) -> set[str]:
    """Every problem's slug, read before the browser starts (its event loop stops database calls)."""
    return set(Problem.objects.values_list("slug", flat=True))


def test_no_page_is_wider_than_a_phone_and_nothing_covers_a_link(
    slugs: set[str], demo_course: RunningSite, browser: Browser
) -> None:
    site = demo_course.url
    readers = [
        ("visitor", None, ["/"]),
        ("student", course_demo.STUDENT, ["/", "/courses/", "/progress/"]),
        ("instructor", course_demo.INSTRUCTOR, ["/courses/"]),
    ]
    wrong: dict[str, str] = {}
    opened_by: dict[str, set[str]] = {}
    for reader, username, starts in readers:
        context = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True)
        context.set_default_timeout(20_000)
        page = context.new_page()
        if username:
            sign_in(page, site, username, course_demo.PASSWORD)
        opened, found = walk(page, site, starts, reader)
        opened_by[reader] = opened
        wrong.update(found)
        context.close()
    print({reader: len(opened) for reader, opened in opened_by.items()}, "pages opened")
    assert not wrong, "\n".join(f"{page}: {what}" for page, what in wrong.items())
    # Every problem page, as a visitor and as a student (whose pages hold the editor and results).
    for reader in ("visitor", "student"):
        reached = {path.split("/")[2] for path in opened_by[reader] if kind_of(path).startswith("/problems/")}
        assert reached >= slugs, f"the {reader} did not reach {sorted(slugs - reached)}"
    # Every kind of course page, and the pages of submissions.
    names = {resolve(path.split("?")[0]).view_name for path in opened_by["instructor"]}
    assert names >= COURSE_PAGES, f"the walk did not reach {sorted(COURSE_PAGES - names)}"
    student_names = {resolve(path.split("?")[0]).view_name for path in opened_by["student"]}
    assert {"submissions:detail", "submissions:solution", "courses:assignment"} <= student_names, student_names
