"""The harness's proxy over a real bwrap sandbox: values, handles, exceptions, JAX events."""

import textwrap

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from grader.assertions import assert_compiled_ahead_of_time, assert_handle_kind, assert_same_array
from grader.jaxpr_summary import NamedShardingSummary
from grader.portable_function import PortableFunction
from grader.proxy import SubmissionProxy
from grader.remote_handle import RemoteHandle
from grader.submission_exceptions import RaisedBySubmission
from sandbox.host.backends import BwrapBackend
from sandbox.host.session import SandboxSession
from sandbox.protocol import ShapeDtype

SOURCE = """
import jax
import jax.numpy as jnp
import numpy as np

class CustomValueError(ValueError):
    pass

def aot(x):
    return jax.jit(jnp.sum).lower(x).compile()(x)

def compiled_for(x):
    return jax.jit(jnp.sum).lower(x).compile()

def lowered_for(x):
    return jax.jit(jnp.sum).lower(x)

def exported_for(x):
    return jax.export.export(jax.jit(jnp.sum))(x)

def compile_dummy(x):
    dummy = jnp.zeros(3)
    jax.jit(jnp.sum).lower(dummy).compile()(dummy)
    return jnp.sum(x)

def jitted():
    return jax.jit(jnp.sum)

class Compiled:
    pass

Compiled.__module__, Compiled.__qualname__ = "jax._src.stages", "Compiled"

def impostor():
    return Compiled()

def make_adder(k):
    return lambda v: v + k

def divide(a, b):
    return a / b

def custom():
    raise CustomValueError("bad value")

def concretize(x):
    return jax.jit(lambda v: int(v))(x)

def numpy_things():
    return np.float32(1.5), np.arange(3), [1, "two", (3.0, None)], {"k": jnp.ones(2)}

def apply(f, *args):
    return f(*args)

def wide():
    jax.config.update("jax_enable_x64", True)
    return jnp.asarray(1.0, dtype=jnp.float64)

def relu(x):
    return jnp.maximum(x, 0)

def cumsum(x):
    return jax.lax.scan(lambda c, v: (c + v, c + v), jnp.zeros((), x.dtype), x)[1]

class ClaimsASplit(jax.sharding.NamedSharding):
    @property
    def spec(self):
        return jax.sharding.PartitionSpec("d")

def forged_split(x):
    mesh = jax.make_mesh((1,), ("d",))
    return jax.device_put(x, ClaimsASplit(mesh, jax.sharding.PartitionSpec()))

def placed(x):
    mesh = jax.make_mesh((1,), ("d",))
    y = jax.device_put(x, jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec(("d",))))
    return jax.jit(jnp.sum)(y) + 1.0

def output_spec(spec):
    return jax.eval_shape(lambda v: v.sum(axis=0), spec)

def cache_by_shape(xs):
    return {tuple(x.shape): jax.jit(jnp.sum).lower(x).compile() for x in xs}

def serialized(x):
    return jax.export.export(jax.jit(jnp.sin))(x).serialize()

@jax.custom_jvp
def softplus(x):
    return jnp.logaddexp(x, 0.0)

softplus.defjvp(lambda primals, tangents: (softplus(primals[0]), jax.nn.sigmoid(primals[0]) * tangents[0]))

def poly_export():
    spec = jax.ShapeDtypeStruct(jax.export.symbolic_shape("n"), jnp.float32)
    return jax.export.export(jax.jit(jnp.sum))(spec)

def replace_grad():
    jax.grad = lambda f: (lambda x: "forged")
    return 1
"""


@pytest.fixture(scope="module")
def submission():
    with SandboxSession(BwrapBackend()) as session:
        yield SubmissionProxy.load(session, textwrap.dedent(SOURCE), "submission.py")


def test_aot_call_counts_api_calls_and_monitoring_events(submission):
    x = jnp.arange(7, dtype=jnp.float32)
    assert_same_array(submission.aot(x), jnp.asarray(21.0, dtype=jnp.float32))
    events = submission.last_call.events
    assert (events.jit, events.lower, events.compile, events.compiled_call) == (1, 1, 1, 1)
    assert events.trace_events >= 1 and events.lowering_events >= 1 and events.backend_compile_events >= 1
    assert events.compile_seconds > 0


