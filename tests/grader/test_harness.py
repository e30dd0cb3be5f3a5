"""The harness end to end on throwaway problems: scoring, determinism, instructor mistakes."""

import os
import stat
import subprocess
import sys
import tempfile

import pytest

from grader import plugin
from grader.harness import _hypothesis_home, failure_summary, grade_submission
from grader.plugin import HIDDEN_TESTS_FILE, SHRINK_SECONDS_PER_GRADING, SHRINK_SECONDS_PER_TEST
from grader.problem import REPO_ROOT, ReferenceSolutionError, load_problem
from grader.report import TestResult
from grader.seeding import example_seed, grading_secret
from grader.source import SubmissionSource
from grader.strategies import shape_pool
from grader.verdicts import Verdict
from sandbox import GRADING_XLA_FLAGS
from sandbox.host.backends import BwrapBackend

HIDDEN = """
import jax.numpy as jnp
from hypothesis import given

from grader import arrays, assert_same_array


@given(x=arrays(dtypes=("float32",), max_side=8))
def test_doubles(submission, reference, x):
    assert_same_array(submission.double(x), reference.double(x))


@pytest.mark.points(3)
def test_doubles_zero(submission, reference):
    x = jnp.zeros(3)
    assert_same_array(submission.double(x), reference.double(x))
""".replace("import jax.numpy", "import pytest\nimport jax.numpy")

VISIBLE = """
import jax.numpy as jnp

from grader import assert_same_array


def test_doubles_one(submission):
    assert_same_array(submission.double(jnp.ones(1)), jnp.full(1, 2.0))
"""

REFERENCE = "def double(x):\n    return x * 2\n"


@pytest.fixture
def doubling(make_problem):
    make_problem("doubling", hidden_tests=HIDDEN, visible_tests=VISIBLE, reference=REFERENCE, entry_points=["double"])
    return load_problem("doubling")


def grade(problem, code, **kwargs):
    return grade_submission(problem, SubmissionSource(code, "submission.py"), backend=BwrapBackend(), **kwargs)


@pytest.mark.slow
def test_points_follow_the_weights(doubling):
    report = grade(doubling, "def double(x):\n    return x * 2 + (x.size == 3) * 1.0\n")
    by_name = {t.name: t for t in report.tests}
    assert by_name["test_doubles_zero"].max_points == 60.0  # 3 of the 5 weight units
    assert by_name["test_doubles_zero"].points == 0.0
    assert by_name["test_doubles_one"].points == 20.0  # passed: 1 of the 5 units
    assert report.score == sum(t.points for t in report.tests) and report.max_score == 100.0
    assert report.verdict == "wrong_answer"
    # The line above the results counts; the table tells each failure by its property.
    failed = sum(t.outcome != "passed" for t in report.tests)
    assert report.message == f"{failed} of 3 tests failed ({failed} hidden)."


def test_the_summary_line_counts_visible_and_hidden_failures_without_naming_functions():
    def failed(name, hidden):
        return TestResult(name, "failed", 0.0, 1.0, "", hidden, 0.1, verdict=Verdict.WRONG_ANSWER)

    assert failure_summary(1, [failed("test_a", False)]) == "1 of 1 test failed (1 visible)."
    summary = failure_summary(5, [failed("test_a", False), failed("test_b", True), failed("test_c", True)])
    assert summary == "3 of 5 tests failed (1 visible, 2 hidden)."


@pytest.fixture
def unhurried_shrinking(monkeypatch):
    """Shrinking that ends when it has found the smallest example, however busy the machine.

    Where it stops in its usual time depends on how fast the machine runs the calls; what these
    tests check is which examples a grading meets and shrinks towards (the time bound has its
    own test, ``test_a_grading_shrinks_its_failures_within_one_budget``).
    """
    monkeypatch.setattr(plugin, "SHRINK_SECONDS_PER_TEST", 30.0)
    monkeypatch.setattr(plugin, "SHRINK_SECONDS_PER_GRADING", 60.0)


