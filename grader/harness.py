"""The trusted harness: grade one submission of one problem.

The harness holds everything secret (the hidden tests, the reference solution, every
expected value) and runs the tests here, with pytest and hypothesis. The submission runs in
a fresh sandbox that receives its source and the inputs of each call, nothing else. The
verdict is decided here, from what the harness observed.
"""

from __future__ import annotations

import ast
import atexit
import contextlib
import hashlib
import os
import shutil
import stat
import sys
import tempfile
import threading
import time
import types
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import jax
import nbformat
import pytest

from grader.cpu_stages import INSIGHT_STAGE, stage
from grader.insight import INSIGHT_SCHEMA, sandbox_artifacts
from grader.insight import collect as collect_insight
from grader.plugin import (
    HIDDEN_TESTS_FILE,
    MAX_MESSAGE_CHARS,
    SHRINK_SECONDS_PER_TEST,
    GradingPlugin,
    explain_failure,
    shrinking_bounded_to,
)
from grader.problem import REPO_ROOT, Problem
from grader.proxy import RaisedBySubmission, SubmissionProxy, SubmissionUnavailable, TamperingDetected
from grader.reference import ReferenceSolution, flush_answers, load_reference
from grader.report import Report, TestResult
from grader.seeding import example_seed, grading_secret
from grader.source import SubmissionSource
from grader.verdicts import Verdict, worst
from sandbox import grading_xla_flags

# The harness compiles as the sandboxes do. Importing JAX does not start its backend (the first
# computation does), so flags set here, on import of the harness, still hold; set by the one
# module that computes with JAX on the host, rather than by importing the grader's vocabulary.
os.environ["XLA_FLAGS"] = grading_xla_flags(os.environ.get("XLA_FLAGS", ""))
from sandbox.host.backends import Backend, SandboxLimits, get_backend
from sandbox.host.notebook import CellFailed, NotebookBroken
from sandbox.host.session import SandboxSession

VISIBLE_TESTS_FILE = "test_visible.py"


def enable_compilation_cache() -> None:
    """Keep the harness's own XLA executables on disk (reference solutions, expected values).

    The reference meets many of its programs again (the fixed tests, shapes and dtypes that
    recur from one grading to the next), and those compiles come back from this cache. Only
    this trusted process reads and writes it; sandboxes never see it, so a submission's
    compiles are always real.
    """
    directory = os.environ.get("JAXJUDGE_XLA_CACHE_DIR", str(REPO_ROOT / ".cache" / "xla"))
    if directory and jax.config.jax_compilation_cache_dir is None:  # type: ignore[attr-defined]
        jax.config.update("jax_compilation_cache_dir", directory)
        jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)
        jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)


def grade_submission(
    problem: Problem,
    source: SubmissionSource,
    *,
    include_hidden: bool = True,
    backend: Backend | None = None,
    limits: SandboxLimits | None = None,
    session: SandboxSession | None = None,
    insight: bool = True,
    on_test: Callable[[TestResult], None] | None = None,
    stop_after: Callable[[TestResult], bool] | None = None,
) -> Report:
    """Grade ``source`` against the problem's visible tests and, unless told not to, hidden ones.

    ``session`` is a sandbox already started for this submission, from a pool say (it gets
    the problem's limits and is closed afterwards); without one, a new sandbox is started
    with ``backend`` and ``limits``. ``insight``: also say what JAX did with the code
    (``grader.insight``; it costs one more request to the sandbox). ``on_test`` is called with
    each test's result as soon as it ends (visible tests first), for showing results as they
    come: its points are the test's weight until the report scores them all; if it raises, the
    grading goes on as if it had not been given. ``stop_after``: end the grading after the first test
    whose result it holds decisive, scored on the tests that ran; for showing that a solution is
    rejected and why (validation), never for a student's score.
    """
    started = time.perf_counter()
    enable_compilation_cache()
    report = Report(problem=problem.slug, verdict=Verdict.INTERNAL_ERROR, score=0.0, max_score=problem.points)
    if session is not None and source.is_notebook and not session.notebook:
        session.close()  # a sandbox started for a .py file has no kernel to run cells on
        session = None
    try:
        if not source.is_notebook:  # a notebook's cells may hold magics: its kernel tells syntax errors
            ast.parse(source.text, filename=source.filename)
    except SyntaxError as exc:
        if session is not None:
            session.close()
        report.verdict = Verdict.SYNTAX_ERROR
        report.message = f"syntax error in {source.filename}, line {exc.lineno}: {exc.msg}"
    else:
        limits = limits or problem.sandbox_limits()
        session = session or SandboxSession(
            backend or get_backend(device=problem.sandbox_device), limits, notebook=source.is_notebook
        )
        session.use_problem_limits(limits)
        with session:
            _grade_in_session(problem, source, session, include_hidden, report, insight, on_test, stop_after)
        report.output = session.output + ("\n[output truncated]" if session.output_truncated else "")
        report.hidden_output = session.hidden_output
        report.sandbox = {**session.info, **report.sandbox}
    report.duration_s = time.perf_counter() - started
    return report


