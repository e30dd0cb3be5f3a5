"""Problem notebooks: loading, validating, and the student's view.

A problem is ``problems/<slug>.ipynb`` (nbformat 4). Its metadata holds a ``grader`` block;
its cells are told apart by tags: untagged markdown is the statement, ``hint`` markdown
cells are hints, the ``starter`` code cell is what the student starts from, ``tests`` cells
are the visible tests and ``hidden-tests`` cells are graded only. The metadata block's
fields, their values and their reader are ``grader.problem_metadata``'s.

``example`` code cells are the worked example. What each prints is saved as its outputs (as
Jupyter saves a run cell), shown under it on the page, and checked by ``grader validate``,
which runs the notebook and compares: a statement cannot show output its code does not give.
The ``## Problem`` section ends with the contract, a list of three items: ``**Input:**``,
``**Returns:**`` and ``**Checked:**``.
"""

from __future__ import annotations

import ast
import copy
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import nbformat

from grader.levels import LEFT_TO_STUDENT, Rubric, answer_lines

# The web app, autograde and the tests import the block's vocabulary and ProblemError from here too.
from grader.problem_metadata import (
    CATEGORIES,
    DEVICES,
    DIFFICULTIES,
    IDENTIFIER,
    SECTIONS,
    SLUG_PATTERN,
    MetadataReader,
    ProblemError,
)
from grader.verdicts import Verdict
from sandbox.host.backends import SandboxLimits
from sandbox.protocol import MAX_CPU_DEVICES

REPO_ROOT = Path(__file__).resolve().parent.parent
CELL_TAGS = frozenset({"example", "starter", "tests", "hidden-tests", "hint"})
REQUIRED_SECTIONS = ("Why this matters", "Worked mini-example", "Common pitfalls", "Problem")
CONTRACT_ITEMS = ("Input", "Returns", "Checked")


# A known-wrong solution's "# expect: VERDICT" line, or "VERDICT or VERDICT" where which of two limits a
# solution breaks first depends on the machine (memory reclaimed near the limit can outlast the time limit).
# "# expect: wrong_answer" or "# expect: wrong_answer by test_name": the verdict a wrong solution
# must get and, optionally, the hidden or visible test that must give it.
EXPECT_LINE = re.compile(r"^#\s*expect:\s*(\w+(?:\s+or\s+\w+)*)(?:\s+by\s+(\w+))?\s*$", re.MULTILINE)
# "# pitfall: <a bold title of the statement's Common pitfalls>": the pitfall a wrong solution shows.
PITFALL_LINE = re.compile(r"^#\s*pitfall:\s*(.+?)\s*$", re.MULTILINE)
PITFALLS_SECTION = re.compile(r"^##\s*Common pitfalls\s*$(.*?)(?=^##\s|\Z)", re.MULTILINE | re.DOTALL)
PITFALL_TITLE = re.compile(r"^\s*[-*]\s+\*\*(.+?)\*\*", re.MULTILINE)


class ReferenceSolutionError(Exception):
    """The problem's reference solution is missing (an instructor's mistake)."""


def problems_dir() -> Path:
    return Path(os.environ.get("JAXJUDGE_PROBLEMS_DIR", REPO_ROOT / "problems"))


def solutions_dir() -> Path:
    return Path(os.environ.get("JAXJUDGE_SOLUTIONS_DIR", REPO_ROOT / "solutions"))


@dataclass(frozen=True)
class WorkedExample:
    """One code cell of the worked example: the notebook's cell index, its code and what the
    statement says it prints."""

    cell: int
    source: str
    printed: str


@dataclass(frozen=True)
class KnownWrong:
    """A known-wrong solution as the editorial lists it, never its code: its file's stem, the
    mistake it makes (its docstring's first paragraph, on one line; empty if it has none) and the
    verdicts its ``# expect:`` line allows (empty: any but accepted)."""

    name: str
    mistake: str
    verdicts: frozenset[Verdict]
    # The pitfall of the statement it shows (its "# pitfall:" line, as written), and the test
    # that must reject it (its "# expect: ... by test_name"); empty where it names none.
    pitfall: str = ""
    rejected_by: str = ""

    @property
    def verdict_label(self) -> str:
        """The verdict as the site names it ("Wrong answer"), or "Rejected" where any will do."""
        return " or ".join(verdict.label for verdict in sorted(self.verdicts)) or "Rejected"


@dataclass(frozen=True)
class Explanation:
    """What the reference's module docstring says: its summary (the first paragraph, a line), and
    the paragraphs after it, each joined into one line: why it works."""

    summary: str
    why: tuple[str, ...]


