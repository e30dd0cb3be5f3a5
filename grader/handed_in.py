"""Grading what a student hands in as text: code typed in the site's editor, or a notebook's JSON.

The site's one call into grading (``webapp.grading.grade_code``). The text is checked here and
becomes a ``SubmissionSource``; text that cannot be graded at all is a verdict like any other
(a syntax error, an invalid notebook), never an exception. The grading runs in a warm sandbox
of this process's pool for the problem's device (``grader.pools``).
"""

from __future__ import annotations

import dataclasses
import gc
import logging
import time
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from grader.pools import PoolKind, sandbox_pool
from grader.problem import load_problem
from grader.report import Report, TestResult
from grader.source import SubmissionInputError, notebook_source, source_from_text
from grader.verdicts import Verdict

logger = logging.getLogger(__name__)
# Gradings of its reference that warm a problem: at least three, so that a worker's first Submit
# finds the executables and answers of three gradings' examples, as its third does (with two,
# jacobian_budget's first Submit took 1.38-1.67x its third, its reference compiling per shape
# drawn). Then more, up to six, while the last round still spent more than a quarter of the
# first round's JAX compilation in this process: a problem whose examples keep meeting new
# shapes (compile_for, jacobian_budget) is warm only once new shapes have become rare.
MIN_WARM_ROUNDS, MAX_WARM_ROUNDS = 3, 6
SETTLED_COMPILATION_SHARE = 0.25
# JAX's own timers of its compilation stages: tracing, lowering, XLA.
COMPILATION_EVENTS = frozenset(
    {
        "/jax/core/compile/jaxpr_trace_duration",
        "/jax/core/compile/jaxpr_to_mlir_module_duration",
        "/jax/core/compile/backend_compile_duration",
    }
)
# The problems this process has warmed (``warm_up``), in the order it warmed them.
_warmed: list[str] = []


class Stoppable(Protocol):
    """A sandbox as the caller may hold it while it grades: only to stop it (a Cancel)."""

    def stop(self) -> None: ...


def grade_text(
    slug: str,
    code: str,
    *,
    filename: str,
    include_hidden: bool,
    notebook: str = "",
    on_test: Callable[[TestResult], None] | None = None,
    on_sandbox: Callable[[Stoppable], None] | None = None,
) -> Report:
    """Grade ``code`` (named ``filename`` in its tracebacks) for problem ``slug``; with
    ``notebook`` (its JSON), the notebook instead, run as Jupyter runs it.

    ``on_test`` gets each test as soon as it ends; ``on_sandbox`` the sandbox before anything
    runs in it. Only a fault of the platform raises.
    """
    from grader.harness import grade_submission  # imports JAX and pytest: not for the vocabulary

    problem = load_problem(slug)
    try:
        source = notebook_source(notebook, "notebook.ipynb") if notebook else source_from_text(code, filename)
    except SubmissionInputError as exc:
        verdict = Verdict.INVALID_SUBMISSION if notebook else Verdict.SYNTAX_ERROR
        return Report(problem=slug, verdict=verdict, score=0.0, max_score=problem.points, message=str(exc))
    with sandbox_pool(PoolKind(device=problem.sandbox_device, notebook=source.is_notebook)).sandbox() as session:
        if on_sandbox is not None:
            on_sandbox(session)
        return grade_submission(problem, source, include_hidden=include_hidden, session=session, on_test=on_test)


def report_without_verdict(problem: str, message: str, tests: list[dict[str, Any]]) -> dict[str, Any]:
    """The stored report of a grading that ended with no verdict (cancelled, or failed by the
    platform): the report's own shape and schema, with an empty verdict and no score; ``tests``
    are those that had ended, as they were shown live."""
    shape = Report(problem=problem, verdict=Verdict.INTERNAL_ERROR, score=0.0, max_score=0.0, message=message)
    return {**shape.to_dict(), "verdict": "", "score": None, "max_score": None, "tests": tests}


