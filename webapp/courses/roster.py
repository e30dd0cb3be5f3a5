"""A roster file, read: the CSV an instructor uploads (or ``manage.py enrol`` is given), checked
whole before anything of it is kept, with every bad line named.

Reading it touches no table: what the rows then become (invitations, accounts to activate) is
``RosterUpload``'s, in ``webapp/courses/models/roster_upload.py``.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass

from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import UploadedFile
from django.core.validators import validate_email

ROSTER_COLUMNS = ("username", "email", "name", "section")
MAX_ROSTER_BYTES = 2 * 2**20
MAX_ROSTER_PROBLEMS = 20  # named one by one; beyond these the page says how many more


class RosterError(ValueError):
    """A roster file that cannot be read; ``problems`` names each bad line and what is wrong
    (the first ``MAX_ROSTER_PROBLEMS`` of them, then how many more)."""

    def __init__(self, problems: str | list[str]) -> None:
        self.problems = [problems] if isinstance(problems, str) else problems
        super().__init__("; ".join(self.problems))


@dataclass(frozen=True)
class RosterRow:
    line: int
    username: str
    email: str
    name: str
    section: str


def read_roster(text: str) -> list[RosterRow]:
    """A roster as CSV with a header naming ``username`` and ``email`` (required), ``name`` and
    ``section`` (optional, any order). The email is the school's record of the person: their
    invitation goes there. Raises ``RosterError`` naming every bad line (up to a count)."""
    if len(text.encode()) > MAX_ROSTER_BYTES:
        raise RosterError(f"the roster is larger than {MAX_ROSTER_BYTES // 2**20} MB")
    reader = csv.DictReader(io.StringIO(text.lstrip("\ufeff")))  # a spreadsheet's byte-order mark
    header = [name.strip().lower() for name in reader.fieldnames or []]
    if "username" not in header or "email" not in header:
        raise RosterError("line 1: the header must name a username and an email column (and may name name, section)")
    unknown = [name for name in header if name not in ROSTER_COLUMNS]
    if unknown:
        raise RosterError(f"line 1: unknown column {unknown[0]!r}; the columns are {', '.join(ROSTER_COLUMNS)}")
    reader.fieldnames = header
    rows: list[RosterRow] = []
    problems: list[str] = []
    line_of_username: dict[str, int] = {}
    line_of_email: dict[str, int] = {}
    for row in reader:
        line = reader.line_num
        values = {name: (row.get(name) or "").strip() for name in ROSTER_COLUMNS}
        if not any(values.values()):
            continue  # a blank line
        problem = roster_line_problem(values, line_of_username, line_of_email)
        if problem:
            problems.append(f"line {line}: {problem}")
            continue
        line_of_username[values["username"]] = line
        line_of_email[values["email"].lower()] = line
        rows.append(RosterRow(line, values["username"], values["email"], values["name"], values["section"]))
    if problems:
        named = problems[:MAX_ROSTER_PROBLEMS]
        if len(problems) > len(named):
            named.append(f"and {len(problems) - len(named)} more bad lines")
        raise RosterError(named)
    return rows


def roster_line_problem(values: dict[str, str], line_of_username: dict[str, int], line_of_email: dict[str, int]) -> str:
    """What is wrong with one roster line ("" if nothing), given the lines read before it."""
    username, email = values["username"], values["email"]
    if not username or not re.fullmatch(r"[\w.@+-]{1,150}", username):
        return f"{username!r} is not a username (letters, digits and @.+-_, at most 150)"
    if username in line_of_username:
        return f"{username} is listed twice (first on line {line_of_username[username]})"
    if not email:
        return f"{username} has no email (the invitation to join is sent there)"
    try:
        validate_email(email)
    except ValidationError:
        return f"{email!r} is not an email address"
    if email.lower() in line_of_email:
        return f"{email} is listed twice (first on line {line_of_email[email.lower()]})"
    if len(values["name"]) > 150 or len(values["section"]) > 50:
        return "a name may have 150 characters, a section 50"
    return ""


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