@dataclass(frozen=True)
class Problem:
    """A loaded, validated problem notebook."""

    path: Path
    slug: str
    title: str
    difficulty: str
    category: str
    tags: tuple[str, ...]
    entry_points: tuple[str, ...]
    device: str
    time_limit_s: float
    memory_limit_mb: int
    max_examples: int
    points: float
    cpu_devices: int
    statement: str
    hints: tuple[str, ...]
    starter: str
    objective: str
    prerequisites: tuple[str, ...]
    minutes: int
    visible_tests: str
    hidden_tests: str = field(repr=False)
    notebook: Any = field(repr=False, compare=False)
    examples: tuple[WorkedExample, ...] = ()
    solutions_root: Path = field(default_factory=solutions_dir, repr=False)
    # The evidence its level is read from (``grader.levels``): the ideas it combines and what is
    # left to the student; None where the notebook gives none (``grader validate`` refuses that).
    rubric_evidence: tuple[tuple[str, ...], str] | None = None

    def rubric(self, *, attempts: int = 0, solved: int = 0) -> Rubric | None:
        """The rubric's inputs for this problem, the answer's size read from the reference and the
        starter; ``attempts`` and ``solved``: how many students tried it and solved it, where known."""
        if self.rubric_evidence is None or not self.reference_solution.is_file():
            return None
        ideas, left = self.rubric_evidence
        size = answer_lines(without_docstring(self.reference_solution.read_text()), self.starter)
        return Rubric(size, ideas, left, attempts, solved)

    @property
    def solution_dir(self) -> Path:
        return self.solutions_root / self.slug

    @property
    def reference_solution(self) -> Path:
        return self.solution_dir / "reference.py"

    def wrong_solutions(self) -> list[Path]:
        return sorted(self.solution_dir.glob("wrong_*.py"))

    def known_wrong(self) -> list[KnownWrong]:
        """The wrong solutions, each as the mistake it shows and the verdict it must get (read,
        never run: an unreadable one raises ``ProblemError`` naming it)."""
        known = []
        for path in self.wrong_solutions():
            mistake = next(iter(_paragraphs(_docstring(path))), "")
            source = path.read_text()
            verdicts, rejected_by = _expectation(source)
            pitfall = PITFALL_LINE.search(source)
            known.append(KnownWrong(path.stem, mistake, verdicts, pitfall.group(1) if pitfall else "", rejected_by))
        return known

    def pitfalls(self) -> list[str]:
        """The bold titles of the statement's Common pitfalls, in order."""
        section = PITFALLS_SECTION.search(self.statement)
        return [title.strip() for title in PITFALL_TITLE.findall(section.group(1))] if section else []

    def explanation(self) -> Explanation:
        """The reference's docstring as the editorial shows it (read, never run)."""
        if not self.reference_solution.is_file():
            raise ReferenceSolutionError(f"{self.slug}: no reference solution at {self.reference_solution}")
        paragraphs = _paragraphs(_docstring(self.reference_solution))
        return Explanation(next(iter(paragraphs), ""), tuple(paragraphs[1:]))

    def right_solutions(self) -> list[Path]:
        """Other correct solutions, which validation requires to be accepted: each proves that a
        check does not reject a right way of solving the problem."""
        return sorted(self.solution_dir.glob("right_*.py"))

    @property
    def sandbox_device(self) -> str:
        """The sandbox this problem is graded in: ``gpu`` only when it needs one (``any`` runs on CPU)."""
        return "gpu" if self.device == "gpu" else "cpu"

    def sandbox_limits(self) -> SandboxLimits:
        """The limits this problem's metadata asks for."""
        return SandboxLimits(
            wall_seconds=self.time_limit_s,
            call_seconds=min(20.0, self.time_limit_s),
            memory_bytes=self.memory_limit_mb * 2**20,
        )

    def student_notebook(self) -> Any:
        """The notebook a student may see and download: no hidden tests, and no outputs but the
        worked example's."""
        view = nbformat.v4.new_notebook()
        view.metadata = {key: value for key, value in self.notebook.metadata.items() if key != "grader"}
        view.metadata["grader"] = self.public_metadata()
        for cell in self.notebook.cells:
            if "hidden-tests" in _tags(cell):
                continue
            public = copy.deepcopy(cell)
            if public.cell_type == "code" and "example" not in _tags(cell):  # examples keep what they print
                public.outputs = []
                public.execution_count = None
            view.cells.append(public)
        return view

    def runnable_notebook(self) -> tuple[Any, list[int]]:
        """The notebook as an instructor runs it: the reference solution in place of the starter,
        no hidden tests, no outputs; and, for each of its cells, that cell's index in the problem."""
        view = nbformat.v4.new_notebook()
        view.metadata = copy.deepcopy(self.notebook.metadata)
        indices = []
        for index, cell in enumerate(self.notebook.cells):
            if "hidden-tests" in _tags(cell):
                continue
            runnable = copy.deepcopy(cell)
            if runnable.cell_type == "code":
                runnable.outputs, runnable.execution_count = [], None
                if "starter" in _tags(cell):
                    runnable.source = self.reference_solution.read_text()
            view.cells.append(runnable)
            indices.append(index)
        return view, indices

    @property
    def section(self) -> str:
        """The name of the course section this problem's category belongs to."""
        return dict(SECTIONS)[self.category]

    def public_metadata(self) -> dict[str, Any]:
        return {
            "slug": self.slug,
            "title": self.title,
            "difficulty": self.difficulty,
            "category": self.category,
            "objective": self.objective,
            "prerequisites": list(self.prerequisites),
            "minutes": self.minutes,
            "tags": list(self.tags),
            "entry_points": list(self.entry_points),
            "device": self.device,
        }

    def student_markdown(self) -> str:
        """The student view as one Markdown document (what ``grader show`` prints)."""
        parts = [
            f"# {self.title}",
            f"**Difficulty:** {self.difficulty} · **Section:** {self.section} · **About {self.minutes} minutes** · "
            f"**Tags:** {', '.join(self.tags)}",
            f"**You will learn:** {self.objective}",
        ]
        if self.prerequisites:
            parts.append(f"**Before this one:** {', '.join(f'`{slug}`' for slug in self.prerequisites)}")
        parts.append(self.statement)
        if self.hints:
            parts.append("## Hints\n\n" + "\n\n".join(f"{n}. {hint}" for n, hint in enumerate(self.hints, 1)))
        parts.append(f"## Starter code\n\n```python\n{self.starter}\n```")
        if self.visible_tests:
            parts.append(f"## Visible tests\n\n```python\n{self.visible_tests}\n```")
        return "\n\n".join(parts) + "\n"


