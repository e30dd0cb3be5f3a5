import jax
import jax.numpy as jnp
import numpy as np
import pytest

from grader.assertions import assert_same_array, assert_same_value
from grader.channel_values import WideJaxArray


def test_equal_jax_arrays_pass():
    assert_same_array(jnp.asarray([1.0, 2.0]), jnp.asarray([1.0, 2.0]))


@pytest.mark.parametrize(
    ("actual", "message"),
    [
        (np.float32(3.0), "a NumPy scalar of type numpy.float32, but a jax.Array"),
        (np.asarray(3.0, dtype=np.float32), "numpy.ndarray"),
        (jnp.asarray([3.0]), "has shape (1,), but shape () was expected"),
        (jnp.asarray(3, dtype=jnp.int32), "has dtype int32, but dtype float32 was expected"),
        (jnp.asarray(jnp.nan), "is nan at index ()"),
        (jnp.asarray(3.5), "is 3.5, but 3.0 was expected"),
        (WideJaxArray(np.asarray(3.0)), "has dtype float64"),
        ("3.0", "a str"),
    ],
)
def test_each_kind_of_difference_has_its_message(actual, message):
    with pytest.raises(AssertionError) as error:
        assert_same_array(actual, jnp.asarray(3.0, dtype=jnp.float32))
    assert message in str(error.value)


def test_integers_must_match_exactly_floats_within_tolerance():
    assert_same_array(jnp.asarray(1.0 + 1e-7), jnp.asarray(1.0))
    with pytest.raises(AssertionError, match="differs at index"):
        assert_same_array(jnp.asarray([1, 2]), jnp.asarray([1, 3]))


def test_objects_claiming_equality_are_not_arrays():
    class AlwaysEqual:
        def __eq__(self, other):
            return True

    with pytest.raises(AssertionError, match="AlwaysEqual"):
        assert_same_array(AlwaysEqual(), jnp.asarray(1.0))
    with pytest.raises(AssertionError, match="AlwaysEqual"):
        assert_same_value(AlwaysEqual(), ["sin"])


def test_plain_values_compare_types_recursively():
    assert_same_value(["sin", "add"], ["sin", "add"])
    with pytest.raises(AssertionError, match="but a list was expected"):
        assert_same_value(("sin", "add"), ["sin", "add"])
    with pytest.raises(AssertionError, match="has 1 items, but 2 were expected"):
        assert_same_value(["sin"], ["sin", "add"])
    with pytest.raises(AssertionError, match="item 1 of your result is 'mul'"):
        assert_same_value(["sin", "mul"], ["sin", "add"])


def test_a_jax_array_is_what_the_harness_builds_from_a_jax_result():
    assert isinstance(jax.device_put(np.ones(2, np.float32)), jax.Array)


def test_bfloat16_values_and_dtypes_are_checked():
    expected = jnp.asarray([1.0, 2.0, 3.0], dtype=jnp.bfloat16)
    assert_same_array(jnp.asarray([1.0, 2.0, 3.0], dtype=jnp.bfloat16), expected)
    with pytest.raises(AssertionError, match="differs at index"):
        assert_same_array(jnp.asarray([1.0, 2.0, 3.5], dtype=jnp.bfloat16), expected)
    with pytest.raises(AssertionError, match="dtype float32, but dtype bfloat16 was expected"):
        assert_same_array(jnp.asarray([1.0, 2.0, 3.0], dtype=jnp.float32), expected)
    with pytest.raises(AssertionError, match="where a finite value was expected"):
        assert_same_array(jnp.asarray([1.0, jnp.nan, 3.0], dtype=jnp.bfloat16), expected)
