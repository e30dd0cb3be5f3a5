"""Every bundled problem: the reference is accepted, the starter and every wrong solution are
not, neither the hidden tests nor the reference cross into the sandbox, and the notebook runs
under nbclient. All problems are validated once, in parallel."""

import ast
import copy
import dataclasses
import io
import shutil

import nbformat
import pytest

from grader.problem import all_problems, load_problem, problems_dir, solutions_dir
from grader.validate import (
    channel_check,
    editorial_check,
    expected_verdicts,
    graded_core,
    graded_core_checks,
    hint_check,
    notebook_check,
    prerequisite_checks,
    validate_problem,
    validate_problems,
    validated,
)
from grader.verdicts import Verdict

pytestmark = pytest.mark.slow  # every problem, graded and run

SLUGS = sorted(path.stem for path in problems_dir().glob("*.ipynb"))


@pytest.fixture(scope="module")
def checks_by_problem():
    problems = all_problems()
    return {problem.slug: checks for problem, checks in zip(problems, validated(problems), strict=True)}


@pytest.mark.parametrize("slug", SLUGS)
def test_problem_validates_and_wrong_solutions_are_told_why(checks_by_problem, slug):
    checks = checks_by_problem[slug]
    failures = [f"{c.label}: {c.verdict} ({c.detail})" for c in checks if not c.ok]
    assert failures == []
    labels = [c.label for c in checks]
    assert labels[:2] == ["reference", "starter"] and labels[-2:] == ["channel", "notebook"]
    wrong = [c for c in checks if c.label.startswith("wrong_")]
    assert len(wrong) >= 3, "at least three known-wrong solutions"
    for check in wrong:
        failed = [t for t in check.report.tests if t.outcome != "passed"]
        assert failed, check.label
        for test in failed:
            # A message for the student: not empty and not pytest's bare "assert x == y".
            assert test.message and not test.message.startswith("assert "), (check.label, test.message)


def test_a_notebook_that_does_not_run_is_reported_with_its_cell():
    problem = load_problem("compile_for")
    notebook = copy.deepcopy(problem.notebook)
    broken = nbformat.v4.new_code_cell(
        "import jax\nraise ValueError('a broken example')", metadata={"tags": ["example"]}
    )
    notebook.cells.insert(2, broken)
    check = notebook_check(dataclasses.replace(problem, notebook=notebook))
    assert not check.ok and check.label == "notebook"
    assert "compile_for.ipynb: cell 2 failed under nbclient: ValueError: a broken example" in check.detail


def test_a_hidden_test_that_sends_the_reference_into_the_sandbox_is_caught(tmp_path):
    problem = load_problem("aot_compiled_sum")
    # Only the reference and the first wrong solution (whose grading is watched): the others
    # are graded by the test above.
    solutions = tmp_path / problem.slug
    solutions.mkdir()
    for path in (problem.reference_solution, problem.wrong_solutions()[0]):
        shutil.copy(path, solutions / path.name)
    problem = dataclasses.replace(problem, solutions_root=tmp_path)
    first_wrong = problem.wrong_solutions()[0].read_text()  # the solution whose grading is watched
    # A line of its code (its docstring, the editorial's prose, is not what the check guards).
    reference = problem.reference_solution.read_text()
    docstring_end = ast.parse(reference).body[0].end_lineno or 0
    lines = [line.strip() for line in reference.splitlines()[docstring_end:]]
    line = max((line for line in lines if len(line) > 12 and line not in first_wrong), key=len)
    leaking_test = f"""

def test_passes_a_line_of_the_reference(submission):
    try:
        submission.aot_compiled_sum({line!r})
    except Exception:
        pass
"""
    leaky = dataclasses.replace(problem, hidden_tests=problem.hidden_tests + leaking_test)
    checks = {check.label: check for check in validate_problem(leaky, run_notebook=False)}
    assert not checks["channel"].ok
    assert checks["channel"].detail == f"sent to the sandbox: reference line {line!r}"
    # The problem as it is sends nothing of the kind.
    assert channel_check(problem, "", b"x = 1").ok


def test_a_worked_example_that_prints_other_than_its_statement_shows_is_reported_with_its_cell():
    problem = load_problem("compile_for")
    example = problem.examples[0]
    assert example.printed.splitlines()[1] == "refused int32[3,2]"
    shown = dataclasses.replace(example, printed=example.printed.replace("refused", "rejected", 1))
    check = notebook_check(dataclasses.replace(problem, examples=(shown,)))
    assert not check.ok and check.label == "notebook"
    assert (
        "compile_for.ipynb: cell 2: the worked example prints 'refused int32[3,2]' on line 2, "
        "but the statement shows 'rejected int32[3,2]'"
    ) in check.detail


