"""A student's name is the student's text: in a CSV it is never a formula, in junit.xml never
illegal XML, on the terminal never an escape sequence. No sandbox: the writers are called on
graded notebooks made here."""

from __future__ import annotations

import csv
import xml.etree.ElementTree as ET
from pathlib import Path

from grader.autograde import (
    MAX_STUDENT_NAME_BYTES,
    Graded,
    junit_xml,
    student_name,
    summary_table,
    write_gradebook_csv,
    write_results_csv,
)
from grader.report import Report, TestResult
from grader.spreadsheet import FORMULA_LEADS
from grader.verdicts import Verdict

FORMULA_NAMES = ['=HYPERLINK("http://example.org/steal","grade")', "+1+1", "-2+3", "@SUM(A1:A9)", "\tx", "\r=1"]
# A terminal's title, a cleared screen, NUL and BEL, a form feed, a lone surrogate, a bidi override.
TERMINAL_NAMES = [
    "\x1b]0;owned\x07", "\x1b[2Jcleared", "nul\x00bell\x07", "form\x0cfeed", "lone\ud800", "rev\u202eerse"
]  # fmt: skip


def graded(student: str, *, message: str = "") -> Graded:
    report = Report(
        problem="aot_compiled_sum",
        verdict=Verdict.WRONG_ANSWER,
        score=1.0,
        max_score=2.0,
        message=message,
        tests=[
            TestResult("test_ok", "passed", 1.0, 1.0, "", False, 0.1),
            TestResult(f"test_{student}", "failed", 0.0, 1.0, f"{student} != 2\nmore", True, 0.1, Verdict.WRONG_ANSWER),
        ],
    )
    return Graded(f"/handed-in/{student}.ipynb", student, "aot_compiled_sum", report)


def test_a_student_name_is_one_printable_line_capped_in_bytes():
    for hostile in [*FORMULA_NAMES, *TERMINAL_NAMES, "two\nlines", "é" * 300]:
        for name in (
            student_name(Path("x.ipynb"), {"grader": {"student": hostile}}, source="metadata"),
            student_name(Path(f"{hostile}.ipynb"), None),  # from the file's name
        ):
            assert name.isprintable(), ascii(name)
            assert len(name.encode()) <= MAX_STUDENT_NAME_BYTES
    assert student_name(Path("x.ipynb"), {"grader": {"student": "é" * 300}}, source="metadata") == "é" * 50
    assert student_name(Path("x.ipynb"), {"grader": {"student": "\x1b[2J"}}, source="metadata") == "\\x1b[2J"
    assert student_name(Path("x.ipynb"), {"grader": {"student": " ada "}}, source="metadata") == "ada"


def test_no_csv_cell_begins_like_a_formula(tmp_path):
    batch = [graded(name, message="=cmd|' /C calc'!A0") for name in FORMULA_NAMES]
    write_results_csv(tmp_path / "results.csv", batch)
    write_gradebook_csv(tmp_path / "gradebook.csv", batch)
    for table in ("results.csv", "gradebook.csv"):
        with (tmp_path / table).open(newline="") as handle:
            rows = list(csv.reader(handle))
        assert len(rows) == 1 + len(FORMULA_NAMES)
        for row in rows:
            for cell in row:
                assert not cell.startswith(FORMULA_LEADS), (table, cell)
        # The name is still there to read, behind the quote that keeps it text.
        assert sorted(row[0] for row in rows[1:]) == sorted("'" + name for name in FORMULA_NAMES)
    with (tmp_path / "results.csv").open(newline="") as handle:
        results = list(csv.DictReader(handle))
    assert {row["message"] for row in results} == {"'=cmd|' /C calc'!A0"}
    assert {row["score"] for row in results} == {"1.0"}  # numbers stay numbers


def test_junit_xml_stays_readable_whatever_the_names():
    batch = [graded(name, message="\x1b[31mred\x00") for name in [*TERMINAL_NAMES, *FORMULA_NAMES]]
    suites = ET.fromstring(junit_xml(batch))
    names = [suite.get("name", "") for suite in suites.findall("testsuite")]
    assert names[0] == "\\x1b]0;owned\\x07/aot_compiled_sum"
    assert "lone\\ud800/aot_compiled_sum" in names and "rev\\u202eerse/aot_compiled_sum" in names
    failure = suites.find("testsuite/testcase/failure")
    assert failure is not None and failure.text is not None and "\\x1b]0;owned" in failure.text
    # One report on its own (``grader grade --junit-xml``) too, with its load error.
    alone = Report(
        problem="p", verdict=Verdict.RUNTIME_ERROR, score=0.0, max_score=1.0, message="bad\x1b[2J\x00\x0b\ud800"
    )
    error = ET.fromstring(alone.to_junit_xml()).find("testcase/error")
    assert error is not None and error.text == "bad\\x1b[2J\\x00\\x0b\\ud800"


def test_the_summary_table_prints_no_escape_sequence():
    batch = [graded(name) for name in [*TERMINAL_NAMES, "two\nlines", "tab\there"]]
    table = summary_table(batch, 1.0)
    assert "\x1b" not in table and "\x07" not in table and "\x00" not in table and "\ud800" not in table
    lines = table.splitlines()
    assert len(lines) == 2 + len(batch) + 2  # header, rule, a line per notebook, a blank line, the counts
    assert all(line.isprintable() for line in lines), [ascii(line) for line in lines]
    assert lines[2].startswith("\\x1b]0;owned\\x07 ")