@pytest.mark.slow
def test_the_same_submission_meets_the_same_examples(doubling, unhurried_shrinking):
    wrong = "def double(x):\n    return x * 2 + (x.size > 2)\n"
    first, second = grade(doubling, wrong), grade(doubling, wrong)
    feedback = [(t.message, t.failing_input) for t in first.tests]
    assert any("x = jnp.array(" in failing for _, failing in feedback)
    assert feedback == [(t.message, t.failing_input) for t in second.tests]


@pytest.mark.slow
def test_failing_examples_are_shrunk(doubling, unhurried_shrinking):
    wrong = "def double(x):\n    return x * 2 + (x.size > 2)\n"
    report = grade(doubling, wrong)
    [failed] = [t for t in report.tests if t.name == "test_doubles"]
    # The property meets a few shapes, picked for this source (grader.strategies.shape_pool);
    # the input told is the shortest of them that fails, all zeros, as JAX code, and the message
    # has nothing of hypothesis's own.
    seed = example_seed(grading_secret(), "doubling", wrong, f"{HIDDEN_TESTS_FILE}::test_doubles")
    length = min(shape[0] for shape in shape_pool(1, 1, 1, 8, seed) if shape[0] > 2)
    zeros = ", ".join(["0."] * length)
    assert failed.failing_input == f"double(x)\n  x = jnp.array([{zeros}], dtype=jnp.float32)"
    assert failed.tested_property == "Doubles."
    assert "Falsifying" not in failed.message and "submission=" not in failed.message


@pytest.mark.slow
def test_a_property_meets_every_edge_of_its_shapes_however_few_its_examples(make_problem):
    # One example cannot meet the five shapes of the pool; the harness runs the property again
    # on each one it missed, so an answer wrong only on the longest shape is still caught.
    hidden = HIDDEN.replace("max_side=8", "min_dims=0, max_dims=3, min_side=0, max_side=8")
    make_problem("edges", hidden_tests=hidden, reference=REFERENCE, entry_points=["double"], max_examples=1)
    wrong_only_on_long = "def double(x):\n    return x * 2 + (max(x.shape, default=0) >= 6)\n"
    report = grade(load_problem("edges"), wrong_only_on_long)
    [failed] = [t for t in report.tests if t.name == "test_doubles"]
    assert failed.outcome == "failed" and report.verdict == "wrong_answer"
    assert grade(load_problem("edges"), REFERENCE).verdict == "accepted"


@pytest.mark.slow
def test_each_test_is_told_as_it_ends_visible_tests_first(doubling):
    told: list[TestResult] = []
    report = grade(doubling, "def double(x):\n    return x * 2 + (x.size > 2)\n", on_test=told.append)
    assert [(t.name, t.outcome) for t in told] == [(t.name, t.outcome) for t in report.tests]
    assert [t.hidden for t in told] == [False, True, True]
    assert told[0].outcome == "passed" and "failed" in {t.outcome for t in told}


@pytest.mark.slow
def test_a_failure_to_tell_a_result_changes_nothing_of_the_grading(doubling):
    # The site writes each result to its database as it ends; a database restarting meanwhile
    # must not turn a student's verdict into the platform's error.
    def unreachable(test: TestResult) -> None:
        raise ConnectionError("the database is restarting")

    wrong = "def double(x):\n    return x * 2 + (x.size > 2)\n"
    told, untold = grade(doubling, wrong, on_test=unreachable), grade(doubling, wrong)
    assert told.verdict == untold.verdict == "wrong_answer"
    assert (told.score, told.message) == (untold.score, untold.message)
    # Each failure's example may differ: shrinking it is bounded in time (grader.plugin), and
    # a busy machine shrinks less far. What failed, and how, may not.
    assert [(t.name, t.outcome, t.message.split(":")[0]) for t in told.tests] == [
        (t.name, t.outcome, t.message.split(":")[0]) for t in untold.tests
    ]


