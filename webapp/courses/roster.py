"""A roster file, read: the CSV an instructor uploads (or ``manage.py enrol`` is given), checked
whole before anything of it is kept, with every bad line named.

Reading it touches no table: what the rows then become (invitations, accounts to activate, and
the course's record of each person on their membership) is ``RosterUpload``'s and
``Invitation``'s, in ``webapp/courses/models/``.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Sequence
from dataclasses import dataclass

from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import UploadedFile
from django.core.validators import validate_email

ROSTER_COLUMNS = ("username", "email", "name", "student_id", "section")
MAX_ROSTER_BYTES = 2 * 2**20
# Bad lines named one by one: a whole class list's (the largest courses list a few hundred
# students), so the instructor fixes the file in one pass; beyond these the page says how many more.
MAX_ROSTER_PROBLEMS = 500
MAX_NAME, MAX_STUDENT_ID, MAX_SECTION = 150, 50, 50  # the membership's fields' lengths


class RosterProblems(list[str]):
    """A refused roster's problems, as the page lists them: each bad line named with what is
    wrong (the first ``MAX_ROSTER_PROBLEMS``), or one problem of the whole file (not CSV, too
    big, a bad header). ``bad_lines`` counts every bad line, named or not (0 for a problem of
    the whole file); ``unnamed`` those beyond the named."""

    def __init__(self, problems: Sequence[str], *, bad_lines: int = 0) -> None:
        super().__init__(problems[:MAX_ROSTER_PROBLEMS])
        self.bad_lines = bad_lines
        self.unnamed = len(problems) - len(self)


class RosterError(ValueError):
    """A roster file that cannot be read; ``problems`` names each bad line and what is wrong."""

    def __init__(self, problems: str | RosterProblems) -> None:
        self.problems = RosterProblems([problems]) if isinstance(problems, str) else problems
        text = "; ".join(self.problems)
        if self.problems.unnamed:
            text += f"; and {self.problems.unnamed} more bad lines"
        super().__init__(text)


@dataclass(frozen=True)
class RosterRow:
    """One person of a roster: how they are invited (``username``, ``email``) and the course's
    record of them (``email`` again, ``name``, ``student_id``, ``section``), which their
    membership keeps whatever their account calls itself."""

    line: int
    username: str
    email: str
    name: str
    section: str
    student_id: str = ""

    def stored(self) -> list[int | str]:
        """The row as an upload keeps it (JSON): the student id last, so that rows kept before
        it was read still unpack (``from_stored``)."""
        return [self.line, self.username, self.email, self.name, self.section, self.student_id]

    def record(self) -> dict[str, str]:
        """The course's record of the person, by the names a membership's fields have."""
        return {"name": self.name, "email": self.email, "student_id": self.student_id, "section": self.section}

    @classmethod
    def from_stored(cls, stored: Sequence[int | str]) -> RosterRow:
        line, username, email, name, section, *rest = stored
        return cls(int(line), str(username), str(email), str(name), str(section), str(rest[0]) if rest else "")


def column_name(header: str) -> str:
    """A header cell as a column's name: "Student ID" and "student-id" are ``student_id``."""
    return re.sub(r"[\s-]+", "_", header.strip().lower())


def read_roster(text: str) -> list[RosterRow]:
    """A roster as CSV with a header naming ``username`` and ``email`` (required), ``name``,
    ``student_id`` and ``section`` (optional, any order). The email is the school's record of
    the person: their invitation goes there. Raises ``RosterError`` naming every bad line."""
    if len(text.encode()) > MAX_ROSTER_BYTES:
        raise RosterError(f"the roster is larger than {MAX_ROSTER_BYTES // 2**20} MB")
    reader = csv.DictReader(io.StringIO(text.lstrip("\ufeff")))  # a spreadsheet's byte-order mark
    header = [column_name(name) for name in reader.fieldnames or []]
    optional = ", ".join(ROSTER_COLUMNS[2:])
    if "username" not in header or "email" not in header:
        raise RosterError(
            RosterProblems(
                [f"line 1: the header must name a username and an email column (and may name {optional})"],
                bad_lines=1,
            )
        )
    unknown = [name for name in header if name not in ROSTER_COLUMNS]
    if unknown:
        raise RosterError(
            RosterProblems(
                [f"line 1: unknown column {unknown[0]!r}; the columns are {', '.join(ROSTER_COLUMNS)}"], bad_lines=1
            )
        )
    reader.fieldnames = header
    rows: list[RosterRow] = []
    problems: list[str] = []
    seen: dict[str, dict[str, int]] = {"username": {}, "email": {}, "student_id": {}}
    for row in reader:
        line = reader.line_num
        values = {name: (row.get(name) or "").strip() for name in ROSTER_COLUMNS}
        if not any(values.values()):
            continue  # a blank line
        problem = roster_line_problem(values, seen)
        if problem:
            problems.append(f"line {line}: {problem}")
            continue
        seen["username"][values["username"]] = line
        seen["email"][values["email"].lower()] = line
        if values["student_id"]:
            seen["student_id"][values["student_id"]] = line
        rows.append(
            RosterRow(
                line, values["username"], values["email"], values["name"], values["section"], values["student_id"]
            )
        )
    if problems:
        raise RosterError(RosterProblems(problems, bad_lines=len(problems)))
    return rows


def roster_line_problem(values: dict[str, str], seen: dict[str, dict[str, int]]) -> str:
    """What is wrong with one roster line ("" if nothing), given the good lines read before it
    (``seen``: the line of each username, lowercased email and student id)."""
    username, email, student_id = values["username"], values["email"], values["student_id"]
    if not username or not re.fullmatch(r"[\w.@+-]{1,150}", username):
        return f"{username!r} is not a username (letters, digits and @.+-_, at most 150)"
    if username in seen["username"]:
        return f"{username} is listed twice (first on line {seen['username'][username]})"
    if not email:
        return f"{username} has no email (the invitation to join is sent there)"
    try:
        validate_email(email)
    except ValidationError:
        return f"{email!r} is not an email address"
    if email.lower() in seen["email"]:
        return f"{email} is listed twice (first on line {seen['email'][email.lower()]})"
    if student_id in seen["student_id"]:
        return f"student id {student_id} is listed twice (first on line {seen['student_id'][student_id]})"
    too_long = [
        f"a {what} may have {limit} characters"
        for what, value, limit in (
            ("name", values["name"], MAX_NAME),
            ("student id", student_id, MAX_STUDENT_ID),
            ("section", values["section"], MAX_SECTION),
        )
        if len(value) > limit
    ]
    return "; ".join(too_long)


def read_uploaded_roster(upload: UploadedFile | None) -> list[RosterRow]:
    """The rows of an uploaded CSV file, checked whole; ``RosterError`` names every bad line."""
    if upload is None:
        raise RosterError("choose a CSV file to upload")
    if upload.size is not None and upload.size > MAX_ROSTER_BYTES:
        raise RosterError(f"the roster is larger than {MAX_ROSTER_BYTES // 2**20} MB")
    try:
        text = upload.read().decode("utf-8-sig")
    except UnicodeDecodeError:
        raise RosterError("the file is not UTF-8 text (save the roster as CSV UTF-8)") from None
    return read_roster(text)
