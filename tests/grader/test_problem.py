import json
from pathlib import Path

import nbformat
import pytest

from grader.problem import ProblemError, all_problems, load_problem, problems_dir

# The problem set of the course: slug -> (difficulty, category), levelled by the rubric.
PROBLEM_SET = {
    "compile_time_constant": ("medium", "tracing"),
    "eval_output_shape": ("easy", "tracing"),
    "host_callback": ("easy", "tracing"),
    "leaked_tracer": ("medium", "tracing"),
    "predict_promotion": ("medium", "tracing"),
    "jaxpr_flops": ("hard", "jaxprs"),
    "jaxpr_primitives": ("easy", "jaxprs"),
    "jaxpr_used_inputs": ("medium", "jaxprs"),
    "jit_wrapped_jaxpr": ("medium", "jaxprs"),
    "count_traces": ("medium", "caching"),
    "explain_cache_miss": ("hard", "caching"),
    "jit_once": ("medium", "caching"),
    "persistent_cache": ("hard", "caching"),
    "predict_retraces": ("easy", "caching"),
    "stale_global": ("medium", "caching"),
    "static_power": ("easy", "caching"),
    "aot_compiled_sum": ("easy", "compiling"),
    "async_dispatch": ("medium", "compiling"),
    "bucketed_max": ("hard", "compiling"),
    "build_report": ("easy", "compiling"),
    "compile_for": ("easy", "compiling"),
    "compiled_grad": ("medium", "compiling"),
    "donated_params": ("medium", "compiling"),
    "optimise_pairwise": ("hard", "compiling"),
    "read_donation": ("medium", "compiling"),
    "shape_bound_cache": ("medium", "compiling"),
    "branch_not_where": ("medium", "control-flow"),
    "differentiable_loop": ("medium", "control-flow"),
    "loop_sum_squares": ("easy", "control-flow"),
    "nan_safe_sqrt": ("medium", "control-flow"),
    "positive_sum": ("easy", "control-flow"),
    "relu_jittable": ("easy", "control-flow"),
    "scan_cumsum": ("easy", "control-flow"),
    "scatter_updates": ("medium", "control-flow"),
    "batched_dot": ("easy", "transformations"),
    "checkpoint_budget": ("hard", "transformations"),
    "clip_gradient": ("easy", "transformations"),
    "jacobian_budget": ("medium", "transformations"),
    "mixed_precision": ("hard", "transformations"),
    "per_example_grads": ("easy", "transformations"),
    "prng_keys": ("medium", "transformations"),
    "pytree_node": ("medium", "transformations"),
    "stable_softplus": ("medium", "transformations"),
    "tree_structures": ("medium", "transformations"),
    "value_and_grad_of": ("easy", "transformations"),
    "vmap_pytree_axes": ("medium", "transformations"),
    "export_constrained": ("medium", "export"),
    "export_poly_sum": ("easy", "export"),
    "export_roundtrip": ("easy", "export"),
    "shard_map_sum": ("medium", "parallelism"),
    "sharded_sum": ("easy", "parallelism"),
}
BUNDLED = sorted(path.stem for path in problems_dir().glob("*.ipynb"))


@pytest.mark.parametrize("slug", BUNDLED)
def test_bundled_problems_load_with_all_sections(slug):
    problem = load_problem(slug)
    assert problem.slug == slug
    assert problem.difficulty in ("easy", "medium", "hard")
    assert problem.hints and problem.starter and problem.hidden_tests and problem.visible_tests
    for section in ("Why this matters", "Worked mini-example", "Common pitfalls", "Problem"):
        assert f"## {section}" in problem.statement


def test_the_bundled_problems_are_the_course_s_problem_set():
    problems = {p.slug: p for p in all_problems()}
    assert {slug: (p.difficulty, p.category) for slug, p in problems.items()} == PROBLEM_SET