@pytest.mark.slow
def test_a_grading_told_what_decides_it_stops_there_scored_on_what_ran(doubling):
    wrong = "def double(x):\n    return x * 2 + (x.size > 2)\n"  # wrong on 3 elements and more
    full = grade(doubling, wrong)
    assert [t.outcome for t in full.tests] == ["passed", "failed", "failed"]
    first_failure = grade(doubling, wrong, stop_after=lambda result: result.outcome != "passed")
    assert [(t.name, t.outcome) for t in first_failure.tests] == [
        ("test_doubles_one", "passed"),
        ("test_doubles", "failed"),
    ]
    assert first_failure.verdict == "wrong_answer" and first_failure.message == "1 of 2 tests failed (1 hidden)."
    # The rule decides, not a failure: told to stop at the first visible test, a right answer
    # is graded on that test alone.
    visible = grade(doubling, REFERENCE, stop_after=lambda result: not result.hidden)
    assert [t.name for t in visible.tests] == ["test_doubles_one"] and visible.verdict == "accepted"


def test_visible_only_skips_hidden_tests(doubling):
    report = grade(doubling, REFERENCE, include_hidden=False)
    assert [t.name for t in report.tests] == ["test_doubles_one"]
    assert report.verdict == "accepted"


def test_an_error_while_loading_is_a_runtime_error_with_the_line(doubling):
    report = grade(doubling, "def double(x):\n    return x\n\nraise ValueError('oops')\n")
    assert report.verdict == "runtime_error"
    assert "ValueError: oops" in report.message and "line 4" in report.message


def test_a_missing_reference_is_an_instructors_error(make_problem, problem_root):
    make_problem("orphan", hidden_tests="def test_x(submission):\n    pass\n", reference="")
    (problem_root / "solutions" / "orphan" / "reference.py").unlink()
    with pytest.raises(ReferenceSolutionError, match="no reference solution"):
        grade(load_problem("orphan"), "def answer():\n    return 1\n")


RECORDING_HIDDEN = """
import os

from hypothesis import given

from grader import arrays


@given(x=arrays(dtypes=("int32",), max_side=6))
def test_records_its_examples(submission, x):
    with open(os.environ["EXAMPLES_LOG"], "a") as log:
        log.write(repr(x.tolist()) + "\\n")
    assert submission.double(x) is not None
"""


@pytest.fixture
def recording(make_problem, tmp_path, monkeypatch):
    log = tmp_path / "examples.log"
    monkeypatch.setenv("EXAMPLES_LOG", str(log))
    monkeypatch.setenv("JAXJUDGE_GRADING_SECRET", "a-deployment-secret-1")
    make_problem("recording", hidden_tests=RECORDING_HIDDEN, reference=REFERENCE, entry_points=["double"])
    problem = load_problem("recording")

    def examples_met(code):
        log.write_text("")
        assert grade(problem, code).verdict == "accepted"
        return log.read_text().splitlines()

    return examples_met


@pytest.mark.slow
def test_a_source_meets_the_same_examples_on_every_grading(recording):
    first = recording(REFERENCE)
    assert len(first) == 5 and first == recording(REFERENCE)


@pytest.mark.slow
def test_any_change_to_the_source_meets_new_examples(recording):
    assert recording(REFERENCE) != recording(REFERENCE + "# resubmitted\n")


@pytest.mark.slow
def test_another_deployment_secret_meets_new_examples(recording, monkeypatch):
    first = recording(REFERENCE)
    monkeypatch.setenv("JAXJUDGE_GRADING_SECRET", "another-deployment-secret")
    assert recording(REFERENCE) != first


# Three properties that fail as soon as their list of numbers holds one of size 1 or more
# (the first example, the simplest, passes; nearly every other fails), which leaves shrinking
# many calls' work: towards the list [1.0]. The submission is sent zeros, or ones when the
# example fails; each call prints its number of axes (one per property) and which it got.
SLOW_FAILURES = """
import jax.numpy as jnp
from hypothesis import given
from hypothesis import strategies as st

from grader import assert_same_array

NUMBERS = st.lists(st.floats(-1000, 1000), min_size=1, max_size=8)


def check(submission, shape, numbers):
    x = jnp.full(shape, float(max(abs(number) for number in numbers) >= 1), dtype=jnp.float32)
    assert_same_array(submission.double(x), x * 2)


@given(numbers=NUMBERS)
def test_doubles(submission, numbers):
    check(submission, (3,), numbers)


@given(numbers=NUMBERS)
def test_doubles_matrices(submission, numbers):
    check(submission, (2, 2), numbers)


@given(numbers=NUMBERS)
def test_doubles_scalars(submission, numbers):
    check(submission, (), numbers)
"""