def test_the_cache_neither_fools_nor_fails_the_api_counts(submission):
    x = jnp.arange(9, dtype=jnp.int32)
    submission.aot(x)
    submission.aot(x)  # same signature: JAX serves the executable from its cache
    events = submission.last_call.events
    assert (events.lower, events.compile, events.compiled_call) == (1, 1, 1)
    assert events.backend_compile_events == 0


def test_compiled_executables_stay_behind_handles(submission):
    x = jnp.ones((2, 3), dtype=jnp.float32)
    compiled = submission.compiled_for(x)
    assert isinstance(compiled, RemoteHandle)
    assert compiled.type_name == "jax._src.stages.Compiled" and compiled.is_callable
    assert_same_array(compiled(x), jnp.asarray(6.0, dtype=jnp.float32))
    assert "HloModule" in compiled.as_text()
    with pytest.raises(TypeError) as error:
        compiled(jnp.ones((3, 2), dtype=jnp.float32))
    assert isinstance(error.value, RaisedBySubmission)


def test_lowered_and_exported_objects_are_handles_too(submission):
    x = jnp.ones(4)
    lowered = submission.lowered_for(x)
    assert lowered.type_name == "jax._src.stages.Lowered"
    assert "stablehlo" in lowered.as_text()
    assert submission.exported_for(x).type_name.endswith("Exported")
    compiled = lowered.compile()
    assert_same_array(compiled(x), jnp.asarray(4.0))


def test_functions_come_back_as_callable_handles_and_go_in_as_source(submission):
    adder = submission.make_adder(2)
    assert adder.is_callable
    assert_same_array(adder(jnp.ones(2)), jnp.full(2, 3.0))
    double = PortableFunction("def f(v):\n    return v * 2\n")
    assert_same_array(submission.apply(double, jnp.ones(3)), jnp.full(3, 2.0))


def test_only_allow_listed_members_are_reachable(submission):
    compiled = submission.compiled_for(jnp.ones(2))
    with pytest.raises(AttributeError, match="not allowed"):
        compiled.call_method("__reduce__")
    with pytest.raises(AttributeError, match="not allowed"):
        compiled.attribute("_executable")
    with pytest.raises(AttributeError):
        compiled._private  # noqa: B018 - reading it is the test


@pytest.mark.parametrize(
    ("call", "builtin", "text"),
    [
        (lambda s: s.divide(1, 0), ZeroDivisionError, "division by zero"),
        (lambda s: s.custom(), ValueError, "CustomValueError: bad value"),
        (lambda s: s.concretize(jnp.ones(())), TypeError, "ConcretizationTypeError"),
        (lambda s: s.no_such_function(), AttributeError, "no function named 'no_such_function'"),
    ],
)
def test_exceptions_cross_as_their_builtin_type(submission, call, builtin, text):
    with pytest.raises(builtin, match=text):
        call(submission)


def test_numpy_and_plain_values_keep_their_kinds(submission):
    scalar, array, plain, mapping = submission.numpy_things()
    assert type(scalar) is np.float32 and scalar == 1.5
    assert type(array) is np.ndarray and array.tolist() == [0, 1, 2]
    assert plain == [1, "two", (3.0, None)]
    assert isinstance(mapping["k"], jax.Array)


def test_a_64_bit_result_is_not_silently_narrowed(submission):
    with pytest.raises(AssertionError, match="float64"):
        assert_same_array(submission.wide(), jnp.asarray(1.0, dtype=jnp.float32))


def test_stage_records_tie_the_aot_path_to_the_call_s_own_input(submission):
    x = jnp.arange(5, dtype=jnp.int32)
    submission.aot(x)
    stages = submission.last_call.events.stages
    assert [record.stage for record in stages] == ["lower", "compile", "call"]
    lower, compile, call = stages
    signature = (((5,), "int32"),)
    assert lower.signature == compile.signature == call.signature == signature
    assert compile.source == lower.id and call.source == compile.id
    assert call.from_inputs == (True,) and call.returned
    assert submission.last_call.inputs == signature
    assert_compiled_ahead_of_time(submission)


def test_compiling_a_stand_in_does_not_pass_for_the_input(submission):
    submission.compile_dummy(jnp.ones(7))
    with pytest.raises(
        AssertionError, match=r"did not lower the function for its input \(float32\[7\]\).*float(32|64)\[3\]"
    ):
        assert_compiled_ahead_of_time(submission)