def _grade_in_session(
    problem: Problem,
    source: SubmissionSource,
    session: SandboxSession,
    include_hidden: bool,
    report: Report,
    insight: bool = True,
    on_test: Callable[[TestResult], None] | None = None,
    stop_after: Callable[[TestResult], bool] | None = None,
) -> None:
    reference = load_reference(problem)
    try:
        if source.notebook is not None:
            report.notebook = nbformat.reads(source.notebook, as_version=4)
            proxy = SubmissionProxy.load_notebook(session, report.notebook, cpu_devices=problem.cpu_devices)
        else:
            proxy = SubmissionProxy.load(session, source.text, source.filename, cpu_devices=problem.cpu_devices)
    except CellFailed as exc:
        syntax = exc.error_type in ("SyntaxError", "IndentationError", "TabError")
        report.verdict = Verdict.SYNTAX_ERROR if syntax else Verdict.RUNTIME_ERROR
        report.message = f"{exc}\n{exc.traceback}"[:MAX_MESSAGE_CHARS]
        return
    except NotebookBroken as exc:
        report.verdict, report.message = Verdict.RUNTIME_ERROR, f"while running your notebook: {exc}"
        return
    except (SubmissionUnavailable, RaisedBySubmission, TamperingDetected) as exc:
        verdict, message = explain_failure(exc)
        during = "while running your notebook" if source.is_notebook else "while loading your code"
        report.verdict, report.message = verdict, f"{during}: {message}"
        return
    secret = grading_secret()
    early: dict[str, Any] = {}

    def take_insight() -> None:
        """The insight's request to the sandbox, before any hidden test sends it anything; its
        seconds are the platform's, given back to the submission's clock."""
        if not insight or proxy.tampering or early:
            return
        started = time.monotonic()
        try:
            with stage(INSIGHT_STAGE):
                early["artifacts"] = sandbox_artifacts(proxy)
        except (SubmissionUnavailable, TamperingDetected) as exc:
            # Only the insight is lost (tampering is judged below): the tests go on as they would.
            early["failed"] = str(exc)[:500]
        session.give_back(time.monotonic() - started)

    plugin = run_tests(
        problem,
        proxy,
        reference,
        include_hidden=include_hidden,
        example_seed=lambda test: example_seed(secret, problem.slug, source.text, test),
        before_hidden=take_insight,
        on_test=on_test,
        stop_after=stop_after,
    )
    totals = proxy.total_events
    report.sandbox["compile_seconds"] = round(totals.compile_seconds, 4)
    report.sandbox["staging_seconds"] = round(totals.staging_seconds, 4)
    report.sandbox["compiles"] = totals.backend_compile_events
    report.sandbox["request_seconds"] = round(totals.seconds, 4)
    report.sandbox["round_trip_seconds"] = round(proxy.round_trip_seconds, 4)
    if plugin.collection_errors:
        report.verdict, report.message = Verdict.INTERNAL_ERROR, "the problem's tests could not be collected"
        return
    report.tests = plugin.results
    _score(problem, report)
    take_insight()  # when no hidden test ran
    if insight and not proxy.tampering:
        if "failed" in early:
            report.insight = {"schema": INSIGHT_SCHEMA, "failed": early["failed"]}
        else:
            solved = include_hidden and report.verdict == Verdict.ACCEPTED
            with stage(INSIGHT_STAGE):
                report.insight = collect_insight(
                    proxy, reference, with_reference=solved, artifacts=early.get("artifacts")
                )
    if proxy.tampering:
        # Whatever the tests saw, nothing observed in that sandbox can be believed.
        report.verdict, report.score = Verdict.INTEGRITY_VIOLATION, 0.0
        report.message = str(TamperingDetected(proxy.tampering))
        for test in report.tests:
            test.points = 0.0


