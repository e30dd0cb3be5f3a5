"""``python -m grader autograde`` as course staff run it in CI: a folder of mixed notebooks.

The batch is graded once, for real (bwrap sandboxes, kernels in them, two workers), under a
copy of ``aot_compiled_sum`` whose time limit is 30 s: far above what its accepted notebooks
need on two busy cores (up to 13 s there), so that no verdict depends on how busy the machine
is, while the notebook that never ends costs 30 s, not a minute.
"""

import contextlib
import csv
import json
import os
import re
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import nbformat
import pytest

from grader.feedback_notebook import insight_markdown
from grader.problem import REPO_ROOT, load_problem
from sandbox.host.cgroups import cgroups_usable
from tests.conftest import student_notebook

pytestmark = pytest.mark.slow  # a batch of real gradings, one of which waits out its time limit

TIME_LIMIT_S = 30
REFERENCE = (REPO_ROOT / "solutions/aot_compiled_sum/reference.py").read_text()
WRONG = (REPO_ROOT / "solutions/aot_compiled_sum/wrong_value.py").read_text()

OFFLINE = "runtime_error"  # no network in a sandbox: a download fails as it would offline
# student -> (what their notebook's solution cell holds, cells appended, expected verdict)
STUDENTS = {
    "ada": (REFERENCE, ["%timeit -n2 -r1 aot_compiled_sum(jnp.ones(5))", "%%time\nprint('timed')"], "accepted"),
    "ben": (REFERENCE, ["%env JAX_DEMO=1\nprint(aot_compiled_sum(jnp.arange(4)))"], "accepted"),
    "cy": (WRONG, [], "wrong_answer"),
    "dee": ("import jax\n\nvalue = 1 / 0\n", [], "runtime_error"),
    "eve": ("import jax\n\n\ndef some_other_name(x):\n    return x\n", [], "wrong_answer"),
    "fay": ("while True:\n    pass\n", [], "time_limit_exceeded"),
    "gus": (
        REFERENCE,
        ["import urllib.request\nurllib.request.urlopen('http://example.com', timeout=3)"],
        "runtime_error",
    ),
    "hal": ("def aot_compiled_sum(x)\n    return x\n", [], "syntax_error"),
}


@pytest.fixture(scope="module")
def batch(tmp_path_factory):
    root = tmp_path_factory.mktemp("autograde")
    problem_notebook = nbformat.read(REPO_ROOT / "problems/aot_compiled_sum.ipynb", as_version=4)
    problem_notebook.metadata["grader"]["time_limit_s"] = TIME_LIMIT_S
    problem_path = root / "aot_compiled_sum.ipynb"
    nbformat.write(problem_notebook, problem_path)
    problem = load_problem(problem_path)
    submissions = root / "submissions"
    submissions.mkdir()
    for student, (solution, extra, _) in STUDENTS.items():
        nbformat.write(student_notebook(problem, solution, extra), submissions / f"{student}.ipynb")
    (submissions / "ivy.ipynb").write_text("def aot_compiled_sum(x): pass\n")  # a .py file, misnamed
    (submissions / "joe.ipynb").write_text("")
    (submissions / ".ipynb_checkpoints").mkdir()
    (submissions / ".ipynb_checkpoints" / "ada-checkpoint.ipynb").write_text("{}")
    out = root / "out"
    started = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-m", "grader", "autograde", str(submissions), "--problem", str(problem_path),
         "--jobs", "2", "--out", str(out), "--timings", str(root / "timings.json")],
        capture_output=True, text=True, cwd=REPO_ROOT, timeout=600,
    )  # fmt: skip
    return result, out, time.perf_counter() - started


def _rows(out):
    with (out / "results.csv").open(newline="") as handle:
        return {row["student"]: row for row in csv.DictReader(handle)}


