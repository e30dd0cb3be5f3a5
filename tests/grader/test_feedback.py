"""Feedback in a JAX learner's terms: inputs written as JAX code that gives them back exactly."""

from __future__ import annotations

import types

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grader.feedback import (
    MAX_LITERAL_ELEMENTS,
    failing_input,
    failing_types,
    jax_literal,
    property_sentence,
    types_in_failing_input,
)
from grader.strategies import DEFAULT_DTYPES, arrays


def evaluate(literal: str) -> jax.Array:
    return eval(literal, {"jnp": jnp})  # the literal is our own output, made from our own arrays


def assert_same_values(back: jax.Array, x: jax.Array, literal: str) -> None:
    # Through float64, which holds every value of the small types (NumPy cannot compare bfloat16 NaNs).
    wide = (np.asarray(back).astype(np.float64), np.asarray(x).astype(np.float64))
    np.testing.assert_array_equal(*wide, err_msg=literal)


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(
    x=st.one_of(
        arrays(dtypes=(*DEFAULT_DTYPES, "float64"), min_dims=0, max_dims=3, min_side=0, max_side=3),
        arrays(min_dims=1, max_dims=1, min_side=1, max_side=MAX_LITERAL_ELEMENTS),
    )
)
def test_a_small_array_is_written_as_jax_code_that_gives_it_back_exactly(x):
    literal = jax_literal(x)
    if x.size > MAX_LITERAL_ELEMENTS:
        assert literal is None  # told by its type and shape instead
        return
    assert literal is not None, x
    back = evaluate(literal)
    assert back.dtype == x.dtype and back.shape == x.shape, literal
    assert_same_values(back, x, literal)


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_non_finite_values_read_back_too(dtype):
    x = jnp.array([jnp.nan, jnp.inf, -jnp.inf, 0.1], dtype=dtype)
    literal = jax_literal(x)
    assert literal is not None and "jnp.nan" in literal
    assert_same_values(evaluate(literal), x, literal)


def test_values_read_as_a_person_writes_them():
    assert jax_literal(jnp.array([0.1, 0.2], dtype=jnp.bfloat16)) == "jnp.array([0.1, 0.2], dtype=jnp.bfloat16)"
    assert jax_literal(jnp.array([0.0], dtype=jnp.float32)) == "jnp.array([0.], dtype=jnp.float32)"
    assert jax_literal(jnp.asarray(-7, dtype=jnp.int8)) == "jnp.array(-7, dtype=jnp.int8)"
    assert jax_literal(np.float32(2.5)) == "jnp.float32(2.5)"


def test_a_big_array_is_told_by_its_type_and_shape():
    x = jnp.linspace(-1.0, 1.0, 1031, dtype=jnp.float32)
    assert jax_literal(x) is None
    reference = types.SimpleNamespace(aot_compiled_sum=lambda x: x.sum())
    text = failing_input("aot_compiled_sum", (x,), {}, reference)  # type: ignore[arg-type]
    assert text == "aot_compiled_sum(x)\n  x: float32[1031]"


def test_the_call_names_the_reference_parameters_and_keyword_arguments():
    def power(x, n):
        return x**n

    reference = types.SimpleNamespace(power=power)
    text = failing_input("power", (jnp.array([2.0]),), {"n": 3}, reference)  # type: ignore[arg-type]
    assert text.splitlines() == ["power(x, n=n)", "  x = jnp.array([2.], dtype=jnp.float32)", "  n = 3"]


def test_the_property_is_the_docstring_or_else_the_test_name_as_a_sentence():
    def test_with_doc():
        """Gives the same result whatever the batch size

        More words the student need not read."""

    assert property_sentence(test_with_doc, "test_with_doc") == "Gives the same result whatever the batch size."
    assert property_sentence(None, "test_sums_every_shape_including_empty[x0]") == "Sums every shape including empty."


def test_the_input_is_told_by_its_types_and_shapes_too():
    def power(x, n):
        return x**n

    reference = types.SimpleNamespace(power=power)
    called = ("power", (jnp.zeros((3, 0), dtype=jnp.bfloat16),), {"n": 3})
    assert failing_types(*called, reference) == ["x: bfloat16[3,0]", "n: int"]  # type: ignore[arg-type]
    assert failing_types("f", (np.float32(2.5), [1, 2]), {}, None) == ["arg0: float32[]", "arg1: list[2]"]


@pytest.mark.slow
@settings(max_examples=100, deadline=None)
@given(
    x=st.one_of(
        arrays(dtypes=(*DEFAULT_DTYPES, "float64"), min_dims=0, max_dims=3, min_side=0, max_side=3),
        arrays(min_dims=1, max_dims=1, min_side=1, max_side=40),
        st.integers(),
        st.floats(),
        st.booleans(),
        st.lists(st.integers(), max_size=20),
    )
)
def test_the_types_read_back_from_the_code_text_are_those_told(x):
    # Reports of schema 2 have only the text: their types are read back from it.
    text = failing_input("f", (x,), {"n": x}, None)
    assert types_in_failing_input(text) == failing_types("f", (x,), {"n": x}, None)


@pytest.mark.parametrize(
    "text",
    [
        "f(x)\n  x = __import__('os').system('true')",
        "f(x)\n  x = jnp.array(" + "[" * 5000 + "]" * 5000 + ", dtype=jnp.float32)",
        "f(x)\n  x = jnp.array([1.0]",
        "f(x)\n  x: something else entirely",
    ],
)
def test_text_that_is_not_the_feedback_s_own_reads_as_unknown(text):
    assert types_in_failing_input(text) == ["x: unknown"]
