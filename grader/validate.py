"""Problem validation: the reference and every other right solution (``right_*.py``) pass,
the starter fails, every wrong solution fails, nothing of the hidden tests or the reference
crosses into the sandbox, the notebook runs as Jupyter runs it, each worked example
printing what its statement shows, and what the editorial shows is written (the reference's why
it works, each wrong solution's mistake).

A wrong solution may declare the verdict it must get on a line ``# expect: VERDICT`` (or
``VERDICT or VERDICT``); without one, any verdict but ``accepted`` will do. Each wrong solution but the first is graded
until a test fails that way, not to the end: that test is what rejects it. The notebook is executed with nbclient and
an IPython kernel, with the reference solution in place of the starter and without the hidden
tests (the worked example, the solution and the visible tests' definitions must all run).
Problems are validated in parallel processes, each with one warm sandbox pool for all the
problems it validates.
"""

from __future__ import annotations

import ast
import functools
import graphlib
import json
import os
import re
import sys
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

import nbclient
import nbclient.exceptions
from jupyter_client.manager import KernelManager

from grader.harness import grade_submission
from grader.pools import PoolKind, default_jobs, sandbox_pool
from grader.problem import (
    REPO_ROOT,
    Problem,
    ProblemError,
    ReferenceSolutionError,
    all_problems,
    expected_verdicts,
    load_problem,
    pitfall_key,
    printed_text,
    rejecting_test,
    without_docstring,
)
from grader.report import Report, TestResult
from grader.source import SubmissionSource, read_submission
from grader.verdicts import Verdict
from grader.workers import worker_context
from sandbox.host.backends import get_backend
from sandbox.host.prestarted import SandboxPool


@dataclass(frozen=True)
class Check:
    """One solution graded during validation, and whether it got what it had to."""

    problem: str
    label: str
    verdict: Verdict
    ok: bool
    detail: str
    report: Report | None


def _named(verdicts: frozenset[Verdict]) -> str:
    return " or ".join(sorted(verdicts))


NOTEBOOK_TIMEOUT_S = 120  # per cell


def validate_problem(
    problem: Problem, *, backend_name: str | None = None, run_notebook: bool = True, pool: SandboxPool | None = None
) -> list[Check]:
    """Grade the reference, the starter and every wrong solution of one problem, then run its
    notebook. ``pool``: warm sandboxes to grade in (a validation worker's, from the registry);
    without one, a pool of ``backend_name`` made for this problem alone and closed after it, so
    that a one-off validation (``addproblem``) leaves no warm sandbox behind."""
    if pool is None:
        with SandboxPool(get_backend(backend_name), replace_early=True) as own:
            checks = _validate(problem, own)
    else:
        checks = _validate(problem, pool)
    if run_notebook:
        checks.append(notebook_check(problem))
    return checks


def notebook_check(problem: Problem) -> Check:
    """Run the problem's notebook with nbclient; the check names the cell that failed."""
    notebook, indices = problem.runnable_notebook()
    with tempfile.TemporaryDirectory(prefix="jaxjudge-kernel-") as sockets:
        # The kernel talks over Unix sockets in a private directory, not over TCP ports.
        manager = KernelManager(kernel_name="python3", transport="ipc", ip=os.path.join(sockets, "kernel"))
        client = nbclient.NotebookClient(
            notebook,
            km=manager,
            timeout=NOTEBOOK_TIMEOUT_S,
            resources={"metadata": {"path": str(REPO_ROOT)}},  # so that cells can import grader
        )
        try:
            return _executed(problem, client, notebook, indices)
        finally:
            # nbclient shuts down only the kernels of managers it made itself.
            if manager.has_kernel:
                manager.shutdown_kernel(now=True)


def _executed(problem: Problem, client: nbclient.NotebookClient, notebook: Any, indices: list[int]) -> Check:
    try:
        client.execute()
    except nbclient.exceptions.CellExecutionError as exc:
        failed = _first_failed_cell(notebook)
        where = f"cell {indices[failed]}" if failed is not None else "a cell"
        detail = f"{problem.path.name}: {where} failed under nbclient: {exc.ename}: {exc.evalue}"
        return Check(problem.slug, "notebook", Verdict.RUNTIME_ERROR, False, detail[:2000], None)
    except (nbclient.exceptions.CellTimeoutError, nbclient.exceptions.DeadKernelError, RuntimeError) as exc:
        detail = f"{problem.path.name}: the notebook did not run under nbclient: {exc}"
        return Check(problem.slug, "notebook", Verdict.RUNTIME_ERROR, False, detail[:2000], None)
    ran = {index: cell for index, cell in zip(indices, notebook.cells, strict=True)}
    for example in problem.examples:
        printed = printed_text(ran[example.cell].get("outputs", []))
        if printed != example.printed:
            difference = _difference(printed, example.printed)
            detail = f"{problem.path.name}: cell {example.cell}: the worked example {difference}"
            return Check(problem.slug, "notebook", Verdict.WRONG_ANSWER, False, detail[:2000], None)
    return Check(problem.slug, "notebook", Verdict.ACCEPTED, True, "", None)


