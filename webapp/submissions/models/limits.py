"""What the site takes from a student, checked in this one place: the size cap on code (a Run,
a Submit and a draft alike) and the per-student limits on gradings. A refusal is ``Refused``,
with the HTTP status the pages answer with."""

from __future__ import annotations

from django.conf import settings


class Refused(Exception):
    """A Run, Submit or draft the site will not take; the message says why, in the student's words."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


def check_code_size(code: str) -> None:
    """Code over ``MAX_CODE_BYTES`` (as UTF-8) is refused, whatever it is for."""
    size = len(code.encode("utf-8", errors="replace"))
    if size > settings.MAX_CODE_BYTES:
        raise Refused(f"Your code is {size} bytes; the limit is {settings.MAX_CODE_BYTES} bytes.", 413)


def check_handed_in_code(code: str) -> None:
    """Code handed in for grading: not empty, and within the size cap."""
    if not code.strip():
        raise Refused("Your solution is empty.", 400)
    check_code_size(code)


def check_gradings(*, pending: int, last_minute: int) -> None:
    """The student's gradings in progress and made in the last minute, against their limits."""
    if pending >= settings.MAX_PENDING:
        raise Refused(f"You already have {pending} gradings in progress; wait for one to finish.", 429)
    if last_minute >= settings.RATE_LIMIT_PER_MINUTE:
        limit = settings.RATE_LIMIT_PER_MINUTE
        raise Refused(f"At most {limit} runs and submissions a minute; try again shortly.", 429)
