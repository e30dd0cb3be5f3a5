"""The JAX insight: right figures for the reference solutions, warnings for real mistakes, and
nothing from the sandbox believed unchecked."""

from __future__ import annotations

import re
import types
from typing import Any, cast

import jax
import jax.numpy as jnp
import pytest

from grader.call_records import CallRecord, JaxEvents
from grader.harness import grade_submission
from grader.insight import (
    MAX_LISTED_CALLS,
    artifacts_from_wire,
    call_table,
    collect,
    jitted_by_harness,
    notes_for,
    parameter_names,
    transforms_of,
    warnings_for,
)
from grader.problem import load_problem
from grader.proxy import SubmissionProxy
from grader.source import SubmissionSource, read_submission
from sandbox.host.backends import BwrapBackend
from sandbox.host.prestarted import SandboxPool


@pytest.fixture(scope="module")
def pool():
    """Warm sandboxes, forked as a worker's are: the insight is what a worker would show."""
    with SandboxPool(BwrapBackend()) as pool:
        yield pool


@pytest.fixture(scope="module")
def graded(pool):
    def grade(slug: str, code: str | None = None, *, include_hidden: bool = True):
        problem = load_problem(slug)
        source = read_submission(problem.reference_solution) if code is None else SubmissionSource(code, "solution.py")
        with pool.sandbox() as session:
            return grade_submission(problem, source, session=session, include_hidden=include_hidden)

    return grade


def accepted_artifacts(report, source: str) -> dict:
    """The insight's artifacts of an accepted report, checked to come from ``source``
    (``own_executable``: the executable the code returned; ``entry_point``: its function)."""
    assert report.verdict == "accepted"
    artifacts = report.insight["artifacts"]
    assert artifacts["source"] == source
    return artifacts


def compiled_sum_cost(example: jax.Array) -> dict:
    """XLA's cost analysis of ``jnp.sum`` compiled here for ``example``: what the insight must show."""
    cost = jax.jit(jnp.sum).lower(example).compile().cost_analysis()
    assert cost is not None
    return cost


JIT_PER_CALL = """
import jax
import jax.numpy as jnp


def aot_compiled_sum(x):
    return jax.jit(lambda v: jnp.sum(v))(x)
"""


@pytest.fixture(scope="module")
def aot_compiled_sum(graded):
    return graded("aot_compiled_sum")


@pytest.mark.slow
def test_aot_compiled_sum_is_told_by_the_executable_its_own_code_compiled(aot_compiled_sum):
    artifacts = accepted_artifacts(aot_compiled_sum, "own_executable")
    insight = aot_compiled_sum.insight
    # The first visible test's input, never a hidden one's.
    assert insight["input"] == "aot_compiled_sum(float32[5])"
    assert "not_traceable" in artifacts
    assert "tensor<5xf32>" in artifacts["stablehlo"] and "stablehlo.reduce" in artifacts["stablehlo"]
    expected = compiled_sum_cost(jnp.arange(5, dtype=jnp.float32))
    assert artifacts["cost"]["flops"] == expected["flops"]
    assert artifacts["cost"]["bytes_accessed"] == expected["bytes accessed"]
    # Solved: the reference's own, side by side, made in the harness the same way.
    assert insight["reference"]["cost"] == artifacts["cost"]
    assert insight["reference"]["stablehlo"] == artifacts["stablehlo"]
    assert insight["warnings"] == [] and insight["notes"] == []


@pytest.mark.slow
def test_every_visible_call_of_aot_compiled_sum_traces_and_lowers_and_the_times_add_up(aot_compiled_sum):
    insight = aot_compiled_sum.insight
    rows = insight["calls"]
    assert [row["inputs"] for row in rows] == ["float32[5]", "int32[3]", "float32[4]"]
    assert all(row["traces"] >= 1 and row["lowerings"] == 1 for row in rows)
    assert rows[0]["compiles"] == 1  # the first compile of this process for float32[5]
    for row in rows:
        parts = row["compile_s"] + row["staging_s"] + row["run_s"]
        assert parts == pytest.approx(row["total_s"], abs=2e-4)
    totals = insight["visible_totals"]
    assert totals["calls"] == 3 and totals["traces"] == sum(row["traces"] for row in rows)
    # Of hidden tests only how many calls they made: no inputs of theirs, nor the sandbox's word on them.
    assert set(insight["hidden_totals"]) == {"calls"} and insight["hidden_totals"]["calls"] > 0


