import os
import threading
import types
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from grader.portable_function import PortableFunction
from grader.reference import TRIAL_ANTICIPATIONS, ReferenceSolution, input_key


def counting_module(name: str) -> tuple[types.ModuleType, list[int]]:
    calls: list[int] = []
    module = types.ModuleType(name)

    def names(x):
        calls.append(1)
        return ["sum", str(x.dtype)]

    module.names = names  # type: ignore[attr-defined]
    return module, calls


def test_the_same_input_is_answered_from_the_cache_with_a_fresh_copy():
    module, calls = counting_module("cache_test_one")
    reference = ReferenceSolution(module)
    first = reference.names(jnp.ones(3))
    first.append("changed by a test")
    assert reference.names(jnp.ones(3)) == ["sum", "float32"]
    assert len(calls) == 1
    reference.names(jnp.ones(3, dtype=jnp.int32))
    reference.names(np.ones(3, dtype=np.float32))  # a NumPy input is not the same input
    assert len(calls) == 3


def test_keys_tell_apart_what_the_reference_could_tell_apart():
    assert input_key(jnp.ones(2)) != input_key(jnp.ones(2, dtype=jnp.float16))
    assert input_key(jnp.ones(2)) != input_key(jnp.ones((2, 1)))
    assert input_key(jnp.asarray([1.0, 2.0])) != input_key(jnp.asarray([1.0, 3.0]))
    assert input_key(PortableFunction("def f(x):\n    return x\n")) is not None
    assert input_key(object()) is None
    assert input_key((jnp.ones(1), object())) is None
    assert input_key({"b": 1, "a": (2.0, "x")}) == input_key({"a": (2.0, "x"), "b": 1})
    assert input_key({"a": 1}) != input_key({"a": 1.0}) != input_key({"a": True})
    assert input_key({"a": object()}) is None
    spec = jax.ShapeDtypeStruct((2, 0), jnp.bfloat16)
    assert input_key(spec) == input_key(jax.ShapeDtypeStruct((2, 0), jnp.bfloat16))
    assert input_key(spec) != input_key(jax.ShapeDtypeStruct((2, 0), jnp.float16))
    assert input_key(spec) != input_key(jax.ShapeDtypeStruct((0, 2), jnp.bfloat16))


def test_inputs_without_a_key_are_never_cached():
    module, calls = counting_module("cache_test_two")

    def identity(value):
        calls.append(1)
        return value

    module.identity = identity  # type: ignore[attr-defined]
    reference = ReferenceSolution(module)
    marker = object()
    assert reference.identity(marker) is marker
    reference.identity(marker)
    assert len(calls) == 2
    assert repr(reference) == "reference"


def test_results_holding_compiled_executables_come_back_without_a_deep_copy():
    module = types.ModuleType("cache_test_three")
    module.cache = lambda x: {tuple(x.shape): jax.jit(jnp.sum).lower(x).compile()}  # type: ignore[attr-defined]
    reference = ReferenceSolution(module)
    first, second = reference.cache(jnp.ones(3)), reference.cache(jnp.ones(3))
    assert first is not second and first[(3,)] is second[(3,)]  # the same executable, a fresh dict
    assert float(first[(3,)](jnp.ones(3))) == 3.0


def test_portable_functions_carry_their_name_into_jax():
    f = PortableFunction("def f(x):\n    return x * 2\n")
    assert getattr(f, "__name__", None) == "f"
    assert "@jit_f" in jax.jit(f).lower(jnp.ones(2)).as_text()


def helper_in_file(folder, text: str, name: str):
    """A helper defined in a test file of its own, imported afresh as each grading does; the
    list of its runs is ``helper.runs``."""
    path = folder / "test_hidden.py"
    path.write_text(text)
    namespace: dict = {}
    exec(compile(text, str(path), "exec"), namespace)
    helper = namespace[name]
    helper.runs = namespace["calls"]
    return helper


COUNTING_HELPER = """
from grader import remembered

calls = []

@remembered
def truth(reference, xs, dtype):
    calls.append(1)
    return [float(x) * 2 for x in xs] + [str(dtype)]
"""