def warm_up(
    device: str = "cpu",
    slugs: Sequence[str] = (),
    *,
    budget_s: float = 180.0,
    work_waiting: Callable[[], bool] | None = None,
) -> list[str]:
    """Make this process ready to grade, as a worker starting does; the slugs it warmed.

    Imports the harness (JAX, pytest, hypothesis: seconds, paid once), starts the pool's
    sandbox, then warms each problem of ``slugs`` whose sandboxes run on ``device`` (in order,
    while ``budget_s`` lasts) by grading its reference solution ``MIN_WARM_ROUNDS`` to
    ``MAX_WARM_ROUNDS`` times, each a new edit, the reports dropped: the reference is loaded,
    its executables compiled (or read from JAX's disk cache), its answers remembered (or read
    from the harness's disk cache, ``grader.reference``), and JAX's and hypothesis's first-use
    work done, so that a student's first Submit costs what the next one does. Only trusted code
    runs in the harness for it; the reference runs in a sandbox of the pool as any submission
    does. A problem that fails to warm is logged and skipped: a worker grades without it.
    ``work_waiting``, asked before each problem: when it holds, warming stops there, so that a
    student's Submit never waits for problems nobody has asked for.
    """
    import grader.harness  # noqa: F401  (imports JAX and pytest: seconds, paid once)

    sandbox_pool(PoolKind(device=device)).wait_ready()
    deadline = time.monotonic() + budget_s
    for slug in slugs:
        if time.monotonic() > deadline or (work_waiting is not None and work_waiting()):
            logger.info("warm-up: stopped after %d problems; the rest warm on their first Submit", len(_warmed))
            break
        try:
            _warm_problem(slug, device)
        except Exception:  # a problem the harness cannot grade must not stop the worker from starting
            logger.exception("warm-up: could not warm %s", slug)
    # What start-up made (JAX's and the harness's modules, the warmed caches) lives as long as
    # the process: moved out of the collector's view, the full collections during a grading do
    # not walk it again (0.08 s each on 2 cores).
    gc.collect()
    gc.freeze()
    return list(_warmed)


def _warm_problem(slug: str, device: str) -> None:
    from grader.harness import grade_submission
    from grader.source import read_submission

    problem = load_problem(slug)
    if problem.sandbox_device != device:
        return  # another device's workers warm it
    source = read_submission(problem.reference_solution)
    pool = sandbox_pool(PoolKind(device=problem.sandbox_device))
    spent: list[float] = []
    for edit in range(MAX_WARM_ROUNDS):
        # Each round a new edit, which meets examples of its own (they are seeded from the
        # source): the shapes and answers a worker meets in its first Submits.
        text = source.text if not edit else f"{source.text}\n# warming {edit}\n"
        pool.wait_ready()
        before = _CompilationClock.read()
        with pool.sandbox() as session:
            report = grade_submission(
                problem, dataclasses.replace(source, text=text), include_hidden=True, session=session
            )
        spent.append(_CompilationClock.read() - before)
        if report.verdict != Verdict.ACCEPTED:
            raise RuntimeError(f"{slug}: its reference solution was not accepted ({report.verdict}): {report.message}")
        if len(spent) >= MIN_WARM_ROUNDS and spent[-1] <= SETTLED_COMPILATION_SHARE * spent[0]:
            break
    logger.info("warm-up: %s in %d rounds (JAX compilation, s: %s)", slug, len(spent), [round(s, 2) for s in spent])
    if slug not in _warmed:
        _warmed.append(slug)


class _CompilationClock:
    """The seconds this process has spent in JAX compilation; its listener is registered on
    first use, once (JAX keeps listeners for the life of the process)."""

    seconds = 0.0
    listening = False

    @classmethod
    def read(cls) -> float:
        if not cls.listening:
            import jax

            def listen(event: str, duration_secs: float, **_: Any) -> None:
                if event in COMPILATION_EVENTS:
                    cls.seconds += duration_secs

            jax.monitoring.register_event_duration_secs_listener(listen)
            cls.listening = True
        return cls.seconds


def warmed_problems() -> list[str]:
    """The problems this process warmed at its start (``warm_up``), in order."""
    return list(_warmed)
