"""The grader block of a problem notebook: the values its fields may take, and their reader.

``metadata.grader`` holds the problem's slug, title, difficulty, category, tags, entry points,
device, limits and points. ``MetadataReader`` checks each field as it is read and names the
field in its error. ``ProblemError``, the error of every problem notebook that cannot be
used, is defined here, below ``grader.problem``, so that both can raise it.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

# The rubric (docs/writing-problems.md): easy, one stage or API used as documented; medium,
# two stages composed, or reasoning about what jit's cache is keyed on; hard, a budget to meet,
# a design to choose, or broken code to debug.
DIFFICULTIES = ("easy", "medium", "hard")
# The course's sections in teaching order: a problem's category is one of them.
SECTIONS: tuple[tuple[str, str], ...] = (
    ("tracing", "Tracing"),
    ("jaxprs", "Jaxprs"),
    ("caching", "Caching and recompilation"),
    ("compiling", "Lowering and compiling"),
    ("control-flow", "Control flow"),
    ("transformations", "Transformations"),
    ("export", "Export"),
    ("parallelism", "Parallelism"),
)
CATEGORIES = tuple(category for category, _ in SECTIONS)
DEVICES = ("cpu", "gpu", "any")
SLUG_PATTERN = re.compile(r"^[a-z][a-z0-9_]{1,63}$")
IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class ProblemError(Exception):
    """A problem notebook that cannot be used; the message names the notebook, cell and field."""


MAX_RUBRIC_IDEAS = 8
MAX_IDEA_CHARS = 120


class MetadataReader:
    """Typed access to the grader block, with errors that name the field."""

    def __init__(self, path: Path, meta: dict[str, Any]) -> None:
        self.path, self.meta = path, meta
        known = {
            "slug", "title", "difficulty", "category", "tags", "entry_points", "device",
            "time_limit_s", "memory_limit_mb", "max_examples", "points", "cpu_devices",
            "objective", "prerequisites", "minutes", "rubric",
        }  # fmt: skip
        unknown = sorted(set(meta) - known)
        if unknown:
            self.fail(unknown[0], f"unknown field (known: {', '.join(sorted(known))})")

    def fail(self, name: str, problem: str) -> None:
        raise ProblemError(f"{self.path}: metadata.grader.{name}: {problem}")

    def value(self, name: str, default: Any = None) -> Any:
        if name not in self.meta:
            if default is None:
                self.fail(name, "missing")
            return default
        return self.meta[name]

    def text(self, name: str) -> str:
        value = self.value(name)
        if not isinstance(value, str) or not value.strip():
            self.fail(name, f"must be a non-empty string (got {value!r})")
        return str(value).strip()

    def text_list(self, name: str) -> list[str]:
        value = self.value(name)
        if not isinstance(value, list) or not value or not all(isinstance(v, str) and v for v in value):
            self.fail(name, f"must be a non-empty list of strings (got {value!r})")
        return list(value)

    def sentence(self, name: str) -> str:
        """One sentence: what the problem teaches, shown in the catalog."""
        value = self.text(name)
        if len(value) > 240 or not value.endswith(".") or "\n" in value:
            self.fail(name, f"must be one sentence of at most 240 characters, ending with a full stop (got {value!r})")
        return value

    def slugs(self, name: str, *, of: str) -> list[str]:
        """Slugs of other problems (which exist and form no cycle: ``grader validate`` checks)."""
        value = self.value(name, [])
        if not isinstance(value, list) or not all(isinstance(v, str) and SLUG_PATTERN.match(v) for v in value):
            self.fail(name, f"must be a list of problem slugs (got {value!r})")
        if of in value or len(set(value)) != len(value):
            self.fail(name, f"must name other problems, each once (got {value!r})")
        return list(value)

    def rubric(self, left_choices: tuple[str, ...]) -> tuple[tuple[str, ...], str] | None:
        """The evidence for the problem's level (``grader.levels``): the ideas it combines, by
        name, and what is left to the student; None where the notebook gives none."""
        value = self.value("rubric", {})
        if value == {}:
            return None
        if not isinstance(value, dict) or set(value) != {"ideas", "left"}:
            self.fail("rubric", f"must be an object with the keys ideas and left (got {value!r:.200})")
        ideas = value["ideas"]
        if (
            not isinstance(ideas, list)
            or not 1 <= len(ideas) <= MAX_RUBRIC_IDEAS
            or not all(isinstance(idea, str) and 0 < len(idea.strip()) <= MAX_IDEA_CHARS for idea in ideas)
        ):
            self.fail(
                "rubric.ideas",
                f"must list 1 to {MAX_RUBRIC_IDEAS} ideas, each a name of at most {MAX_IDEA_CHARS} characters "
                f"(got {ideas!r:.200})",
            )
        if value["left"] not in left_choices:
            self.fail("rubric.left", f"must be one of {', '.join(left_choices)} (got {value['left']!r:.100})")
        return tuple(idea.strip() for idea in ideas), str(value["left"])

    def choice(self, name: str, choices: tuple[str, ...], default: str | None = None) -> str:
        value = self.value(name, default)
        if value not in choices:
            self.fail(name, f"must be one of {', '.join(choices)} (got {value!r})")
        return str(value)

    def number(self, name: str, *, default: float | None, low: float, high: float) -> float:
        value = self.value(name, default)  # no default: the field is required
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high:
            self.fail(name, f"must be a number from {low:g} to {high:g} (got {value!r})")
        return float(value)
