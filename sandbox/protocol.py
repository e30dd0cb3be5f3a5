"""The channel between the trusted harness and a sandbox: data, never code objects.

A frame is ``>I`` (payload length) followed by the payload. A payload is ``>I`` (header
length), a UTF-8 JSON header, then raw buffers back to back. The header is
``{"op": str, "fields": {name: value}, "buffers": [length, ...]}`` and every value is
plain JSON or a tagged object ``{"$": tag, ...}``:

- ``array``: an ``.npy`` buffer (read with ``allow_pickle=False``) and the kind of object
  it came from (``jax``, ``numpy`` or ``numpy-scalar``), so a test can tell a NumPy result
  from a JAX one. The ``ml_dtypes`` types JAX computes with (``bfloat16``, the float8 and
  small-integer types), which ``.npy`` cannot describe, travel as the raw bits of the
  unsigned integer type of their size, with ``dtype`` naming the type;
- ``tuple``, ``dict`` (keys: strings, numbers, ``None`` and tuples of them), ``float``
  (for NaN and the infinities), ``bytes`` (a buffer: ``bytes`` or ``bytearray``);
- ``shape_dtype``: a ``jax.ShapeDtypeStruct``, or an abstract value (``abstract``): a shape of integers
  (or names, for the symbolic dimensions of an export) and a dtype's name;
- ``handle``: an object that stays in the sandbox, named by id, its kind (told by the
  runtime from the real JAX classes) and its type's name (for messages only);
- ``function``: Python source the harness sends *into* the sandbox (a test input).

The channel's whole vocabulary is defined here, once: the operations each side may send,
the members of a kept object the harness may call or read, and what may cross in which
direction; the values the tags decode to, and which dtypes an array may have, are in
``sandbox.wire_values`` (and named here too). This module runs on both sides, so it depends on
the standard library and numpy only. Decoding is strict and capped before anything is
parsed: whatever a sandbox sends is hostile, and every string it sends is made valid,
printable text here.
"""

from __future__ import annotations

import io
import json
import math
import re
import struct
from typing import Any

import numpy as np

# The values the tags below decode to, and the dtypes an array may have, are defined there;
# named here too, as the rest of the wire's vocabulary is.
from sandbox.wire_values import (
    ALLOWED_DTYPE_KINDS,
    ARRAY_ORIGINS,
    EXTENDED_DTYPES,
    ArrayValue,
    FunctionSource,
    HandleRef,
    ShapeDtype,
    extended_dtype_name,
    is_key,
    is_plain_dtype_name,
)
from sandbox.wire_values import MAX_KEY_ITEMS as MAX_KEY_ITEMS
from sandbox.wire_values import can_cross as can_cross

FRAME = struct.Struct(">I")
MAX_PAYLOAD_BYTES = 64 * 2**20
# The JSON header carries sources and texts, never bulk data (arrays travel as buffers).
MAX_HEADER_BYTES = 8 * 2**20
MAX_DEPTH = 32
MAX_NODES = 100_000
MAX_STRING_CHARS = 1_000_000
MAX_DIMENSIONS = 32  # of a shape_dtype


# -- the vocabulary -------------------------------------------------------------------------

# Who sent a message: the harness (requests) or the sandbox (replies). Decoding depends on it.
HARNESS, SANDBOX = "harness", "sandbox"

