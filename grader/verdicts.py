"""The closed vocabulary of verdicts, defined once; they cross every boundary as strings."""

from __future__ import annotations

import enum


class Verdict(enum.StrEnum):
    ACCEPTED = "accepted"
    WRONG_ANSWER = "wrong_answer"
    RUNTIME_ERROR = "runtime_error"
    SYNTAX_ERROR = "syntax_error"
    TIME_LIMIT_EXCEEDED = "time_limit_exceeded"
    MEMORY_LIMIT_EXCEEDED = "memory_limit_exceeded"
    OUTPUT_LIMIT_EXCEEDED = "output_limit_exceeded"
    # The submission changed the runtime that observes it: never accepted, whatever it returned.
    INTEGRITY_VIOLATION = "integrity_violation"
    INTERNAL_ERROR = "internal_error"
    # The file could not be read as a submission at all (not a notebook, empty, not UTF-8):
    # nothing was run. Batch grading gives such a file a row of its own rather than stopping.
    INVALID_SUBMISSION = "invalid_submission"

    @property
    def label(self) -> str:
        """The verdict as a student reads it ("Wrong answer"); the value is for machines."""
        return self.value.replace("_", " ").capitalize()


# When several tests fail for different reasons, the submission's verdict is the first
# of these that occurred: a limit explains the failures after it, not the other way round.
VERDICT_PRECEDENCE = (
    Verdict.INTERNAL_ERROR,
    Verdict.INVALID_SUBMISSION,
    Verdict.INTEGRITY_VIOLATION,
    Verdict.SYNTAX_ERROR,
    Verdict.TIME_LIMIT_EXCEEDED,
    Verdict.MEMORY_LIMIT_EXCEEDED,
    Verdict.OUTPUT_LIMIT_EXCEEDED,
    Verdict.RUNTIME_ERROR,
    Verdict.WRONG_ANSWER,
)


def worst(verdicts: set[Verdict]) -> Verdict:
    """The verdict of a submission whose tests failed with ``verdicts`` (accepted if none)."""
    for verdict in VERDICT_PRECEDENCE:
        if verdict in verdicts:
            return verdict
    return Verdict.ACCEPTED