def _difference(printed: str, shown: str) -> str:
    """Where what a worked example printed first differs from what its statement shows."""
    got, wanted = printed.splitlines(), shown.splitlines()
    for number, (line, expected) in enumerate(zip(got, wanted, strict=False), 1):
        if line != expected:
            return f"prints {line!r} on line {number}, but the statement shows {expected!r}"
    if len(got) != len(wanted):
        return f"prints {len(got)} lines, but the statement shows {len(wanted)}"
    return f"prints {printed!r}, but the statement shows {shown!r}"


def _validate(problem: Problem, pool: SandboxPool) -> list[Check]:
    sent: list[bytes] = []

    def grade(
        source: SubmissionSource, *, record: bool = False, stop_after: Callable[[TestResult], bool] | None = None
    ) -> Report:
        with pool.sandbox() as session:
            if record:
                session.sent = sent
            return grade_submission(problem, source, session=session, insight=False, stop_after=stop_after)

    checks = []
    reference = grade(read_submission(problem.reference_solution))
    checks.append(Check(problem.slug, "reference", reference.verdict, reference.accepted, reference.message, reference))
    starter = grade(SubmissionSource(problem.starter, "starter.py"))
    checks.append(Check(problem.slug, "starter", starter.verdict, not starter.accepted, starter.message, starter))
    wrong_solutions = problem.wrong_solutions()
    if not wrong_solutions:
        checks.append(Check(problem.slug, "wrong solutions", Verdict.INTERNAL_ERROR, False, "none found", starter))
    for number, path in enumerate(wrong_solutions):
        wanted, by = expected_verdicts(path), rejecting_test(path)
        # The first wrong solution runs every hidden test against the reference: what the
        # harness sent the sandbox then is checked below. The others stop at the first test
        # that fails as expected (the test its expect line names, where it names one): that
        # failure rejects them, with what a student would read.
        rejected = None if number == 0 else functools.partial(_rejects, wanted, by)
        report = grade(read_submission(path), record=number == 0, stop_after=rejected)
        ok = not report.accepted and (not wanted or report.verdict in wanted)
        detail = f"expected {_named(wanted)}; {report.message}" if wanted else report.message
        if by:
            named = next((test for test in report.tests if _test_named(test, by)), None)
            ok = named is not None and _rejects(wanted, by, named)
            if not ok:
                outcome = "did not run" if named is None else f"gave {named.outcome} ({named.verdict})"
                detail = f"expected {by} to reject it ({_named(wanted) or 'any verdict'}), but it {outcome}"
        checks.append(Check(problem.slug, path.name, report.verdict, ok, detail, report))
    checks.append(hint_check(problem))
    for path in problem.right_solutions():
        report = grade(read_submission(path))
        checks.append(Check(problem.slug, path.name, report.verdict, report.accepted, report.message, report))
    if wrong_solutions:
        checks.append(channel_check(problem, wrong_solutions[0].read_text(), b"".join(sent)))
    return checks


def _rejects(wanted: frozenset[Verdict], by: str, result: TestResult) -> bool:
    """Whether a test's result rejects a wrong solution as its ``# expect:`` line says (with the
    verdict it names, and from the test it names, if it names one)."""
    return (
        result.outcome != "passed" and (not wanted or result.verdict in wanted) and (not by or _test_named(result, by))
    )


def _test_named(result: TestResult, name: str) -> bool:
    """Whether ``result`` is of the test function ``name`` (any of its parameters)."""
    return result.name == name or result.name.startswith(f"{name}[")