def test_every_notebook_is_graded_with_the_right_verdict_and_the_batch_exits_0(batch):
    result, out, _ = batch
    assert result.returncode == 0, result.stdout + result.stderr
    rows = _rows(out)
    assert set(rows) == {*STUDENTS, "ivy", "joe"}  # checkpoints are not submissions
    for student, (_, _, verdict) in STUDENTS.items():
        assert rows[student]["verdict"] == verdict, (student, rows[student])
    assert rows["ivy"]["verdict"] == "invalid_submission" and "not a Jupyter notebook" in rows["ivy"]["message"]
    assert "defines no function named 'aot_compiled_sum'" in (out / "reports/eve--aot_compiled_sum.json").read_text()
    assert rows["joe"]["verdict"] == "invalid_submission" and "empty" in rows["joe"]["message"]
    assert "Traceback" not in result.stderr
    # The summary table names every student with their verdict.
    for student, row in rows.items():
        assert any(
            line.split()[:3] == [student, "aot_compiled_sum", row["verdict"]] for line in result.stdout.splitlines()
        )


def test_a_failing_cell_is_named_by_number_and_first_line(batch):
    _, out, _ = batch
    report = json.loads((out / "reports" / "dee--aot_compiled_sum.json").read_text())
    assert report["message"].startswith("cell ")
    assert "(import jax) raised ZeroDivisionError: division by zero" in report["message"]
    offline = json.loads((out / "reports" / "gus--aot_compiled_sum.json").read_text())
    assert "URLError" in offline["message"]  # no network in the sandbox


def test_a_hanging_notebook_costs_its_time_limit_and_holds_up_only_its_worker(batch):
    _, out, _ = batch
    rows = _rows(out)
    assert float(rows["fay"]["seconds"]) <= TIME_LIMIT_S + 2

    # The batch writes each report as its notebook is done. Every notebook queued after the
    # hanging one (files are taken in name order) was graded by the other worker meanwhile.
    def reported_at(student: str) -> int:
        return (out / "reports" / f"{student}--aot_compiled_sum.json").stat().st_mtime_ns

    later = sorted(student for student in rows if student > "fay")
    assert later == ["gus", "hal", "ivy", "joe"]
    assert all(reported_at(student) < reported_at("fay") for student in later)


def test_junit_has_a_suite_per_notebook_and_a_case_per_test(batch):
    _, out, _ = batch
    suites = ET.parse(out / "junit.xml").getroot()
    assert suites.tag == "testsuites"
    by_name = {suite.get("name"): suite for suite in suites}
    assert set(by_name) == {f"{s}/aot_compiled_sum" for s in [*STUDENTS, "ivy", "joe"]}
    accepted = by_name["ada/aot_compiled_sum"]
    assert len(accepted.findall("testcase")) == 7 and accepted.get("failures") == "0"
    wrong = by_name["cy/aot_compiled_sum"]
    assert int(wrong.get("failures") or 0) > 0 and wrong.find("testcase/failure") is not None
    assert by_name["dee/aot_compiled_sum"].find("testcase/error") is not None


def test_gradebook_and_gradescope_results(batch):
    _, out, _ = batch
    with (out / "gradebook.csv").open(newline="") as handle:
        table = list(csv.reader(handle))
    assert table[0] == ["student", "aot_compiled_sum", "total"]
    scores = {row[0]: row[1] for row in table[1:]}
    assert scores["ada"] == "100" and scores["fay"] == "0" and float(scores["cy"]) < 100
    results = json.loads((out / "gradescope" / "cy--aot_compiled_sum" / "results.json").read_text())
    assert results["score"] == float(scores["cy"])
    assert {test["visibility"] for test in results["tests"]} == {"visible", "after_published"}


