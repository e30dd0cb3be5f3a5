import types

import jax
import jax.numpy as jnp
import numpy as np

from grader.proxy import PortableFunction
from grader.reference import ReferenceSolution, input_key


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
