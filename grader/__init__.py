"""jaxjudge's grading engine: problem notebooks, a trusted harness, sandboxed submissions.

The public API for test authors and for the web app. Hidden tests use the fixtures
``submission`` and ``reference`` (provided by the harness's pytest plugin), the strategies
and the assertions below. This package never imports Django.

Names are imported on first use, so that ``python -m grader`` can start a sandbox (which
imports JAX on its side) before this process pays for importing JAX itself. Importing the
package, or a vocabulary such as ``grader.verdicts``, changes nothing in the process; the
harness sets the XLA flags it compiles with (``grader.harness``).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# Each public name, under the module that defines it. Type checkers read the imports below;
# at run time ``__getattr__`` imports a name's module from the table on first use.
if TYPE_CHECKING:
    from grader.assertions import (  # noqa: F401
        assert_compiled_ahead_of_time,
        assert_handle_kind,
        assert_rejects,
        assert_same_array,
        assert_same_value,
        describe,
    )
    from grader.call_records import CallRecord, JaxEvents, StageRecord  # noqa: F401
    from grader.harness import grade_submission  # noqa: F401
    from grader.jaxpr_summary import JaxprSummary  # noqa: F401
    from grader.portable_function import PortableFunction  # noqa: F401
    from grader.problem import Problem, ProblemError, all_problems, load_problem  # noqa: F401
    from grader.proxy import SubmissionProxy  # noqa: F401
    from grader.reference import load_reference, remembered  # noqa: F401
    from grader.remote_handle import RemoteHandle  # noqa: F401
    from grader.report import Report, TestResult  # noqa: F401
    from grader.source import (  # noqa: F401
        SubmissionInputError,
        SubmissionSource,
        read_submission,
        source_from_text,
    )
    from grader.strategies import (  # noqa: F401
        DEFAULT_DTYPES,
        FLOAT_DTYPES,
        INT_DTYPES,
        JnpProgram,
        arrays,
        dtypes_other_than,
        jnp_programs,
        shapes_other_than,
    )
    from grader.submission_exceptions import RaisedBySubmission, TamperingDetected  # noqa: F401
    from grader.verdicts import Verdict  # noqa: F401

_LOCATIONS = {
    "grader.assertions": (
        "assert_compiled_ahead_of_time",
        "assert_handle_kind",
        "assert_rejects",
        "assert_same_array",
        "assert_same_value",
        "describe",
    ),
    "grader.call_records": ("CallRecord", "JaxEvents", "StageRecord"),
    "grader.harness": ("grade_submission",),
    "grader.jaxpr_summary": ("JaxprSummary",),
    "grader.portable_function": ("PortableFunction",),
    "grader.problem": ("Problem", "ProblemError", "all_problems", "load_problem"),
    "grader.proxy": ("SubmissionProxy",),
    "grader.reference": ("load_reference", "remembered"),
    "grader.remote_handle": ("RemoteHandle",),
    "grader.report": ("Report", "TestResult"),
    "grader.source": ("SubmissionInputError", "SubmissionSource", "read_submission", "source_from_text"),
    "grader.strategies": (
        "DEFAULT_DTYPES",
        "FLOAT_DTYPES",
        "INT_DTYPES",
        "JnpProgram",
        "arrays",
        "dtypes_other_than",
        "jnp_programs",
        "shapes_other_than",
    ),
    "grader.submission_exceptions": ("RaisedBySubmission", "TamperingDetected"),
    "grader.verdicts": ("Verdict",),
}
_MODULE_OF = {name: module for module, names in _LOCATIONS.items() for name in names}
__all__ = sorted(_MODULE_OF)


def __getattr__(name: str) -> Any:
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module 'grader' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
