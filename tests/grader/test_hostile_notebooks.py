"""A batch of hostile notebooks, graded as course staff grade in CI: ``python -m grader autograde``
on a folder, two jobs, the student and the problem taken from each notebook's metadata.

Each notebook holds the reference solution of ``aot_compiled_sum`` and one attack, found by a
hostile review of the notebook boundary: messages a kernel may forge, floods on channels the
harness never reads, metadata that names a problem by path, sockets swapped for symlinks, a
notebook that never ends. Every one must get a student's verdict (never ``internal_error``),
the harness must stay small and write nowhere but ``--out``, and nothing may connect to the
host. The batch runs once, for real (bwrap sandboxes, kernels in them), under two copies of the
problem: the notebook that never ends names one whose time limit is 10 s, every other notebook
one whose limit is far above what it needs on two busy cores (its cells and tests took up to
17 s there), so that no verdict depends on how busy the machine is.
"""

import contextlib
import csv
import json
import os
import socket
import subprocess
import sys
import threading
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import nbformat
import psutil  # type: ignore[import-untyped]
import pytest
from nbformat.v4 import new_code_cell

from grader.problem import REPO_ROOT, load_problem
from tests.conftest import student_notebook

SHORT_TIME_LIMIT_S = 10
WIDE_TIME_LIMIT_S = 60
SHORT_SLUG = "aot_compiled_sum_short"  # the copy under the short limit
REFERENCE = (REPO_ROOT / "solutions/aot_compiled_sum/reference.py").read_text()
KERNEL = "k = get_ipython().kernel\n"
FAKE_HIDDEN_TESTS = """
import pathlib
pathlib.Path(MARKER).write_text("the fake problem's hidden tests ran on the host")

def test_anything(submission):
    assert True
"""

# student -> (cells appended after the solution, the verdicts it may get)
ATTACKS = {
    "transient": (
        ["from IPython.display import publish_display_data\n"
         "publish_display_data({'text/plain': 'hi'}, transient='x')"],
        {"accepted"},
    ),
    "raw_number": (["from IPython.display import display\ndisplay({'text/plain': 5}, raw=True)"], {"accepted"}),
    "wrong_key": (
        [KERNEL + "from jupyter_client.session import Session\n"
         "forged = {'name': 'stdout', 'text': 'forged'}\n"
         "Session(key=b'wrong').send(k.iopub_socket, 'stream', forged, parent=k.get_parent())"],
        {"accepted"},
    ),
    "replayed": (
        [KERNEL + "message = k.session.msg('stream', {'name': 'stdout', 'text': 'twice'}, parent=k.get_parent())\n"
         "k.session.send(k.iopub_socket, message)\nk.session.send(k.iopub_socket, message)"],
        {"accepted"},
    ),
    "no_shutdown": (
        [KERNEL + "k.control_handlers.pop('shutdown_request', None)\nk.shell_handlers.pop('shutdown_request', None)"],
        {"accepted"},
    ),
    "stdin_flood": (
        [KERNEL + "frames = [b'x' * (4 * 2**20)] * 384\n"
         "k.stdin_socket.send_multipart([*(k._parent_ident.get('shell') or [b'']), b'<IDS|MSG>', *frames])"],
        # 1.5 GiB through ZeroMQ inside the sandbox: its own memory and time, never the host's.
        {"accepted", "memory_limit_exceeded", "runtime_error", "time_limit_exceeded"},
    ),
    "iopub_flood": (
        [KERNEL + "for _ in range(300):\n"
         "    k.session.send(k.iopub_socket, 'stream', {'name': 'stdout', 'text': 'x' * 4_000_000}, parent={})"],
        {"output_limit_exceeded"},
    ),
    "symlinked_socket": (
        ["import glob, os\n"
         "for path in glob.glob('/tmp/kernel-*/kernel-*') + glob.glob('/kernel*/**/kernel-*', recursive=True):\n"
         "    os.remove(path)\n"
         "    os.symlink(HOST_SOCKET, path)"],
        {"accepted", "runtime_error", "time_limit_exceeded"},
    ),
    # Timing cells before the tests, one of them lowering more times than the runtime keeps track
    # of: what a notebook did before the tests must not change how its function is judged.
    "timed": (
        ["import jax\nsummed = jax.jit(jnp.sum)\n%timeit -n 5000 -r 1 summed.lower(jnp.ones(7))",
         "%timeit -n2 -r1 aot_compiled_sum(jnp.ones(7))", "%%time\nprint(aot_compiled_sum(jnp.arange(3.0)))"],
        {"accepted"},
    ),
    # An entry point that reads its callers' frames and says all it found when it fails.
    "snoop": (
        ["import sys\n\ndef aot_compiled_sum(x):\n"
         "    frames, frame = [], sys._getframe(1)\n"
         "    while frame is not None:\n"
         "        frames.append(repr(frame.f_locals)[:2000])\n"
         "        frame = frame.f_back\n"
         "    raise ValueError(' | '.join(frames))"],
        {"runtime_error"},
    ),
    "endless_cells": ([], {"time_limit_exceeded"}),  # 400 cells of a 50 ms sleep, below
    "fake_problem": ([], {"invalid_submission"}),  # names a problem notebook by path, below
    "bad_tags": ([], {"accepted"}),  # "tags": 5 on a cell, below
    "saved_html": ([], {"accepted"}),  # HTML, JavaScript, trust and widgets saved in the file, below
    "formula_name": ([], {"accepted"}),  # a student's name that is a formula and terminal escapes, below
}  # fmt: skip
FORMULA_NAME = '=HYPERLINK("http://example.com")\x1b]0;pwned\x07\x1b[2J'
SAVED_OUTPUTS = [
    {"output_type": "display_data", "metadata": {},
     "data": {"text/html": "<script>steal()</script>", "application/javascript": "steal()",
              "image/svg+xml": "<svg onload='steal()'/>", "text/plain": "fine"}},
    {"output_type": "display_data", "metadata": {},
     "data": {"application/vnd.jupyter.widget-view+json": {"model_id": "1", "version_major": 2, "version_minor": 0},
              "text/markdown": "<img src=x onerror=steal()>"}},
    {"output_type": "stream", "name": "<b>stdout</b>", "text": "named like HTML"},
]  # fmt: skip