def test_prerequisites_must_be_installed_problems_and_lead_nowhere_back():
    installed = all_problems()
    compile_for = load_problem("compile_for")
    assert [check.ok for check in prerequisite_checks([compile_for], installed)] == [True]
    unknown = dataclasses.replace(compile_for, prerequisites=("aot_compiled_summ",))
    (check,) = prerequisite_checks([unknown], installed)
    assert not check.ok and check.detail == "prerequisites name no installed problem: aot_compiled_summ"
    # aot_compiled_sum before compile_for, and now compile_for before aot_compiled_sum.
    looping = dataclasses.replace(load_problem("aot_compiled_sum"), prerequisites=("compile_for",))
    (check,) = prerequisite_checks([looping], installed)
    assert not check.ok and "prerequisites form a cycle" in check.detail
    assert "aot_compiled_sum" in check.detail and "compile_for" in check.detail


def test_no_two_installed_problems_grade_the_same_code():
    installed = all_problems()
    assert [check.detail for check in graded_core_checks(installed, installed) if not check.ok] == []


def with_reference(tmp_path, problem, code):
    """The problem, with ``code`` as its reference solution."""
    (tmp_path / problem.slug).mkdir(parents=True, exist_ok=True)
    (tmp_path / problem.slug / "reference.py").write_text(code)
    return dataclasses.replace(problem, solutions_root=tmp_path)


def test_a_reference_that_is_another_s_renamed_grades_the_same_code(tmp_path):
    installed = all_problems()
    compiled_grad = load_problem("compiled_grad")
    # Another name, another transformation, another docstring and argument names; and a helper
    # that does the work under another name, as the jit-once-at-module-level problems do.
    copied = with_reference(
        tmp_path,
        load_problem("aot_compiled_sum"),
        '"""Another docstring."""\n\nimport jax\n\n\n'
        "def _build(fun, example):\n    return jax.jit(jax.jacrev(fun)).lower(example).compile()\n\n\n"
        "def aot_compiled_sum(g, sample):\n    return _build(g, sample)\n",
    )
    original = with_reference(
        tmp_path / "original",
        compiled_grad,
        "import jax\n\n\ndef _build(f, x):\n    return jax.jit(jax.grad(f)).lower(x).compile()\n\n\n"
        "def compiled_grad(f, x):\n    return _build(f, x)\n",
    )
    assert graded_core(copied) == graded_core(original)
    (check,) = graded_core_checks([copied], [original])
    assert not check.ok and check.detail == "its reference grades the same code as compiled_grad's: merge them"
    # What the code does, not only its names: returning the value instead of the executable.
    calling = with_reference(
        tmp_path / "calling",
        compiled_grad,
        "import jax\n\n\ndef compiled_grad(f, x):\n    return jax.jit(jax.grad(f)).lower(x).compile()(x)\n",
    )
    assert graded_core(calling) != graded_core(original)
    assert [check.ok for check in graded_core_checks([calling], installed)] == [True]


def test_a_last_hint_that_gives_the_solutions_line_is_caught():
    problem = load_problem("aot_compiled_sum")
    assert hint_check(problem).ok
    giving = (*problem.hints[:2], "Write `compiled = jax.jit(jnp.sum).lower(x).compile()`, then call it.")
    check = hint_check(dataclasses.replace(problem, hints=giving))
    assert not check.ok and check.label == "hints"
    assert check.detail == "the last hint gives the solution's line 'compiled = jax.jit(jnp.sum).lower(x).compile()'"


@pytest.mark.parametrize(
    ("line", "verdicts"),
    [
        ("# expect: wrong_answer", {Verdict.WRONG_ANSWER}),
        (
            "#expect:  memory_limit_exceeded  or time_limit_exceeded",
            {Verdict.MEMORY_LIMIT_EXCEEDED, Verdict.TIME_LIMIT_EXCEEDED},
        ),
        ("# no expect line", set()),
    ],
)
def test_an_expect_line_names_one_verdict_or_several(tmp_path, line, verdicts):
    path = tmp_path / "wrong_x.py"
    path.write_text(f'"""Wrong."""\n{line}\n\ndef f(x):\n    return x\n')
    assert expected_verdicts(path) == verdicts


def test_an_expect_line_naming_no_verdict_is_an_error(tmp_path):
    path = tmp_path / "wrong_x.py"
    path.write_text("# expect: wrong_answr\n")
    with pytest.raises(ValueError, match="wrong_answr"):
        expected_verdicts(path)


def test_every_installed_problem_says_why_its_reference_works_and_what_each_wrong_solution_gets_wrong():
    problems = all_problems()
    assert [check.detail for check in map(editorial_check, problems) if not check.ok] == []
    for problem in problems:
        explanation = problem.explanation()
        assert explanation.summary.startswith("Reference solution:"), problem.slug
        assert len(explanation.why) == 1, problem.slug  # one paragraph after the summary
        for wrong in problem.known_wrong():
            assert wrong.mistake and "\n" not in wrong.mistake, (problem.slug, wrong.name)


