"""Objects that cannot cross the channel, held in the sandbox and reached through a handle.

A ``Compiled``, a ``Lowered``, an ``Exported`` or a function the submission returns stays in
the sandbox; the harness gets a ``RemoteHandle`` that it can call, whose allow-listed methods
(``protocol.HANDLE_METHODS``: ``as_text``, ``cost_analysis``, ...) and attributes it can ask
for, and whose kind the sandbox tells by identity with JAX's own classes. Each use is one more
request through the proxy that got it.
"""

from __future__ import annotations

import functools
from typing import Any, Protocol

from sandbox import protocol


class SendRequest(Protocol):
    """How a handle reaches the sandbox: its proxy's request (the operation, the name the call
    is recorded under, the request's fields), which returns the reply's value."""

    def __call__(self, op: str, label: str, /, **fields: Any) -> Any: ...


class RemoteHandle:
    """An object that stays in the sandbox (a ``Compiled``, a ``Lowered``, a function, ...)."""

    def __init__(self, request: SendRequest, ref: protocol.HandleRef) -> None:
        self._request, self._ref = request, ref
        # How its calls are named in the insight: what made it (``jit(f)``), when the harness knows.
        self.label = ""

    @property
    def type_name(self) -> str:
        """The object's type as ``module.QualName``, for messages only: a submission names its own classes."""
        return self._ref.type_name

    @property
    def kind(self) -> str:
        """What the object is, told in the sandbox by identity with the real JAX classes.

        One of ``compiled``, ``lowered``, ``traced``, ``exported``, ``jitted`` (what
        ``jax.jit`` returns), ``function`` and ``object``. A class that merely calls itself
        ``Compiled`` is an ``object``.
        """
        return self._ref.kind

    @property
    def is_compiled(self) -> bool:
        """A real ``jax.stages.Compiled``."""
        return self.kind == "compiled"

    @property
    def is_lowered(self) -> bool:
        """A real ``jax.stages.Lowered``."""
        return self.kind == "lowered"

    @property
    def is_exported(self) -> bool:
        """A real ``jax.export.Exported``."""
        return self.kind == "exported"

    @property
    def is_callable(self) -> bool:
        return self._ref.callable

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._request(
            protocol.CALL,
            self.label or f"<{self.short_type}>",
            target=self._ref.id,
            method=None,
            args=args,
            kwargs=kwargs,
        )

    def call_method(self, name: str, *args: Any, **kwargs: Any) -> Any:
        return self._request(
            protocol.CALL, f"<{self.short_type}>.{name}", target=self._ref.id, method=name, args=args, kwargs=kwargs
        )

    def attribute(self, name: str) -> Any:
        return self._request(protocol.GETATTR, f"<{self.short_type}>.{name}", target=self._ref.id, name=name)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        if name in protocol.HANDLE_METHODS:
            return functools.partial(self.call_method, name)
        return self.attribute(name)

    @property
    def short_type(self) -> str:
        return self.type_name.rsplit(".", 1)[-1]

    def __repr__(self) -> str:
        return f"<{self.type_name} object in the sandbox>"