def test_feedback_notebooks_have_outputs_and_results_but_no_hidden_test_code(batch):
    _, out, _ = batch
    problem = load_problem("aot_compiled_sum")
    public = nbformat.writes(problem.student_notebook())
    hidden_lines = [line.strip() for line in problem.hidden_tests.splitlines() if len(line.strip()) > 30]
    hidden_lines = [line for line in hidden_lines if line not in public]  # not also in the visible tests
    assert len(hidden_lines) > 10
    feedback = nbformat.read(out / "feedback" / "ada--aot_compiled_sum.ipynb", as_version=4)
    nbformat.validate(feedback)
    text = nbformat.writes(feedback)
    assert "timed" in text and "per loop" in text  # %%time and %timeit ran, as in Jupyter
    assert feedback.cells[0].cell_type == "markdown" and "accepted" in feedback.cells[0].source
    assert "test_matches_the_reference_across_lengths_and_dtypes" in feedback.cells[0].source
    for line in hidden_lines:
        assert line not in text
    wrong = nbformat.read(out / "feedback" / "cy--aot_compiled_sum.ipynb", as_version=4)
    assert "wrong_answer" in wrong.cells[0].source and "```text" in wrong.cells[0].source


def test_feedback_notebooks_show_what_jax_did_and_the_reference_once_accepted(batch):
    _, out, _ = batch
    accepted = nbformat.read(out / "feedback" / "ada--aot_compiled_sum.ipynb", as_version=4).cells[0].source
    wrong = nbformat.read(out / "feedback" / "cy--aot_compiled_sum.ipynb", as_version=4).cells[0].source
    # Each test is told by its property first, as on the web page.
    assert "Sums a small float vector.<br>`test_sums_a_small_float_vector`" in accepted
    for results in (accepted, wrong):
        assert "### What JAX did with your code" in results
        # A length the notebook's own cells never called it on: one trace, lowering and compile.
        assert re.search(r"\| `aot_compiled_sum` \| `int32\[3\]` \| 1 \| 1 \| \d\.\d{3} s \|", results)
        # In the page's words, the headline counting the same calls as the table.
        assert re.search(r"In the visible tests' \d+ calls, JAX traced your code \d+ times", results)
        assert "**Traced**: JAX ran your Python to record its operations" in results
        assert "stablehlo.reduce" in results
    # The reference's executable is shown only to a solved notebook, with the same cost.
    [yours] = re.findall(r"\*\*Yours\*\*: ([^\n]*)", accepted)
    [reference] = re.findall(r"\*\*The reference\*\*: ([^\n]*)", accepted)
    assert "FLOPs" in yours and yours == reference
    assert "**The reference**" not in wrong


def test_the_insight_in_markdown_cannot_break_out_of_its_cells():
    insight = {
        "schema": 1,
        "visible_totals": {"calls": 1, "traces": 1, "lowerings": 1, "compiles": 1, "compile_s": 0.5, "run_s": 0.1},
        "hidden_totals": {"calls": 0},
        "warnings": ["f | g <script>alert(1)</script>\n# heading"],
        "calls": [{"call": "f`|x", "inputs": "float32[3] | <b>", "traces": 1, "lowerings": 1, "compiles": 1,
                   "compile_s": 0.5, "staging_s": 0.0, "run_s": 0.1}],
        "input": "f(float32[3])",
        "artifacts": {"jaxpr": "```\n<img src=x>", "cost": {"flops": 2.0}},
    }  # fmt: skip
    text = "\n".join(insight_markdown(insight))
    assert "<script>" not in text and "&lt;script&gt;" in text
    assert "| `f'\\|x` | `float32[3] \\| <b>` | 1 |" in text  # one cell each, in code spans
    assert "\n# heading" not in text
    assert text.count("```") == 2  # the jaxpr's own fence cannot close ours
    assert "**Yours**: 2 FLOPs." in text


def test_nothing_to_grade_is_a_usage_error(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "grader", "autograde", str(tmp_path)], capture_output=True, text=True, cwd=REPO_ROOT
    )
    assert result.returncode == 2 and "no notebooks found" in result.stderr and "Traceback" not in result.stderr
    missing = subprocess.run(
        [sys.executable, "-m", "grader", "autograde", str(tmp_path / "absent")], capture_output=True, text=True
    )
    assert missing.returncode == 2 and "no such file or folder" in missing.stderr