@pytest.mark.slow
def test_compile_for_returns_an_executable_which_the_panel_describes(graded):
    report = graded("compile_for")
    artifacts = accepted_artifacts(report, "own_executable")
    shape = report.insight["input"].removeprefix("compile_for(").removesuffix(")")
    assert shape == "float32[2, 2]" and "tensor<2x2xf32>" in artifacts["stablehlo"]
    assert artifacts["cost"]["flops"] == compiled_sum_cost(jnp.ones((2, 2), jnp.float32))["flops"]
    assert report.insight["warnings"] == []


@pytest.mark.slow
def test_static_power_is_traced_with_its_python_number_static_and_noted(graded):
    report = graded("static_power")
    artifacts = accepted_artifacts(report, "entry_point")
    # Its jaxpr, as JAX itself gives it for the first visible input (n = 3 multiplications).
    reference = load_problem("static_power")
    assert report.insight["input"] == "static_power(float32[3])"
    assert artifacts["jaxpr"].count(" mul ") == 3
    assert artifacts["cost"]["flops"] == report.insight["reference"]["cost"]["flops"]
    assert report.insight["warnings"] == []
    # A compile per value of n is what a static argument means: a note, not a warning.
    assert any("compiled for each new value of `n` (" in note for note in report.insight["notes"]), report.insight[
        "notes"
    ]
    assert reference.slug == "static_power"


def test_the_note_names_the_argument_whose_values_each_compiled():
    def compiled(*scalars):  # a jitted power, its n static
        return CallRecord("power", JaxEvents(backend_compile_events=1, jit=1), (), scalars)

    calls = [compiled(("1", str(n)), ("dtype", "1")) for n in range(6)]  # a keyword that never changes
    reference = types.ModuleType("reference")
    exec("def power(x, n, *, dtype=1):\n    return x ** n\n", reference.__dict__)
    assert parameter_names(reference) == {"power": ["x", "n", "dtype"]}
    [note] = notes_for(calls, parameter_names(reference))
    assert note.startswith("power was compiled for each new value of `n` (6 values in the visible tests' calls)")
    # Without the reference's names it is told by its position; a changing keyword by its name.
    [note] = notes_for(calls)
    assert note.startswith("power was compiled for each new value of argument 2 (6 values in")
    [note] = notes_for([compiled(("n", str(n))) for n in range(5)])
    assert "of `n` (5 values in" in note
    # Fewer values than that are nothing to note.
    assert notes_for([compiled(("1", str(n))) for n in range(4)]) == []


def test_a_jit_made_in_every_call_is_warned_about_and_the_verdict_stays(graded):
    # A new lambda each call: JAX's caches, keyed on the function, never hit.
    code = JIT_PER_CALL
    report = graded("aot_compiled_sum", code)
    assert report.verdict == "wrong_answer"  # not compiled ahead of time
    assert any("called jax.jit in each of its" in warning for warning in report.insight["warnings"])
    assert "reference" not in report.insight  # not solved: no reference to compare with


def test_retracing_for_inputs_already_seen_is_warned_about(graded):
    code = (
        "import jax\nimport jax.numpy as jnp\n\n"
        "_sum = jax.jit(lambda x, k: jnp.sum(x), static_argnums=1)\n_calls = 0\n\n"
        "def aot_compiled_sum(x):\n    global _calls\n    _calls += 1\n    return _sum(x, _calls)\n"
    )
    report = graded("aot_compiled_sum", code)
    assert any("traced again" in warning for warning in report.insight["warnings"]), report.insight["warnings"]


def test_a_run_of_the_visible_tests_has_no_hidden_calls_and_no_reference(graded):
    report = graded("aot_compiled_sum", include_hidden=False)
    assert report.verdict == "accepted"
    assert report.insight["hidden_totals"]["calls"] == 0 and "reference" not in report.insight


def test_what_the_sandbox_sends_is_checked_capped_and_made_printable():
    hostile = {
        "source": "<script>",
        "jaxpr": "\x1b[31mred" + "x" * 50_000,
        "stablehlo": 12,
        "cost": {"flops": float("nan"), "bytes accessed": -1, "transcendentals": 2, "secret": 5},
        "extra": "dropped",
    }
    clean = artifacts_from_wire(hostile)
    assert clean["source"] == "entry_point"
    assert clean["jaxpr"].startswith("\\x1b[31mred") and len(clean["jaxpr"]) <= 20_010
    assert "stablehlo" not in clean and "extra" not in clean
    assert clean["cost"] == {"transcendentals": 2.0}
    assert artifacts_from_wire(["not", "a", "dict"]) == {"failed": "the sandbox sent no insight"}


