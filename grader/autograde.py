"""Batch grading of student notebooks, as course staff run it in CI (``python -m grader autograde``).

Every notebook is run as Jupyter runs it (nbclient, its kernel in a sandbox) and graded like
a Submit on the site. Notebooks are graded by ``jobs`` worker processes at once, each with a
warm sandbox waiting for its next notebook. A file that cannot be graded (not a notebook,
empty, no problem named) gets a row and a verdict of its own and never stops the batch; an
interrupted batch keeps what was graded.

What it writes into the output directory:

- ``reports/<student>--<problem>.json``: the report of each notebook (the grader's JSON schema);
- ``feedback/<student>--<problem>.ipynb``: the results cell first (hidden tests are named and
  explained, never shown), then the notebook's cells as it ran, rebuilt from cleaned content
  only (``grader.feedback_notebook``);
- ``gradescope/<student>--<problem>/results.json``: what Gradescope's autograder reads;
- ``junit.xml``: one test suite per notebook, one test case per test (CI shows the failures);
- ``results.csv``: one row per notebook; ``gradebook.csv``: students × problems, the scores.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import csv
import glob
import json
import multiprocessing
import os
import re
import shutil
import signal
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from grader import cpu_stages
from grader.cpu_stages import process_cpu_seconds
from grader.feedback_notebook import feedback_notebook
from grader.report import Report
from grader.source import SubmissionSource
from grader.spreadsheet import spreadsheet_row, write_gradebook
from grader.verdicts import Verdict
from grader.workers import worker_context
from sandbox.protocol import printable

NOTEBOOK_SUFFIX = ".ipynb"
_UNSAFE_NAME = re.compile(r"[^A-Za-z0-9._-]+")


class AutogradeUsageError(Exception):
    """The command line names nothing to grade (or something that does not exist)."""


@dataclass
class Graded:
    """One notebook of the batch: who, which problem, and how it went."""

    path: str
    student: str
    problem: str
    report: Report
    feedback: str | None = None  # the feedback notebook, as JSON text
    # What was graded, as read from the file (once): None when it could not be read.
    source: SubmissionSource | None = field(default=None, compare=False)
    key: str = field(default="", compare=False)  # the file name of its outputs
    # Where its grading's CPU time went in the worker, by stage (``grader.cpu_stages``), and
    # the worker's own figures: for ``--timings``, never for the verdict.
    cpu: dict[str, float] = field(default_factory=dict, compare=False)
    worker: dict[str, float] = field(default_factory=dict, compare=False)

    @property
    def verdict(self) -> str:
        return str(self.report.verdict)

    def row(self) -> dict[str, Any]:
        return {
            "student": self.student,
            "problem": self.problem,
            "verdict": self.verdict,
            "score": self.report.score,
            "max_score": self.report.max_score,
            "seconds": round(self.report.duration_s, 2),
            "file": self.path,
            "message": self.report.message.splitlines()[0][:200] if self.report.message else "",
        }


def find_notebooks(paths: Sequence[str]) -> list[Path]:
    """The files to grade: folders are searched for notebooks, globs expanded, files taken as named."""
    found: list[Path] = []
    for name in paths:
        path = Path(name)
        if path.is_dir():
            found += sorted(
                p for p in path.rglob(f"*{NOTEBOOK_SUFFIX}") if ".ipynb_checkpoints" not in p.parts and p.is_file()
            )
        elif path.exists():
            found.append(path)
        elif glob.has_magic(name):
            found += sorted(Path(p) for p in glob.glob(name, recursive=True) if Path(p).is_file())
        else:
            raise AutogradeUsageError(f"{name}: no such file or folder")
    unique = list(dict.fromkeys(p.resolve() for p in found))
    if not unique:
        raise AutogradeUsageError(f"no notebooks found in {', '.join(paths)}")
    return unique


MAX_STUDENT_NAME_BYTES = 100


def student_name(path: Path, metadata: dict[str, Any] | None, *, source: str = "file") -> str:
    """Who a notebook is from: its file name, or with ``source="metadata"`` the name the
    notebook's ``grader.student`` metadata gives (the file name when it has none).

    Either is the student's text, so it is made safe here, once, for every output: one line of
    printable text (control characters escaped, see ``one_line``), at most
    ``MAX_STUDENT_NAME_BYTES`` bytes of UTF-8. It is a label: nothing here says it is true.
    """
    name = path.stem
    if source == "metadata" and metadata:
        named = metadata.get("grader", {}).get("student") if isinstance(metadata.get("grader"), dict) else None
        if isinstance(named, str) and named.strip():
            name = named.strip()
    safe = one_line(name[: 4 * MAX_STUDENT_NAME_BYTES])
    return safe.encode()[:MAX_STUDENT_NAME_BYTES].decode(errors="ignore")


def one_line(text: str) -> str:
    """``text`` as one line of printable text: what ``sandbox.protocol.printable`` leaves (a
    newline, a tab) escaped too, so that no text can repaint a terminal or break a table."""
    return printable(text).replace("\n", "\\n").replace("\t", "\\t")


# -- one notebook, in a worker ----------------------------------------------------------------

_backend_name: str | None = None
_worker_start: dict[str, float] = {}


def _start_worker(backend_name: str | None, scratch: str) -> None:
    """A worker's set-up (the harness is imported already, see ``grader.workers``): one CPU
    sandbox starts warming.

    Ctrl-C is the batch's to handle (it stops the workers); and whatever a worker leaves in
    ``scratch`` (hypothesis's cache, say) goes when the batch ends.
    """
    global _backend_name
    _backend_name = backend_name
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    tempfile.tempdir = scratch
    _pool("cpu")
    # For --timings: the process this worker was forked from imported the harness (its CPU
    # time so far is that import), and this worker's own start.
    _worker_start["harness import (fork server of workers)"] = process_cpu_seconds(os.getppid()) or 0.0
    _worker_start["worker start"] = time.process_time()


def _pool(device: str) -> Any:
    from grader.pools import PoolKind, sandbox_pool

    # The next sandbox warms up while this notebook is graded: a batch never waits for one.
    return sandbox_pool(PoolKind(_backend_name, device, notebook=True), replace_early=True)


def grade_file(path: Path, problem_slug: str | None, student_from: str = "file") -> Graded:
    """Grade one file of the batch; whatever is wrong with it becomes its verdict."""
    started, cpu_started, stages_before = time.perf_counter(), time.process_time(), cpu_stages.spent()
    graded = _grade_file(path, problem_slug, student_from, started)
    graded.cpu = cpu_stages.since(stages_before)
    graded.cpu["total"] = time.process_time() - cpu_started
    graded.worker = {"pid": os.getpid(), "cpu_s": time.process_time(), **_worker_start}
    return graded


def _grade_file(path: Path, problem_slug: str | None, student_from: str, started: float) -> Graded:
    from grader.harness import grade_submission
    from grader.problem import SLUG_PATTERN, ProblemError, installed_problem, load_problem
    from grader.source import SubmissionInputError, read_submission

    student = student_name(path, None)
    slug = problem_slug or ""
    source: SubmissionSource | None = None
    try:
        with cpu_stages.stage(cpu_stages.READING_STAGE):
            source = read_submission(path)
            metadata = source.metadata
            student = student_name(path, metadata, source=student_from)
            if problem_slug:  # staff's own choice: a slug or a problem notebook's path
                problem = load_problem(problem_slug)
            else:  # the student's file names it: an installed problem's slug, never a path
                slug = _problem_from_metadata(metadata)
                if not slug:
                    raise SubmissionInputError(
                        f"{path.name}: the notebook does not say which problem it solves; pass --problem SLUG "
                        "(a notebook downloaded from a problem's page says it in its metadata)"
                    )
                problem = installed_problem(slug)
        slug = problem.slug
    except (SubmissionInputError, ProblemError) as exc:
        if problem_slug:  # a slug, not the path it was given as
            with contextlib.suppress(ProblemError):
                slug = load_problem(problem_slug).slug
        elif not SLUG_PATTERN.match(slug):  # the student's text: not a name for the outputs
            slug = ""
        report = Report(problem=slug, verdict=Verdict.INVALID_SUBMISSION, score=0.0, max_score=0.0, message=str(exc))
        report.duration_s = time.perf_counter() - started
        return Graded(str(path), student, slug, report, source=source)
    report_max = problem.points
    try:
        with _pool(problem.sandbox_device).sandbox() as session:
            report = grade_submission(problem, source, session=session)
    except Exception as exc:  # a fault of this host, never of the notebook: say so, go on
        report = Report(problem=slug, verdict=Verdict.INTERNAL_ERROR, score=0.0, max_score=report_max)
        report.message = f"the notebook could not be graded: {type(exc).__name__}: {exc}"[:2000]
        report.duration_s = time.perf_counter() - started
    with cpu_stages.stage(cpu_stages.FEEDBACK_STAGE):
        feedback = feedback_notebook(report, source.notebook) if source.notebook is not None else None
    # The notebook as it ran was for the feedback notebook only: not sent back to the batch,
    # whose memory would otherwise grow by one run notebook per notebook graded.
    report.notebook = None
    return Graded(str(path), student, slug, report, feedback, source=source)


def _problem_from_metadata(metadata: dict[str, Any] | None) -> str:
    block = (metadata or {}).get("grader")
    slug = block.get("slug") if isinstance(block, dict) else None
    return slug if isinstance(slug, str) else ""


# -- the batch ----------------------------------------------------------------------------------


def autograde(
    paths: Sequence[str],
    *,
    problem: str | None = None,
    jobs: int | None = None,
    out: Path | None = None,
    backend_name: str | None = None,
    student_from: str = "file",
    progress: bool | None = None,
    timings: Path | None = None,
    keep_recorded: bool = True,
) -> tuple[list[Graded], bool]:
    """Grade every notebook under ``paths``; writes the outputs into ``out`` as they come.

    Returns the graded notebooks (in the order of ``paths``) and whether the batch finished
    (False when interrupted: what was graded is kept and written). ``timings``: also write
    there where the batch's CPU time went (``cpu_timings``), as JSON. ``keep_recorded``: keep
    what was read of each file and the insight in the results (the site records both); without
    it, the results hold what the tables need, and a large batch about as much memory as a
    small one.
    """
    from tqdm import tqdm  # type: ignore[import-untyped]

    files = find_notebooks(paths)
    from grader.pools import default_jobs

    jobs = max(1, min(jobs or default_jobs(len(files), notebooks=True), len(files)))
    writer = OutputWriter(out) if out is not None else None
    graded: dict[Path, Graded] = {}
    bar = tqdm(total=len(files), unit="notebook", disable=not sys.stderr.isatty() if progress is None else not progress)
    context = worker_context()
    scratch = tempfile.mkdtemp(prefix="jaxjudge-autograde-")
    executor = concurrent.futures.ProcessPoolExecutor(
        max_workers=jobs, mp_context=context, initializer=_start_worker, initargs=(backend_name, scratch)
    )
    finished = False
    try:
        futures = {executor.submit(grade_file, path, problem, student_from): path for path in files}
        for future in concurrent.futures.as_completed(futures):
            path = futures[future]
            graded[path] = _result(future, path, problem)
            if writer is not None:
                writer.add(graded[path])
            # Written (or not asked for): the batch keeps what its tables need, not each
            # notebook's feedback, so that its memory does not grow with its size.
            graded[path].feedback = None
            if not keep_recorded:
                graded[path].source = None
                graded[path].report.insight = {}  # in its report file; the tables never show it
            bar.set_postfix_str(f"{graded[path].student}: {graded[path].verdict}", refresh=False)
            bar.update()
        finished = True
    except KeyboardInterrupt:
        pass
    finally:
        bar.close()
        if not finished:  # the notebooks being graded are dropped: stop their workers now
            executor.shutdown(wait=False, cancel_futures=True)
            _stop_workers()
        executor.shutdown(wait=True, cancel_futures=True)
        shutil.rmtree(scratch, ignore_errors=True)
        ordered = [graded[path] for path in files if path in graded]
        if writer is not None:
            writer.finish(ordered)
        if timings is not None:
            timings.write_text(json.dumps(cpu_timings(ordered, time.process_time()), indent=1) + "\n")
    return ordered, finished


def cpu_timings(graded: Sequence[Graded], main_cpu_s: float) -> dict[str, Any]:
    """Where a batch's CPU seconds went, as far as its processes can tell: this process's
    (Python, imports, reading results and writing the outputs), each worker's start and
    total, and for each notebook the worker's stages (``grader.cpu_stages``; what no stage
    took is the tests' own: pytest, hypothesis, comparing, the channel) and its sandbox's, read
    from the sandbox's cgroup on this side (start: its kernel; load: the notebook's cells; the
    rest: the tests' requests and the insight's). The sandboxes' fork servers are not here:
    their CPU is what their cgroups' parent holds beyond these sandboxes (``bench.autograde``)."""
    workers: dict[str, dict[str, float]] = {}
    notebooks = []
    for item in graded:
        if item.worker:  # each notebook carries its worker's figures so far: the last one's hold them all
            figures = {k: v for k, v in item.worker.items() if k != "pid"}
            known = workers.setdefault(str(int(item.worker["pid"])), figures)
            if figures["cpu_s"] > known["cpu_s"]:
                known.update(figures)
        harness = dict(item.cpu)
        if harness:
            harness["the tests (pytest, hypothesis, comparing, the channel)"] = max(
                0.0, harness["total"] - sum(v for k, v in harness.items() if k != "total")
            )
        info = item.report.sandbox
        sandbox: dict[str, float] = {}
        if isinstance(info.get("cpu_s"), (int, float)):
            ready, loaded, total = (float(info.get(k) or 0.0) for k in ("cpu_ready_s", "cpu_loaded_s", "cpu_s"))
            sandbox = {
                "kernel start": ready,
                "the notebook's cells": max(0.0, loaded - ready),
                "the tests' calls and the insight": max(0.0, total - max(loaded, ready)),
                "total": total,
                "of it, XLA compiles (wall s)": float(info.get("compile_seconds") or 0.0),
                "of it, tracing and lowering (wall s)": float(info.get("staging_seconds") or 0.0),
            }
        notebooks.append({"student": item.student, "verdict": item.verdict, "harness": harness, "sandbox": sandbox})
    return {"main_process_cpu_s": main_cpu_s, "workers": workers, "notebooks": notebooks}