def test_remembered_helpers_answer_the_next_import_of_the_same_file_from_memory(tmp_path):
    reference = ReferenceSolution(counting_module("remembered_one")[0])
    first = helper_in_file(tmp_path, COUNTING_HELPER, "truth")
    answer = first(reference, (1.0, jnp.float32(2)), np.dtype("float16"))
    answer.append("changed by a test")
    again = helper_in_file(tmp_path, COUNTING_HELPER, "truth")  # the next grading's import
    assert again(reference, (1.0, jnp.float32(2)), np.dtype("float16")) == [2.0, 4.0, "float16"]
    assert again.runs == []  # answered without running
    again(reference, (-0.0, jnp.float32(2)), np.dtype("float16"))  # -0.0 is another input than 0.0 or 1.0
    again(reference, (1.0, jnp.float32(2)), np.dtype("float32"))
    again(reference, (1.0, jnp.float16(2)), np.dtype("float16"))
    assert len(again.runs) == 3


def test_a_changed_test_file_or_reference_starts_afresh(tmp_path):
    helper = helper_in_file(tmp_path, COUNTING_HELPER, "truth")
    reference = ReferenceSolution(counting_module("remembered_two")[0])
    helper(reference, (3.0,), np.dtype("int8"))
    changed = helper_in_file(tmp_path, COUNTING_HELPER + "\n# edited\n", "truth")
    changed(reference, (3.0,), np.dtype("int8"))
    assert changed.runs == [1]
    other = ReferenceSolution(counting_module("remembered_three")[0])
    changed(other, (3.0,), np.dtype("int8"))
    assert changed.runs == [1, 1]


def test_remembered_helpers_run_every_time_for_arguments_without_a_key(tmp_path):
    helper = helper_in_file(tmp_path, COUNTING_HELPER.replace("float(x) * 2 for x in xs", "x for x in xs"), "truth")
    marker = object()
    helper(None, (marker,), np.dtype("int8"))
    assert helper(None, (marker,), np.dtype("int8"))[0] is marker
    assert len(helper.runs) == 2


def test_transformed_references_are_jax_transformations_answered_from_memory():
    module = types.ModuleType("transformed_one")
    traces: list[int] = []

    def cube(x):
        traces.append(1)
        return x**3

    module.cube = cube  # type: ignore[attr-defined]
    reference = ReferenceSolution(module)
    x = jnp.asarray([1.0, 2.0])
    slopes = reference.transformed("cube", "grad", ("vmap", {"in_axes": 0}), "jit")
    np.testing.assert_allclose(slopes(x), [3.0, 12.0])
    traced = len(traces)
    # The next grading builds it again; its answer for the same input comes from memory.
    again = ReferenceSolution(module).transformed("cube", "grad", ("vmap", {"in_axes": 0}), "jit")
    np.testing.assert_allclose(again(x), [3.0, 12.0])
    assert len(traces) == traced
    np.testing.assert_allclose(reference.transformed("cube", "grad", "vmap")(x), [3.0, 12.0])  # other transforms
    assert len(traces) > traced


def test_transformations_the_sandbox_does_not_offer_are_refused():
    reference = ReferenceSolution(counting_module("transformed_two")[0])
    for spec in ("make_jaxpr", "pmap", ("grad", {"has_aux": True})):
        try:
            reference.transformed("names", spec)
        except ValueError as exc:
            assert "cannot apply" in str(exc)
        else:
            raise AssertionError(f"{spec} was applied")


def test_an_anticipated_answer_is_worked_out_in_a_thread_and_answers_the_test():
    module = types.ModuleType("anticipated_one")
    threads: list[str] = []

    def double(x):
        threads.append(threading.current_thread().name)
        return x * 2

    module.double = double  # type: ignore[attr-defined]
    reference = ReferenceSolution(module)
    wait = reference.anticipate("double", (), (jnp.arange(3),), {})
    wait()
    assert len(threads) == 1 and threads[0] != threading.main_thread().name
    np.testing.assert_array_equal(reference.double(jnp.arange(3)), [0, 2, 4])  # from memory
    assert len(threads) == 1
    # Under transformations as submission.transformed names them.
    reference.anticipate("double", ("vmap", "jit"), (jnp.ones((2, 2)),), {})()
    np.testing.assert_array_equal(reference.transformed("double", "vmap", "jit")(jnp.ones((2, 2))), 2 * np.ones((2, 2)))
    assert len(threads) == 2


