"""The emails of enrolment: an invitation to join a course, or an account's activation.

Sent through Django's email framework (``EMAIL_*`` settings: SMTP in compose, the console or
a file in ``make run``). The link is the only secret in them; its token is never stored.
What an email says is written here from plain values, so that the models that send it
(``Invitation.deliver``) are the only side that knows the other.
"""

from __future__ import annotations

from django.core.mail import EmailMessage


def header_text(text: str) -> str:
    """Header text on one line (a course's title is its instructors' text; a newline would be refused)."""
    return " ".join(text.split())


def invitation_email(
    *, to: str, name: str, username: str, course_title: str, activates: bool, link: str, days: int
) -> EmailMessage:
    """The message for one invitation (``Invitation.deliver``), to the address ``to``, with its
    ``link`` (valid ``days`` days, once). ``activates``: the link sets the password of the
    account ``username`` the roster made; otherwise it lets one join with one's own account."""
    course = header_text(course_title)
    hello = f"Hello {name}," if name else "Hello,"
    if activates:
        subject = f"Your jaxjudge account for {course}"
        what = (
            f"{course} has made you an account on jaxjudge, named {username}. "
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
    return EmailMessage(header_text(subject), body, to=[to])