# Requests, harness to sandbox.
LOAD, CALL, GETATTR, EXIT = "load", "call", "getattr", "exit"
# ``transform``: apply JAX's own transformations, as the runtime captured them before the
# submission loaded, to a function of the submission (or to a handle): the result is a
# handle. ``deserialize``: turn bytes into a ``jax.export.Exported`` in the sandbox, never
# in the harness.
TRANSFORM, DESERIALIZE = "transform", "deserialize"
# ``notebook``: run a notebook's code cells (their sources, in order) on the kernel prepared at
# start-up (a sandbox started for a notebook), with nbclient, inside the sandbox; then the
# names the cells defined are the submission, as ``load`` makes them for a ``.py`` file. The
# reply adds the run: each cell's outputs (``cell_outputs``' allow-list), the cell that raised
# or the error that broke the run, and whether the output limit was passed.
NOTEBOOK = "notebook"
NOTEBOOK_CELLS, NOTEBOOK_FAILED, NOTEBOOK_ERROR, NOTEBOOK_OUTPUT_EXCEEDED = (
    "cells", "failed", "error", "output_exceeded"
)  # fmt: skip
# ``insight``: what JAX makes of an entry point for one input, as plain data (the jaxpr's and
# the StableHLO's text, the executable's cost analysis), for the student to read; see
# ``runtime.Runtime.insight``.
INSIGHT = "insight"
MAX_INSIGHT_TEXT = 20_000
# The environment variable (set to "1") that has the runtime of a sandbox prepare a kernel
# for a notebook as it starts (or a fork server's children, each theirs).
NOTEBOOK_VARIABLE = "JAXJUDGE_NOTEBOOK"
# A fork server (``inside.forks.serve_forks``) reads its control socket from the fd this variable
# names. It speaks a control protocol of its own: one JSON object a line, each of these ops.
FORK_SERVER_VARIABLE = "JAXJUDGE_FORK_SERVER_FD"
FORK, FORKED, END, ENDED = "fork", "forked", "end", "ended"
MAX_CONTROL_LINE_BYTES = 4096
# Replies, sandbox to harness: one ``ready`` when started, then one ``ok`` or ``error`` a request.
READY, OK, ERROR = "ready", "ok", "error"
# Fields of ``ready``: the runtime's pid and JAX's version (a fork server adds whether its
# children can have namespaces of their own).
PID, JAX_VERSION, NAMESPACES = "pid", "jax_version", "namespaces"
# Fields of every ``ok`` and ``error``: what JAX did during the request, and what the runtime
# found changed of its hooks (empty when intact).
EVENTS, INTEGRITY = "events", "integrity"
# Fields of an ``ok``: the names a load or notebook defined (and the JAX device and device
# count it started), or the value any other request returned.
NAMES, DEVICE, DEVICES, VALUE = "names", "device", "devices", "value"
# Fields of an ``error``: the exception's type, its nearest builtin class, its text, its traceback.
ERROR_TYPE, ERROR_BUILTIN, ERROR_MESSAGE, ERROR_TRACEBACK = "type", "builtin", "message", "traceback"
# Fields of the fork server's ``ended``: the child's exit status and the CPU seconds it used
# (``forked`` carries the child's ``pid``).
STATUS, CPU_SECONDS = "status", "cpu_seconds"
OPERATIONS = {
    HARNESS: frozenset({LOAD, NOTEBOOK, CALL, GETATTR, TRANSFORM, DESERIALIZE, INSIGHT, EXIT}),
    SANDBOX: frozenset({READY, OK, ERROR}),
}

# The transformations a test may apply in the sandbox, with the options each accepts.
# ``make_jaxpr`` is special: calling the result returns a summary of the jaxpr as plain data
# (``primitives`` of the top-level equations, ``all_primitives`` of every equation at any
# depth, their ``equations`` count and the ``text``), not the jaxpr object.
TRANSFORMS: dict[str, frozenset[str]] = {
    "jit": frozenset({"static_argnums"}),
    "vmap": frozenset({"in_axes", "out_axes"}),
    "grad": frozenset({"argnums"}),
    "value_and_grad": frozenset({"argnums"}),
    "jacfwd": frozenset({"argnums"}),
    "make_jaxpr": frozenset({"static_argnums"}),
    "eval_shape": frozenset(),
}
MAX_TRANSFORMS = 8
# Host CPU devices a sandbox may be given (``--xla_force_host_platform_device_count``).
MAX_CPU_DEVICES = 16

# Members of a kept object the harness may call, and those it may read. Anything else stays
# hidden: it would let a test reach arbitrary sandbox objects and make the interface unbounded.
HANDLE_METHODS = frozenset(
    {"as_text", "cost_analysis", "memory_analysis", "compile", "lower", "trace", "serialize", "call"}
)
HANDLE_ATTRIBUTES = frozenset(
    {
        "in_avals",
        "out_avals",
        "in_tree",
        "out_tree",
        "args_info",
        "out_info",
        "jaxpr",
        "eqns",
        "shape",
        "dtype",
        "fun_name",
        "mlir_module",
        "in_shardings_hlo",
        "nr_devices",
        "platforms",
    }
)
HANDLE_MEMBERS = HANDLE_METHODS | HANDLE_ATTRIBUTES

