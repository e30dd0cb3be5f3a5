import io
import json
import pickle
import struct

import numpy as np
import pytest

from sandbox import protocol
from sandbox.protocol import ArrayValue, FunctionSource, HandleRef, ProtocolError, ShapeDtype


def roundtrip(sender=protocol.SANDBOX, **fields):
    frame = protocol.pack("ok" if sender == protocol.SANDBOX else "call", **fields)
    (length,) = protocol.FRAME.unpack(frame[:4])
    assert length == len(frame) - 4
    return protocol.unpack(frame[4:], sender=sender)


def test_plain_values_roundtrip_with_their_types():
    value = {"a": [1, 2.5, "x", None, True], "t": (1, (2, 3)), "nan": float("nan"), "inf": float("-inf")}
    op, fields = roundtrip(value=value)
    assert op == "ok"
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


def test_bytes_shape_dtypes_and_dicts_keyed_by_shapes_roundtrip():
    value = {
        (2, 3): "by shape",
        (): "scalar",
        1: None,
        "blob": b"\x00\xffjax",
        "grown": bytearray(b"xy"),
        "spec": ShapeDtype((4, "n"), "bfloat16"),
        "aval": ShapeDtype((2, 3), "int8", abstract=True),
    }
    for sender in (protocol.SANDBOX, protocol.HARNESS):
        _, fields = roundtrip(sender, value=value)
        decoded = fields["value"]
        assert decoded[(2, 3)] == "by shape" and decoded[()] == "scalar" and decoded[1] is None
        assert decoded["blob"] == b"\x00\xffjax" and type(decoded["blob"]) is bytes
        assert decoded["grown"] == b"xy"
        assert decoded["spec"] == ShapeDtype((4, "n"), "bfloat16")
        assert decoded["aval"] == ShapeDtype((2, 3), "int8", abstract=True) != ShapeDtype((2, 3), "int8")


@pytest.mark.parametrize(
    "value",
    [
        {"$": "shape_dtype", "shape": [2], "dtype": "object", "abstract": False},
        {"$": "shape_dtype", "shape": [2], "dtype": "<U3", "abstract": False},
        {"$": "shape_dtype", "shape": [-1], "dtype": "float32"},
        {"$": "shape_dtype", "shape": [1.5], "dtype": "float32"},
        {"$": "shape_dtype", "shape": [2] * 40, "dtype": "float32"},
        {"$": "shape_dtype", "shape": "22", "dtype": "float32"},
        {"$": "shape_dtype", "shape": [2], "dtype": "float32"},
        {"$": "shape_dtype", "shape": [2], "dtype": "float32", "abstract": 1},
        {"$": "dict", "items": [[[1, 2], "a list is not a key"]]},
        {"$": "dict", "items": [[{"$": "array", "buffer": 0, "origin": "jax"}, 1]]},
        {"$": "bytes", "buffer": 3},
    ],
)
def test_malformed_new_values_are_refused(value):
    with pytest.raises(ProtocolError):
        protocol.unpack(_payload({"op": "ok", "fields": {"v": value}, "buffers": [0]}))


def test_a_buffer_serves_one_value_only():
    header = {
        "op": "ok",
        "fields": {"a": {"$": "bytes", "buffer": 0}, "b": {"$": "bytes", "buffer": 0}},
        "buffers": [2],
    }
    with pytest.raises(ProtocolError, match="reused"):
        protocol.unpack(_payload(header, b"ab"))


def test_handles_and_functions_roundtrip():
    handle = HandleRef(3, "jax.stages.Compiled", True, "compiled")
    _, fields = roundtrip(protocol.HARNESS, h=handle, f=FunctionSource("def f(x): return x", "f"))
    assert fields["h"] == handle
    assert fields["f"].name == "f"


def test_a_sandbox_cannot_send_functions_or_requests():
    with pytest.raises(ProtocolError, match="unknown tag"):
        roundtrip(f=FunctionSource("def f(x): return x", "f"))
    frame = protocol.pack("load", source="x = 1", filename="s.py")
    with pytest.raises(ProtocolError, match="cannot send 'load'"):
        protocol.unpack(frame[4:], sender=protocol.SANDBOX)
    assert protocol.unpack(frame[4:], sender=protocol.HARNESS)[0] == "load"


def test_a_harness_cannot_send_replies():
    with pytest.raises(ProtocolError, match="cannot send 'ok'"):
        protocol.unpack(protocol.pack("ok", value=1)[4:], sender=protocol.HARNESS)


