"""``manage.py autograde --problem SLUG FILES...``: grade student notebooks and record the results.

The notebooks are graded as ``python -m grader autograde`` grades them (in parallel, each run
as Jupyter runs it, in a sandbox); each result whose student has an account here (matched by
username) is recorded as a Submit of theirs. A handed-in notebook is the student's file, so
its name is not taken on trust: with ``--student-from metadata`` only a name this site signed
for that student and problem (``webapp.notebook_identity``) is believed, nothing is ever
recorded to a staff account, and two notebooks of one batch for the same student are both
set aside. Whatever is not recorded is listed at the end with its reason; no account is made.
"""

from __future__ import annotations

import argparse
import csv
import io
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from django.contrib.auth.models import User
from django.core.management.base import BaseCommand, CommandError, CommandParser

from webapp.catalog.models import Problem
from webapp.courses.models import Assignment
from webapp.notebook_identity import notebook_identity_matches
from webapp.submissions.models import Submission

if TYPE_CHECKING:
    from webapp.grading import Graded

TRUST_UNSIGNED_HELP = (
    "with --student-from metadata, also believe a grader.student that carries no signature of this "
    "site (a notebook not downloaded from it). RISKY: anyone can write any username into a notebook, "
    "so a student can hand in work as someone else; use it only when you know who handed in each "
    "file. A signature that does not match is refused all the same, and nothing is ever recorded "
    "to a staff account"
)


@dataclass(frozen=True)
class NotRecorded:
    item: Graded
    reason: str


class Command(BaseCommand):
    help = "Grade student notebooks (or .py files) for a problem and record them as the students' Submits."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("files", nargs="+", help="notebooks, folders of notebooks, or globs")
        parser.add_argument("--problem", required=True, help="the problem's slug (it must be in the catalog)")
        parser.add_argument("--jobs", type=int, help="notebooks graded at once (default: the cores)")
        parser.add_argument(
            "--student-from",
            choices=("file", "metadata"),
            default="file",
            help="whose notebook it is: the file's name (default) or the notebook's grader.student metadata, "
            "believed only when the site signed it for that student and problem",
        )
        parser.add_argument("--trust-unsigned-metadata", action="store_true", help=TRUST_UNSIGNED_HELP)
        parser.add_argument("--out", type=Path, help="also write the reports, JUnit XML and CSVs here")
        parser.add_argument(
            "--assignment",
            help="COURSE/ASSIGNMENT (slugs): record only the course's students, and say what each notebook "
            "earns under the assignment's deadline and late policy",
        )
        hand_in = parser.add_mutually_exclusive_group()
        hand_in.add_argument(
            "--handed-in-at",
            type=parse_hand_in_time,
            help="when every notebook was handed in (ISO 8601 with a time zone, e.g. 2026-09-08T23:59+02:00); "
            "default: when it is recorded",
        )
        hand_in.add_argument(
            "--hand-in-times",
            type=Path,
            help="a CSV of each student's hand-in time: columns username and handed_in_at (ISO 8601 with a zone)",
        )

    def handle(self, *args: Any, files: list[str], problem: str, **options: Any) -> None:
        from webapp.grading import AutogradeUsageError, autograde, summary_table

        catalog_problem = Problem.objects.filter(slug=problem).first()
        if catalog_problem is None:
            known = ", ".join(Problem.objects.values_list("slug", flat=True)) or "none"
            raise CommandError(f"no problem {problem!r} in the catalog (known: {known})")
        if options["jobs"] is not None and options["jobs"] < 1:
            raise CommandError("--jobs must be at least 1")
        if options["trust_unsigned_metadata"] and options["student_from"] != "metadata":
            raise CommandError("--trust-unsigned-metadata is for --student-from metadata")
        assignment = find_assignment(options["assignment"], catalog_problem) if options["assignment"] else None
        hand_in_times = read_hand_in_times(options["hand_in_times"]) if options["hand_in_times"] else None
        started = time.perf_counter()
        try:
            graded, finished = autograde(
                files,
                problem=problem,
                jobs=options["jobs"],
                out=options["out"],
                student_from=options["student_from"],
            )
        except AutogradeUsageError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(summary_table(graded, time.perf_counter() - started))
        recordable, refused = self.choose(
            graded,
            catalog_problem,
            from_metadata=options["student_from"] == "metadata",
            trust_unsigned=options["trust_unsigned_metadata"],
        )
        if assignment is not None:
            students = set(assignment.course.memberships.filter(role="student").values_list("user_id", flat=True))
            outside = [(item, user) for item, user in recordable if user.pk not in students]
            refused += [NotRecorded(item, f"not a student of {assignment.course.slug}") for item, _ in outside]
            recordable = [(item, user) for item, user in recordable if user.pk in students]
        if hand_in_times is not None:
            untimed = [(item, user) for item, user in recordable if user.username not in hand_in_times]
            refused += [NotRecorded(item, "no hand-in time for this student in the CSV") for item, _ in untimed]
            recordable = [(item, user) for item, user in recordable if user.username in hand_in_times]
        for item, user in recordable:
            # What was graded, as the grading read it: the file is not read again (it may have
            # changed since). A file that could not be read is recorded with no code (its verdict says why).
            graded_source = item.source
            at = hand_in_times[user.username] if hand_in_times is not None else options["handed_in_at"]
            submission = Submission.record_graded(
                user,
                catalog_problem,
                item.report.to_dict(),
                code=graded_source.text if graded_source else "",
                notebook=(graded_source.notebook or "") if graded_source else "",
                handed_in_at=at,
            )
            if assignment is not None:
                credit = assignment.credit(submission.handed_in, assignment.due_for(user))
                if credit.late:
                    self.stdout.write(f"  {user.username}: {credit.note}")
        where = f" for {options['assignment']}" if assignment is not None else ""
        self.stdout.write(f"recorded {len(recordable)} submission(s) of {problem}{where}")
        self.list_not_recorded(refused)
        if not finished:
            raise CommandError("interrupted: the notebooks graded so far were recorded")

    def choose(
        self,
        graded: list[Graded],
        problem: Problem,
        *,
        from_metadata: bool,
        trust_unsigned: bool,
    ) -> tuple[list[tuple[Graded, User]], list[NotRecorded]]:
        """Which graded notebooks are recorded, to whom; and the others, each with its reason."""
        refused: list[NotRecorded] = []
        claims: dict[int, list[tuple[Graded, User]]] = {}
        for item in graded:
            account = self.account_for(item, problem, from_metadata=from_metadata, trust_unsigned=trust_unsigned)
            if isinstance(account, str):
                refused.append(NotRecorded(item, account))
            else:
                claims.setdefault(account.pk, []).append((item, account))
        recordable = []
        for claim in claims.values():
            if len(claim) == 1:
                recordable += claim
                continue
            # Two notebooks of one batch for the same student and problem: neither is recorded.
            # Recording both would have the gradebook (the best Submit counts) pick one without
            # anyone deciding, and a copy of a classmate's signed notebook could then raise or
            # stand for their grade. Which hand-in counts is the staff's call: both are listed,
            # and staff grade the one that counts on its own.
            user = claim[0][1]
            names = ", ".join(_shown(item.path) for item, _ in claim)
            for item, _ in claim:
                refused.append(
                    NotRecorded(
                        item,
                        f"conflict: {len(claim)} notebooks of this batch are {user.username}'s for {problem.slug} "
                        f"({names}); none of them recorded, grade the one that counts on its own",
                    )
                )
        return recordable, refused

    def account_for(self, item: Graded, problem: Problem, *, from_metadata: bool, trust_unsigned: bool) -> User | str:
        """The account a notebook is recorded to, or why it is recorded to none."""
        user = User.objects.filter(username=item.student).first()
        if user is None:
            return "no account with that username"
        if user.is_staff or user.is_superuser:
            return f"{user.username} is a staff account: notebooks are never recorded to staff"
        if not from_metadata:  # staff named the files (a learning platform's export): their word
            return user
        block = item.source.metadata.get("grader") if item.source is not None else None
        block = block if isinstance(block, dict) else {}
        if not isinstance(block.get("student"), str):
            return "its metadata names no student"
        signature = block.get("signature")
        if signature is None:
            if trust_unsigned:
                return user
            return (
                "unsigned: not a notebook downloaded from this site, so its grader.student is only a claim "
                "(--trust-unsigned-metadata records it)"
            )
        if not notebook_identity_matches(signature, problem=problem.slug, student=user.username):
            return f"its signature is not this site's for {user.username} and {problem.slug} (edited or copied)"
        return user

    def list_not_recorded(self, refused: list[NotRecorded]) -> None:
        if not refused:
            return
        self.stderr.write(f"not recorded ({len(refused)}):")
        for entry in sorted(refused, key=lambda entry: (entry.item.student, entry.item.path)):
            self.stderr.write(f"  {entry.item.student} ({_shown(entry.item.path)}): {entry.reason}")


