"""``python -m grader``: grade a submission, autograde a batch, validate problems, show a problem.

Exit codes: 0 accepted (or all problems valid), 1 not accepted (or a problem invalid),
2 usage or input error. Input errors print one line on stderr, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from sandbox.host.backends import BACKENDS, BackendUnavailable, get_backend
from sandbox.host.session import SandboxSession

EXIT_ACCEPTED, EXIT_NOT_ACCEPTED, EXIT_USAGE = 0, 1, 2


class _ArgumentParser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _ArgumentParser(prog="python -m grader", description="jaxjudge's grading engine")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_ArgumentParser)

    grade = commands.add_parser("grade", help="grade a submission (.py or .ipynb) against a problem")
    grade.add_argument("--problem", required=True, help="problem slug, or a path to a problem notebook")
    grade.add_argument("file", help="the submission: a .py file or a notebook")
    grade.add_argument("--visible-only", action="store_true", help="run only the visible tests")
    grade.add_argument("--json", metavar="OUT", help="write the report as JSON ('-' for stdout)")
    grade.add_argument("--junit-xml", metavar="OUT", help="write the report as JUnit XML")
    grade.add_argument("--gradescope", metavar="OUT", help="write Gradescope's results.json")
    grade.add_argument("--backend", choices=sorted(BACKENDS), help="sandbox backend (default: bwrap)")

    validate = commands.add_parser("validate", help="check that references pass and wrong solutions fail")
    validate.add_argument("problems", nargs="*", help="problem slugs or notebooks (default: all)")
    validate.add_argument("--backend", choices=sorted(BACKENDS), help="sandbox backend (default: bwrap)")
    validate.add_argument(
        "--jobs", type=int, metavar="N", help="problems validated at once (default: one a core, at most 4)"
    )

    autograde = commands.add_parser(
        "autograde",
        help="grade folders of student notebooks in parallel (for CI)",
        description="Run every notebook as Jupyter runs it, in a sandbox, grade it, and write JSON reports, "
        "JUnit XML, Gradescope results, gradebook CSVs and feedback notebooks. Exit status: 0 when every "
        "notebook was graded (whatever its verdict), 1 when some could not be graded (internal_error), "
        "2 on a usage error, 130 when interrupted (what was graded is written).",
    )
    autograde.add_argument("paths", nargs="+", metavar="PATH", help="notebooks, folders of notebooks, or globs")
    autograde.add_argument("--problem", help="problem slug (default: each notebook's own metadata says)")
    autograde.add_argument("--jobs", type=int, metavar="N", help="notebooks graded at once (default: the cores)")
    autograde.add_argument("--out", metavar="DIR", help="where to write reports, JUnit, CSVs and feedback")
    autograde.add_argument(
        "--student-from",
        choices=("file", "metadata"),
        default="file",
        help="the student's name: the file name (default) or the notebook's grader.student metadata, "
        "a label only, not verified (the site's `manage.py autograde` checks its signature)",
    )
    autograde.add_argument("--backend", choices=sorted(BACKENDS), help="sandbox backend (default: bwrap)")
    autograde.add_argument(
        "--timings", metavar="FILE", help="also write where the batch's CPU time went, stage by stage, as JSON"
    )

    show = commands.add_parser("show", help="print the student's view of a problem as Markdown")
    show.add_argument("problem", help="problem slug or notebook path")
    show.add_argument(
        "--staff", action="store_true", help="also print the evidence its level is read from (grader.levels)"
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    session = None
    if args.command == "grade":
        # Start the sandbox before anything else: it imports JAX on its side while this
        # process imports nbformat, JAX, pytest and hypothesis and reads the problem.
        try:
            session = SandboxSession(get_backend(args.backend), notebook=args.file.endswith(".ipynb"))
        except BackendUnavailable as exc:
            print(f"error: {exc}", file=sys.stderr)
            return EXIT_USAGE
    from grader.problem import ProblemError, ReferenceSolutionError, load_problem
    from grader.seeding import GradingSecretError
    from grader.source import SubmissionInputError

    try:
        if session is not None:
            return grade(args, session)
        if args.command == "autograde":
            return autograde(args)
        if args.command == "validate":
            from grader.validate import validate_problems

            return (
                EXIT_ACCEPTED
                if validate_problems(args.problems, backend_name=args.backend, jobs=args.jobs)
                else EXIT_NOT_ACCEPTED
            )
        problem = load_problem(args.problem)
        print(problem.student_markdown(), end="")
        if args.staff:
            rubric = problem.rubric()
            print(f"\n**Level, for staff:** {rubric.explained() if rubric else 'no rubric in the notebook'}")
        return EXIT_ACCEPTED
    except (ProblemError, SubmissionInputError, BackendUnavailable, ReferenceSolutionError, GradingSecretError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130
    finally:
        if session is not None:
            session.close()


def autograde(args: argparse.Namespace) -> int:
    import time

    from grader.autograde import AutogradeUsageError, autograde, summary_table
    from grader.problem import load_problem

    if args.jobs is not None and args.jobs < 1:
        print("error: --jobs must be at least 1", file=sys.stderr)
        return EXIT_USAGE
    if args.problem:
        load_problem(args.problem)  # an unknown slug is a usage error, before any work
    get_backend(args.backend)  # likewise a backend this machine lacks
    started = time.perf_counter()
    try:
        graded, finished = autograde(
            args.paths,
            problem=args.problem,
            jobs=args.jobs,
            out=Path(args.out) if args.out else None,
            backend_name=args.backend,
            student_from=args.student_from,
            timings=Path(args.timings) if args.timings else None,
            keep_recorded=False,
        )
    except AutogradeUsageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    print(summary_table(graded, time.perf_counter() - started))
    if args.out:
        print(f"reports, junit.xml, results.csv, gradebook.csv and feedback notebooks are in {args.out}")
    if not finished:
        print(f"interrupted: {len(graded)} notebooks were graded and written", file=sys.stderr)
        return 130
    return EXIT_NOT_ACCEPTED if any(g.verdict == "internal_error" for g in graded) else EXIT_ACCEPTED


def grade(args: argparse.Namespace, session: SandboxSession) -> int:
    from grader.harness import grade_submission
    from grader.problem import load_problem
    from grader.report import TestResult
    from grader.source import read_submission

    problem = load_problem(args.problem)
    source = read_submission(args.file)
    if problem.sandbox_device == "gpu":
        # The sandbox started before the problem was known is a CPU one: trade it for a GPU one.
        session.close()
        session = SandboxSession(
            get_backend(args.backend, device="gpu"), problem.sandbox_limits(), notebook=source.is_notebook
        )

    def show(test: TestResult) -> None:  # each test as it ends; the summary below scores them all
        print(f"... {test.line()} {test.duration_s:.2f}s", flush=True)

    report = grade_submission(problem, source, include_hidden=not args.visible_only, session=session, on_test=show)
    print(report.summary())
    if report.verdict == "syntax_error":
        print(f"error: {report.message}", file=sys.stderr)
    if args.json == "-":
        print(report.to_json())
    elif args.json:
        Path(args.json).write_text(report.to_json() + "\n")
    if args.junit_xml:
        Path(args.junit_xml).write_text(report.to_junit_xml() + "\n")
    if args.gradescope:
        Path(args.gradescope).write_text(json.dumps(report.to_gradescope(), indent=2) + "\n")
    return EXIT_ACCEPTED if report.accepted else EXIT_NOT_ACCEPTED