def test_handle_kinds_are_a_closed_set():
    header = {"op": "ok", "fields": {"h": {"$": "handle", "id": 1, "type": "x", "callable": True, "kind": "trusted"}}}
    with pytest.raises(ProtocolError, match="kind"):
        protocol.unpack(_payload({**header, "buffers": []}))


HOSTILE_TEXT = "accepted\x1b[2K\r\x1b[1A\ud800\u202e\x00\x7f\x9b\ufeff"


def test_every_string_from_a_sandbox_becomes_printable_text():
    header = {"op": "error", "fields": {"message": HOSTILE_TEXT, HOSTILE_TEXT: [HOSTILE_TEXT]}, "buffers": []}
    _, fields = protocol.unpack(_payload(header))
    hostile_key = protocol.printable(HOSTILE_TEXT)
    for text in (fields["message"], hostile_key, *fields[hostile_key]):
        assert text.isprintable(), text
        text.encode("utf-8")  # no lone surrogate left
        assert "\\x1b" in text and "\\ud800" in text and "\\u202e" in text and "\\x0d" in text
    assert fields["message"].startswith("accepted")


def test_newlines_tabs_and_letters_stay_as_they_are():
    text = "line one\n\tline two: ä ∑ 漢字 🙂"
    assert protocol.printable(text) == text


def test_the_harness_side_keeps_its_own_strings_exactly():
    source = "x = '\x1b'\n"
    _, fields = roundtrip(protocol.HARNESS, source=source)
    assert fields["source"] == source


def test_a_header_of_many_values_is_refused_before_it_is_parsed():
    body = b"[" + b"[]," * 1_000_000 + b"[]]"
    header = b'{"op":"ok","fields":{"v":' + body + b'},"buffers":[]}'
    with pytest.raises(ProtocolError, match="too many values"):
        protocol.unpack(struct.pack(">I", len(header)) + header)


def test_a_header_larger_than_its_cap_is_refused():
    text = "x" * (protocol.MAX_HEADER_BYTES + 1)
    header = json.dumps({"op": "ok", "fields": {"v": text}, "buffers": []}).encode()
    with pytest.raises(ProtocolError, match="header of"):
        protocol.unpack(struct.pack(">I", len(header)) + header)


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


@pytest.mark.parametrize("name", sorted(protocol.EXTENDED_DTYPES))
def test_extended_dtypes_cross_bit_for_bit(name):
    dtype = protocol.EXTENDED_DTYPES[name]
    bits = np.arange(256, dtype=np.uint8) if dtype.itemsize == 1 else np.arange(0, 65536, 97, dtype=np.uint16)
    array = bits.view(dtype).reshape(-1, 1)  # every pattern of the type's bits: NaNs and infinities too
    _, fields = roundtrip(value=ArrayValue(array, "jax"))
    crossed = fields["value"].array
    assert crossed.dtype == dtype and crossed.shape == array.shape
    assert crossed.tobytes() == array.tobytes()


@pytest.mark.parametrize(
    ("tag_dtype", "buffer_dtype", "error"),
    [
        ("float128", "uint16", "unknown extended dtype"),
        (["bfloat16"], "uint16", "unknown extended dtype"),
        ("bfloat16", "uint8", "must travel as uint16"),
        ("bfloat16", "int16", "must travel as uint16"),
        ("int4", "float32", "must travel as uint8"),
    ],
)
def test_forged_extended_dtype_tags_are_refused(tag_dtype, buffer_dtype, error):
    stream = io.BytesIO()
    np.save(stream, np.zeros(3, dtype=buffer_dtype), allow_pickle=False)
    buffer = stream.getvalue()
    value = {"$": "array", "buffer": 0, "origin": "jax", "dtype": tag_dtype}
    header = {"op": "ok", "fields": {"value": value}, "buffers": [len(buffer)]}
    with pytest.raises(ProtocolError, match=error):
        protocol.unpack(_payload(header, buffer))


def test_void_arrays_without_a_dtype_name_are_still_refused():
    stream = io.BytesIO()
    np.save(stream, np.zeros(3, dtype="V2"), allow_pickle=False)
    buffer = stream.getvalue()
    header = {"op": "ok", "fields": {"value": {"$": "array", "buffer": 0, "origin": "jax"}}, "buffers": [len(buffer)]}
    with pytest.raises(ProtocolError, match="cannot cross"):
        protocol.unpack(_payload(header, buffer))