def expected_verdicts(path: Path) -> frozenset[Verdict]:
    """The verdicts a wrong solution's ``# expect:`` line allows; empty: any rejection. A name
    that is no verdict raises ``ValueError``."""
    return _expectation(path.read_text())[0]


def rejecting_test(path: Path) -> str:
    """The test a wrong solution's ``# expect: VERDICT by test_name`` line names; empty: any."""
    return _expectation(path.read_text())[1]


def _expectation(source: str) -> tuple[frozenset[Verdict], str]:
    """A wrong solution's ``# expect:`` line: the verdicts it allows and the test it names."""
    match = EXPECT_LINE.search(source)
    if match is None:
        return frozenset(), ""
    return frozenset(Verdict(name) for name in re.split(r"\s+or\s+", match.group(1))), match.group(2) or ""


def pitfall_key(title: str) -> str:
    """A pitfall's title as wrong solutions name it: case, backticks, spacing and the closing
    full stop do not matter."""
    return " ".join(title.replace("`", "").split()).rstrip(".:").casefold()


def without_docstring(source: str) -> str:
    """A solution's source without its module docstring: the editorial shows that prose above the
    code, and it is no line of the code (the channel check looks for those)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return source
    first = tree.body[0] if tree.body else None
    if not (
        isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str)
    ):
        return source
    lines = source.splitlines()
    return "\n".join(lines[: first.lineno - 1] + lines[first.end_lineno or first.lineno :])


def _docstring(path: Path) -> str:
    """A solution file's module docstring ("" if none), read without running the file."""
    try:
        return ast.get_docstring(ast.parse(path.read_text(), filename=str(path))) or ""
    except (SyntaxError, ValueError, UnicodeDecodeError) as exc:  # ValueError: a NUL byte in the source
        raise ProblemError(f"{path}: not readable as Python: {exc}") from None


def _paragraphs(text: str) -> list[str]:
    """The paragraphs of a docstring (blank-line separated), each with its lines joined into one."""
    return [" ".join(block.split()) for block in re.split(r"\n\s*\n", text) if block.strip()]


def _tags(cell: Any) -> list[str]:
    tags = cell.get("metadata", {}).get("tags", [])
    return list(tags) if isinstance(tags, list) else []


