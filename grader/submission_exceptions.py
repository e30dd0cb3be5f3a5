"""What a test sees raised when it calls the submission.

The student's own exceptions cross the channel as text (never pickled) and are rebuilt here
as the same builtin class, marked with ``RaisedBySubmission``, so that ``pytest.raises(TypeError)``
works for "a shape-bound executable must reject other shapes". Two more end the submission
itself: ``SubmissionUnavailable`` (the sandbox is gone) and ``TamperingDetected`` (its runtime
can no longer be believed).
"""

from __future__ import annotations

import builtins
from typing import Any

from sandbox import protocol
from sandbox.host.session import SandboxError

MAX_EXCEPTION_TEXT = 8000


class RaisedBySubmission(Exception):
    """Mixed into every exception that the student's code raised inside the sandbox."""

    remote_type: str = ""
    remote_traceback: str = ""


class SubmissionExited(RaisedBySubmission, RuntimeError):
    """The student's code called ``sys.exit()`` or raised another ``BaseException``."""


class SubmissionUnavailable(Exception):
    """The sandbox is gone (time limit, crash, broken protocol): no call can be answered."""

    def __init__(self, cause: SandboxError) -> None:
        super().__init__(str(cause))
        self.cause = cause


class TamperingDetected(Exception):
    """The submission changed the runtime's hooks, listeners, methods or record of JAX events.

    Nothing the sandbox says after that can be believed, so no further call is made.
    """

    def __init__(self, problems: list[str]) -> None:
        super().__init__("your code tampered with the grader's instrumentation: " + "; ".join(problems))
        self.problems = problems


_EXCEPTION_CLASSES: dict[type[Exception], type[Exception]] = {}


def submission_exception_class(builtin: type[Exception]) -> type[Exception]:
    """A subclass of ``builtin`` marked as raised by the submission, one per builtin."""
    if builtin not in _EXCEPTION_CLASSES:
        _EXCEPTION_CLASSES[builtin] = type(
            builtin.__name__, (RaisedBySubmission, builtin), {"__module__": "submission"}
        )
    return _EXCEPTION_CLASSES[builtin]


def _rebuilt(base: type[Exception], message: str) -> Exception:
    """An instance of the nearest class of ``base``'s ancestry that can hold just a message.

    Some builtins need more than a message (``UnicodeDecodeError`` five arguments,
    ``ExceptionGroup`` a list of exceptions); they become their nearest base that does not
    (``UnicodeError``, ``Exception``), so ``pytest.raises`` on a base still matches.
    """
    for candidate in base.__mro__:
        if not (isinstance(candidate, type) and issubclass(candidate, Exception)):
            continue
        if issubclass(candidate, BaseExceptionGroup):
            continue
        try:
            exc = submission_exception_class(candidate)(message)
            str(exc)
        except Exception:
            continue
        return exc
    return submission_exception_class(RuntimeError)(message)


def submission_exception(type_name: str, builtin_name: str, message: str, remote_traceback: str) -> Exception:
    """Rebuild an exception from the sandbox as an instance of its builtin class (or a base)."""
    base = getattr(builtins, builtin_name, None)
    exc: Exception
    if type_name in ("SystemExit", "KeyboardInterrupt", "GeneratorExit"):
        exc = SubmissionExited(f"your code raised {type_name}({message}) instead of returning")
    elif isinstance(base, type) and issubclass(base, Exception) and not issubclass(base, RaisedBySubmission):
        shown = message if type_name == builtin_name else f"{type_name}: {message}"
        exc = _rebuilt(base, shown)
    else:
        exc = submission_exception_class(RuntimeError)(f"{type_name}: {message}")
    assert isinstance(exc, RaisedBySubmission)
    exc.remote_type = type_name
    exc.remote_traceback = remote_traceback
    return exc


def exception_from_reply(reply: dict[str, Any]) -> Exception:
    """The exception an error reply reports, its texts capped (a field that is no text gets a default)."""
    return submission_exception(
        _text(reply.get(protocol.ERROR_TYPE), "Exception"),
        _text(reply.get(protocol.ERROR_BUILTIN), "RuntimeError"),
        _text(reply.get(protocol.ERROR_MESSAGE), ""),
        _text(reply.get(protocol.ERROR_TRACEBACK), ""),
    )


def _text(value: Any, default: str) -> str:
    return value[:MAX_EXCEPTION_TEXT] if isinstance(value, str) else default