def _score(problem: Problem, report: Report) -> None:
    total_weight = sum(test.max_points for test in report.tests)
    if not report.tests or total_weight <= 0:
        report.verdict, report.message = Verdict.INTERNAL_ERROR, "the problem has no tests"
        return
    passed_weight = sum(test.max_points for test in report.tests if test.outcome == "passed")
    for test in report.tests:
        test.max_points = round(problem.points * test.max_points / total_weight, 2)
        test.points = test.max_points if test.outcome == "passed" else 0.0
    report.score = round(problem.points * passed_weight / total_weight, 2)
    report.verdict = worst({test.verdict for test in report.tests if test.outcome != "passed"})
    failed = [test for test in report.tests if test.outcome != "passed"]
    if failed:
        report.message = failure_summary(len(report.tests), failed)


def failure_summary(total: int, failed: Sequence[TestResult]) -> str:
    """One line above the results: how many tests failed, and where to read why.

    It counts rather than names them: the table below tells each failed test by the property it
    checks, and a list of function names here would be the one place a student reads pytest's.
    """
    visible = sum(1 for test in failed if not test.hidden)
    hidden = len(failed) - visible
    kinds = [f"{count} {kind}" for count, kind in ((visible, "visible"), (hidden, "hidden")) if count]
    noun = "test" if total == 1 else "tests"
    return f"{len(failed)} of {total} {noun} failed ({', '.join(kinds)})."


def run_tests(
    problem: Problem,
    proxy: SubmissionProxy,
    reference: types.ModuleType,
    *,
    include_hidden: bool,
    example_seed: Callable[[str], int] | None = None,
    before_hidden: Callable[[], None] | None = None,
    on_test: Callable[[TestResult], None] | None = None,
    stop_after: Callable[[TestResult], bool] | None = None,
) -> GradingPlugin:
    """Run the problem's tests with pytest in this process; the plugin holds the results.

    ``example_seed`` gives each property test's seed by its name (derandomised without one);
    ``before_hidden`` runs once, before the first hidden test; ``on_test`` after each test;
    ``stop_after``: no test runs after one whose result it holds decisive.
    """
    plugin = GradingPlugin(
        proxy,
        reference,
        example_seed=example_seed,
        before_hidden=before_hidden,
        on_result=on_test,
        stop_after=stop_after,
    )
    texts = {"pytest.ini": "[pytest]\n"}
    if problem.visible_tests:
        texts[VISIBLE_TESTS_FILE] = problem.visible_tests + "\n"
    if include_hidden:
        texts[HIDDEN_TESTS_FILE] = problem.hidden_tests + "\n"
    with _tests_folder(texts) as folder, _hypothesis_profile(problem):
        files = [str(folder / name) for name in texts if name != "pytest.ini"]
        args = [
            *files,
            "-c", str(folder / "pytest.ini"),
            "--rootdir", str(folder),
            "--import-mode=importlib",
            "-p", "no:cacheprovider",
            "-p", "no:terminal",
            "-p", "no:warnings",
            # These two run gc.collect() several times per session: 0.3 s for nothing here.
            "-p", "no:unraisableexception",
            "-p", "no:threadexception",
            # Plugins no grading uses (every hidden test is a plain function or a property; none
            # reads a doctest, writes XML or steps into a debugger): 0.02 s of each Submit.
            "-p", "no:doctest",
            "-p", "no:junitxml",
            "-p", "no:pastebin",
            "-p", "no:stepwise",
            "-p", "no:setuponly",
            "-p", "no:setupplan",
            "-p", "no:legacypath",
            "-p", "no:debugging",
            "-p", "no:faulthandler",
            "-p", "grader.plugin",
            # No scan of installed plugins: grading needs none, and the scan costs 0.1 s a run.
            "--disable-plugin-autoload",
        ]  # fmt: skip
        # While the sandbox computes a call, the harness works out the reference's answer to it.
        proxy.anticipate = ReferenceSolution(reference).anticipate
        try:
            pytest.main(args, plugins=[plugin])
        finally:
            proxy.anticipate = None
            _forget_modules_under(folder)
            flush_answers()
    return plugin