def find_problem(slug_or_path: str) -> Path:
    """The notebook for a slug (looked up in the problems folder) or a path to one.

    Only staff name a problem by path (``--problem``); a slug that came from a student's file
    goes through ``installed_problem``, which never takes a path.
    """
    candidate = Path(slug_or_path)
    if candidate.suffix == ".ipynb":
        if not candidate.is_file():
            raise ProblemError(f"{candidate}: no such notebook")
        return candidate
    return _installed_path(slug_or_path)


def _installed_path(slug_or_path: str) -> Path:
    if not SLUG_PATTERN.match(slug_or_path):
        raise ProblemError(f"{slug_or_path!r} is not a problem slug (lowercase letters, digits, _)")
    path = problems_dir() / f"{slug_or_path}.ipynb"
    if not path.is_file():
        known = ", ".join(sorted(p.stem for p in problems_dir().glob("*.ipynb"))) or "none"
        raise ProblemError(f"unknown problem {slug_or_path!r} (known problems: {known})")
    return path


def load_problem(slug_or_path: str | Path, *, solutions_root: Path | None = None) -> Problem:
    """Load and validate a problem notebook by slug or path.

    Its solutions are looked for under ``solutions_root`` (default: the solutions folder).
    """
    path = find_problem(str(slug_or_path))
    try:
        notebook = nbformat.read(path, as_version=4)
    except Exception as exc:  # nbformat raises JSON, validation and OS errors alike
        raise ProblemError(f"{path}: not a readable notebook: {exc}") from None
    return _parse(path, notebook, solutions_root or solutions_dir())


def installed_problem(slug: str) -> Problem:
    """The installed problem named ``slug``: never a path, whatever the string holds.

    For names that come from a handed-in file (a notebook's ``grader.slug``): a path there
    would have the harness import the hidden tests of a notebook the student wrote.
    """
    return load_problem(_installed_path(slug))


def all_problems() -> list[Problem]:
    return [load_problem(path) for path in sorted(problems_dir().glob("*.ipynb"))]


def _parse(path: Path, notebook: Any, solutions_root: Path) -> Problem:
    meta = notebook.metadata.get("grader")
    if not isinstance(meta, dict):
        raise ProblemError(f"{path}: metadata.grader: missing (the notebook's grader block)")
    fields = MetadataReader(path, meta)
    slug = fields.text("slug")
    if not SLUG_PATTERN.match(slug):
        raise ProblemError(f"{path}: metadata.grader.slug: {slug!r} must be lowercase letters, digits and _")
    if slug != path.stem:
        raise ProblemError(f"{path}: metadata.grader.slug: {slug!r} must match the file name {path.stem!r}")
    entry_points = fields.text_list("entry_points")
    for name in entry_points:
        if not IDENTIFIER.match(name):
            raise ProblemError(f"{path}: metadata.grader.entry_points: {name!r} is not a Python name")

    statement: list[str] = []
    hints: list[str] = []
    starters: list[str] = []
    visible: list[str] = []
    hidden: list[str] = []
    examples: list[WorkedExample] = []
    for index, cell in enumerate(notebook.cells):
        tags = _tags(cell)
        unknown = set(tags) - CELL_TAGS
        if unknown:
            raise ProblemError(f"{path}: cell {index}: unknown tag {sorted(unknown)[0]!r} (known: {sorted(CELL_TAGS)})")
        role = next((tag for tag in tags if tag in CELL_TAGS), None)
        expected_type = "markdown" if role in (None, "hint") else "code"
        if role is None and cell.cell_type == "code":
            raise ProblemError(f"{path}: cell {index}: code cells need a tag (example, starter, tests or hidden-tests)")
        if cell.cell_type != expected_type:
            raise ProblemError(f"{path}: cell {index}: a {role or 'statement'} cell must be {expected_type}")
        if role == "example":
            # Code of the statement (the worked example): shown in place with what it prints.
            example = WorkedExample(index, cell.source, _printed(path, index, cell))
            examples.append(example)
            statement.append(_fenced("python", example.source))
            if example.printed:
                statement.append("It prints:\n\n" + _fenced("text", example.printed))
            continue
        target = {None: statement, "hint": hints, "starter": starters, "tests": visible, "hidden-tests": hidden}[role]
        target.append(cell.source.strip())

    if len(starters) != 1:
        raise ProblemError(f"{path}: cells: exactly one starter cell is needed, found {len(starters)}")
    if len(hints) != 3:
        raise ProblemError(
            f"{path}: cells: three hint cells are needed (the concept, where to look with a link to JAX's "
            f"documentation, a check to run on one's own code), found {len(hints)}"
        )
    if "https://" not in hints[1]:
        raise ProblemError(f"{path}: hint 2 (where to look) needs a link to the documentation it draws on")
    if not hidden:
        raise ProblemError(f"{path}: cells: no hidden-tests cell")
    statement_text = "\n\n".join(statement)
    for section in REQUIRED_SECTIONS:
        if not re.search(rf"^#+\s*{re.escape(section)}\s*$", statement_text, re.MULTILINE):
            raise ProblemError(f"{path}: statement: missing the section '## {section}'")
    _check_contract(path, statement_text)
    return Problem(
        path=path,
        slug=slug,
        title=fields.text("title"),
        difficulty=fields.choice("difficulty", DIFFICULTIES),
        category=fields.choice("category", CATEGORIES),
        tags=tuple(fields.text_list("tags")),
        entry_points=tuple(entry_points),
        device=fields.choice("device", DEVICES, default="cpu"),
        time_limit_s=fields.number("time_limit_s", default=60.0, low=1, high=600),
        memory_limit_mb=int(fields.number("memory_limit_mb", default=4096, low=256, high=65536)),
        max_examples=int(fields.number("max_examples", default=25, low=1, high=1000)),
        points=fields.number("points", default=100.0, low=0, high=10_000),
        cpu_devices=int(fields.number("cpu_devices", default=1, low=1, high=MAX_CPU_DEVICES)),
        statement=statement_text,
        hints=tuple(hints),
        starter=starters[0],
        objective=fields.sentence("objective"),
        prerequisites=tuple(fields.slugs("prerequisites", of=slug)),
        minutes=int(fields.number("minutes", default=None, low=1, high=240)),
        visible_tests="\n\n".join(visible),
        hidden_tests="\n\n".join(hidden),
        notebook=notebook,
        solutions_root=solutions_root,
        examples=tuple(examples),
        rubric_evidence=fields.rubric(LEFT_TO_STUDENT),
    )