def test_an_executable_from_an_earlier_call_counts_only_when_not_fresh(submission):
    x = jnp.ones((2, 2), dtype=jnp.float32)
    compiled = submission.compiled_for(x)
    compiled(x)
    assert_compiled_ahead_of_time(submission, fresh=False)
    with pytest.raises(AssertionError, match=r"did not wrap the function with jax\.jit"):
        assert_compiled_ahead_of_time(submission)


def test_handle_kinds_come_from_the_real_classes(submission):
    x = jnp.ones(3)
    assert submission.compiled_for(x).is_compiled
    assert submission.lowered_for(x).is_lowered
    assert submission.exported_for(x).is_exported
    assert submission.jitted().kind == "jitted"
    assert submission.make_adder(1).kind == "function"
    impostor = submission.impostor()
    assert impostor.type_name == "jax._src.stages.Compiled" and impostor.kind == "object"
    with pytest.raises(AssertionError, match=r"\(not a JAX object\), but a jax.stages.Compiled was expected"):
        assert_handle_kind(impostor, "compiled")
    assert_handle_kind(submission.compiled_for(x), "compiled")


def test_bfloat16_crosses_both_ways_as_jax_and_as_numpy(submission):
    x = jnp.asarray([1.5, -2.25, 3.0], dtype=jnp.bfloat16)
    doubled = submission.apply(PortableFunction("def f(v):\n    return v * 2\n"), x)
    assert isinstance(doubled, jax.Array) and doubled.dtype == jnp.bfloat16
    assert np.asarray(doubled).tobytes() == np.asarray(x * 2).tobytes()
    as_numpy = submission.apply(PortableFunction("def f(v):\n    return np.asarray(v)\n"), x)
    assert type(as_numpy) is np.ndarray and as_numpy.dtype == jnp.bfloat16
    assert as_numpy.tobytes() == np.asarray(x).tobytes()
    assert submission.last_call.inputs == (((3,), "bfloat16"),)


def test_transformations_run_in_the_sandbox_on_the_submission_s_function(submission):
    x = jnp.asarray([-2.0, 0.5, 3.0], dtype=jnp.float32)
    per_element = submission.transformed("relu", "grad", "vmap", "jit")
    assert per_element.kind == "jitted"
    assert_same_array(per_element(x), jnp.asarray([0.0, 1.0, 1.0], dtype=jnp.float32))
    assert submission.last_call.events.trace_events >= 1  # jit traced vmap(grad(relu)) now
    per_element(x)
    assert submission.last_call.events.trace_events == 0  # the same signature: no new trace
    batched = submission.transformed("relu", ("vmap", {"in_axes": 1}))
    assert_same_array(batched(jnp.ones((2, 3)) * -1), jnp.zeros((3, 2)))


def test_jaxprs_are_summarised_at_every_depth(submission):
    summary = submission.jaxpr("cumsum", jnp.arange(5.0))
    assert "scan" in summary.primitives and "add" in summary.all_primitives
    assert summary.equations == len(summary.all_primitives) > len(summary.primitives)
    assert "scan" in summary.text
    unrolled = submission.jaxpr(
        "apply", PortableFunction("def f(v):\n    return v + 1\n"), jnp.ones(2), static_argnums=(0,)
    )
    assert unrolled.primitives == ("add",)
    static = submission.jaxpr("divide", jnp.ones(2), 2.0, static_argnums=(1,))
    assert static.primitives == ("div",) and "f32[2]" in static.text
    with pytest.raises(ValueError, match="must come last"):
        submission.transformed("relu", "make_jaxpr", "jit")
    with pytest.raises(ValueError, match="not allowed"):
        submission.transformed("relu", ("jit", {"donate_argnums": 0}))


def test_a_jaxprs_flow_is_read_from_jax_s_objects_not_its_printout(submission):
    flow = submission.jaxpr("placed", jnp.ones(4)).flow
    (given,), (result,) = flow.inputs, flow.outputs
    put, summed, add = flow.equations
    assert put.primitive == "device_put" and put.inputs == (given,)
    # PartitionSpec(("d",)) and PartitionSpec("d") are one split: the same data either way.
    assert put.shardings == (NamedShardingSummary(mesh=(("d", 1),), spec=(("d",),)),)
    assert summed.primitive == "jit" and summed.inputs == put.outputs and "reduce_sum" in summed.inner
    assert add.inputs == (summed.outputs[0], -1) and add.outputs == (result,)  # -1: the literal 1.0


