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

if TYPE_CHECKING:
    from grader.assertions import (
        assert_compiled_ahead_of_time,
        assert_handle_kind,
        assert_rejects,
        assert_same_array,
        assert_same_value,
        describe,
    )
    from grader.harness import grade_submission
    from grader.problem import Problem, ProblemError, all_problems, load_problem
    from grader.proxy import (
        CallRecord,
        JaxEvents,
        JaxprSummary,
        PortableFunction,
        RaisedBySubmission,
        RemoteHandle,
        StageRecord,
        SubmissionProxy,
        TamperingDetected,
    )
    from grader.reference import load_reference, remembered
    from grader.report import Report, TestResult
    from grader.source import SubmissionInputError, SubmissionSource, read_submission, source_from_text
    from grader.strategies import (
        DEFAULT_DTYPES,
        FLOAT_DTYPES,
        INT_DTYPES,
        JnpProgram,
        arrays,
        dtypes_other_than,
        jnp_programs,
        shapes_other_than,
    )
    from grader.verdicts import Verdict

_LOCATIONS = {
    "grader.assertions": (
        "assert_compiled_ahead_of_time",
        "assert_handle_kind",
        "assert_rejects",
        "assert_same_array",
        "assert_same_value",
        "describe",
    ),
    "grader.harness": ("grade_submission",),
    "grader.reference": ("load_reference", "remembered"),
    "grader.problem": ("Problem", "ProblemError", "all_problems", "load_problem"),
    "grader.proxy": (
        "CallRecord",
        "JaxEvents",
        "JaxprSummary",
        "PortableFunction",
        "RaisedBySubmission",
        "RemoteHandle",
        "StageRecord",
        "SubmissionProxy",
        "TamperingDetected",
    ),
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
    "grader.verdicts": ("Verdict",),
}
_MODULE_OF = {name: module for module, names in _LOCATIONS.items() for name in names}


def __getattr__(name: str) -> Any:
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module 'grader' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)


__all__ = [
    "DEFAULT_DTYPES",
    "FLOAT_DTYPES",
    "INT_DTYPES",
    "CallRecord",
    "JaxEvents",
    "JaxprSummary",
    "JnpProgram",
    "PortableFunction",
    "Problem",
    "ProblemError",
    "RaisedBySubmission",
    "RemoteHandle",
    "Report",
    "StageRecord",
    "SubmissionInputError",
    "SubmissionProxy",
    "SubmissionSource",
    "TamperingDetected",
    "TestResult",
    "Verdict",
    "all_problems",
    "arrays",
    "assert_compiled_ahead_of_time",
    "assert_handle_kind",
    "assert_rejects",
    "assert_same_array",
    "assert_same_value",
    "describe",
    "dtypes_other_than",
    "grade_submission",
    "jnp_programs",
    "load_problem",
    "load_reference",
    "read_submission",
    "remembered",
    "shapes_other_than",
    "source_from_text",
]