SLOW_AND_WRONG = """import time


def double(x):
    print("call", x.ndim, bool((x == 1).any()))
    time.sleep(0.05)
    return x * 2 + (x == 1)
"""


def calls_after_first_failure(output: str) -> dict[str, int]:
    """For each property (told by the axes of what it sends), the calls from its first failing one on."""
    counts: dict[str, int] = {}
    for line in output.splitlines():
        _, axes, wrong = line.split()
        if axes in counts:
            counts[axes] += 1
        elif wrong == "True":
            counts[axes] = 1
    return counts


@pytest.mark.slow
def test_a_grading_shrinks_its_failures_within_one_budget(make_problem):
    # Three properties that all fail, at 0.05 s a call: bounded per test only, each would shrink
    # for its own SHRINK_SECONDS_PER_TEST; within the grading's budget, the later ones get what
    # the first left, and the last none.
    assert SHRINK_SECONDS_PER_GRADING < 2 * SHRINK_SECONDS_PER_TEST
    make_problem("slow_doubling", hidden_tests=SLOW_FAILURES, reference=REFERENCE, entry_points=["double"])
    report = grade(load_problem("slow_doubling"), SLOW_AND_WRONG)
    assert [test.outcome for test in report.tests] == ["failed"] * 3
    after_failing = calls_after_first_failure(report.hidden_output)
    # Each property's failing example, found and then replayed (6 calls); the calls shrinking
    # makes, as many as the budget's sleeps, and one under way in each of the two tests that had
    # time left when it ran out (7). Bounded per test alone, it made 15 (5 a property).
    most = 2 * 3 + round(SHRINK_SECONDS_PER_GRADING / 0.05) + 2
    assert sorted(after_failing) == ["0", "1", "2"] and sum(after_failing.values()) <= most, after_failing


def test_output_printed_during_hidden_tests_is_kept_from_the_student(doubling):
    code = "import sys\nprint('loading')\n\ndef double(x):\n    print('called with', x.shape)\n    return x * 2\n"
    report = grade(doubling, code)
    assert report.verdict == "accepted"
    # The visible test makes one call; the hidden ones make six (five examples and a fixed case).
    assert "loading" in report.output and report.output.count("called with") == 1
    assert report.hidden_output.count("called with") >= 6 and "loading" not in report.hidden_output
    assert report.to_dict()["hidden_output"] == report.hidden_output


def test_a_run_of_the_visible_tests_has_no_hidden_output(doubling):
    code = "def double(x):\n    print('called')\n    return x * 2\n"
    report = grade(doubling, code, include_hidden=False)
    assert report.output.count("called") == 1 and report.hidden_output == ""


def test_a_sandbox_that_dies_during_the_visible_tests_keeps_its_verdict(doubling):
    # The visible test's call kills the sandbox; the hidden tests then start on a closed pipe.
    code = "import os, signal\n\ndef double(x):\n    os.kill(os.getpid(), signal.SIGKILL)\n"
    report = grade(doubling, code)
    assert report.verdict == "runtime_error", report.message
    assert any("SIGKILL" in test.message for test in report.tests), [t.message for t in report.tests]


def test_the_harness_compiles_with_the_sandboxes_xla_flags(monkeypatch):
    # Set on import of the harness, before JAX starts its backend, and added to an operator's own.
    monkeypatch.setenv("XLA_FLAGS", "--xla_dump_hlo_as_text")
    import_and_print = "import grader.harness, os; print(os.environ['XLA_FLAGS'])"
    flags = subprocess.run(
        [sys.executable, "-c", import_and_print], capture_output=True, text=True, check=True, cwd=REPO_ROOT
    ).stdout.split()
    assert flags == ["--xla_dump_hlo_as_text", *GRADING_XLA_FLAGS]


