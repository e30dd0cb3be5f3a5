"""A jaxpr as plain data: what a ``make_jaxpr`` transformation returns across the wire.

A jaxpr object cannot cross, and its printout is for people: a test reads the primitives of
its top-level equations, every primitive at any depth, its text (capped), and its top-level
flow read from JAX's own objects (which variables each equation takes and gives, the
``NamedSharding``s among its parameters, the primitives of what is nested in it). Only exactly
JAX's classes count: a subclass made by the submission could say anything.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

# What a jaxpr summary carries at most.
MAX_JAXPR_EQUATIONS = 100_000
MAX_JAXPR_TEXT = 200_000
# The top-level flow of a jaxpr (``_flow``) describes at most this many equations, each with at
# most this many operands, shardings and nested primitives.
MAX_FLOW_EQUATIONS = 1_000
MAX_FLOW_ITEMS = 64
MAX_FLOW_INNER = 1_000
MAX_FLOW_NAME = 64  # characters of a mesh axis's name


class JaxprSummarizer:
    """Summarises closed jaxprs, told apart by JAX's classes as they were before any submission ran."""

    def __init__(self) -> None:
        import jax
        import jax.extend

        self.jaxpr_types = (jax.extend.core.Jaxpr, jax.extend.core.ClosedJaxpr)
        self.named_sharding_type = jax.sharding.NamedSharding
        self.mesh_type = jax.sharding.Mesh
        self.literal_type = jax.extend.core.Literal

    def summarize(self, closed: Any) -> dict[str, Any]:
        """A jaxpr as plain data: its top-level primitives, every primitive at any depth, its text."""
        every = self._every_primitive([closed.jaxpr], MAX_JAXPR_EQUATIONS)
        return {
            "primitives": [str(equation.primitive.name) for equation in closed.jaxpr.eqns[:MAX_JAXPR_EQUATIONS]],
            "all_primitives": every[:MAX_JAXPR_EQUATIONS],
            "equations": len(every),
            "text": str(closed)[:MAX_JAXPR_TEXT],
            "flow": self._flow(closed.jaxpr),
        }

    @staticmethod
    def _parameters(equation: Any) -> Iterator[Any]:
        """Every value among an equation's parameters, a list or tuple of them opened one level."""
        for value in equation.params.values():
            yield from value if type(value) in (list, tuple) else (value,)

    def _nested_jaxprs(self, equation: Any) -> list[Any]:
        jaxprs = [item for item in self._parameters(equation) if isinstance(item, self.jaxpr_types)]
        return [getattr(item, "jaxpr", item) for item in jaxprs]

    def _every_primitive(self, jaxprs: list[Any], limit: int) -> list[str]:
        """The primitives of the equations of ``jaxprs`` and of every jaxpr nested in them,
        breadth first, until at least ``limit`` are found."""
        names: list[str] = []
        pending = list(jaxprs)
        while pending and len(names) < limit:
            for equation in pending.pop(0).eqns:
                names.append(str(equation.primitive.name))
                pending.extend(self._nested_jaxprs(equation))
        return names

    def _flow(self, jaxpr: Any) -> dict[str, Any]:
        """The top level of a jaxpr as data, read from JAX's objects rather than its printout:
        which variables (numbered) each equation takes and gives, the ``NamedSharding``s among its
        parameters (``device_put``'s targets, ``jit``'s ``in_shardings``), and the primitives of
        the jaxprs nested in it, at any depth. Literal operands are -1."""
        numbers: dict[Any, int] = {}

        def number(variable: Any) -> int:
            if isinstance(variable, self.literal_type):
                return -1
            return numbers.setdefault(variable, len(numbers))

        def numbered(variables: Any) -> list[int]:
            return [number(variable) for variable in list(variables)[:MAX_FLOW_ITEMS]]

        equations = []
        inputs = numbered(jaxpr.invars)
        for equation in jaxpr.eqns[:MAX_FLOW_EQUATIONS]:
            # Exactly JAX's classes: a subclass made by the submission could say anything.
            shardings = [
                self._named_sharding(item)
                for item in self._parameters(equation)
                if type(item) is self.named_sharding_type and type(item.mesh) is self.mesh_type
            ]
            equations.append(
                {
                    "primitive": str(equation.primitive.name),
                    "inputs": numbered(equation.invars),
                    "outputs": numbered(equation.outvars),
                    "shardings": shardings[:MAX_FLOW_ITEMS],
                    "inner": self._every_primitive(self._nested_jaxprs(equation), MAX_FLOW_INNER)[:MAX_FLOW_INNER],
                }
            )
        return {"inputs": inputs, "outputs": numbered(jaxpr.outvars), "equations": equations}

    @staticmethod
    def _named_sharding(sharding: Any) -> dict[str, Any]:
        """A NamedSharding as data: its mesh's axes with their sizes, and for each dimension of the
        array the mesh axes it is split over (``P('d')`` and ``P(('d',))`` alike give ``[["d"]]``)."""
        axes = list(sharding.mesh.shape.items())[:MAX_FLOW_ITEMS]
        mesh = [[str(name)[:MAX_FLOW_NAME], int(size)] for name, size in axes]
        spec = []
        for entry in list(sharding.spec)[:MAX_FLOW_ITEMS]:
            names = () if entry is None else (entry,) if isinstance(entry, str) else tuple(entry)
            spec.append([str(name)[:MAX_FLOW_NAME] for name in names[:MAX_FLOW_ITEMS]])
        return {"mesh": mesh, "spec": spec}
