"""The runtime's record of what JAX did during a request, kept by hooks installed before any
submission runs.

Each ``jax.jit``, each ``.lower(...)``, each executable compiled from such a lowering and
each call of one becomes a numbered record, with the abstract signature it was for; the
``jax.monitoring`` events (tracing, lowering to MLIR, backend compiles) join them when JAX
itself emits them. ``measured`` turns the records of one request into the ``events`` field
of its reply, saying for each call whether it ran on the request's own inputs and gave the
value returned. The records are numbered in sequence, so a record written or removed by
anyone else shows (``integrity``).
"""

from __future__ import annotations

import functools
import itertools
import sys
import time
from collections.abc import Callable
from typing import Any

MONITORING_EVENTS = {
    "/jax/core/compile/jaxpr_trace_duration": "trace_events",
    "/jax/core/compile/jaxpr_to_mlir_module_duration": "lowering_events",
    "/jax/core/compile/backend_compile_duration": "backend_compile_events",
}
# Caps on what one reply reports, so that a busy submission cannot make replies huge.
MAX_STAGE_RECORDS = 256
MAX_SIGNATURE_LEAVES = 64
# Lowerings and executables are kept alive (so that ids stay unique) up to this many, the newest.
MAX_TRACKED_OBJECTS = 4096


class JaxEventRecord:
    """The numbered records of what JAX did, and the hooks that write them."""

    def __init__(self) -> None:
        import jax
        from jax import stages
        from jax._src import monitoring

        self.jax = jax
        self.stages = stages
        self.monitoring = monitoring
        # One tuple per event, numbered by ``sequence``; a record that does not follow its
        # predecessor's number was forged or removed.
        self.log: list[tuple[Any, ...]] = []
        self.sequence = itertools.count()
        self.tracked: dict[int, tuple[Any, int]] = {}  # id(object) -> (object, its record id)
        self.inputs: list[Any] = []  # the arrays this request received
        self.outputs: list[tuple[Any, int]] = []  # (value, record number) of executable calls
        self.forged_events: list[str] = []
        # What ``install_hooks`` put in place: (owner, name, value) triples, and the listener.
        self.hooks: tuple[tuple[Any, str, Any], ...] = ()
        self.listener: Callable[..., None] | None = None

    def _record(self, *fields: Any) -> int:
        number = next(self.sequence)
        self.log.append((number, *fields))
        return number

    def signature(self, tree: Any) -> list[list[Any]]:
        """Shapes and dtypes of the array leaves of ``tree`` (arguments, or ``args_info``)."""
        leaves = self.jax.tree_util.tree_leaves(tree)
        found = [leaf for leaf in leaves if hasattr(leaf, "shape") and hasattr(leaf, "dtype")]
        # A symbolic dimension (of a jax.export shape) is recorded by its name.
        return [
            [[n if type(n) is int else str(n)[:64] for n in leaf.shape], str(leaf.dtype)]
            for leaf in found[:MAX_SIGNATURE_LEAVES]
        ]

    def _track(self, value: Any, number: int) -> None:
        # The newest lowerings and executables are the ones a check links (a compile to its
        # lowering, a call to its executable): when full, the oldest make room, so that no
        # amount of earlier work (a notebook's %timeit, say) blinds the record of a later call.
        if len(self.tracked) >= MAX_TRACKED_OBJECTS:
            del self.tracked[next(iter(self.tracked))]
        self.tracked[id(value)] = (value, number)

    def _tracked_id(self, value: Any) -> int:
        entry = self.tracked.get(id(value))
        return entry[1] if entry is not None and entry[0] is value else -1

    def install_hooks(self) -> None:
        """Wrap ``jax.jit``, ``Traced.lower``, ``Lowered.compile`` and ``Compiled.__call__``, and
        listen to ``jax.monitoring``; ``hooks`` names what was installed where."""
        jax, stages = self.jax, self.stages
        lowered_class, compiled_class = stages.Lowered, stages.Compiled
        original_jit = jax.jit
        original_lower = stages.Traced.lower
        original_compile = stages.Lowered.compile
        original_call = stages.Compiled.__call__

        @functools.wraps(original_jit)
        def jit(*args: Any, **kwargs: Any) -> Any:
            wrapped = original_jit(*args, **kwargs)
            self._record("jit")
            return wrapped

        @functools.wraps(original_lower)
        def lower(traced: Any, *args: Any, **kwargs: Any) -> Any:
            lowered = original_lower(traced, *args, **kwargs)
            if type(lowered) is lowered_class:
                self._track(lowered, self._record("lower", -1, self.signature(lowered.args_info)))
            return lowered

        @functools.wraps(original_compile)
        def compile(lowered: Any, *args: Any, **kwargs: Any) -> Any:
            compiled = original_compile(lowered, *args, **kwargs)
            if type(lowered) is lowered_class and type(compiled) is compiled_class:
                number = self._record("compile", self._tracked_id(lowered), self.signature(compiled.args_info))
                self._track(compiled, number)
            return compiled

        @functools.wraps(original_call)
        def call(compiled: Any, *args: Any, **kwargs: Any) -> Any:
            result = original_call(compiled, *args, **kwargs)
            if type(compiled) is compiled_class:
                arrays = [leaf for leaf in jax.tree_util.tree_leaves((args, kwargs)) if hasattr(leaf, "dtype")]
                from_inputs = [any(leaf is given for given in self.inputs) for leaf in arrays]
                number = self._record("call", self._tracked_id(compiled), self.signature(arrays), from_inputs)
                self.outputs.append((result, number))
            return result

        def on_duration(event: str, duration_secs: float, **_: str | int) -> None:
            name = MONITORING_EVENTS.get(event)
            if name is None:
                return
            # Called by monitoring.record_event_duration_secs, itself called from inside JAX.
            caller = sys._getframe(2)
            if not str(caller.f_globals.get("__name__", "")).startswith(("jax.", "jaxlib.")):
                if len(self.forged_events) < 5:
                    self.forged_events.append(f"a {name[:-1].replace('_', ' ')} was emitted by code outside JAX")
                return
            self._record("event", name, float(duration_secs))

        setattr(jax, "jit", jit)  # noqa: B010 - jax.jit has no declared setter
        stages.Traced.lower = lower
        stages.Lowered.compile = compile
        stages.Compiled.__call__ = call
        self.monitoring.register_event_duration_secs_listener(on_duration)
        self.listener = on_duration
        self.hooks = (
            (jax, "jit", jit),
            (stages.Traced, "lower", lower),
            (stages.Lowered, "compile", compile),
            (stages.Compiled, "__call__", call),
            (jax.stages, "Compiled", compiled_class),
            (jax.stages, "Lowered", lowered_class),
        )

    def measured(self, action: Callable[[], Any]) -> tuple[Any, dict[str, Any]]:
        """Run ``action``; its value and what JAX did meanwhile (a reply's ``events``)."""
        first, started = len(self.log), time.perf_counter()
        self.outputs = []
        try:
            value = action()
        finally:
            seconds = time.perf_counter() - started
        return value, self._events(self.log[first:], value, seconds)

    def _events(self, records: list[tuple[Any, ...]], value: Any, seconds: float) -> dict[str, Any]:
        returned = self._leaves(value)
        returned_numbers = {number for output, number in self.outputs if any(output is leaf for leaf in returned)}
        events: dict[str, Any] = {name: 0 for name in ("jit", "lower", "compile", "compiled_call")}
        events.update({name: 0 for name in MONITORING_EVENTS.values()})
        events.update(compile_seconds=0.0, staging_seconds=0.0, seconds=seconds)
        stage_records: list[dict[str, Any]] = []
        for number, stage, *rest in records:
            if stage == "event":
                name, duration = rest
                events[name] += 1
                events["compile_seconds" if name == "backend_compile_events" else "staging_seconds"] += duration
                continue
            events["compiled_call" if stage == "call" else stage] += 1
            if stage != "jit" and len(stage_records) < MAX_STAGE_RECORDS:
                source, signature, *flags = rest
                stage_records.append(
                    {
                        "stage": stage,
                        "id": number,
                        "source": source,
                        "signature": signature,
                        "inputs": flags[0] if flags else [],
                        "returned": number in returned_numbers,
                    }
                )
        events["stages"] = stage_records
        return events

    @staticmethod
    def _leaves(value: Any) -> list[Any]:
        """The value returned and, one or two levels down, the items of its lists, tuples and dicts."""
        found = [value]
        for item in found[:64]:
            if type(item) in (list, tuple):
                found += list(item)[:64]
            elif type(item) is dict:
                found += list(item.values())[:64]
        return found

    def newest(self, kind: type, since: int) -> Any:
        """The most recent object of exactly this JAX class made from record ``since`` on, or None."""
        made = [(number, value) for value, number in self.tracked.values() if type(value) is kind and number >= since]
        return max(made, key=lambda entry: entry[0])[1] if made else None