def test_what_cannot_be_anticipated_is_left_to_the_test():
    module = types.ModuleType("anticipated_two")
    module.fails = lambda x: 1 / 0  # type: ignore[attr-defined]
    module.constant = 3  # type: ignore[attr-defined]
    reference = ReferenceSolution(module)
    for name, transforms, args in (
        ("missing", (), (1.0,)),  # the reference has no such function
        ("constant", (), (1.0,)),  # not a function
        ("fails", ("pmap",), (1.0,)),  # a transformation the sandbox does not offer
        ("fails", (), (object(),)),  # an argument without a key
    ):
        assert reference.anticipate(name, transforms, args, {})() is None
    reference.anticipate("fails", (), (2.0,), {})()  # its error is dropped...
    try:
        reference.fails(2.0)
    except ZeroDivisionError:
        pass  # ...and met again by the test that asks
    else:
        raise AssertionError("an anticipated error was remembered as an answer")


def squaring_reference(name: str) -> tuple[ReferenceSolution, list[int]]:
    """A reference whose ``square`` counts its runs."""
    module = types.ModuleType(name)
    runs: list[int] = []

    def square(x):
        runs.append(1)
        return x * x

    module.square = square  # type: ignore[attr-defined]
    return ReferenceSolution(module), runs


def test_answers_never_asked_for_stop_being_anticipated():
    reference, runs = squaring_reference("anticipated_three")
    for value in range(12):
        reference.anticipate("square", (), (float(value),), {})()
    assert len(runs) == TRIAL_ANTICIPATIONS  # never asked for: not a question tests of this reference ask
    answering, asked = squaring_reference("anticipated_four")
    for value in range(12):
        answering.anticipate("square", (), (float(value),), {})()
        assert answering.square(float(value)) == value * value
    assert len(asked) == 12  # each worked out once, in the thread, and asked for


COUNTING_REFERENCE = """
import jax.numpy as jnp

CALLS = []


def positive_sum(x):
    CALLS.append(1)
    return jnp.sum(jnp.where(x > 0, x, jnp.zeros((), dtype=x.dtype)))
"""


def staged_problem(folder, reference_text: str):
    """positive_sum with a reference of ``reference_text``, installed under ``folder``."""
    import shutil

    from grader.problem import load_problem, problems_dir

    (folder / "solutions" / "positive_sum").mkdir(parents=True, exist_ok=True)
    (folder / "solutions" / "positive_sum" / "reference.py").write_text(reference_text)
    shutil.copy(problems_dir() / "positive_sum.ipynb", folder / "positive_sum.ipynb")
    return load_problem(folder / "positive_sum.ipynb", solutions_root=folder / "solutions")


def restart(store_directory) -> None:
    """What a worker restarted has lost: everything in memory; the disk stays."""
    import grader.reference as memory

    memory.flush_answers()
    memory.forget_store()
    for kept in (memory._expected, memory._modules, memory._transformed, memory._unasked):
        kept.clear()
    assert os.environ[memory.STORE_VARIABLE] == str(store_directory)


def answers_after_restart(tmp_path, monkeypatch, reference_text: str, x) -> tuple[Any, list[int]]:
    from grader.reference import load_reference

    restart(tmp_path / "store")
    module = load_reference(staged_problem(tmp_path, reference_text))
    return ReferenceSolution(module).positive_sum(x), module.CALLS


@pytest.fixture
def store(tmp_path, monkeypatch):
    from grader.reference import STORE_VARIABLE, forget_store

    monkeypatch.setenv(STORE_VARIABLE, str(tmp_path / "store"))
    forget_store()
    yield tmp_path / "store"
    forget_store()


def test_a_reference_answer_survives_a_restart(tmp_path, monkeypatch, store):
    x = jnp.array([1.0, -2.0, 3.0])
    answer, calls = answers_after_restart(tmp_path, monkeypatch, COUNTING_REFERENCE, x)
    assert calls == [1] and float(answer) == 4.0
    again, calls = answers_after_restart(tmp_path, monkeypatch, COUNTING_REFERENCE, x)
    assert calls == [] and float(again) == 4.0  # from disk: the new process's reference never ran
    assert again.dtype == answer.dtype and again.weak_type == answer.weak_type
    other, calls = answers_after_restart(tmp_path, monkeypatch, COUNTING_REFERENCE, jnp.array([1.0, -2.0, 5.0]))
    assert calls == [1] and float(other) == 6.0  # another input is computed


