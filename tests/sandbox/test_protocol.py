import io
import json
import pickle
import struct

import numpy as np
import pytest

from sandbox import protocol
from sandbox.protocol import ArrayValue, FunctionSource, HandleRef, ProtocolError


def roundtrip(**fields):
    frame = protocol.pack("reply", **fields)
    (length,) = protocol.FRAME.unpack(frame[:4])
    assert length == len(frame) - 4
    return protocol.unpack(frame[4:])


def test_plain_values_roundtrip_with_their_types():
    value = {"a": [1, 2.5, "x", None, True], "t": (1, (2, 3)), "nan": float("nan"), "inf": float("-inf")}
    op, fields = roundtrip(value=value)
    assert op == "reply"
    decoded = fields["value"]
    assert decoded["a"] == [1, 2.5, "x", None, True]
    assert decoded["t"] == (1, (2, 3)) and type(decoded["t"]) is tuple
    assert np.isnan(decoded["nan"]) and decoded["inf"] == float("-inf")


@pytest.mark.parametrize("dtype", ["float32", "float16", "int8", "uint32", "bool", "complex64"])
def test_arrays_roundtrip_exactly(dtype):
    array = np.arange(6).reshape(2, 3).astype(dtype)
    _, fields = roundtrip(value=ArrayValue(array, "jax"))
    assert fields["value"].origin == "jax"
    assert fields["value"].array.dtype == array.dtype
    np.testing.assert_array_equal(fields["value"].array, array)


def test_handles_and_functions_roundtrip():
    _, fields = roundtrip(h=HandleRef(3, "jax.stages.Compiled", True), f=FunctionSource("def f(x): return x", "f"))
    assert fields["h"] == HandleRef(3, "jax.stages.Compiled", True)
    assert fields["f"].name == "f"


def _payload(header: dict, *buffers: bytes) -> bytes:
    encoded = json.dumps(header).encode()
    return struct.pack(">I", len(encoded)) + encoded + b"".join(buffers)


def test_pickled_object_arrays_are_refused():
    stream = io.BytesIO()
    np.save(stream, np.array([object()], dtype=object), allow_pickle=True)
    buffer = stream.getvalue()
    header = {"op": "ok", "fields": {"value": {"$": "array", "buffer": 0, "origin": "jax"}}, "buffers": [len(buffer)]}
    with pytest.raises(ProtocolError, match=r"malformed array|cannot cross"):
        protocol.unpack(_payload(header, buffer))


def test_a_raw_pickle_is_refused():
    buffer = pickle.dumps({"verdict": "accepted"})
    header = {"op": "ok", "fields": {"value": {"$": "array", "buffer": 0, "origin": "jax"}}, "buffers": [len(buffer)]}
    with pytest.raises(ProtocolError):
        protocol.unpack(_payload(header, buffer))


@pytest.mark.parametrize(
    "header",
    [
        {"op": "ok", "fields": {}},
        {"op": 1, "fields": {}, "buffers": []},
        {"op": "ok", "fields": {"v": {"$": "eval", "code": "1"}}, "buffers": []},
        {"op": "ok", "fields": {"v": {"$": "array", "buffer": 5, "origin": "jax"}}, "buffers": []},
        {"op": "ok", "fields": {"v": {"$": "array", "buffer": 0, "origin": "forged"}}, "buffers": [0]},
        {"op": "ok", "fields": {"v": {"$": "float", "repr": "1e999"}}, "buffers": []},
        {"op": "ok", "fields": {}, "buffers": [10]},
    ],
)
def test_malformed_headers_are_refused(header):
    with pytest.raises(ProtocolError):
        protocol.unpack(_payload(header))


def test_non_json_constants_and_deep_nesting_are_refused():
    with pytest.raises(ProtocolError):
        protocol.unpack(struct.pack(">I", 3) + b"NaN")
    deep = '{"op":"ok","fields":{"v":' + "[" * 100 + "]" * 100 + '},"buffers":[]}'
    with pytest.raises(ProtocolError):
        protocol.unpack(struct.pack(">I", len(deep)) + deep.encode())


def test_objects_cannot_be_encoded():
    with pytest.raises(ProtocolError, match="cannot cross"):
        protocol.pack("ok", value=object())
