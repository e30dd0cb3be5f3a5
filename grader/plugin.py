"""The pytest plugin the harness runs a problem's tests with.

It provides the ``submission`` and ``reference`` fixtures and turns every test's outcome
into a ``TestResult`` with a message for the student and the verdict its failure implies.
"""

from __future__ import annotations

import contextlib
import logging
import types
from collections.abc import Callable, Generator, Iterator

import hypothesis
import pytest

from grader.feedback import failing_input, failing_types, property_sentence
from grader.proxy import SubmissionProxy
from grader.reference import ReferenceSolution
from grader.report import TestResult
from grader.strategies import meeting_only, pick_shapes_with, shapes_not_met
from grader.submission_exceptions import RaisedBySubmission, SubmissionUnavailable, TamperingDetected
from grader.verdicts import Verdict
from sandbox.host.session import (
    SandboxError,
    SandboxMemoryExceeded,
    SandboxOutputExceeded,
    SandboxStartFailed,
    SandboxTimeout,
)

HIDDEN_TESTS_FILE = "test_hidden.py"
MAX_MESSAGE_CHARS = 4000
EXAMPLES_PER_MISSED_SHAPE = 2
RUN: pytest.StashKey[GradingPlugin] = pytest.StashKey()
logger = logging.getLogger(__name__)

# How long hypothesis may shrink failing examples: one test at most, and a whole grading at
# most. Students mostly submit wrong answers, and shrinking calls the submission on new shapes,
# each of which compiles: unbounded it made a wrong answer five times slower than a right one,
# and a bound per test alone still added it once for every failing property (three in a row
# for a wrong dtype). The first failing property gets the most; the best example found in the
# time is the one reported, and shapes are tried simplest first, so an unshrunk one is small.
SHRINK_SECONDS_PER_TEST = 0.15
SHRINK_SECONDS_PER_GRADING = 0.25


@contextlib.contextmanager
def shrinking_bounded_to(seconds: float) -> Iterator[None]:
    """Stop shrinking a failing example after ``seconds``, keeping the smallest found so far.

    Hypothesis has no public setting for this; its engine stops shrinking after the module
    constant ``MAX_SHRINKING_SECONDS`` (five minutes). This and ``_allow_shrinking`` are the
    places that rely on it, and ``tests/grader/test_plugin.py`` proves the bound holds, so an
    upgrade that moves the constant fails a test rather than silently slowing every wrong
    answer down.
    """
    previous = _shrinking_seconds()
    _allow_shrinking(seconds)
    try:
        yield
    finally:
        _allow_shrinking(previous)


def _shrinking_seconds() -> float:
    from hypothesis.internal.conjecture import engine

    return float(engine.MAX_SHRINKING_SECONDS)


def _allow_shrinking(seconds: float) -> None:
    from hypothesis.internal.conjecture import engine

    engine.MAX_SHRINKING_SECONDS = seconds  # type: ignore[assignment]


@pytest.fixture(scope="session")
def submission(request: pytest.FixtureRequest) -> SubmissionProxy:
    """The student's module, running in the sandbox."""
    return request.config.stash[RUN]._submission


@pytest.fixture(scope="session")
def reference(request: pytest.FixtureRequest) -> ReferenceSolution:
    """The reference solution, running here in the harness."""
    return ReferenceSolution(request.config.stash[RUN]._reference)