@pytest.mark.parametrize("slug", BUNDLED)
def test_student_view_holds_no_hidden_test_and_no_solution(slug):
    problem = load_problem(slug)
    view = problem.student_notebook()
    text = nbformat.writes(view) + problem.student_markdown()
    for cell in problem.notebook.cells:
        if "hidden-tests" in cell.metadata.get("tags", []):
            # Every line of the hidden tests that is specific to them must be absent.
            for line in cell.source.splitlines():
                if line.startswith("def test_"):
                    assert line not in text
    assert all("hidden-tests" not in c.metadata.get("tags", []) for c in view.cells)
    reference = problem.reference_solution.read_text()
    given = {line.strip() for line in problem.starter.splitlines()}  # a starter may hand out helpers
    solution_lines = [line.strip() for line in reference.splitlines() if line.strip().startswith("return")]
    assert solution_lines
    for line in solution_lines:
        if line in given:
            continue
        assert line not in text
    assert "reference" not in json.dumps(view.metadata)


def _broken_copy(tmp_path: Path, change) -> Path:
    notebook = nbformat.read(load_problem("aot_compiled_sum").path, as_version=4)
    change(notebook)
    path = tmp_path / "aot_compiled_sum.ipynb"
    nbformat.write(notebook, path)
    return path


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (lambda nb: nb.metadata["grader"].update(difficulty="hardest"), "metadata.grader.difficulty: must be one of"),
        (lambda nb: nb.metadata["grader"].pop("title"), "metadata.grader.title: missing"),
        (lambda nb: nb.metadata["grader"].update(category="primitives"), "grader.category: must be one of tracing"),
        (lambda nb: nb.metadata["grader"].pop("objective"), "metadata.grader.objective: missing"),
        (lambda nb: nb.metadata["grader"].update(objective="Two.\nLines."), "objective: must be one sentence"),
        (lambda nb: nb.metadata["grader"].pop("minutes"), "metadata.grader.minutes: missing"),
        (lambda nb: nb.metadata["grader"].update(minutes=0), "metadata.grader.minutes: must be a number from 1"),
        (
            lambda nb: nb.metadata["grader"].update(prerequisites=["aot_compiled_sum"]),
            "metadata.grader.prerequisites: must name other problems",
        ),
        (lambda nb: nb.metadata["grader"].update(prerequisites="compile_for"), "prerequisites: must be a list of"),
        (lambda nb: nb.metadata["grader"].update(tags="jax"), "metadata.grader.tags: must be a non-empty list"),
        (lambda nb: nb.metadata["grader"].update(colour="red"), "metadata.grader.colour: unknown field"),
        (lambda nb: nb.metadata["grader"].update(max_examples=0), "metadata.grader.max_examples: must be a number"),
        (lambda nb: nb.metadata["grader"].update(slug="other"), "metadata.grader.slug: 'other' must match"),
        (lambda nb: nb.cells[1].metadata.update(tags=["hiddentests"]), "cell 1: unknown tag 'hiddentests'"),
        (lambda nb: nb.cells.pop(0), "statement: missing the section '## Why this matters'"),
        (lambda nb: nb.metadata.pop("grader"), "metadata.grader: missing"),
        (lambda nb: nb.metadata["grader"].update(rubric={"ideas": []}), "rubric: must be an object with the keys"),
        (
            lambda nb: nb.metadata["grader"].update(rubric={"ideas": [], "left": "named"}),
            "metadata.grader.rubric.ideas: must list 1 to 8 ideas",
        ),
        (
            lambda nb: nb.metadata["grader"].update(rubric={"ideas": ["stages"], "left": "guessed"}),
            "metadata.grader.rubric.left: must be one of named, found, derived",
        ),
    ],
)
def test_bad_metadata_is_reported_with_notebook_and_field(tmp_path, change, expected):
    path = _broken_copy(tmp_path, change)
    with pytest.raises(ProblemError) as error:
        load_problem(path)
    assert str(path) in str(error.value)
    assert expected in str(error.value)


def test_the_student_view_says_what_a_problem_teaches_its_time_and_what_comes_first():
    shown = load_problem("compile_for").student_markdown()
    assert "**Section:** Lowering and compiling · **About 10 minutes**" in shown
    assert "**You will learn:** Build an executable for one signature" in shown
    assert "**Before this one:** `aot_compiled_sum`" in shown