def _running_in_group(group):
    """The processes of a process group that still run (zombies waiting for a reaper do not)."""
    running = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError):
            fields = stat.read_text().rsplit(")", 1)[1].split()  # after the command name
            if fields[0] != "Z" and int(fields[2]) == group:
                running.append(int(stat.parent.name))
    return running


def test_ctrl_c_keeps_what_was_graded_and_exits_130(tmp_path):
    """Ctrl-C at a terminal interrupts the whole process group: the command and its workers."""
    problem = load_problem("aot_compiled_sum")
    submissions = tmp_path / "submissions"
    submissions.mkdir()
    for number in range(6):
        nbformat.write(student_notebook(problem, REFERENCE, []), submissions / f"student{number}.ipynb")
    out = tmp_path / "out"
    command = [sys.executable, "-m", "grader", "autograde", str(submissions), "--jobs", "1", "--out", str(out)]
    batch = subprocess.Popen(
        [*command, "--problem", "aot_compiled_sum"],
        cwd=REPO_ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 180
        while not list((out / "reports").glob("*.json")) and batch.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)
        assert batch.poll() is None, "the batch ended before it could be interrupted"
        os.killpg(batch.pid, signal.SIGINT)
        _, stderr = batch.communicate(timeout=60)
        # Its workers are gone too, not left behind (multiprocessing's helper may take a moment).
        deadline = time.monotonic() + 10
        while _running_in_group(batch.pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert _running_in_group(batch.pid) == []
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(batch.pid, signal.SIGKILL)
    assert batch.returncode == 130, stderr
    assert "interrupted" in stderr
    reports = sorted(path.stem for path in (out / "reports").glob("*.json"))
    assert 1 <= len(reports) < 6
    rows = _rows(out)
    assert sorted(f"{name}--aot_compiled_sum" for name in rows) == reports
    assert {row["verdict"] for row in rows.values()} == {"accepted"}
    suites = ET.parse(out / "junit.xml").getroot().findall("testsuite")
    assert len(suites) == len(reports)


def test_the_timings_say_where_each_notebook_spent_its_cpu_time(batch):
    _, out, _ = batch
    timings = json.loads((out.parent / "timings.json").read_text())
    notebooks = {notebook["student"]: notebook for notebook in timings["notebooks"]}
    assert set(STUDENTS) <= set(notebooks)
    assert timings["main_process_cpu_s"] > 0
    workers = list(timings["workers"].values())
    assert 1 <= len(workers) <= 2
    for worker in workers:
        # The harness (JAX, pytest, hypothesis) was imported once, before the workers forked.
        assert worker["harness import (fork server of workers)"] > 0.3
        assert worker["cpu_s"] >= worker["worker start"] > 0
    ada, dee = notebooks["ada"], notebooks["dee"]
    for notebook in (ada, dee):
        harness = notebook["harness"]
        assert harness["reading the notebook"] > 0
        parts = sum(seconds for stage, seconds in harness.items() if stage != "total")
        assert parts == pytest.approx(harness["total"], abs=1e-6)  # the tests' share is the rest
    assert ada["harness"]["the tests (pytest, hypothesis, comparing, the channel)"] > 0
    assert ada["harness"]["the feedback notebook"] > 0
    if cgroups_usable():
        sandbox = ada["sandbox"]
        assert sandbox["kernel start"] > 0 and sandbox["the notebook's cells"] > 0
        assert sandbox["the tests' calls and the insight"] > 0
        parts = sandbox["kernel start"] + sandbox["the notebook's cells"] + sandbox["the tests' calls and the insight"]
        assert parts == pytest.approx(sandbox["total"], abs=1e-3)
        # A notebook whose cell raised runs no test: its sandbox does next to nothing after its cells.
        assert dee["sandbox"]["the tests' calls and the insight"] < sandbox["the tests' calls and the insight"]