def _stop_workers() -> None:
    """Terminate this process's worker processes; their sandboxes die with them (bwrap's
    ``--die-with-parent``, docker's client)."""
    workers = multiprocessing.active_children()
    for worker in workers:
        worker.terminate()
    for worker in workers:
        worker.join(timeout=10)
        if worker.is_alive():
            worker.kill()
            worker.join()


def _result(future: concurrent.futures.Future[Graded], path: Path, problem: str | None) -> Graded:
    try:
        return future.result()
    except Exception as exc:  # the worker died (killed, out of memory): the notebook was not graded
        report = Report(problem=problem or "", verdict=Verdict.INTERNAL_ERROR, score=0.0, max_score=0.0)
        report.message = f"the grading worker stopped: {type(exc).__name__}: {exc}"[:2000]
        return Graded(str(path), student_name(path, None), problem or "", report)


class OutputWriter:
    """Writes each notebook's files as soon as it is graded, and the tables at the end."""

    def __init__(self, out: Path) -> None:
        self.out = out
        for folder in ("reports", "feedback", "gradescope"):
            (out / folder).mkdir(parents=True, exist_ok=True)
        self._keys: set[str] = set()

    def add(self, graded: Graded) -> None:
        graded.key = self._unique_key(graded)
        (self.out / "reports" / f"{graded.key}.json").write_text(graded.report.to_json() + "\n")
        gradescope = self.out / "gradescope" / graded.key
        gradescope.mkdir(exist_ok=True)
        (gradescope / "results.json").write_text(json.dumps(graded.report.to_gradescope(), indent=2) + "\n")
        if graded.feedback is not None:
            (self.out / "feedback" / f"{graded.key}{NOTEBOOK_SUFFIX}").write_text(graded.feedback)

    def _unique_key(self, graded: Graded) -> str:
        base = _UNSAFE_NAME.sub("_", f"{graded.student}--{graded.problem or 'unknown'}").strip("._") or "notebook"
        key, number = base, 2
        while key in self._keys:
            key, number = f"{base}-{number}", number + 1
        self._keys.add(key)
        return key

    def finish(self, graded: list[Graded]) -> None:
        (self.out / "junit.xml").write_text(junit_xml(graded) + "\n")
        write_results_csv(self.out / "results.csv", graded)
        write_gradebook_csv(self.out / "gradebook.csv", graded)