def _forget_modules_under(folder: Path) -> None:
    """Drop the test modules of one run, so the next run imports its own under the same names."""
    for name, module in list(sys.modules.items()):
        if str(getattr(module, "__file__", None) or "").startswith(str(folder)):
            del sys.modules[name]


TESTS_CACHE = REPO_ROOT / ".cache" / "tests"


@contextlib.contextmanager
def _tests_folder(texts: dict[str, str]) -> Iterator[Path]:
    """A folder holding the files ``texts`` names, for pytest to run.

    One folder per content (``.cache/tests/<hash>``), kept: pytest keeps each test file's
    compiled, assertion-rewritten code beside it (unless PYTHONDONTWRITEBYTECODE says not to),
    so a problem's next Submit imports its tests without parsing and rewriting them again
    (10-30 ms). Nothing of a grading is written there,
    and only the harness reads it. Where it cannot be written, a temporary folder does.
    """
    digest = hashlib.sha256(repr(sorted(texts.items())).encode("utf-8", "surrogatepass")).hexdigest()[:32]
    folder = TESTS_CACHE / digest
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        for name, text in texts.items():
            _write_once(folder / name, text)
    except OSError:
        with tempfile.TemporaryDirectory(prefix="jaxjudge-tests-") as directory:
            for name, text in texts.items():
                Path(directory, name).write_text(text)
            yield Path(directory)
        return
    yield folder


def _write_once(path: Path, text: str) -> None:
    """Write ``text`` at ``path`` unless it is there already; whole or not at all, since other
    processes may be reading the same folder."""
    with contextlib.suppress(OSError):
        if path.read_text() == text:
            return
    draft = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}")
    draft.write_text(text)
    os.replace(draft, path)


def _hypothesis_home() -> Path:
    """One directory per user for hypothesis's cache, shared by every grading process.

    Hypothesis writes its files there atomically and names them by content, so processes can
    share it and it stays as small as the modules it describes. A directory per process was
    left behind by every process that ended without running its exit handlers (a worker
    killed mid-grade). A directory of that name that this user does not own alone (made by
    someone else in a shared /tmp) is not used: a private one for this process is.
    """
    home = Path(tempfile.gettempdir(), f"jaxjudge-hypothesis-{os.getuid()}")
    with contextlib.suppress(FileExistsError):
        home.mkdir(mode=0o700)
    status = home.lstat()
    if stat.S_ISDIR(status.st_mode) and status.st_uid == os.getuid() and stat.S_IMODE(status.st_mode) == 0o700:
        return home
    private = Path(tempfile.mkdtemp(prefix="jaxjudge-hypothesis-"))
    atexit.register(shutil.rmtree, private, ignore_errors=True)
    return private


@contextlib.contextmanager
def _hypothesis_profile(problem: Problem) -> Iterator[None]:
    """Deterministic grading per source (see ``grader.seeding``), with bounded shrinking."""
    import hypothesis.configuration

    # Hypothesis caches what it found in modules under ``.hypothesis`` in the working directory;
    # grading writes nowhere it was not told to, so the cache lives in the temporary directory
    # (an autograde worker's is removed with its batch), once a process.
    if not os.environ.get("HYPOTHESIS_STORAGE_DIRECTORY"):
        hypothesis.configuration.set_hypothesis_home_dir(_hypothesis_home())
    hypothesis.settings.register_profile(
        "jaxjudge-grading",
        max_examples=problem.max_examples,
        derandomize=True,
        database=None,
        deadline=None,
        print_blob=False,
        report_multiple_bugs=False,
        suppress_health_check=list(hypothesis.HealthCheck),
        # No explain phase: it calls the submission again on variations of the failing
        # example to say which parts mattered, which costs as much as shrinking.
        phases=[phase for phase in hypothesis.Phase if phase != hypothesis.Phase.explain],
    )
    previous = hypothesis.settings.get_current_profile_name()
    hypothesis.settings.load_profile("jaxjudge-grading")
    try:
        with shrinking_bounded_to(SHRINK_SECONDS_PER_TEST):  # the plugin lowers it test by test
            yield
    finally:
        hypothesis.settings.load_profile(previous)