def eager(compiles, jit=0, name="relu", shape=(3,)):
    """A call that compiled ``compiles`` programs, each jnp operation on its own unless ``jit``."""
    events = JaxEvents(trace_events=compiles, lowering_events=compiles, backend_compile_events=compiles, jit=jit)
    return CallRecord(name, events, (((*shape,), "float32"),))


def test_a_function_never_jitted_is_told_in_a_sentence_with_its_count_of_programs():
    [note] = notes_for([eager(3), eager(2), eager(2)])
    assert note.startswith(
        "relu is not jitted: JAX ran each jnp operation on its own and compiled 7 small programs for it in its 3 calls"
    )
    assert notes_for([eager(3), eager(2)], jitted_at_load=True) == []  # @jax.jit at module level
    assert notes_for([eager(3), eager(2, jit=1)]) == []  # one call went through jax.jit
    assert notes_for([eager(2), eager(2)]) == []  # too few programs to be worth a sentence


@pytest.mark.parametrize("label", ["jax.jit(relu)", "jax.jit(jax.vmap(jax.grad(relu)))", "jax.vmap(jax.jit(relu))"])
def test_no_function_the_tests_jit_themselves_is_told_it_is_not_jitted(label):
    # positive_sum's tests call it both as it is and as jax.jit(positive_sum): its plain calls
    # compile op by op because the tests call it so, and a @jax.jit would change nothing they check.
    calls = [eager(3), eager(3), CallRecord(label, JaxEvents(), ()), eager(1, name=label)]
    assert notes_for(calls) == []
    # Even when only a hidden test jits it (the statement says so; no count of theirs is told).
    assert notes_for([eager(3), eager(3), eager(1, name=label)], visible=2) == []
    # A transformation without jit is no reason to keep quiet.
    assert notes_for([eager(3), eager(3), eager(5, name="jax.vmap(relu)")]) != []


def test_transforms_are_read_from_the_harness_s_own_labels():
    assert transforms_of("relu") == ()
    assert transforms_of("jax.jit(jax.vmap(jax.grad(relu)))") == ("grad", "vmap", "jit")
    assert transforms_of("jax.jit(<Compiled>)") is None and transforms_of("insight(relu)") is None
    assert jitted_by_harness([eager(1, name="jax.jit(jax.vmap(relu))"), eager(1, name="jax.grad(f)")]) == {"relu"}


def fake_proxy(calls, hidden_from=None, *, jitted_at_load=False):
    """A proxy as a finished grading leaves it: its calls, where the hidden tests began."""
    proxy = SubmissionProxy(cast(Any, None))
    proxy.calls = list(calls)
    proxy.hidden_from = hidden_from
    proxy.load_events = JaxEvents(jit=int(jitted_at_load))
    return proxy


def numbers(text):
    return [int(number) for number in re.findall(r"\b(\d+) (?:small programs?|calls?|values?|times?)\b", text)]


def test_the_headline_the_notes_and_the_table_count_the_same_visible_calls():
    quiet = CallRecord("relu", JaxEvents(seconds=0.01), (((3,), "float32"),))
    visible = [eager(3), eager(2), quiet]
    hidden = [eager(4, shape=(n,)) for n in range(1, 11)]  # 40 more programs, none of them said
    insight = collect(fake_proxy([*visible, *hidden], hidden_from=3), None, with_reference=False)
    totals = insight["visible_totals"]
    assert (totals["calls"], totals["traces"], totals["compiles"]) == (3, 5, 5)
    # The table's rows and the calls it leaves out add up to the headline.
    rows = insight["calls"]
    assert len(rows) + insight["quiet_calls"] == totals["calls"] and "more_calls" not in insight
    assert sum(row["compiles"] for row in rows) == totals["compiles"]
    assert sum(row["traces"] for row in rows) == totals["traces"]
    assert insight["quiet_run_s"] == pytest.approx(0.01)
    # The note quotes the very same counts: 5 programs in 3 calls, not the 45 in 13 of all calls.
    [note] = insight["notes"]
    assert "compiled 5 small programs for it in its 3 calls from the visible tests" in note, note
    assert numbers(note) == [totals["compiles"], totals["calls"]]
    assert "45" not in note and "13" not in note
    assert insight["hidden_totals"] == {"calls": 10}