def parse_hand_in_time(text: str) -> datetime:
    """An ISO 8601 time with its time zone (a time without one would be read in no one's zone)."""
    try:
        when = datetime.fromisoformat(text.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an ISO 8601 time, e.g. 2026-09-08T23:59+02:00") from None
    if when.tzinfo is None:
        raise argparse.ArgumentTypeError(f"{text!r} has no time zone: add one, e.g. +02:00 or Z")
    return when


def read_hand_in_times(path: Path) -> dict[str, datetime]:
    """Each student's hand-in time from a CSV (columns ``username``, ``handed_in_at``)."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise CommandError(f"{path}: cannot read it: {exc}") from None
    reader = csv.DictReader(io.StringIO(text))
    if not {"username", "handed_in_at"} <= {name.strip() for name in reader.fieldnames or []}:
        raise CommandError(f"{path}: line 1: the header must name the columns username and handed_in_at")
    times: dict[str, datetime] = {}
    for row in reader:
        username = (row.get("username") or "").strip()
        try:
            times[username] = parse_hand_in_time(row.get("handed_in_at") or "")
        except argparse.ArgumentTypeError as exc:
            raise CommandError(f"{path}: line {reader.line_num}: {exc}") from None
    return times


def find_assignment(name: str, problem: Problem) -> Assignment:
    """``COURSE/ASSIGNMENT``, which must hold ``problem``."""
    course_slug, _, assignment_slug = name.partition("/")
    assignment = Assignment.objects.filter(course__slug=course_slug, slug=assignment_slug).first()
    if assignment is None:
        raise CommandError(f"no assignment {name!r} (give it as COURSE/ASSIGNMENT, by their slugs)")
    if not assignment.items.filter(problem=problem).exists():
        raise CommandError(f"{problem.slug} is not a problem of {name}")
    return assignment


def _shown(path: str) -> str:
    """A file's path as the staff's terminal shows it: the student may have chosen its name."""
    from webapp.grading import one_line

    return one_line(path)