def junit_xml(graded: Iterable[Graded]) -> str:
    """One JUnit test suite per notebook (named student/problem), one test case per test."""
    suites = ET.Element("testsuites", name="autograde")
    for item in graded:
        # The report's suite makes every text XML-legal; the label is the student's text too.
        label = printable(f"{item.student}/{item.problem or 'unknown'}")
        suites.append(item.report.junit_suite(name=label, classname=label.replace("/", ".")))
    return ET.tostring(suites, encoding="unicode", xml_declaration=True)


RESULT_COLUMNS = ("student", "problem", "verdict", "score", "max_score", "seconds", "file", "message")


def write_results_csv(path: Path, graded: Iterable[Graded]) -> None:
    """One row per notebook; no cell a spreadsheet would run (``grader.spreadsheet``)."""
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(RESULT_COLUMNS)
        for item in graded:
            row = item.row()
            writer.writerow(spreadsheet_row(row[column] for column in RESULT_COLUMNS))


def write_gradebook_csv(path: Path, graded: Iterable[Graded]) -> None:
    """Students × problems: each cell the score (the best, if a student has several notebooks);
    no cell a spreadsheet would run (``grader.spreadsheet``)."""
    scores: dict[str, dict[str, float]] = {}
    for item in graded:
        if item.problem:
            row = scores.setdefault(item.student, {})
            row[item.problem] = max(row.get(item.problem, 0.0), item.report.score)
        else:
            scores.setdefault(item.student, {})
    problems = sorted({problem for row in scores.values() for problem in row})
    with path.open("w", newline="") as handle:
        lines = (
            ([student, *(scores[student].get(p) for p in problems)], sum(scores[student].values()))
            for student in sorted(scores)
        )
        write_gradebook(handle, ["student", *problems], lines)