def test_a_note_whose_pattern_only_hidden_calls_show_tells_no_count_of_theirs():
    hidden = [eager(3, shape=(n,)) for n in range(1, 4)]
    insight = collect(fake_proxy([*hidden], hidden_from=0), None, with_reference=False)
    [note] = insight["notes"]
    assert "in the hidden tests' calls" in note and numbers(note) == []
    assert insight["visible_totals"]["compiles"] == 0


def test_a_retrace_is_told_by_a_visible_input_only():
    def traced(shape):
        return CallRecord("f", JaxEvents(trace_events=1, jit=0), (((shape,), "float32"),))

    visible = [traced(2), traced(2)]  # one retrace seen
    hidden = [traced(7)] * 4  # three more, on a hidden input's shape
    [warning] = warnings_for([*visible, *hidden], visible=2)
    assert warning.startswith("f was traced again 1 time in the visible tests' calls, for inputs it had already seen")
    assert "float32[2]" in warning and "float32[7]" not in warning
    [warning] = warnings_for(hidden, visible=0)
    assert "in the hidden tests' calls" in warning and "[7]" not in warning


def test_the_table_lists_forty_busy_calls_and_sums_the_rest_so_that_the_parts_add_up():
    rows = [{"traces": 1, "lowerings": 1, "compiles": n % 3, "compile_s": 0.001, "staging_s": 0.002,
             "setup_s": 0.003, "run_s": 0.004, "total_s": 0.007} for n in range(55)]  # fmt: skip
    table = call_table(rows)
    assert len(table["calls"]) == MAX_LISTED_CALLS and table["more_calls"]["calls"] == 15
    for key in ("calls", "traces", "compiles"):
        listed = len(table["calls"]) if key == "calls" else sum(row[key] for row in table["calls"])
        assert listed + table["more_calls"][key] == table["visible_totals"][key], key
    parts = sum(row["run_s"] for row in table["calls"]) + table["more_calls"]["run_s"] + table["quiet_run_s"]
    assert parts == pytest.approx(table["visible_totals"]["run_s"])


def test_a_call_outside_jit_that_compiled_several_programs_says_why():
    insight = collect(fake_proxy([eager(4), eager(1), eager(4, name="jax.jit(relu)")]), None, with_reference=False)
    assert [row["op_by_op"] for row in insight["calls"]] == [True, False, False]
    decorated = collect(fake_proxy([eager(4)], jitted_at_load=True), None, with_reference=False)
    assert decorated["calls"][0]["op_by_op"] is False


@pytest.mark.slow
def test_positive_sum_whose_tests_jit_it_gets_no_note_to_jit_it(graded):
    report = graded("positive_sum")
    assert report.verdict == "accepted"
    assert not any("not jitted" in note for note in report.insight["notes"]), report.insight["notes"]
    # Its plain calls compile op by op, and their rows say so.
    assert any(row["op_by_op"] for row in report.insight["calls"] if row["call"] == "positive_sum")


@pytest.mark.slow
def test_a_function_never_jitted_is_told_with_the_headline_s_own_counts(graded):
    # aot_compiled_sum's tests never jit it: an eager jnp.sum is worth the note.
    report = graded(
        "aot_compiled_sum", "import jax.numpy as jnp\n\n\ndef aot_compiled_sum(x):\n    return jnp.sum(x)\n"
    )
    insight = report.insight
    [note] = [note for note in insight["notes"] if "not jitted" in note]
    totals = insight["visible_totals"]
    assert numbers(note) == [totals["compiles"], totals["calls"]], (note, totals)
    assert insight["hidden_totals"]["calls"] > 0


@pytest.mark.slow
def test_rows_are_named_by_what_made_them_and_calls_where_jax_did_nothing_are_counted(graded):
    report = graded("loop_sum_squares")
    names = [row["call"] for row in report.insight["calls"]]
    assert "jax.jit(loop_sum_squares)" in names, names
    assert not any(name.startswith("<") for name in names), names
    predicted = graded("predict_retraces")
    # Its code predicts without running JAX: no row of zeros, a count instead.
    assert predicted.insight["calls"] == [] and predicted.insight["quiet_calls"] >= 1