def test_a_flow_reports_only_jax_s_own_sharding_class(submission):
    # A subclass made by the submission could claim any split: it is not reported at all.
    (put,) = submission.jaxpr("forged_split", jnp.ones(4)).flow.equations
    assert put.primitive == "device_put" and put.shardings == ()


def test_shape_dtype_structs_bytes_and_shape_keyed_dicts_cross(submission):
    spec = jax.ShapeDtypeStruct((100_000, 100_000), jnp.bfloat16)  # 20 GB if it were allocated
    assert submission.output_spec(spec) == jax.ShapeDtypeStruct((100_000,), jnp.bfloat16)
    cache = submission.cache_by_shape([jnp.ones(3), jnp.ones((2, 2)), jnp.ones(3)])
    assert sorted(cache) == [(2, 2), (3,)] and all(exe.is_compiled for exe in cache.values())
    blob = submission.serialized(jnp.ones(4))
    assert type(blob) is bytes and len(blob) > 100


def test_serialized_exports_are_deserialized_in_the_sandbox(submission):
    exported = submission.deserialize_exported(submission.serialized(jnp.ones(4)))
    assert_handle_kind(exported, "exported")
    assert_same_array(exported.call(jnp.zeros(4)), jnp.zeros(4))
    with pytest.raises(Exception):  # noqa: B017 - garbage is refused by JAX's own deserializer, in the sandbox
        submission.deserialize_exported(b"\x00" * 64)


def test_custom_derivative_functions_have_their_own_kind(submission):
    assert_handle_kind(submission.transformed("softplus"), "custom_jvp")
    assert submission.transformed("relu").kind == "function"
    slope = submission.transformed("softplus", "grad")
    assert_same_array(slope(jnp.asarray(1e4, dtype=jnp.float32)), jnp.asarray(1.0, dtype=jnp.float32))


def test_a_submission_cannot_replace_what_tests_apply():
    with SandboxSession(BwrapBackend()) as session:
        proxy = SubmissionProxy.load(session, textwrap.dedent(SOURCE), "submission.py")
        assert proxy.replace_grad() == 1
        slope = proxy.transformed("relu", "grad")  # JAX's grad, not the submission's
        assert_same_array(slope(jnp.asarray(2.0)), jnp.asarray(1.0))


def test_exports_with_symbolic_shapes_are_recorded_by_dimension_name(submission):
    exported = submission.poly_export()
    assert_handle_kind(exported, "exported")
    [lowering] = [record for record in submission.last_call.events.stages if record.stage == "lower"]
    assert lowering.signature == ((("n",), "float32"),)
    assert exported.in_avals == (ShapeDtype(("n",), "float32", abstract=True),)  # abstract values, by dimension name
    for length in (1, 7, 1000):
        assert_same_array(exported.call(jnp.ones(length)), jnp.asarray(float(length)))


def test_the_harness_works_on_the_same_call_while_the_sandbox_computes_and_never_disturbs_it(submission):
    asked: list[object] = []

    def anticipate(name, transforms, args, kwargs):
        asked.append((name, transforms, [np.asarray(a).tolist() for a in args]))
        return lambda: asked.append("waited")

    submission.anticipate = anticipate
    try:
        x = jnp.arange(3, dtype=jnp.float32)
        submission.aot(x)
        submission.transformed("divide", ("vmap", {"in_axes": (0, None)}))(x, 2.0)
        assert asked == [
            ("aot", (), [[0.0, 1.0, 2.0]]),
            "waited",
            ("divide", (("vmap", {"in_axes": (0, None)}),), [[0.0, 1.0, 2.0], 2.0]),
            "waited",
        ]

        def broken(*_):
            raise RuntimeError("the harness's own mistake")

        submission.anticipate = broken
        # The request was sent before the anticipation failed: its reply is still read, in order.
        assert_same_array(submission.aot(x), jnp.asarray(3.0, dtype=jnp.float32))
        assert_same_array(submission.aot(x + 1), jnp.asarray(6.0, dtype=jnp.float32))
    finally:
        submission.anticipate = None