def pitfall_check(problem: Problem) -> Check:
    """Every pitfall the statement lists is shown by a known-wrong solution that the tests reject
    (its ``# pitfall:`` line names it), and every ``# pitfall:`` line names a listed pitfall: a
    pitfall no test enforces is a warning a student can ignore and still be accepted."""
    try:
        known_wrong = problem.known_wrong()
    except (ProblemError, ValueError) as exc:
        return Check(problem.slug, "pitfalls", Verdict.INVALID_SUBMISSION, False, str(exc)[:2000], None)
    titles = {pitfall_key(title): title for title in problem.pitfalls()}
    shown = {pitfall_key(wrong.pitfall) for wrong in known_wrong if wrong.pitfall}
    problems = [
        f"{wrong.name}.py names the pitfall {wrong.pitfall!r}, which the statement does not list"
        for wrong in known_wrong
        if wrong.pitfall and pitfall_key(wrong.pitfall) not in titles
    ]
    problems += [
        f"the pitfall {title!r} is shown by no known-wrong solution (a wrong_*.py with '# pitfall: {title}')"
        for key, title in titles.items()
        if key not in shown
    ]
    detail = "; ".join(problems)
    verdict = Verdict.ACCEPTED if not problems else Verdict.INVALID_SUBMISSION
    return Check(problem.slug, "pitfalls", verdict, not problems, detail[:2000], None)


def hint_check(problem: Problem) -> Check:
    """No hint holds a line of the solution's code: the ladder ends in a check the student can
    run on their own code, and the code itself is the editorial's."""
    code = set()
    for line in without_docstring(problem.reference_solution.read_text()).splitlines():
        line = " ".join(line.split())
        if line.startswith(("#", '"""', "import ", "from ", "def ")):
            continue
        # A line, and the expression it returns or assigns: a hint may quote just that.
        code |= {line, line.removeprefix("return "), line.partition(" = ")[2]}
    for number, hint in enumerate(problem.hints, 1):
        text = " ".join(hint.split())
        given = sorted(line for line in code if len(line) >= 16 and line in text)
        if given:
            which = "the last hint" if number == len(problem.hints) else f"hint {number}"
            detail = f"{which} gives the solution's line {given[0]!r}"
            return Check(problem.slug, "hints", Verdict.WRONG_ANSWER, False, detail, None)
    return Check(problem.slug, "hints", Verdict.ACCEPTED, True, "", None)


def level_check(problem: Problem) -> Check:
    """The problem's difficulty is the one its rubric gives (``grader.levels``), from evidence
    its notebook states (the ideas, what is left to the student) and its code shows."""
    rubric = problem.rubric()
    if rubric is None:
        detail = (
            "metadata.grader.rubric is missing: list the ideas the problem combines and say what is left to the "
            "student (named, found or derived), so that its level can be read from the rubric"
        )
    elif rubric.level != problem.difficulty:
        detail = f"labelled {problem.difficulty}, but the rubric gives {rubric.explained()}"
    else:
        return Check(problem.slug, "level", Verdict.ACCEPTED, True, "", None)
    return Check(problem.slug, "level", Verdict.INVALID_SUBMISSION, False, detail[:2000], None)


# A sentence ends with ".", "!" or "?" (and any closing bracket or quote) before a space or the
# end of the text: "jax.jit" and "1.5" end none.
SENTENCE_END = re.compile(r"[.!?][)\]\"'`]*(?=\s|$)")
MIN_WHY_SENTENCES = 3
# The editorial lists each known-wrong solution's mistake on one line: a sentence or two, not an essay.
MAX_MISTAKE_CHARS = 400


def sentences(text: str) -> int:
    """How many sentences ``text`` holds (see ``SENTENCE_END``)."""
    return len(SENTENCE_END.findall(text))


def editorial_check(problem: Problem) -> Check:
    """What the editorial shows is written: the reference's docstring is a one-line summary, a
    blank line, then why it works in at least three sentences; every known-wrong solution's
    docstring names its mistake in a first paragraph of one line's length (its code is never shown)."""
    problems = []
    try:
        explanation = problem.explanation()
        known_wrong = problem.known_wrong()
    except (ProblemError, ReferenceSolutionError, ValueError) as exc:  # ValueError: an expect line's unknown verdict
        return Check(problem.slug, "editorial", Verdict.INVALID_SUBMISSION, False, str(exc)[:2000], None)
    told = sentences(" ".join(explanation.why))
    if not explanation.summary:
        problems.append("reference.py has no docstring (a one-line summary, a blank line, then why it works)")
    elif told < MIN_WHY_SENTENCES:
        problems.append(
            f"reference.py's docstring says why it works in {told} sentence{'s' if told != 1 else ''} after its "
            f"one-line summary and a blank line; the editorial needs at least {MIN_WHY_SENTENCES}"
        )
    for wrong in known_wrong:
        if not wrong.mistake:
            problems.append(f"{wrong.name}.py has no docstring naming its mistake (the editorial lists it)")
        elif len(wrong.mistake) > MAX_MISTAKE_CHARS:
            problems.append(
                f"{wrong.name}.py's docstring names its mistake in {len(wrong.mistake)} characters before its first "
                f"blank line; the editorial lists it on one line of at most {MAX_MISTAKE_CHARS}"
            )
    detail = "; ".join(problems)
    verdict = Verdict.ACCEPTED if not problems else Verdict.INVALID_SUBMISSION
    return Check(problem.slug, "editorial", verdict, not problems, detail[:2000], None)


