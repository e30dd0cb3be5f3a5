"""A jaxpr made in the sandbox, read back as data.

``SubmissionProxy.jaxpr`` has the sandbox run ``jax.make_jaxpr`` on a submission's function
and send back what a test may ask of it: the primitives at the top level and at every depth,
the printed text, and the top level's flow (what each equation takes and gives, and the
``NamedSharding``s among its parameters). The summary comes out of the sandbox, so it is read
field by field; anything malformed is the submission's error.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from grader.submission_exceptions import submission_exception_class


@dataclass(frozen=True)
class NamedShardingSummary:
    """A ``NamedSharding`` as data: the mesh's (axis, size) pairs, and for each dimension of the
    array the mesh axes it is split over (none: that dimension is whole on every device)."""

    mesh: tuple[tuple[str, int], ...]
    spec: tuple[tuple[str, ...], ...]


@dataclass(frozen=True)
class FlowEquation:
    """One top-level equation: its primitive, the variables it takes and gives (numbers; -1 is a
    literal), the ``NamedSharding``s among its parameters, and every primitive nested in it."""

    primitive: str
    inputs: tuple[int, ...]
    outputs: tuple[int, ...]
    shardings: tuple[NamedShardingSummary, ...]
    inner: tuple[str, ...]


@dataclass(frozen=True)
class JaxprFlow:
    """The top level of a jaxpr as data: its input and output variables and its equations."""

    inputs: tuple[int, ...]
    outputs: tuple[int, ...]
    equations: tuple[FlowEquation, ...]

    @classmethod
    def from_wire(cls, raw: Any) -> JaxprFlow:
        """Checked field by field: it comes out of the sandbox, so it is hostile."""
        record = _flow_record(raw, ("inputs", "outputs", "equations"))
        equations = []
        for item in _flow_items(record["equations"], 1_000):
            fields = _flow_record(item, ("primitive", "inputs", "outputs", "shardings", "inner"))
            shardings = []
            for entry in _flow_items(fields["shardings"]):
                sharding = _flow_record(entry, ("mesh", "spec"))
                axes = [_flow_pair(axis) for axis in _flow_items(sharding["mesh"])]
                mesh = tuple((_flow_text(name), _flow_number(size)) for name, size in axes)
                split = _flow_items(sharding["spec"])
                spec = tuple(tuple(_flow_text(name) for name in _flow_items(names)) for names in split)
                shardings.append(NamedShardingSummary(mesh, spec))
            equations.append(
                FlowEquation(
                    _flow_text(fields["primitive"]),
                    tuple(_flow_number(n) for n in _flow_items(fields["inputs"])),
                    tuple(_flow_number(n) for n in _flow_items(fields["outputs"])),
                    tuple(shardings),
                    tuple(_flow_text(name) for name in _flow_items(fields["inner"], 1_000)),
                )
            )
        inputs = tuple(_flow_number(n) for n in _flow_items(record["inputs"]))
        return cls(inputs, tuple(_flow_number(n) for n in _flow_items(record["outputs"])), tuple(equations))


def _malformed() -> Exception:
    return submission_exception_class(RuntimeError)("make_jaxpr gave a malformed jaxpr summary")


def _flow_record(raw: Any, keys: tuple[str, ...]) -> dict[str, Any]:
    if not isinstance(raw, dict) or set(raw) != set(keys):
        raise _malformed()
    return raw


def _flow_items(raw: Any, most: int = 64) -> list[Any]:
    if not isinstance(raw, list) or len(raw) > most:
        raise _malformed()
    return raw


def _flow_pair(raw: Any) -> list[Any]:
    if not isinstance(raw, list) or len(raw) != 2:
        raise _malformed()
    return raw


def _flow_text(raw: Any) -> str:
    if not isinstance(raw, str) or len(raw) > 64:
        raise _malformed()
    return raw


def _flow_number(raw: Any) -> int:
    """A variable's number (-1: a literal) or a mesh axis's size."""
    if type(raw) is not int or not -1 <= raw < 2**31:
        raise _malformed()
    return raw


@dataclass(frozen=True)
class JaxprSummary:
    """A jaxpr made in the sandbox (``jax.make_jaxpr`` of a submission's function), as data.

    ``primitives`` names the top-level equations in order, ``all_primitives`` every equation
    at any depth (inside ``scan``, ``cond``, ``pjit``, custom rules ...), ``equations`` counts
    those, ``text`` is the printed jaxpr, and ``flow`` its top level read from JAX's objects
    (``JaxprFlow``: what each equation takes and gives, and its shardings).
    """

    primitives: tuple[str, ...]
    all_primitives: tuple[str, ...]
    equations: int
    text: str
    flow: JaxprFlow

    @classmethod
    def from_wire(cls, raw: Any) -> JaxprSummary:
        if not isinstance(raw, dict):
            raise submission_exception_class(RuntimeError)("make_jaxpr gave no jaxpr summary")
        primitives, every, count, text = (raw.get(key) for key in ("primitives", "all_primitives", "equations", "text"))
        if not (isinstance(primitives, list) and isinstance(every, list) and type(count) is int):
            raise _malformed()
        names = [name for name in primitives if isinstance(name, str)]
        every_name = [name for name in every if isinstance(name, str)]
        flow = JaxprFlow.from_wire(raw.get("flow"))
        text = text if isinstance(text, str) else ""
        return cls(tuple(names), tuple(every_name), max(count, len(every_name)), text, flow)