def _seconds(graded: Graded) -> str:
    return f"{graded.report.duration_s:.1f}"


def _score(graded: Graded) -> str:
    return f"{graded.report.score:g}/{graded.report.max_score:g}"


def summary_table(graded: Sequence[Graded], seconds: float) -> str:
    """The table printed at the end: one line per notebook, then the counts.

    Every cell is one line of printable text (``one_line``): a name or a slug is the
    student's text, and an escape sequence in it must not reach the terminal.
    """
    header = ("student", "problem", "verdict", "score", "seconds")
    rows = [tuple(map(one_line, (g.student, g.problem or "?", g.verdict, _score(g), _seconds(g)))) for g in graded]
    widths = [max(len(str(cell)) for cell in column) for column in zip(header, *rows, strict=False)]
    lines = ["  ".join(cell.ljust(width) for cell, width in zip(line, widths, strict=True)) for line in (header, *rows)]
    lines.insert(1, "  ".join("-" * width for width in widths))
    counts: dict[str, int] = {}
    for g in graded:
        counts[g.verdict] = counts.get(g.verdict, 0) + 1
    tally = ", ".join(f"{count} {one_line(verdict)}" for verdict, count in sorted(counts.items()))
    lines.append(f"\n{len(graded)} notebooks graded in {seconds:.1f} s: {tally}")
    return "\n".join(lines)