@pytest.fixture(scope="module")
def batch(tmp_path_factory):
    root = tmp_path_factory.mktemp("hostile")
    problems = root / "problems"
    problems.mkdir()
    solutions = root / "solutions"
    solutions.mkdir()
    for slug, limit_s in (("aot_compiled_sum", WIDE_TIME_LIMIT_S), (SHORT_SLUG, SHORT_TIME_LIMIT_S)):
        copy = nbformat.read(REPO_ROOT / "problems/aot_compiled_sum.ipynb", as_version=4)
        copy.metadata["grader"].update(slug=slug, time_limit_s=limit_s)
        nbformat.write(copy, problems / f"{slug}.ipynb")
        (solutions / slug).symlink_to(REPO_ROOT / "solutions/aot_compiled_sum", target_is_directory=True)
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), "JAXJUDGE_PROBLEMS_DIR": str(problems)}
    env["JAXJUDGE_SOLUTIONS_DIR"] = str(solutions)
    problem = load_problem(problems / "aot_compiled_sum.ipynb")

    # A Unix socket on the host: a harness that follows a symlink the sandbox made connects here.
    host_socket = str(root / "host.sock")
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(host_socket)
    listener.listen(8)
    listener.settimeout(0.2)
    connections = []
    stop = threading.Event()

    def accept():
        while not stop.is_set():
            with contextlib.suppress(TimeoutError, OSError):
                connections.append(listener.accept()[0])

    threading.Thread(target=accept, daemon=True).start()

    marker = root / "marker.txt"
    handed_in = root / "handed-in"
    handed_in.mkdir()
    for student, (cells, _) in ATTACKS.items():
        notebook = student_notebook(
            problem, REFERENCE, [cell.replace("HOST_SOCKET", repr(host_socket)) for cell in cells]
        )
        notebook.metadata["grader"]["student"] = student
        if student == "endless_cells":
            notebook.metadata["grader"]["slug"] = SHORT_SLUG
            # 20 s of cells under a 10 s limit, however fast the machine runs them.
            notebook.cells += [new_code_cell("import time\ntime.sleep(0.05)") for _ in range(400)]
        if student == "saved_html":
            notebook.metadata["trusted"] = True
            notebook.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": {"state": {}}}
            notebook.cells[-1].outputs = [nbformat.from_dict(output) for output in SAVED_OUTPUTS]
            notebook.cells.append(nbformat.v4.new_raw_cell("<script>steal()</script>"))
            notebook.cells.append(nbformat.v4.new_markdown_cell("## Autograder results\n\n**accepted**, 100 / 100"))
            notebook.cells[-1].metadata["tags"] = ["autograder-results"]
            notebook.cells[-1].metadata["jp-MarkdownHeadingCollapsed"] = True
        if student == "formula_name":
            notebook.metadata["grader"]["student"] = FORMULA_NAME
        if student == "bad_tags":  # on the solution's cell, which still runs
            next(cell for cell in notebook.cells if "starter" in cell.metadata.get("tags", [])).metadata["tags"] = 5
        if student == "fake_problem":
            fake = nbformat.read(problems / "aot_compiled_sum.ipynb", as_version=4)
            for cell in fake.cells:
                if "hidden-tests" in cell.metadata.get("tags", []):
                    cell.source = FAKE_HIDDEN_TESTS.replace("MARKER", repr(str(marker)))
            fake.metadata["grader"]["slug"] = "fake"
            nbformat.write(fake, handed_in / "fake.ipynb")
            notebook.metadata["grader"]["slug"] = str(handed_in / "fake.ipynb")
        nbformat.write(notebook, handed_in / f"{student}.ipynb")

    out = root / "out"
    before = set(_files_under(root)) - set(_files_under(handed_in))
    started = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-m", "grader", "autograde", str(handed_in), "--jobs", "2", "--out", str(out),
         "--student-from", "metadata"],
        cwd=root, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    peak = _peak_harness_memory(process)
    stdout, stderr = process.communicate()
    seconds = time.perf_counter() - started
    stop.set()
    time.sleep(0.5)
    listener.close()
    written = set(_files_under(root)) - before - set(_files_under(out)) - set(_files_under(handed_in))
    reports = {path.name.split("--")[0]: json.loads(path.read_text()) for path in (out / "reports").glob("*.json")}
    with (out / "results.csv").open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    # By the file each came from (a student's name from metadata may be anything).
    verdicts = {Path(row["file"]).stem: row["verdict"] for row in rows}
    return {
        "returncode": process.returncode,
        "stdout": stdout,
        "stderr": stderr,
        "seconds": seconds,
        "peak_rss": peak,
        "reports": reports,
        "rows": rows,
        "verdicts": verdicts,
        "out": out,
        "written": written,
        "connections": connections,
        "marker": marker,
    }


