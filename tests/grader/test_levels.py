import dataclasses

import pytest

from grader.levels import Rubric, answer_lines
from grader.problem import all_problems, load_problem
from grader.validate import level_check


def test_the_answer_s_size_counts_only_the_lines_the_starter_does_not_have():
    starter = "import jax\n\ndef f(x):\n    # TODO\n    return x\n"
    reference = "import jax\n\ndef f(x):\n    y = jax.numpy.sin(x)\n\n    return  y * 2\n"
    # "def f(x):" is given; the two lines of the body are new (spacing does not matter).
    assert answer_lines(reference, starter) == 2
    assert answer_lines(starter, starter) == 0


@pytest.mark.parametrize(
    ("lines", "ideas", "left", "level", "points"),
    [
        (2, 1, "named", "easy", 0),
        (5, 1, "named", "easy", 1),  # five new lines: one point
        (4, 2, "found", "medium", 2),
        (21, 2, "named", "medium", 3),  # over twenty lines: two points
        (9, 3, "found", "hard", 4),
        (61, 3, "derived", "hard", 6),
    ],
)
def test_points_from_size_ideas_and_what_is_left_give_the_level(lines, ideas, left, level, points):
    rubric = Rubric(lines, tuple(f"idea {n}" for n in range(ideas)), left)
    assert (rubric.points, rubric.level) == (points, level)


def test_a_known_solve_rate_moves_the_level_one_step_and_an_unknown_one_does_not():
    medium = Rubric(4, ("a", "b"), "found")
    assert dataclasses.replace(medium, attempts=40, solved=38).level == "easy"
    assert dataclasses.replace(medium, attempts=40, solved=10).level == "hard"
    assert dataclasses.replace(medium, attempts=40, solved=24).level == "medium"
    # Too few students to tell: the rubric alone decides, and the line for staff says so.
    few = dataclasses.replace(medium, attempts=5, solved=5)
    assert few.solve_rate is None and few.level == "medium"
    assert few.explained().endswith("solve rate not yet known")
    # Never past the ends of the scale.
    hard = Rubric(61, ("a", "b", "c"), "derived", attempts=30, solved=1)
    assert hard.level == "hard"


def test_every_problem_is_labelled_as_its_rubric_says():
    refused = [check.detail for check in map(level_check, all_problems()) if not check.ok]
    assert refused == []


def test_a_label_the_rubric_does_not_give_and_a_missing_rubric_are_refused():
    problem = load_problem("aot_compiled_sum")
    inflated = level_check(dataclasses.replace(problem, difficulty="hard"))
    assert not inflated.ok and inflated.label == "level"
    assert inflated.detail.startswith("labelled hard, but the rubric gives easy: answer of 2 new lines (0), 1 idea")
    missing = level_check(dataclasses.replace(problem, rubric_evidence=None))
    assert not missing.ok and "metadata.grader.rubric is missing" in missing.detail