# What a kept object is, decided in the sandbox by identity with the real JAX classes (captured
# before any submission runs), never from names a submission could choose.
HANDLE_KINDS = frozenset(
    {"jitted", "traced", "lowered", "compiled", "exported", "custom_jvp", "custom_vjp", "function", "object"}
)

# Tags each side may send: only the harness sends functions into the sandbox.
TAGS = {
    HARNESS: frozenset({"tuple", "dict", "float", "bytes", "shape_dtype", "array", "handle", "function"}),
    SANDBOX: frozenset({"tuple", "dict", "float", "bytes", "shape_dtype", "array", "handle"}),
}

MAX_TYPE_NAME_CHARS = 200


class ProtocolError(Exception):
    """A message that breaks the protocol: malformed, too large or of a forbidden type."""


def pack(op: str, **fields: Any) -> bytes:
    """Encode one message as a complete frame."""
    buffers: list[bytes] = []
    encoded = {name: _encode(value, buffers, 0) for name, value in fields.items()}
    header = json.dumps(
        {"op": op, "fields": encoded, "buffers": [len(b) for b in buffers]},
        allow_nan=False,
        separators=(",", ":"),
    ).encode()
    payload = b"".join([FRAME.pack(len(header)), header, *buffers])
    if len(payload) > MAX_PAYLOAD_BYTES:
        raise ProtocolError(f"message of {len(payload)} bytes exceeds {MAX_PAYLOAD_BYTES}")
    return FRAME.pack(len(payload)) + payload


def unpack(payload: bytes, *, sender: str = SANDBOX) -> tuple[str, dict[str, Any]]:
    """Decode a payload (a frame without its length prefix) into ``(op, fields)``.

    ``sender`` says who sent it. A sandbox's messages (the default: the strictest reading)
    may use only its own operations and tags, and every string in them comes back as valid,
    printable text.
    """
    if len(payload) < FRAME.size:
        raise ProtocolError("truncated message")
    (header_length,) = FRAME.unpack_from(payload)
    header_end = FRAME.size + header_length
    if header_end > len(payload):
        raise ProtocolError("header length exceeds the message")
    if header_length > MAX_HEADER_BYTES:
        raise ProtocolError(f"header of {header_length} bytes exceeds {MAX_HEADER_BYTES}")
    raw_header = payload[FRAME.size : header_end]
    # Count containers and items before parsing: json.loads would build all of them first
    # (64 MiB of "[]," is two gigabytes of lists), and only then could the node cap refuse.
    if raw_header.count(b"[") + raw_header.count(b"{") + raw_header.count(b",") > 2 * MAX_NODES:
        raise ProtocolError("header has too many values")
    try:
        header = json.loads(raw_header.decode(), parse_constant=_reject_constant)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise ProtocolError(f"malformed header: {exc}") from None
    if not isinstance(header, dict) or set(header) != {"op", "fields", "buffers"}:
        raise ProtocolError("header must have exactly op, fields and buffers")
    op, fields, sizes = header["op"], header["fields"], header["buffers"]
    if not isinstance(op, str) or not isinstance(fields, dict) or not isinstance(sizes, list):
        raise ProtocolError("header fields have the wrong types")
    if sender not in OPERATIONS:
        raise ValueError(f"unknown sender {sender!r}")
    if op not in OPERATIONS[sender]:
        raise ProtocolError(f"the {sender} cannot send {printable(op)[:40]!r}")
    if not all(type(size) is int and size >= 0 for size in sizes):
        raise ProtocolError("buffer sizes must be non-negative integers")
    if header_end + sum(sizes) != len(payload):
        raise ProtocolError("buffer sizes do not add up to the message length")
    buffers, offset = [], header_end
    for size in sizes:
        buffers.append(payload[offset : offset + size])
        offset += size
    decoder = _Decoder(buffers, sender)
    decoded = {decoder.text(str(name)): decoder.decode(value, 0) for name, value in fields.items()}
    return op, decoded