def test_a_changed_reference_never_reads_the_old_answer(tmp_path, monkeypatch, store):
    x = jnp.array([1.0, -2.0, 3.0])
    answers_after_restart(tmp_path, monkeypatch, COUNTING_REFERENCE, x)
    changed = COUNTING_REFERENCE.replace("x > 0", "x > 1")  # the problem's text changed
    answer, calls = answers_after_restart(tmp_path, monkeypatch, changed, x)
    assert calls == [1] and float(answer) == 3.0


def test_another_jax_never_reads_the_old_answer(tmp_path, monkeypatch, store):
    import grader.reference as memory

    x = jnp.array([1.0, -2.0, 3.0])
    answers_after_restart(tmp_path, monkeypatch, COUNTING_REFERENCE, x)
    monkeypatch.setattr(memory, "environment", lambda: ("another", "jax", jax.__version__ + ".post1"))
    _, calls = answers_after_restart(tmp_path, monkeypatch, COUNTING_REFERENCE, x)
    assert calls == [1]


def test_an_entry_not_signed_with_the_grading_secret_is_never_read(tmp_path, monkeypatch, store):
    import pickle
    import sqlite3

    x = jnp.array([1.0, -2.0, 3.0])
    answers_after_restart(tmp_path, monkeypatch, COUNTING_REFERENCE, x)
    restart(store)  # its answer written
    with sqlite3.connect(store / "answers.sqlite3") as database:
        assert database.execute("UPDATE answers SET value = ?", (pickle.dumps(99.0),)).rowcount == 1
    answer, calls = answers_after_restart(tmp_path, monkeypatch, COUNTING_REFERENCE, x)
    assert calls == [1] and float(answer) == 4.0


def test_remembered_answers_survive_a_restart_until_the_test_file_changes(tmp_path, store):
    reference = ReferenceSolution(counting_module("remembered_on_disk")[0])
    helper = helper_in_file(tmp_path, COUNTING_HELPER, "truth")
    helper(None, (1.0, 2.0), np.dtype("int8"))
    assert helper.runs == [1]
    restart(store)
    again = helper_in_file(tmp_path, COUNTING_HELPER, "truth")
    assert again(None, (1.0, 2.0), np.dtype("int8")) == [2.0, 4.0, "int8"] and again.runs == []
    # A reference that is not named by its file's text is this process's only: never on disk.
    again(reference, (1.0,), np.dtype("int8"))
    restart(store)
    after = helper_in_file(tmp_path, COUNTING_HELPER, "truth")
    after(reference, (1.0,), np.dtype("int8"))
    assert after.runs == [1]
    changed = helper_in_file(tmp_path, COUNTING_HELPER + "\n# the hidden tests changed\n", "truth")
    changed(None, (1.0, 2.0), np.dtype("int8"))
    assert changed.runs == [1]


def test_a_reference_is_imported_once_per_text_of_its_file(tmp_path, store):
    from grader.reference import load_reference

    problem = staged_problem(tmp_path, COUNTING_REFERENCE)
    first = load_reference(problem)
    assert load_reference(problem) is first
    staged_problem(tmp_path, COUNTING_REFERENCE + "\n# edited\n")
    assert load_reference(problem) is not first  # the file's new text


def test_the_store_keeps_the_newest_answers_and_none_too_large(tmp_path, monkeypatch):
    import grader.reference as memory

    monkeypatch.setattr(memory, "MAX_STORED_ANSWERS", 2)
    store = memory.AnswerStore(tmp_path, b"a-grading-secret-of-16")

    def key(n: int) -> tuple[Any, ...]:
        return ((("reference", "jaxjudge_reference_p", "c0ffee"), "f"), ("int", str(n)))

    for n in range(3):
        store.put(key(n), [n])
    store.put(key(3), np.zeros(memory.MAX_STORED_ANSWER_BYTES, np.uint8))  # over the size: memory only
    store.flush()
    assert [store.get(key(n)) for n in range(4)] == [(False, None), (True, [1]), (True, [2]), (False, None)]
    # Answers whose identity is not named by text (a reference by path and time) never go there.
    transient = (("jaxjudge_reference_p", "/p/reference.py", 1), "f")
    store.put((transient, ("int", "1")), [1])
    store.flush()
    assert store.get((transient, ("int", "1"))) == (False, None)
