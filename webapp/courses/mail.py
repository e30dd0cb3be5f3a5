"""The emails of enrolment: an invitation to join a course, or an account's activation.

Sent through Django's email framework (``EMAIL_*`` settings: SMTP in compose, the console or
a file in ``make run``). The link is the only secret in them; its token is never stored.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.core.mail import EmailMessage

if TYPE_CHECKING:
    from webapp.courses.models import Invitation


def one_line(text: str) -> str:
    """Header text on one line (a course's title is staff's text; a newline would be refused)."""
    return " ".join(text.split())


def invitation_email(invitation: Invitation, link: str, *, days: int) -> EmailMessage:
    """The message for one invitation, with its ``link`` (valid ``days`` days, once)."""
    course = one_line(invitation.course.title)
    hello = f"Hello {invitation.name}," if invitation.name else "Hello,"
    if invitation.activates:
        subject = f"Your jaxjudge account for {course}"
        what = (
            f"{course} has made you an account on jaxjudge, named {invitation.username}. "
            "Open this link to choose its password; you are then signed in and in the course:"
        )
    else:
        subject = f"You are invited to {course} on jaxjudge"
        what = (
            f"You are invited to join {course} on jaxjudge as a student. Open this link, sign in "
            "with your own jaxjudge account (or sign up first, then open the link again), and join:"
        )
    body = (
        f"{hello}\n\n{what}\n\n{link}\n\n"
        f"The link works once, for {days} days. The course's staff will see the work you hand in "
        "to its assignments. If you did not expect this email, ignore it: nothing happens "
        "unless the link is opened.\n"
    )
    return EmailMessage(one_line(subject), body, to=[invitation.email])
