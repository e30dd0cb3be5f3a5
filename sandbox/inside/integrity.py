"""Whether the runtime is still the one that started: the ``integrity`` field of every reply.

Before any submission runs, the runtime's parts take a snapshot of what they trust: JAX's
transformations as captured, their own classes' members, the code, defaults and closure
contents of every function of their modules and of the hooks, the wire's vocabulary, and the
hooks in place. After each request, whatever differs is reported in words; so is a record of
JAX events that does not follow its predecessor's number, and a monitoring event emitted by
code outside JAX. The harness decides what a report means; docs/sandbox-and-security.md says what a
submission can still forge.
"""

from __future__ import annotations

import sys
import types
from collections.abc import Mapping, Sequence
from typing import Any

from sandbox import protocol, wire_values
from sandbox.inside.jax_events import JaxEventRecord

# The modules that define the wire on both sides: their names must stay as they were.
WIRE_VOCABULARY = (protocol, wire_values)


class RuntimeIntegrity:
    """A snapshot of the runtime as it started, and ``tampering`` to compare it with now."""

    def __init__(
        self,
        runtime: Any,
        record: JaxEventRecord,
        parts: Mapping[str, object],
        modules: Sequence[types.ModuleType],
    ) -> None:
        """``parts``: the runtime's attributes that hold its other objects, by name;
        ``modules``: modules besides theirs whose functions the runtime trusts."""
        self.runtime = runtime
        self.record = record
        self.parts = dict(parts)
        self.classes = tuple(type(part) for part in (runtime, *self.parts.values(), self))
        self.modules = [sys.modules[cls.__module__] for cls in self.classes] + list(modules)
        self.pristine = self._snapshot()

    def _snapshot(self) -> tuple[Any, ...]:
        """The functions this runtime trusts, their code and their closures' contents."""
        record = self.record
        functions: list[Any] = [hook for _, _, hook in record.hooks if callable(hook)] + [record.listener]
        for namespace in (*(vars(cls) for cls in self.classes), *(vars(module) for module in self.modules)):
            functions += [value for value in namespace.values() if isinstance(value, types.FunctionType)]
        for cls in self.classes:
            functions += [value.__func__ for value in vars(cls).values() if isinstance(value, staticmethod)]
        for module in WIRE_VOCABULARY:
            functions += [value for value in vars(module).values() if isinstance(value, types.FunctionType)]
        cells = [cell for f in functions if isinstance(f, types.FunctionType) for cell in f.__closure__ or ()]
        return (
            (dict(self.runtime.transforms), self.runtime.deserialize_exported),
            [dict(vars(cls)) for cls in self.classes],
            [(f, f.__code__, f.__defaults__) for f in functions if isinstance(f, types.FunctionType)],
            [(cell, cell.cell_contents) for cell in cells],
            [
                {name: value for name, value in vars(module).items() if not name.startswith("__")}
                for module in WIRE_VOCABULARY
            ],
        )

    def tampering(self) -> list[str]:
        """What the submission changed of this runtime's hooks, listeners, methods and record."""
        record, runtime = self.record, self.runtime
        problems = list(record.forged_events)
        trusted, class_members, functions, cells, vocabulary = self.pristine
        if (dict(runtime.transforms), runtime.deserialize_exported) != trusted:
            problems.append("the runtime's copies of JAX's transformations were replaced")
        parts = (runtime, *self.parts.values(), self)
        if (
            any(type(part) is not cls for part, cls in zip(parts, self.classes, strict=True))
            or [dict(vars(cls)) for cls in self.classes] != class_members
            or any(getattr(runtime, name, None) is not part for name, part in self.parts.items())
            or any(getattr(sys.modules[cls.__module__], cls.__name__, None) is not cls for cls in self.classes)
        ):
            problems.append("the runtime's methods were replaced")
        if any(f.__code__ is not code or f.__defaults__ is not defaults for f, code, defaults in functions):
            problems.append("the code of the runtime's functions was replaced")
        if any(cell.cell_contents is not value for cell, value in cells):
            problems.append("the runtime's hooks were rewired")
        if [
            {name: value for name, value in vars(module).items() if not name.startswith("__")}
            for module in WIRE_VOCABULARY
        ] != vocabulary:
            problems.append("the channel's protocol module was changed")
        for owner, name, installed in record.hooks:
            if (vars(owner).get(name) if isinstance(owner, type) else getattr(owner, name, None)) is not installed:
                problems.append(f"{getattr(owner, '__name__', owner)}.{name} was replaced")
        if sum(listener is record.listener for listener in record.monitoring.get_event_duration_listeners()) != 1:
            problems.append("the runtime's jax.monitoring listener was removed or duplicated")
        expected_next = int(repr(record.sequence)[len("count(") : -1])
        if [entry[0] for entry in record.log] != list(range(expected_next)):
            problems.append("the runtime's record of JAX events was written to")
        return problems