def _hint_cells(notebook):
    return [cell for cell in notebook.cells if "hint" in cell.metadata.get("tags", [])]


def test_hints_are_three_steps_the_second_with_a_link(tmp_path):
    def two_hints(nb):
        nb.cells.remove(_hint_cells(nb)[0])

    with pytest.raises(ProblemError, match=r"three hint cells are needed .* found 2"):
        load_problem(_broken_copy(tmp_path, two_hints))

    def no_link(nb):
        _hint_cells(nb)[1].source = "Lowering gives a Lowered, compiling it a Compiled."

    with pytest.raises(ProblemError, match=r"hint 2 .* needs a link"):
        load_problem(_broken_copy(tmp_path, no_link))


def test_hidden_tests_are_required(tmp_path):
    def drop_hidden(nb):
        nb.cells = [c for c in nb.cells if "hidden-tests" not in c.metadata.get("tags", [])]

    with pytest.raises(ProblemError, match="no hidden-tests cell"):
        load_problem(_broken_copy(tmp_path, drop_hidden))


def test_unknown_slug_lists_the_known_ones():
    with pytest.raises(ProblemError, match=r"unknown problem 'nope' \(known problems: aot_compiled_sum"):
        load_problem("nope")


def test_not_a_notebook(tmp_path):
    path = tmp_path / "broken.ipynb"
    path.write_text("{not json")
    with pytest.raises(ProblemError, match="not a readable notebook"):
        load_problem(path)


def _example(notebook):
    return next(cell for cell in notebook.cells if "example" in cell.metadata.get("tags", []))


def test_a_worked_example_shows_what_it_prints_under_its_code(tmp_path):
    def printing(nb):
        _example(nb).outputs = [nbformat.v4.new_output("stream", name="stdout", text="module @jit_total\n6.0\n")]

    problem = load_problem(_broken_copy(tmp_path, printing))
    assert "It prints:\n\n```text\nmodule @jit_total\n6.0\n```" in problem.statement
    assert [example.printed for example in problem.examples] == ["module @jit_total\n6.0\n"]
    # The notebook a student downloads shows it too; no other cell keeps an output.
    assert _example(problem.student_notebook()).outputs[0]["text"] == "module @jit_total\n6.0\n"


@pytest.mark.parametrize(
    ("output", "kind"),
    [
        (nbformat.v4.new_output("execute_result", data={"text/plain": "6.0"}, execution_count=1), "execute_result"),
        (nbformat.v4.new_output("stream", name="stderr", text="a warning\n"), "stderr"),
    ],
)
def test_a_worked_example_may_keep_only_what_it_prints(tmp_path, output, kind):
    def saving(nb):
        _example(nb).outputs = [output]

    with pytest.raises(ProblemError, match=rf"cell 2: a worked example's saved outputs must be .*found '{kind}'"):
        load_problem(_broken_copy(tmp_path, saving))


@pytest.mark.parametrize(
    ("contract", "found"),
    [
        ("**Input:** `x`.\n**Returns:** its sum.\n**Checked:** the sum.", "found none"),
        ("- **Input:** `x`.\n- **Returns:** its sum.", "found Input, Returns"),
        ("- **Input:** `x`.\n- **Checked:** the sum.\n- **Returns:** its sum.", "found Input, Checked, Returns"),
    ],
)
def test_the_contract_is_a_list_of_input_returns_and_checked(tmp_path, contract, found):
    def rewrite(nb):
        cell = next(c for c in nb.cells if c.source.startswith("## Problem"))
        cell.source = f"## Problem\n\nWrite `aot_compiled_sum(x)`.\n\n{contract}\n"

    with pytest.raises(ProblemError) as error:
        load_problem(_broken_copy(tmp_path, rewrite))
    assert "the Problem section's contract must be a list of three items" in str(error.value)
    assert found in str(error.value)