HIDDEN_TEST_NAME = re.compile(r"^def (test_\w+)", re.MULTILINE)


def channel_check(problem: Problem, submitted: str, channel: bytes) -> Check:
    """What the harness sent the sandbox names no hidden test and holds no line of the
    reference that the submission did not already have (a test author's slip, such as a
    reference helper passed as a portable function's source, would)."""
    text = channel.decode("utf-8", errors="replace")
    # A name the submission already had (a wrong solution's "# expect: ... by test_name" line) is
    # not the harness's to leak.
    names = HIDDEN_TEST_NAME.findall(problem.hidden_tests)
    leaked = [f"hidden test {name}" for name in names if name in text and name not in submitted]
    reference_code = without_docstring(problem.reference_solution.read_text())  # the editorial's prose is no code
    reference_lines = {line.strip() for line in reference_code.splitlines()}
    distinctive = [line for line in reference_lines if len(line) > 12 and line not in submitted]
    # Strings cross as JSON: a line with quotes or backslashes is looked for as JSON writes it too.
    leaked += [
        f"reference line {line!r}" for line in sorted(distinctive) if line in text or json.dumps(line)[1:-1] in text
    ]
    if leaked:
        detail = "sent to the sandbox: " + "; ".join(leaked)[:1500]
    elif not text:
        detail = "nothing was sent (the first wrong solution never reached the sandbox)"
    else:
        detail = "" if distinctive else "the reference has no line long enough to look for"
    return Check(
        problem.slug, "channel", Verdict.ACCEPTED if not leaked else Verdict.INTERNAL_ERROR, not leaked, detail, None
    )


def _first_failed_cell(notebook: Any) -> int | None:
    for number, cell in enumerate(notebook.cells):
        if any(output.get("output_type") == "error" for output in cell.get("outputs", [])):
            return number
    return None


def _validate_path(path: Path, backend_name: str | None) -> list[Check]:
    """In a worker process: validate one problem in the worker's pool (kept for the next one)."""
    pool = sandbox_pool(PoolKind(backend_name), replace_early=True)  # kept for the worker's next problem
    return validate_problem(load_problem(path), pool=pool)


def validated(
    problems: Sequence[Problem], *, backend_name: str | None = None, jobs: int | None = None
) -> Iterator[list[Check]]:
    """The checks of each problem, in order, ``jobs`` problems at a time."""
    jobs = max(1, min(jobs or default_jobs(len(problems)), len(problems)))
    with ProcessPoolExecutor(max_workers=jobs, mp_context=worker_context()) as executor:
        yield from executor.map(_validate_path, [p.path for p in problems], [backend_name] * len(problems))


def validate_problems(
    names: Sequence[str], *, backend_name: str | None = None, jobs: int | None = None, out: TextIO = sys.stdout
) -> bool:
    """Validate the named problems (all when none are named); print one line per check,
    problem by problem in order."""
    get_backend(backend_name)  # an unusable backend fails here, once, with a clear error
    problems = [load_problem(name) for name in names] if names else all_problems()
    installed = all_problems()
    course = [
        *prerequisite_checks(problems, installed),
        *graded_core_checks(problems, installed),
        *(editorial_check(problem) for problem in problems),
        *(level_check(problem) for problem in problems),
        *(pitfall_check(problem) for problem in problems),
    ]
    return _print_checks([*validated(problems, backend_name=backend_name, jobs=jobs), course], out)


def prerequisite_checks(problems: Sequence[Problem], installed: Sequence[Problem]) -> list[Check]:
    """Each problem's prerequisites are installed problems, and following them never leads
    back to where it started (the course has an order)."""
    known = {problem.slug: problem for problem in installed} | {problem.slug: problem for problem in problems}
    graph = {slug: [p for p in problem.prerequisites if p in known] for slug, problem in known.items()}
    cycle: list[str] = []
    try:
        graphlib.TopologicalSorter(graph).prepare()
    except graphlib.CycleError as error:
        cycle = list(error.args[1])
    checks = []
    for problem in problems:
        missing = [slug for slug in problem.prerequisites if slug not in known]
        if missing:
            detail = f"prerequisites name no installed problem: {', '.join(missing)}"
        elif problem.slug in cycle:
            detail = f"prerequisites form a cycle: {' -> '.join(reversed(cycle))}"
        else:
            detail = ""
        verdict = Verdict.ACCEPTED if not detail else Verdict.INVALID_SUBMISSION
        checks.append(Check(problem.slug, "prerequisites", verdict, not detail, detail, None))
    return checks


