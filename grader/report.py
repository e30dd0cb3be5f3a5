"""Grading reports: per-test results, the verdict, and their JSON and JUnit XML forms."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from grader.feedback import MAX_INPUT_LINES, UNKNOWN_TYPE, types_in_failing_input
from grader.verdicts import Verdict
from sandbox.protocol import printable

# 2: a failed test's ``property`` and ``failing_input`` (grader.feedback), and ``insight``.
# 3: a failed test's ``failing_types``, its input by type and shape (``["x: float32[0]"]``), for
# course staff to count across a class; a report of schema 2 has the text only
# (``hidden_failures`` reads the types back from it).
REPORT_SCHEMA = 3


@dataclass
class TestResult:
    """The outcome of one test: ``passed``, ``failed`` or ``error``."""

    __test__ = False  # not a pytest test class, despite the name

    name: str
    outcome: str
    points: float
    max_points: float
    message: str
    hidden: bool
    duration_s: float
    verdict: Verdict = Verdict.ACCEPTED
    # The property a test checks, in a sentence; for a failed test, the call it failed on, as
    # JAX code, and its inputs by type and shape (see grader.feedback).
    tested_property: str = ""
    failing_input: str = ""
    failing_types: list[str] = field(default_factory=list)

    @property
    def feedback(self) -> str:
        """The test as text: the property; for a failure, the input and what went wrong."""
        parts = [self.tested_property] if self.tested_property else []
        if self.failing_input:
            parts.append("Failing input:\n" + "\n".join("  " + line for line in self.failing_input.splitlines()))
        if self.message:
            parts.append(self.message)
        return "\n".join(parts)

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "outcome": self.outcome,
            "points": self.points,
            "message": self.message,
            "hidden": self.hidden,
            "duration_s": round(self.duration_s, 4),
            "property": self.tested_property,
            "failing_input": self.failing_input,
            "failing_types": list(self.failing_types),
        }

    def to_live_dict(self) -> dict[str, Any]:
        """What is known of the test as soon as it ends, shown while the others run: all but its
        points (the report scores the tests once all have ended), and the verdict it implies."""
        live = self.to_dict()
        del live["points"]
        return {**live, "verdict": str(self.verdict)}

    def line(self) -> str:
        """The test in one line: ``[PASS] test_name (hidden)``."""
        mark = "PASS" if self.outcome == "passed" else "FAIL"
        return f"[{mark}] {self.name} ({'hidden' if self.hidden else 'visible'})"


@dataclass
class Report:
    """Everything a student, a gradebook or a CI job needs to know about one grading."""

    problem: str
    verdict: Verdict
    score: float
    max_score: float
    tests: list[TestResult] = field(default_factory=list)
    duration_s: float = 0.0
    message: str = ""
    output: str = ""  # printed while loading and during visible tests: the student sees it
    hidden_output: str = ""  # printed while hidden tests ran: for staff only
    sandbox: dict[str, Any] = field(default_factory=dict)
    # What JAX did with the submission (grader.insight); empty when not asked for.
    insight: dict[str, Any] = field(default_factory=dict)
    # A notebook submission as it ran, with its cells' outputs (cleaned): the feedback
    # notebook is made from it. Not part of the JSON report.
    notebook: Any = field(default=None, repr=False, compare=False)

    @property
    def accepted(self) -> bool:
        return self.verdict == Verdict.ACCEPTED

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema": REPORT_SCHEMA,
            "problem": self.problem,
            "verdict": str(self.verdict),
            "score": self.score,
            "max_score": self.max_score,
            "message": self.message,
            "tests": [test.to_dict() for test in self.tests],
            "duration_s": round(self.duration_s, 4),
            "output": self.output,
            "hidden_output": self.hidden_output,
            "sandbox": dict(self.sandbox),
            "insight": dict(self.insight),
        }

    def to_json(self) -> str:
        # Strict JSON: a NaN or an infinity here is a bug to find, not a value to write.
        return json.dumps(self.to_dict(), indent=2, allow_nan=False)

    def to_junit_xml(self) -> str:
        return ET.tostring(self.junit_suite(), encoding="unicode", xml_declaration=True)

    def junit_suite(self, *, name: str | None = None, classname: str | None = None) -> ET.Element:
        """The report as one JUnit ``testsuite`` (a batch of reports puts several in one file).

        Every text goes in through ``printable`` (``_xml_text``): a name or a message may hold
        the student's text, and one control character would make the whole file unreadable.
        """
        classname = _xml_text(classname or self.problem)
        suite = ET.Element(
            "testsuite",
            name=_xml_text(name or self.problem),
            tests=str(len(self.tests)),
            failures=str(sum(t.outcome == "failed" for t in self.tests)),
            errors=str(sum(t.outcome == "error" for t in self.tests)),
            time=f"{self.duration_s:.3f}",
        )
        properties = ET.SubElement(suite, "properties")
        for name, value in (
            ("verdict", str(self.verdict)),
            ("score", str(self.score)),
            ("max_score", str(self.max_score)),
        ):
            ET.SubElement(properties, "property", name=name, value=_xml_text(value))
        for test in self.tests:
            case = ET.SubElement(
                suite, "testcase", classname=classname, name=_xml_text(test.name), time=f"{test.duration_s:.3f}"
            )
            if test.outcome in ("failed", "error"):
                tag = "failure" if test.outcome == "failed" else "error"
                message = test.message.splitlines()[0] if test.message else test.outcome
                ET.SubElement(case, tag, message=_xml_text(message)).text = _xml_text(test.feedback)
        if self.message and not self.tests:
            case = ET.SubElement(suite, "testcase", classname=classname, name="load")
            ET.SubElement(case, "error", message=_xml_text(str(self.verdict))).text = _xml_text(self.message)
        return suite

    def to_gradescope(self) -> dict[str, Any]:
        """The autograder ``results.json`` Gradescope reads; hidden tests show after publishing."""
        return {
            "score": self.score,
            "output": f"{self.verdict}: {self.message}" if self.message else str(self.verdict),
            "tests": [
                {
                    "name": test.name,
                    "score": test.points,
                    "max_score": test.max_points,
                    "status": "passed" if test.outcome == "passed" else "failed",
                    "output": test.feedback,
                    "visibility": "after_published" if test.hidden else "visible",
                }
                for test in self.tests
            ],
        }

    def summary(self) -> str:
        """A short human-readable account, one line per test."""
        lines = [f"{self.problem}: {self.verdict} ({self.score:g}/{self.max_score:g}) in {self.duration_s:.2f}s"]
        if self.message:
            lines.append(f"  {self.message}")
        for test in self.tests:
            mark = "PASS" if test.outcome == "passed" else "FAIL"
            kind = "hidden" if test.hidden else "visible"
            lines.append(f"  [{mark}] {test.name} ({kind}, {test.points:g}/{test.max_points:g})")
            if test.outcome != "passed" and test.feedback:
                lines.extend(f"         {line}" for line in test.feedback.splitlines()[:16])
        return "\n".join(lines)


def _xml_text(text: str) -> str:
    """``text`` as XML 1.0 allows it. ``printable`` escapes every control character but
    newline and tab (both legal), every lone surrogate and every non-character such as
    U+FFFE: what it leaves is legal XML."""
    return printable(text)


# -- reading a stored report back ---------------------------------------------------------------
# A stored report is read as hostile text: the sandbox's side of a grading could have put
# anything in it (and old reports have older shapes). What is read is capped and printable.

MAX_TESTS_READ = 500
MAX_NAME_CHARS = 200
MAX_PROPERTY_CHARS = 300
MAX_TYPE_CHARS = 80


def one_line(text: Any, limit: int) -> str:
    """``text`` as at most ``limit`` printable characters on one line; "" for a non-string."""
    if not isinstance(text, str):
        return ""
    line = printable(text[: limit + 1]).replace("\n", " ").replace("\t", " ")
    return line if len(line) <= limit else line[: limit - 1] + "…"


def _tests_of(report: Any) -> list[Mapping[str, Any]]:
    tests = report.get("tests") if isinstance(report, Mapping) else None
    if not isinstance(tests, list):
        return []
    return [test for test in tests[:MAX_TESTS_READ] if isinstance(test, Mapping)]


def hidden_failures(report: Any) -> list[list[str]] | None:
    """The hidden tests a stored report failed, each as ``[name, type, ...]`` (its failing
    input by type and shape: ``["test_sums_empty", "x: float32[0]"]``); ``[]`` when it passed
    them all, and None when no hidden test ran (a Run, a grading that stopped before them).

    A test told no input where it failed before calling the code. A report of schema 2 has no
    ``failing_types``: they are read back from its ``failing_input`` text; an older one's
    failures are told as ``unknown``.
    """
    hidden = [test for test in _tests_of(report) if test.get("hidden") is True]
    if not hidden:
        return None
    failures = []
    for test in hidden:
        if test.get("outcome") == "passed":
            continue
        told, text = test.get("failing_types"), test.get("failing_input")
        if isinstance(told, list):
            kinds = [one_line(kind, MAX_TYPE_CHARS) for kind in told[:MAX_INPUT_LINES]]
        elif isinstance(text, str):  # schema 2; "" where the test never called the code
            kinds = [one_line(kind, MAX_TYPE_CHARS) for kind in types_in_failing_input(text)]
        else:
            kinds = [UNKNOWN_TYPE]
        failures.append([one_line(test.get("name"), MAX_NAME_CHARS), *kinds])
    return failures


def hidden_properties(report: Any) -> list[tuple[str, str]]:
    """Each hidden test of a stored report, as ``(name, property sentence)``, in its order."""
    return [
        (one_line(test.get("name"), MAX_NAME_CHARS), one_line(test.get("property"), MAX_PROPERTY_CHARS))
        for test in _tests_of(report)
        if test.get("hidden") is True
    ]