def test_importing_the_graders_vocabulary_leaves_the_process_as_it_was(monkeypatch):
    # The web process imports verdicts, problems and sources; none of them may rewrite its flags.
    monkeypatch.setenv("XLA_FLAGS", "--xla_dump_hlo_as_text")
    script = (
        "import os, grader, grader.verdicts, grader.problem, grader.source, grader.autograde\n"
        "print(os.environ['XLA_FLAGS'])"
    )
    flags = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, cwd=REPO_ROOT
    ).stdout.split()
    assert flags == ["--xla_dump_hlo_as_text"]


def test_importing_the_harness_starts_no_jax_backend():
    # The flags above are set after `import jax` in the harness: they hold only while no backend
    # has started by the end of its import.
    script = "import grader.harness\nfrom jax._src import xla_bridge\nprint(len(xla_bridge._backends))"
    started = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, cwd=REPO_ROOT
    ).stdout.strip()
    assert started == "0"


def test_grading_processes_share_one_private_hypothesis_cache_and_leave_none_of_their_own(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    shared = _hypothesis_home()
    assert shared == tmp_path / f"jaxjudge-hypothesis-{os.getuid()}"
    assert stat.S_IMODE(shared.stat().st_mode) == 0o700
    assert _hypothesis_home() == shared  # every process of this user, every time
    assert list(tmp_path.iterdir()) == [shared]


def test_a_hypothesis_cache_that_others_can_write_to_is_not_used(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    planted = tmp_path / f"jaxjudge-hypothesis-{os.getuid()}"
    planted.mkdir()
    planted.chmod(0o777)  # as another user of a shared /tmp could have left it
    home = _hypothesis_home()
    assert home != planted and home.parent == tmp_path
    assert stat.S_IMODE(home.stat().st_mode) == 0o700


def test_the_reference_answers_while_the_sandbox_computes(make_problem, tmp_path):
    """Each call of the submission sends the harness's reference to work on the same question in
    a thread, while the sandbox computes; the tests then read those answers."""
    where = tmp_path / "threads.txt"
    reference = (
        "import threading\n\n\ndef double(x):\n"
        f"    with open({str(where)!r}, 'a') as log:\n"
        "        log.write('main\\n' if threading.current_thread() is threading.main_thread() else 'thread\\n')\n"
        "    return x * 2\n"
    )
    make_problem("doubling", hidden_tests=HIDDEN, visible_tests=VISIBLE, reference=reference, entry_points=["double"])
    # (Without the insight, which asks the reference about an accepted submission's input itself.)
    report = grade(load_problem("doubling"), "def double(x):\n    return x + x\n", insight=False)
    assert report.verdict == "accepted", report.message
    ran = where.read_text().split()
    assert ran and set(ran) == {"thread"}, ran  # no question was worked out twice, nor while the test waited
    wrong = grade(load_problem("doubling"), "def double(x):\n    return x * 3\n")
    assert wrong.verdict == "wrong_answer"


def test_a_problems_tests_are_compiled_once_and_a_changed_text_gets_its_own_folder(doubling, monkeypatch, tmp_path):
    from grader import harness

    monkeypatch.setattr(harness, "TESTS_CACHE", tmp_path / "tests")
    monkeypatch.setattr(sys, "dont_write_bytecode", False)  # as a worker runs (PYTHONDONTWRITEBYTECODE unset)
    report = grade(doubling, REFERENCE, insight=False)
    assert report.verdict == "accepted"
    (folder,) = (tmp_path / "tests").iterdir()
    compiled = list((folder / "__pycache__").glob("test_hidden*.pyc"))
    assert compiled  # pytest's rewritten test module, for the next grading to import
    written = {path: path.stat().st_mtime_ns for path in [*folder.iterdir(), *compiled] if path.is_file()}
    assert grade(doubling, REFERENCE + "# again\n", insight=False).verdict == "accepted"
    assert {path: path.stat().st_mtime_ns for path in written} == written  # nothing written again
    with harness._tests_folder({"test_hidden.py": HIDDEN + "\n# the problem changed\n"}) as changed:
        assert changed != folder and (changed / "test_hidden.py").read_text().endswith("# the problem changed\n")