class GradingPlugin:
    """Registered with ``pytest.main(plugins=[...])`` for one grading run.

    This module's fixtures find the run's submission and reference through it.
    """

    def __init__(
        self,
        submission: SubmissionProxy,
        reference: types.ModuleType,
        *,
        example_seed: Callable[[str], int] | None = None,
        before_hidden: Callable[[], None] | None = None,
        on_result: Callable[[TestResult], None] | None = None,
        stop_after: Callable[[TestResult], bool] | None = None,
    ) -> None:
        self._submission = submission
        self._before_hidden = before_hidden
        self._reference = reference
        self._example_seed = example_seed
        self._on_result = on_result
        self._stop_after = stop_after
        self._hidden_started = False
        self._calls_before_test = 0
        self._shrink_seconds_left = SHRINK_SECONDS_PER_GRADING
        self._shrink_seconds_allowed = 0.0
        self.results: list[TestResult] = []
        self.collection_errors: list[str] = []

    def pytest_configure(self, config: pytest.Config) -> None:
        config.addinivalue_line("markers", "points(weight): the test's share of the problem's points")
        config.stash[RUN] = self

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        # A failing test's message is made from its exception (``explain_failure``); pytest's
        # own report of it, which reads the source of every frame, is never shown. Collection
        # errors, which are the author's to read, keep theirs.
        session.config.option.tbstyle = "no"

    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        """Seed every property test for this submission (see ``grader.seeding``)."""
        if self._example_seed is None:
            return
        for item in items:
            function = getattr(item, "obj", None)
            if getattr(function, "is_hypothesis_test", False):
                # What hypothesis's @seed decorator sets; it takes precedence over derandomize.
                function._hypothesis_internal_use_seed = self._example_seed(f"{item.path.name}::{item.name}")  # type: ignore[union-attr]

    def pytest_runtest_setup(self, item: pytest.Item) -> None:
        self._calls_before_test = self._submission.entry_point_calls
        self._shrink_seconds_allowed = max(0.0, min(SHRINK_SECONDS_PER_TEST, self._shrink_seconds_left))
        _allow_shrinking(self._shrink_seconds_allowed)
        pick_shapes_with(self._example_seed(f"{item.path.name}::{item.name}") if self._example_seed else 0)
        # Before a hidden test can send the submission anything, its output stops being shown.
        if item.path.name == HIDDEN_TESTS_FILE and not self._hidden_started:
            self._hidden_started = True
            if self._before_hidden is not None:
                self._before_hidden()
            self._submission.start_hidden_output()

    @pytest.hookimpl(wrapper=True)
    def pytest_pyfunc_call(self, pyfuncitem: pytest.Function) -> Generator[None, object, object]:
        """After a property passes, run it again on every pool shape it did not meet.

        Hypothesis picks each example's shape from the test's few (``grader.strategies``); a
        short run can miss the empty one, say, and a wrong answer that breaks only there would
        pass. A failure in these runs fails the test, shrunk within that shape.
        """
        outcome = yield
        test = pyfuncitem.obj
        if not getattr(test, "is_hypothesis_test", False):
            return outcome
        arguments = {name: pyfuncitem.funcargs[name] for name in pyfuncitem._fixtureinfo.argnames}
        settings = test._hypothesis_internal_use_settings
        # Two examples each (hypothesis tries the simplest first, then one of its own): the
        # shape is fixed, the values and dtypes vary.
        test._hypothesis_internal_use_settings = hypothesis.settings(settings, max_examples=EXAMPLES_PER_MISSED_SHAPE)
        try:
            for shapes in shapes_not_met():
                with meeting_only(shapes):
                    test(**arguments)
        finally:
            test._hypothesis_internal_use_settings = settings
        return outcome

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed:
            self.collection_errors.append(str(report.longrepr)[-MAX_MESSAGE_CHARS:])

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(
        self, item: pytest.Item, call: pytest.CallInfo[None]
    ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
        report = yield
        if report.when == "call" or (report.failed and report.when == "setup"):
            self._record(item, call, report)
        return report

    def _record(self, item: pytest.Item, call: pytest.CallInfo[None], report: pytest.TestReport) -> None:
        marker = item.get_closest_marker("points")
        weight = float(marker.args[0]) if marker and marker.args else 1.0
        result = TestResult(
            name=item.name,
            outcome="passed" if report.passed else ("failed" if report.when == "call" else "error"),
            points=weight,
            max_points=weight,
            message="",
            hidden=item.path.name == HIDDEN_TESTS_FILE,
            duration_s=report.duration,
            tested_property=property_sentence(getattr(item, "obj", None), item.name),
        )
        if report.skipped:
            result.outcome = "failed"
            result.message = "this test was skipped, so it cannot count as passed"
            result.verdict = Verdict.INTERNAL_ERROR
        elif not report.passed:
            # What its shrinking may have cost, at most the test's whole time: without a hook into
            # hypothesis's shrinker, the charge errs towards leaving less for later failures.
            self._shrink_seconds_left -= min(self._shrink_seconds_allowed, report.duration)
            exc = call.excinfo.value if call.excinfo is not None else None
            result.verdict, result.message = explain_failure(
                exc, during_setup=report.when == "setup", hidden=result.hidden
            )
            called = self._submission.last_arguments
            if called is not None and self._submission.entry_point_calls > self._calls_before_test:
                result.failing_input = failing_input(*called, reference=self._reference)
                result.failing_types = failing_types(*called, reference=self._reference)
        self.results.append(result)
        if self._stop_after is not None and self._stop_after(result):
            item.session.shouldstop = f"{item.name} decided the grading"
        if self._on_result is not None:
            try:
                self._on_result(result)
            except Exception:  # telling progress is best effort: it never changes a grading
                logger.warning("test %s: its result could not be told as it ended", item.name, exc_info=True)


def explain_failure(
    exc: BaseException | None, *, during_setup: bool = False, hidden: bool = False
) -> tuple[Verdict, str]:
    """The verdict a failing test implies, and a message for the student.

    The message is in the student's terms: the assertion's own words, or what their code
    raised and where. Nothing of pytest's or hypothesis's (the failing input is told apart,
    see ``grader.feedback``), and for a hidden test nothing of the test's code.
    """
    if exc is None:
        return Verdict.INTERNAL_ERROR, "the test failed without an exception"
    cause = _find(exc, (TamperingDetected, SubmissionUnavailable, RaisedBySubmission))
    if cause is None and isinstance(exc, BaseExceptionGroup):
        # Hypothesis found several distinct failures: the first one speaks for them.
        exc = _first_leaf(exc)
    if isinstance(cause, TamperingDetected):
        verdict, message = Verdict.INTEGRITY_VIOLATION, str(cause)
    elif isinstance(cause, SubmissionUnavailable):
        verdict, message = verdict_for_sandbox_error(cause.cause), str(cause)
    elif isinstance(cause, RaisedBySubmission) and hidden:
        # What the code said, its type's name and its traceback were made in the sandbox from a
        # hidden test's input (or from the objects the test sent it): like what it printed
        # then, they are not the student's to read. The builtin class is the harness's own.
        verdict = Verdict.MEMORY_LIMIT_EXCEEDED if isinstance(cause, MemoryError) else Verdict.RUNTIME_ERROR
        builtin = next(kind.__name__ for kind in type(cause).__mro__ if kind.__module__ == "builtins")
        message = (
            f"your code raised {builtin} on this hidden test's input "
            "(what it said is not shown for hidden tests, like what it printed)"
        )
    elif isinstance(cause, RaisedBySubmission):
        verdict = Verdict.MEMORY_LIMIT_EXCEEDED if isinstance(cause, MemoryError) else Verdict.RUNTIME_ERROR
        message = f"your code raised {cause.remote_type or type(cause).__name__}: {cause}"
        frames = _submission_frames(cause.remote_traceback)
        if frames:
            message += "\n" + frames
    elif during_setup:
        return Verdict.INTERNAL_ERROR, f"the test could not be set up: {type(exc).__name__}: {exc}"
    elif isinstance(exc, AssertionError):
        verdict, message = Verdict.WRONG_ANSWER, _assertion_message(str(exc), hidden=hidden)
    else:
        verdict, message = Verdict.WRONG_ANSWER, f"{type(exc).__name__}: {exc}"
    return verdict, message[:MAX_MESSAGE_CHARS]


def _assertion_message(text: str, *, hidden: bool) -> str:
    """A test author's message; pytest's rewritten ``assert a == b`` only where the test is visible."""
    if text.startswith("assert "):
        authored, rewritten = "", text
    else:
        authored, _, rewritten = text.partition("\nassert ")
        rewritten = f"assert {rewritten}" if rewritten else ""
    if authored.strip():
        return authored.strip()
    if rewritten and not hidden:
        return f"this check failed: {rewritten.splitlines()[0]}"
    return "your result does not have this property"


def _first_leaf(group: BaseExceptionGroup[BaseException]) -> BaseException:
    first = group.exceptions[0]
    return _first_leaf(first) if isinstance(first, BaseExceptionGroup) else first


def verdict_for_sandbox_error(error: SandboxError) -> Verdict:
    """The verdict for a sandbox that stopped answering, by what the harness observed."""
    if isinstance(error, SandboxTimeout):
        return Verdict.TIME_LIMIT_EXCEEDED
    if isinstance(error, SandboxMemoryExceeded):
        return Verdict.MEMORY_LIMIT_EXCEEDED
    if isinstance(error, SandboxOutputExceeded):
        return Verdict.OUTPUT_LIMIT_EXCEEDED
    if isinstance(error, SandboxStartFailed):
        return Verdict.INTERNAL_ERROR
    return Verdict.RUNTIME_ERROR


def _find(exc: BaseException, kinds: tuple[type[BaseException], ...], depth: int = 0) -> BaseException | None:
    """The first exception of ``kinds`` in ``exc``, its group members, causes and contexts."""
    if depth > 8:
        return None
    if isinstance(exc, kinds):
        return exc
    linked = list(getattr(exc, "exceptions", ())) + [e for e in (exc.__cause__, exc.__context__) if e is not None]
    for inner in linked:
        found = _find(inner, kinds, depth + 1)
        if found is not None:
            return found
    return None


def _submission_frames(remote_traceback: str) -> str:
    """The lines of a sandbox traceback that point into the student's own code."""
    lines = remote_traceback.splitlines()
    kept = []
    for index, line in enumerate(lines):
        # The submission is compiled under a bare file name; library frames have paths.
        if (
            line.lstrip().startswith('File "')
            and "/" not in line.split('"')[1]
            and not line.split('"')[1].startswith("<")
        ):
            kept.append(line.strip())
            if index + 1 < len(lines) and not lines[index + 1].lstrip().startswith("File "):
                kept.append("  " + lines[index + 1].strip())
    return "\n".join(kept[-6:])