def _printed(path: Path, index: int, cell: Any) -> str:
    """What a worked example's saved outputs say it prints; only printed text may be saved."""
    for output in cell.get("outputs", []):
        if output.get("output_type") != "stream" or output.get("name") != "stdout":
            kind = output.get("name") or output.get("output_type")
            raise ProblemError(
                f"{path}: cell {index}: a worked example's saved outputs must be what it prints (stdout), "
                f"found {kind!r}: print what the reader should see"
            )
    return printed_text(cell.get("outputs", []))


# Colours a terminal or Jupyter shows (JAX colours jaxprs there): presentation, not content.
_TERMINAL_COLOURS = re.compile(r"\x1b\[[0-9;]*m")


def printed_text(outputs: list[Any]) -> str:
    """The text a code cell's outputs hold on stdout, without terminal colours."""
    chunks = []
    for output in outputs:
        if output.get("output_type") == "stream" and output.get("name") == "stdout":
            text = output.get("text", "")
            chunks.append(text if isinstance(text, str) else "".join(text))
    return _TERMINAL_COLOURS.sub("", "".join(chunks))


def _fenced(language: str, text: str) -> str:
    """``text`` as a fenced block, its fence longer than any run of backticks in it."""
    fence = "`" * max([3, *(len(run) + 1 for run in re.findall(r"`+", text))])
    return f"{fence}{language}\n{text.strip(chr(10))}\n{fence}"


_CONTRACT_ITEM = re.compile(r"^[-*] \*\*(\w+):\*\*", re.MULTILINE)


def _check_contract(path: Path, statement: str) -> None:
    """The ``## Problem`` section ends with its contract: a list whose items begin with
    ``**Input:**``, ``**Returns:**`` and ``**Checked:**``, in that order (so that the page shows
    three blocks, not one paragraph)."""
    problem = re.split(r"^#+\s*Problem\s*$", statement, maxsplit=1, flags=re.MULTILINE)[-1]
    problem = re.split(r"^#", problem, maxsplit=1, flags=re.MULTILINE)[0]
    found = tuple(_CONTRACT_ITEM.findall(problem))
    if found != CONTRACT_ITEMS:
        wanted = ", ".join(f"'- **{item}:**'" for item in CONTRACT_ITEMS)
        raise ProblemError(
            f"{path}: statement: the Problem section's contract must be a list of three items, {wanted} "
            f"in that order; found {', '.join(found) or 'none'}"
        )
