"""Functions a test passes to the submission: they cross the channel as source, never as objects.

The sandbox accepts no pickled code, so a test that hands the submission a function (``apply(f,
x)``, ``jax.grad`` of a loss) writes it as source; the same source is compiled here for the
reference and in the sandbox for the submission.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np


class PortableFunction:
    """A function a test can pass to the submission: it crosses the channel as source.

    ``source`` must define ``name`` using only ``jax``, ``jnp`` and ``np``; the same source
    is compiled here for the reference and in the sandbox for the submission.
    """

    def __init__(self, source: str, name: str = "f") -> None:
        self.source, self.name = source, name
        namespace: dict[str, Any] = {"jax": jax, "jnp": jnp, "np": np}
        exec(compile(source, f"<function {name}>", "exec"), namespace)
        self.function: Callable[..., Any] = namespace[name]
        # Named like the function it wraps (JAX names jitted modules after it: jit_f), and
        # with its signature (inspect follows __wrapped__).
        functools.update_wrapper(self, self.function)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.function(*args, **kwargs)

    def __repr__(self) -> str:
        return f"PortableFunction({self.source!r})"
