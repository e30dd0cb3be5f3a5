"""Every listed pitfall is enforced: a known-wrong solution shows it (its ``# pitfall:`` line) and
the tests reject it, from the test its ``# expect: ... by test_name`` line names."""

import dataclasses
import shutil

import pytest

from grader.problem import all_problems, load_problem, pitfall_key, solutions_dir
from grader.validate import pitfall_check, validate_problem
from grader.verdicts import Verdict


def copied_solutions(tmp_path, slug):
    """The problem with a copy of its solutions folder, to change freely, its wrong solutions'
    ``# pitfall:`` lines taken out."""
    shutil.copytree(solutions_dir() / slug, tmp_path / slug)
    for path in (tmp_path / slug).glob("wrong_*.py"):
        path.write_text("".join(line for line in path.read_text().splitlines(True) if "# pitfall:" not in line))
    return dataclasses.replace(load_problem(slug), solutions_root=tmp_path)


def mark(path, *lines):
    """Put ``lines`` right after a wrong solution's docstring and expect line."""
    head, _, rest = path.read_text().partition("\n# expect:")
    expect, _, body = rest.partition("\n")
    path.write_text(head + "\n# expect:" + expect + "\n" + "\n".join(lines) + "\n" + body)


def test_a_pitfall_is_named_as_its_title_is_written_whatever_its_case_and_backticks():
    assert pitfall_key("`lower` is not enough.") == pitfall_key("lower is NOT   enough")
    assert pitfall_key("Keep JAX types.") != pitfall_key("Keep JAX types and shapes.")


def test_every_installed_problem_s_pitfalls_are_each_shown_by_a_wrong_solution():
    assert [check.detail for check in map(pitfall_check, all_problems()) if not check.ok] == []


def test_the_statement_s_pitfalls_are_its_bold_titles_in_order():
    assert load_problem("aot_compiled_sum").pitfalls() == [
        "The executable is bound to one signature.",
        "`lower` is not enough.",
        "A plain `jax.jit(f)(x)` is not AOT.",
        "Keep JAX types.",
    ]


def test_a_pitfall_no_wrong_solution_shows_and_a_pitfall_line_naming_none_are_refused(tmp_path):
    problem = copied_solutions(tmp_path, "aot_compiled_sum")
    folder = tmp_path / "aot_compiled_sum"
    mark(folder / "wrong_lowered_only.py", "# pitfall: `lower` is not enough")
    mark(folder / "wrong_jit_without_aot.py", "# pitfall: A plain jax.jit(f)(x) is not AOT.")
    mark(folder / "wrong_dtype.py", "# pitfall: Keep JAX types")
    mark(folder / "wrong_value.py", "# pitfall: Sum the right thing")  # no such pitfall
    check = pitfall_check(problem)
    assert not check.ok and check.label == "pitfalls"
    assert check.detail == (
        "wrong_value.py names the pitfall 'Sum the right thing', which the statement does not list; "
        "the pitfall 'The executable is bound to one signature.' is shown by no known-wrong solution "
        "(a wrong_*.py with '# pitfall: The executable is bound to one signature.')"
    )
    # Every pitfall shown, every line naming one: accepted.
    mark(folder / "wrong_plain_jnp_sum.py", "# pitfall: The executable is bound to one signature.")
    (folder / "wrong_value.py").write_text((folder / "wrong_value.py").read_text().replace("# pitfall: Sum", "# Sum"))
    assert pitfall_check(problem).ok


def test_an_expect_line_may_name_the_test_that_rejects(tmp_path):
    problem = copied_solutions(tmp_path, "aot_compiled_sum")
    mark(tmp_path / "aot_compiled_sum" / "wrong_value.py")
    text = (tmp_path / "aot_compiled_sum" / "wrong_value.py").read_text()
    path = tmp_path / "aot_compiled_sum" / "wrong_value.py"
    path.write_text(text.replace("# expect: wrong_answer", "# expect: wrong_answer by test_sums_every_shape"))
    wrong = {known.name: known for known in problem.known_wrong()}["wrong_value"]
    assert wrong.verdicts == {Verdict.WRONG_ANSWER} and wrong.rejected_by == "test_sums_every_shape"


@pytest.mark.slow  # real gradings
def test_validation_holds_a_wrong_solution_to_the_test_its_expect_line_names(tmp_path):
    problem = copied_solutions(tmp_path, "aot_compiled_sum")
    folder = tmp_path / "aot_compiled_sum"
    # wrong_plain_jnp_sum computes the right sum without compiling ahead of time: the compile
    # tests reject it, and the test of a one-element input passes it.
    rightly = "# expect: wrong_answer by test_compiles_for_a_length_it_has_never_seen"
    wrongly = "# expect: wrong_answer by test_returns_a_scalar_for_a_single_element"
    plain = folder / "wrong_plain_jnp_sum.py"
    plain.write_text(plain.read_text().replace("# expect: wrong_answer", rightly))
    checks = {check.label: check for check in validate_problem(problem, run_notebook=False)}
    assert checks["wrong_plain_jnp_sum.py"].ok
    plain.write_text(plain.read_text().replace(rightly, wrongly))
    checks = {check.label: check for check in validate_problem(problem, run_notebook=False)}
    check = checks["wrong_plain_jnp_sum.py"]
    assert not check.ok
    assert check.detail == (
        "expected test_returns_a_scalar_for_a_single_element to reject it (wrong_answer), but it gave passed (accepted)"
    )
