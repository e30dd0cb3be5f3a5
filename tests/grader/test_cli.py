"""``python -m grader`` as CI pipelines and instructors run it: exit codes, reports, errors."""

import json
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook

from grader.problem import REPO_ROOT


def run_cli(*args, cwd=REPO_ROOT):
    return subprocess.run([sys.executable, "-m", "grader", *args], capture_output=True, text=True, cwd=cwd, timeout=300)


@pytest.mark.slow
def test_reference_is_accepted_with_json_junit_and_gradescope(tmp_path):
    out, junit, gradescope = tmp_path / "report.json", tmp_path / "report.xml", tmp_path / "results.json"
    result = run_cli(
        "grade", "--problem", "aot_compiled_sum", "solutions/aot_compiled_sum/reference.py",
        "--json", str(out), "--junit-xml", str(junit), "--gradescope", str(gradescope),
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    report = json.loads(out.read_text())
    assert report["schema"] == 3 and report["problem"] == "aot_compiled_sum"
    assert report["verdict"] == "accepted" and report["score"] == report["max_score"]
    assert {"name", "outcome", "points", "message", "hidden", "duration_s"} <= set(report["tests"][0])
    assert any(t["hidden"] for t in report["tests"]) and any(not t["hidden"] for t in report["tests"])
    assert report["sandbox"]["backend"] == "bwrap" and report["sandbox"]["device"].startswith("cpu")
    suite = ET.parse(junit).getroot()
    assert suite.tag == "testsuite" and suite.get("failures") == "0"
    assert json.loads(gradescope.read_text())["score"] == report["score"]
    assert result.stderr == ""
    # Each test was told as it ended, in the order they ran, before the scored summary.
    live, summary = result.stdout.split("aot_compiled_sum: accepted", 1)
    told = [line.split()[2] for line in live.splitlines() if line.startswith("... [PASS] ")]
    assert told == [t["name"] for t in report["tests"]] and "[PASS]" in summary


@pytest.mark.slow
def test_wrong_solution_exits_1_and_says_what_was_wrong():
    result = run_cli(
        "grade", "--problem", "aot_compiled_sum", "solutions/aot_compiled_sum/wrong_value.py", "--json", "-"
    )
    assert result.returncode == 1
    report = json.loads(result.stdout[result.stdout.index("{") :])
    assert report["verdict"] == "wrong_answer"
    messages = " ".join(t["message"] for t in report["tests"] if t["outcome"] != "passed")
    assert "but" in messages and "was expected" in messages


@pytest.mark.slow
def test_visible_only_runs_no_hidden_test():
    result = run_cli(
        "grade", "--visible-only", "--problem", "aot_compiled_sum", "solutions/aot_compiled_sum/reference.py",
        "--json", "-",
    )  # fmt: skip
    report = json.loads(result.stdout[result.stdout.index("{") :])
    assert report["tests"] and not any(t["hidden"] for t in report["tests"])


@pytest.mark.slow
def test_a_notebook_submission_is_graded(tmp_path):
    notebook = new_notebook()
    notebook.cells = [new_code_cell((REPO_ROOT / "solutions/compile_for/reference.py").read_text())]
    path = tmp_path / "student.ipynb"
    nbformat.write(notebook, path)
    result = run_cli("grade", "--problem", "compile_for", str(path))
    assert result.returncode == 0, result.stdout + result.stderr


def _bad_inputs(tmp_path):
    (tmp_path / "empty.py").write_text("")
    (tmp_path / "latin1.py").write_bytes("x = 'caf\xe9'\n".encode("latin-1"))
    (tmp_path / "binary.py").write_bytes(b"\x7fELF\x02\x01\x01\x00\x00")
    (tmp_path / "huge.py").write_bytes(b"# padding\n" * (1024 * 1024))
    (tmp_path / "bad.ipynb").write_text("print('a .py file under a notebook name')\n")
    return {
        "missing": (["grade", "--problem", "aot_compiled_sum", str(tmp_path / "absent.py")], "no such file"),
        "unknown problem": (["grade", "--problem", "no_such_problem", str(tmp_path / "empty.py")], "unknown problem"),
        "empty": (["grade", "--problem", "aot_compiled_sum", str(tmp_path / "empty.py")], "empty"),
        "non-utf8": (["grade", "--problem", "aot_compiled_sum", str(tmp_path / "latin1.py")], "not UTF-8"),
        "binary": (["grade", "--problem", "aot_compiled_sum", str(tmp_path / "binary.py")], "binary file"),
        "10 MB": (["grade", "--problem", "aot_compiled_sum", str(tmp_path / "huge.py")], "too large"),
        "not a notebook": (["grade", "--problem", "aot_compiled_sum", str(tmp_path / "bad.ipynb")], "not a Jupyter"),
        "no command": ([], "required"),
        "show unknown": (["show", "nope"], "unknown problem"),
    }


BAD_INPUTS = [
    "missing",
    "unknown problem",
    "empty",
    "non-utf8",
    "binary",
    "10 MB",
    "not a notebook",
    "no command",
    "show unknown",
]


@pytest.mark.slow
@pytest.mark.parametrize("case", BAD_INPUTS)
def test_bad_input_gives_one_clear_line_and_exit_2(tmp_path, case):
    args, expected = _bad_inputs(tmp_path)[case]
    result = run_cli(*args)
    assert result.returncode == 2
    assert expected in result.stderr
    assert "Traceback" not in result.stderr
    error_lines = [line for line in result.stderr.splitlines() if "error" in line]
    assert len(error_lines) == 1


def test_syntax_error_is_a_verdict_with_one_line_on_stderr(tmp_path):
    path = tmp_path / "broken.py"
    path.write_text("def aot_compiled_sum(x)\n    return x\n")
    result = run_cli("grade", "--problem", "aot_compiled_sum", str(path), "--json", "-")
    assert result.returncode == 1
    assert result.stderr.strip().splitlines() == ["error: syntax error in broken.py, line 1: expected ':'"]
    assert '"verdict": "syntax_error"' in result.stdout


def test_show_prints_the_student_view_without_hidden_tests():
    result = run_cli("show", "aot_compiled_sum")
    assert result.returncode == 0
    assert "## Why this matters" in result.stdout and "## Hints" in result.stdout
    assert "def aot_compiled_sum(x):" in result.stdout
    assert "test_compiles_for_a_length_it_has_never_seen" not in result.stdout


def test_a_gpu_problem_on_a_host_without_gpu_is_refused_clearly(make_problem, tmp_path):
    make_problem("on_gpu", hidden_tests="def test_x(submission):\n    pass\n", reference="", device="gpu")
    solution = tmp_path / "s.py"
    solution.write_text("def answer():\n    return 1\n")
    result = run_cli("grade", "--problem", "on_gpu", str(solution))
    assert result.returncode == 2
    assert result.stderr.strip() == "error: this host has no NVIDIA GPU (no /dev/nvidia* device nodes)"


HOSTILE_TEXT = "\\x1b[2K\\r\\x1b[1A\\x1b[32maccepted (100/100)\\ud800"


@pytest.mark.slow
def test_hostile_text_reaches_no_terminal_json_or_xml_unescaped(tmp_path):
    submission = tmp_path / "hostile.py"
    submission.write_text(
        f"import sys\nprint({HOSTILE_TEXT!r})\ndef aot_compiled_sum(x):\n    raise ValueError({HOSTILE_TEXT!r})\n"
    )
    out, junit = tmp_path / "report.json", tmp_path / "report.xml"
    result = run_cli(
        "grade", "--problem", "aot_compiled_sum", str(submission), "--json", str(out), "--junit-xml", str(junit)
    )  # fmt: skip
    assert result.returncode == 1, result.stdout + result.stderr
    assert "\x1b" not in result.stdout and "\r" not in result.stdout
    # The tests as they ended, in the harness's words only, then the verdict.
    live, _ = result.stdout.split("\naot_compiled_sum: runtime_error", 1)
    for line in live.splitlines():
        assert re.fullmatch(r"\.\.\. \[(PASS|FAIL)\] test_\w+ \((visible|hidden)\) \d+\.\d\ds", line), line
    report = json.loads(out.read_text())
    assert report["verdict"] == "runtime_error"
    assert "\\x1b[32maccepted" in report["output"] and "\\ud800" in report["output"]
    assert "\\x1b[32maccepted" in report["tests"][0]["message"]
    ET.parse(junit)