_UNPRINTABLE_ASCII = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def printable(text: str) -> str:
    """``text`` as valid, printable Unicode: every control character but newline and tab,
    every lone surrogate and every invisible format character (bidirectional overrides, say)
    is written as its escape (``\\x1b``, ``\\ud800``), so that no text can repaint a terminal,
    break a JSON or XML encoder, or hide what it says."""
    if text.isascii():
        return _UNPRINTABLE_ASCII.sub(lambda match: _escape(match.group()), text)
    return "".join(char if char.isprintable() or char in "\n\t" else _escape(char) for char in text)


def _escape(char: str) -> str:
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def _reject_constant(name: str) -> None:
    raise ValueError(f"{name} is not valid JSON")


def _encode(value: Any, buffers: list[bytes], depth: int) -> Any:
    if depth > MAX_DEPTH:
        raise ProtocolError("value nested too deeply")
    if value is None or type(value) in (bool, int, str):
        return value
    if type(value) is float:
        return value if math.isfinite(value) else {"$": "float", "repr": repr(value)}
    if type(value) is list:
        return [_encode(item, buffers, depth + 1) for item in value]
    if type(value) is tuple:
        return {"$": "tuple", "items": [_encode(item, buffers, depth + 1) for item in value]}
    if type(value) is dict:
        if not all(is_key(key) for key in value):
            raise ProtocolError("dict keys must be strings, numbers, None or tuples of them")
        return {
            "$": "dict",
            "items": [[_encode(k, buffers, depth + 1), _encode(v, buffers, depth + 1)] for k, v in value.items()],
        }
    if type(value) in (bytes, bytearray):
        buffers.append(bytes(value))
        return {"$": "bytes", "buffer": len(buffers) - 1}
    if isinstance(value, ShapeDtype):
        return {"$": "shape_dtype", "shape": list(value.shape), "dtype": value.dtype, "abstract": value.abstract}
    if isinstance(value, ArrayValue):
        array, extended = value.array, extended_dtype_name(value.array.dtype)
        if extended is not None:
            array = array.view(np.dtype(f"uint{8 * array.dtype.itemsize}"))
        stream = io.BytesIO()
        np.save(stream, array, allow_pickle=False)
        buffers.append(stream.getvalue())
        tag = {"$": "array", "buffer": len(buffers) - 1, "origin": value.origin}
        return tag if extended is None else {**tag, "dtype": extended}
    if isinstance(value, HandleRef):
        return {"$": "handle", "id": value.id, "type": value.type_name, "callable": value.callable, "kind": value.kind}
    if isinstance(value, FunctionSource):
        return {"$": "function", "source": value.source, "name": value.name}
    raise ProtocolError(f"a {type(value).__name__} cannot cross the channel")