WHY_IN_TWO_SENTENCES = (
    '"""Reference solution: jit, lower for x, compile, call the executable.\n\n'
    "Lowering traces jnp.sum for x's shape and dtype (jax.jit, say, or 1.5 end no sentence). "
    'Compiling gives an executable.\n"""\n\nimport jax\nimport jax.numpy as jnp\n\n\n'
    "def aot_compiled_sum(x):\n    return jax.jit(jnp.sum).lower(x).compile()(x)\n"
)


def test_a_reference_that_says_why_it_works_in_fewer_than_three_sentences_is_refused(tmp_path):
    problem = load_problem("aot_compiled_sum")
    assert editorial_check(problem).ok
    short = with_reference(tmp_path, problem, WHY_IN_TWO_SENTENCES)
    check = editorial_check(short)
    assert not check.ok and check.label == "editorial"
    assert check.detail == (
        "reference.py's docstring says why it works in 2 sentences after its one-line summary and a blank "
        "line; the editorial needs at least 3"
    )
    # The same sentences with no blank line after the summary are the summary: no why at all.
    run_on = with_reference(tmp_path / "run_on", problem, WHY_IN_TWO_SENTENCES.replace("\n\n", "\n", 1))
    assert "in 0 sentences" in editorial_check(run_on).detail
    bare = with_reference(tmp_path / "bare", problem, "import jax\n\n\ndef aot_compiled_sum(x):\n    return x\n")
    assert "reference.py has no docstring" in editorial_check(bare).detail
    third = WHY_IN_TWO_SENTENCES.replace("an executable.", "an executable. Calling it runs that executable.")
    assert editorial_check(with_reference(tmp_path / "three", problem, third)).ok


def with_wrong_solution(tmp_path, problem, name, code):
    """The problem with its own solutions and one more wrong solution, ``name``, of ``code``."""
    shutil.copytree(problem.solution_dir, tmp_path / problem.slug)
    (tmp_path / problem.slug / name).write_text(code)
    return dataclasses.replace(problem, solutions_root=tmp_path)


def test_a_known_wrong_solution_without_a_docstring_naming_its_mistake_is_refused(tmp_path):
    problem = load_problem("aot_compiled_sum")
    code = "# expect: wrong_answer\nimport jax.numpy as jnp\n\n\ndef aot_compiled_sum(x):\n    return jnp.sum(x)\n"
    undocumented = with_wrong_solution(tmp_path, problem, "wrong_undocumented.py", code)
    check = editorial_check(undocumented)
    assert not check.ok
    assert check.detail == "wrong_undocumented.py has no docstring naming its mistake (the editorial lists it)"
    # With one, the editorial lists it: its first paragraph on one line, the verdict its expect line names.
    described = with_wrong_solution(
        tmp_path / "described",
        problem,
        "wrong_undocumented.py",
        '"""Sums with a plain jit: the right number,\ncompiled inside the call.\n\nMore detail."""\n' + code,
    )
    assert editorial_check(described).ok
    listed = {wrong.name: wrong for wrong in described.known_wrong()}["wrong_undocumented"]
    assert listed.mistake == "Sums with a plain jit: the right number, compiled inside the call."
    assert listed.verdicts == {Verdict.WRONG_ANSWER} and listed.verdict_label == "Wrong answer"
    essay = with_wrong_solution(tmp_path / "essay", problem, "wrong_essay.py", f'"""{"Too long. " * 50}"""\n' + code)
    assert "in 499 characters before its first blank line" in editorial_check(essay).detail


def test_grader_validate_refuses_an_editorial_left_unwritten(tmp_path, monkeypatch):
    # The solutions of every problem, aot_compiled_sum's reference without its why; grading
    # itself is another test's (every problem's), so no solution is graded here.
    shutil.copytree(solutions_dir(), tmp_path / "solutions")
    reference = tmp_path / "solutions" / "aot_compiled_sum" / "reference.py"
    code = reference.read_text()
    reference.write_text('"""Reference solution: the stages by hand."""\n' + code.split('"""\n', 1)[1])
    monkeypatch.setenv("JAXJUDGE_SOLUTIONS_DIR", str(tmp_path / "solutions"))
    monkeypatch.setattr("grader.validate.validated", lambda problems, **options: iter([]))
    out = io.StringIO()
    assert validate_problems(["aot_compiled_sum"], out=out) is False
    lines = out.getvalue().splitlines()
    failed = lines.index(next(line for line in lines if line.startswith("FAIL") and "editorial" in line))
    assert "aot_compiled_sum" in lines[failed]
    assert "says why it works in 0 sentences" in lines[failed + 1]