# Calls that turn a function into another: which one a reference applies does not make its
# graded core another (jax.jit(jax.vmap(f)) and jax.jit(jax.grad(f)) compile the same way).
TRANSFORMATIONS = frozenset({"vmap", "grad", "value_and_grad", "jacfwd", "jacrev", "hessian", "checkpoint", "remat"})
ARRAY_MODULES = frozenset({"jnp", "np", "numpy"})


class _CoreSkeleton(ast.NodeTransformer):
    """A reference's code with what does not change its graded core taken out: names (module
    level ones by their order, a function's own by their first appearance in it), constants,
    docstrings, which array function of ``jnp`` or NumPy is called, and which transformation
    is applied."""

    def __init__(self, imported: set[str], module_names: list[str]) -> None:
        self.imported = imported
        self.module_names = {name: f"g{number}" for number, name in enumerate(module_names)}
        self.local_names: dict[str, str] = {}

    def _name(self, name: str) -> str:
        if name in self.imported:
            return name
        if name in self.module_names:
            return self.module_names[name]
        return self.local_names.setdefault(name, f"v{len(self.local_names)}")

    def visit_Name(self, node: ast.Name) -> ast.AST:
        return ast.Name(id=self._name(node.id), ctx=node.ctx)

    def visit_arg(self, node: ast.arg) -> ast.AST:
        return ast.arg(arg=self._name(node.arg))

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        node.name = self._name(node.name)
        node.returns = None
        if node.body and _is_docstring(node.body[0]):
            node.body = node.body[1:] or [ast.Pass()]
        outer, self.local_names = self.local_names, {}
        self.generic_visit(node)
        self.local_names = outer
        return node

    def visit_Constant(self, node: ast.Constant) -> ast.AST:
        return ast.Constant(value="CONSTANT")

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        if isinstance(node.value, ast.Name) and node.value.id in ARRAY_MODULES:
            return ast.Name(id="ARRAY_FUNCTION", ctx=node.ctx)
        if node.attr in TRANSFORMATIONS:
            return ast.Name(id="TRANSFORMATION", ctx=node.ctx)
        self.generic_visit(node)
        return node


def graded_core(problem: Problem) -> str:
    """The skeleton of the reference solution's code (see ``_CoreSkeleton``), imports and
    docstring aside: two problems with the same one grade the same code, whatever they call it."""
    tree = ast.parse(problem.reference_solution.read_text())
    imports = [node for node in tree.body if isinstance(node, ast.Import | ast.ImportFrom)]
    imported = {(alias.asname or alias.name).split(".")[0] for node in imports for alias in node.names}
    code = [node for node in tree.body if node not in imports and not _is_docstring(node)]
    defined = [node.name for node in code if isinstance(node, ast.FunctionDef | ast.ClassDef)]
    assigned = [
        target.id
        for node in code
        if isinstance(node, ast.Assign)
        for target in node.targets
        if isinstance(target, ast.Name)
    ]
    skeleton = _CoreSkeleton(imported, [*defined, *assigned])
    return "\n".join(ast.dump(skeleton.visit(node)) for node in code)


def _is_docstring(node: ast.stmt) -> bool:
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)


def graded_core_checks(problems: Sequence[Problem], installed: Sequence[Problem]) -> list[Check]:
    """No two problems grade the same code: a problem whose reference is another's with other
    names, constants, array functions or transformations teaches nothing new (merge the two)."""
    core_of = {p.slug: graded_core(p) for p in [*installed, *problems]}  # each reference parsed once
    slugs_of: dict[str, list[str]] = {}
    for slug, core in core_of.items():
        slugs_of.setdefault(core, []).append(slug)
    checks = []
    for problem in problems:
        same = [slug for slug in slugs_of[core_of[problem.slug]] if slug != problem.slug]
        detail = f"its reference grades the same code as {', '.join(sorted(same))}'s: merge them" if same else ""
        verdict = Verdict.ACCEPTED if not same else Verdict.INVALID_SUBMISSION
        checks.append(Check(problem.slug, "graded core", verdict, not same, detail, None))
    return checks


def _print_checks(results: Iterable[list[Check]], out: TextIO) -> bool:
    all_ok = True
    for checks in results:
        for check in checks:
            all_ok &= check.ok
            mark = "ok  " if check.ok else "FAIL"
            print(f"{mark} {check.problem:<20} {check.label:<32} {check.verdict}", file=out)
            if not check.ok:
                print(f"     {check.detail}", file=out)
        out.flush()
    return all_ok
