"""The documentation names only what exists: files and folders moved or renamed must take their
README and docs/ mentions with them, and every page of docs/ must be reachable from the README."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = ROOT / "docs"
MAX_README_LINES = 200

# The repository's own folders: a word in backticks that starts with one of them is a path
# here. Other words with a slash (`out/screenshots/`, `submissions/<id>/status/`) are not.
REPOSITORY_FOLDERS = {
    "bench",
    "deploy",
    "docs",
    "examples",
    "grader",
    "problems",
    "sandbox",
    "solutions",
    "tests",
    "webapp",
}
# Files at the top of the repository, named without a folder.
TOP_LEVEL_FILE = re.compile(r"^(?:[\w.-]+\.(?:toml|yml|yaml|txt|example)|Makefile|Dockerfile|manage\.py|README\.md)$")
# Python packages of the repository, named as modules (`grader.pools`, `python -m bench.latency`).
PACKAGES = {"bench", "grader", "sandbox", "tests", "webapp"}
MODULE_NAME = re.compile(r"[a-z_]+(?:\.[a-z_]+)+")
# What marks a word as a pattern rather than one path.
PLACEHOLDER = re.compile(r"[<>*?{}$]|NAME|SLUG")

FENCE = re.compile(r"^```.*?^```", re.MULTILINE | re.DOTALL)
INLINE_CODE = re.compile(r"`([^`\n]+)`")
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
HEADING = re.compile(r"^#{1,6} (.+)$", re.MULTILINE)


def pages() -> list[Path]:
    return [README, *sorted(DOCS.glob("*.md"))]


def without_code_blocks(text: str) -> str:
    return FENCE.sub("", text)


def named_paths(text: str) -> set[str]:
    """The repository paths and modules a page names in backticks (code blocks left out)."""
    named = set()
    for code in INLINE_CODE.findall(without_code_blocks(text)):
        for word in code.split():
            word = word.strip(",;:()'\"")
            if not word or PLACEHOLDER.search(word) or word.startswith(("/", "-", "http")):
                continue
            if "/" in word and word.split("/", 1)[0] in REPOSITORY_FOLDERS:
                named.add(word.split("#", 1)[0])
            elif TOP_LEVEL_FILE.match(word) or is_module_name(word):
                named.add(word)
    return named


def is_module_name(word: str) -> bool:
    return bool(MODULE_NAME.fullmatch(word)) and word.split(".", 1)[0] in PACKAGES


def exists(name: str) -> bool:
    """A path exists in the checkout; a dotted name's package and first module do (what
    follows may be a function or class in it)."""
    if not is_module_name(name):
        return (ROOT / name).exists()
    package, module = name.split(".")[:2]
    return (ROOT / package / f"{module}.py").is_file() or (ROOT / package / module / "__init__.py").is_file()


def anchors(page: Path) -> set[str]:
    """The heading anchors a Markdown page has, spelled as the usual renderers spell them."""
    found = set()
    for heading in HEADING.findall(without_code_blocks(page.read_text())):
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower().replace("`", ""))
        found.add(slug.replace(" ", "-"))
    return found


def broken_links(page: Path) -> list[str]:
    """Links from ``page`` to files of the checkout (and their headings) that do not exist."""
    broken = []
    for target in LINK.findall(without_code_blocks(page.read_text())):
        if re.match(r"^[a-z]+:", target):  # http:, https:, mailto:
            continue
        path, _, anchor = target.partition("#")
        linked = (page.parent / path).resolve() if path else page
        if not linked.exists() or (anchor and linked.suffix == ".md" and anchor not in anchors(linked)):
            broken.append(target)
    return broken


def missing_paths(text: str) -> list[str]:
    return sorted(name for name in named_paths(text) if not exists(name))


@pytest.mark.parametrize("page", pages(), ids=lambda page: str(page.relative_to(ROOT)))
def test_every_path_a_page_names_exists(page: Path) -> None:
    missing = missing_paths(page.read_text())
    assert not missing, f"{page.relative_to(ROOT)} names paths that do not exist: {missing}"


@pytest.mark.parametrize("page", pages(), ids=lambda page: str(page.relative_to(ROOT)))
def test_every_link_of_a_page_leads_somewhere(page: Path) -> None:
    broken = broken_links(page)
    assert not broken, f"{page.relative_to(ROOT)} links to what does not exist: {broken}"


def test_the_readme_links_every_page_of_the_docs() -> None:
    linked = {(README.parent / target.partition("#")[0]).resolve() for target in LINK.findall(README.read_text())}
    unlinked = [page.name for page in DOCS.glob("*.md") if page.resolve() not in linked]
    assert not unlinked, f"docs/ pages the README does not link: {unlinked}"


def test_the_readme_stays_short() -> None:
    lines = len(README.read_text().splitlines())
    assert lines < MAX_README_LINES, f"the README has {lines} lines; move detail into docs/"


def test_a_missing_path_is_noticed() -> None:
    # The checks above would pass on any text if the path finder found nothing.
    text = "See `grader/no_such_module.py`, `sandbox/host/`, `grader.harness` and `grader.nowhere`."
    assert missing_paths(text) == ["grader.nowhere", "grader/no_such_module.py"]