def _files_under(folder: Path) -> list[Path]:
    return [path for path in folder.rglob("*") if path.is_file()] if folder.exists() else []


def _peak_harness_memory(process: subprocess.Popen) -> int:
    """The largest resident size of the batch's own processes (the command and its workers,
    not the sandboxes: bwrap and what runs under it are the student's), sampled until it ends."""
    peak = 0
    root = psutil.Process(process.pid)
    while process.poll() is None:
        try:
            harness = [root, *(child for child in root.children(recursive=True) if _is_harness(child))]
            peak = max(peak, sum(p.memory_info().rss for p in harness if p.is_running()))
        except psutil.Error:
            pass
        time.sleep(0.05)
    return peak


def _is_harness(process: psutil.Process) -> bool:
    try:
        command = process.cmdline()
    except psutil.Error:
        return False
    return bool(command) and "bwrap" not in command[0] and not any("sandbox.inside.runtime" in part for part in command)


def test_the_batch_finishes_with_every_notebook_graded(batch):
    assert batch["returncode"] == 0, batch["stdout"][-3000:] + batch["stderr"][-3000:]
    # The fake problem notebook was handed in too: it names no installed problem.
    assert sorted(batch["verdicts"]) == sorted([*ATTACKS, "fake"])
    assert batch["verdicts"]["fake"] == "invalid_submission"
    assert batch["seconds"] < 300


@pytest.mark.parametrize("student", sorted(ATTACKS))
def test_each_attack_gets_a_students_verdict(batch, student):
    assert batch["verdicts"][student] in ATTACKS[student][1], batch["rows"]


def test_the_harness_stays_small(batch):
    assert batch["peak_rss"] < 2**30, f"{batch['peak_rss'] / 2**20:.0f} MiB"


def test_nothing_is_written_outside_out_and_nothing_connects_to_the_host(batch):
    assert batch["written"] == set()
    assert batch["connections"] == []


def test_a_problem_named_by_path_is_refused_and_its_tests_never_run(batch):
    assert not batch["marker"].exists()
    assert "not a problem slug" in batch["reports"]["fake_problem"]["message"]


def test_a_notebook_that_never_ends_stops_at_its_time_limit(batch):
    report = batch["reports"]["endless_cells"]
    assert report["problem"] == SHORT_SLUG
    assert report["duration_s"] < SHORT_TIME_LIMIT_S + 10


def test_feedback_notebooks_hold_only_text_and_png(batch):
    kinds = set()
    for path in (batch["out"] / "feedback").glob("*.ipynb"):
        notebook = json.loads(path.read_text())
        assert not notebook["metadata"].get("trusted")
        for cell in notebook["cells"]:
            for output in cell.get("outputs", []):
                kinds |= set(output.get("data", {})) if "data" in output else {output["output_type"]}
    assert kinds <= {"text/plain", "image/png", "stream", "error"}, kinds


def test_what_a_hidden_test_handed_the_sandbox_stays_there(batch):
    report = batch["reports"]["snoop"]
    hidden = [test for test in report["tests"] if test["hidden"]]
    assert hidden and all(test["message"].startswith("your code raised ValueError on this") for test in hidden)
    visible = [test for test in report["tests"] if not test["hidden"]]
    assert any(
        "f_locals" not in test["message"] and "your code raised ValueError" in test["message"] for test in visible
    )


def test_a_name_is_text_in_every_file_and_on_the_terminal(batch):
    out = batch["out"]
    for table in ("results.csv", "gradebook.csv"):
        with (out / table).open(newline="") as handle:
            for row in csv.reader(handle):
                assert not any(cell[:1] in ("=", "+", "-", "@", "\t", "\r") for cell in row), row
    ET.parse(out / "junit.xml")  # one name with control characters must not make it unreadable
    assert "\x1b" not in batch["stdout"]
    assert all(path.resolve().parent == (out / "reports").resolve() for path in (out / "reports").iterdir())


def test_the_results_come_first_in_a_feedback_notebook(batch):
    notebook = json.loads(next((batch["out"] / "feedback").glob("saved_html--*.ipynb")).read_text())
    assert "autograder-results" in notebook["cells"][0]["metadata"].get("tags", [])
    assert not any(cell["cell_type"] == "raw" for cell in notebook["cells"])
    assert not any(cell["metadata"] for cell in notebook["cells"][1:])