class _Decoder:
    def __init__(self, buffers: list[bytes], sender: str) -> None:
        self.buffers = buffers
        self.used: set[int] = set()
        self.nodes = 0
        self.tags = TAGS[sender]
        self.clean_text = sender == SANDBOX

    def text(self, value: str) -> str:
        if len(value) > MAX_STRING_CHARS:
            raise ProtocolError("string too long")
        return printable(value) if self.clean_text else value

    def decode(self, value: Any, depth: int) -> Any:
        self.nodes += 1
        if self.nodes > MAX_NODES or depth > MAX_DEPTH:
            raise ProtocolError("value too large or nested too deeply")
        if value is None or type(value) in (bool, int, float):
            return value
        if type(value) is str:
            return self.text(value)
        if type(value) is list:
            return [self.decode(item, depth + 1) for item in value]
        if type(value) is not dict:
            raise ProtocolError(f"unexpected JSON value {type(value).__name__}")
        tag = value.get("$")
        if tag not in self.tags:
            raise ProtocolError(f"unknown tag {printable(str(tag))[:40]!r}")
        if tag == "tuple":
            return tuple(self.decode(item, depth + 1) for item in self._list(value, "items"))
        if tag == "dict":
            result = {}
            for pair in self._list(value, "items"):
                if type(pair) is not list or len(pair) != 2:
                    raise ProtocolError("dict items must be [key, value] pairs")
                key = self.decode(pair[0], depth + 1)
                if not is_key(key):
                    raise ProtocolError("dict keys must be strings, numbers, None or tuples of them")
                result[key] = self.decode(pair[1], depth + 1)
            return result
        if tag == "bytes":
            return self._buffer(value)
        if tag == "shape_dtype":
            shape, dtype, abstract = value.get("shape"), value.get("dtype"), value.get("abstract")
            if type(shape) is not list or len(shape) > MAX_DIMENSIONS or type(dtype) is not str:
                raise ProtocolError("malformed shape_dtype")
            if not all((type(n) is int and 0 <= n < 2**62) or (type(n) is str and 0 < len(n) <= 64) for n in shape):
                raise ProtocolError("a dimension must be a non-negative integer or a short name")
            if dtype not in EXTENDED_DTYPES and not is_plain_dtype_name(dtype):
                raise ProtocolError(f"unknown dtype {printable(dtype)[:40]!r}")
            if type(abstract) is not bool:
                raise ProtocolError("a shape_dtype says whether it is an abstract value (true or false)")
            return ShapeDtype(tuple(self.text(n) if type(n) is str else n for n in shape), dtype, abstract)
        if tag == "float":
            representation = value.get("repr")
            if representation not in ("nan", "inf", "-inf"):
                raise ProtocolError("tagged floats are only nan, inf and -inf")
            return float(representation)
        if tag == "array":
            return self._array(value)
        if tag == "handle":
            handle_id, type_name, is_callable = value.get("id"), value.get("type"), value.get("callable")
            kind = value.get("kind")
            if type(handle_id) is not int or type(type_name) is not str or type(is_callable) is not bool:
                raise ProtocolError("malformed handle")
            if kind not in HANDLE_KINDS:
                raise ProtocolError("unknown handle kind")
            return HandleRef(handle_id, self.text(type_name[:MAX_TYPE_NAME_CHARS]), is_callable, str(kind))
        if tag == "function":
            source, name = value.get("source"), value.get("name")
            if type(source) is not str or type(name) is not str:
                raise ProtocolError("malformed function")
            return FunctionSource(source, name)
        raise ProtocolError(f"unknown tag {printable(str(tag))[:40]!r}")

    def _list(self, value: dict[str, Any], key: str) -> list[Any]:
        items = value.get(key)
        if type(items) is not list:
            raise ProtocolError(f"{key} must be a list")
        return items

    def _buffer(self, value: dict[str, Any]) -> bytes:
        index = value.get("buffer")
        if type(index) is not int or not 0 <= index < len(self.buffers) or index in self.used:
            raise ProtocolError("a value refers to a missing or reused buffer")
        self.used.add(index)
        return self.buffers[index]

    def _array(self, value: dict[str, Any]) -> ArrayValue:
        origin = value.get("origin")
        if origin not in ARRAY_ORIGINS:
            raise ProtocolError("unknown array origin")
        stream = io.BytesIO(self._buffer(value))
        try:
            array = np.lib.format.read_array(stream, allow_pickle=False)
        except Exception as exc:  # numpy raises several types for a corrupt .npy
            raise ProtocolError(f"malformed array: {exc}") from None
        if stream.read(1):
            raise ProtocolError("trailing bytes after array")
        if type(array) is not np.ndarray or array.dtype.kind not in ALLOWED_DTYPE_KINDS:
            raise ProtocolError(f"arrays of dtype {array.dtype} cannot cross the channel")
        if array.dtype.fields is not None or array.dtype.subdtype is not None:
            raise ProtocolError("structured arrays cannot cross the channel")
        if "dtype" in value:
            extended = EXTENDED_DTYPES.get(value["dtype"]) if type(value["dtype"]) is str else None
            if extended is None:
                raise ProtocolError("unknown extended dtype")
            if array.dtype != np.dtype(f"uint{8 * extended.itemsize}"):
                raise ProtocolError(f"an array of {value['dtype']} must travel as uint{8 * extended.itemsize}")
            array = array.view(extended)
        return ArrayValue(array, str(origin))
