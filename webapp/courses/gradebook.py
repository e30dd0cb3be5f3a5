"""A course's gradebook: its students by its assignments, as the course's staff read it, and as CSV.

The points themselves are the assignments' rule (``Assignment.scores``: the best hand-in under
the late policy, or the course staff's override); this module lays them out, a row per
student and a cell per assignment, with the marks the page and the CSV show beside them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from webapp.courses.models.assignment import Assignment, AssignmentProblem, Extension, ProblemScore
from webapp.courses.models.course import Course
from webapp.courses.models.membership import Membership
from webapp.grading import write_gradebook

if TYPE_CHECKING:
    from _typeshed import SupportsWrite


@dataclass(frozen=True)
class GradebookCell:
    """One student's standing in one assignment."""

    assignment: Assignment
    earned: float
    late: bool  # a problem's points came from a late hand-in
    extended: bool  # the student has an extension
    overridden: bool = False  # the course's staff set a problem's points by hand
    solution_seen: bool = False  # revealed a problem's solution while the assignment was open for them


@dataclass(frozen=True)
class GradebookRow:
    member: Membership
    cells: list[GradebookCell]
    problems: list[ProblemScore]  # each problem of the expanded assignment, if one is

    @property
    def total(self) -> float:
        return round(sum(cell.earned for cell in self.cells), 2)

    # The course's record of the student (its roster's, kept on the membership), whatever the
    # account calls itself; the account's own name and email only where the course has none
    # (a student who joined by the invite link).

    @property
    def name(self) -> str:
        return self.member.name or self.member.user.get_full_name()

    @property
    def email(self) -> str:
        return self.member.email or self.member.user.email


@dataclass(frozen=True)
class Gradebook:
    """A course's students by its assignments."""

    assignments: list[Assignment]
    rows: list[GradebookRow]
    expanded: Assignment | None = None  # the assignment shown problem by problem too
    items: list[AssignmentProblem] = field(default_factory=list)  # its problems, in order

    @classmethod
    def of_course(cls, course: Course, *, section: str = "", expand: str = "") -> Gradebook:
        """Every student of ``course`` (of one ``section``, if given) by every assignment,
        and by each problem of the assignment whose slug is ``expand``."""
        students = course.memberships.filter(role=Membership.Role.STUDENT).select_related("user")
        if section:
            students = students.filter(section=section)
        members = list(students.order_by("user__username"))
        users = [member.user for member in members]
        assignments = list(course.assignments.prefetch_related("items"))
        expanded = next((assignment for assignment in assignments if expand and assignment.slug == expand), None)
        # The expanded assignment's hand-ins are read one by one, so each problem's cell links to its own.
        columns = [(a, a.scores(users, times=a == expanded)) for a in assignments]
        extended = set(
            Extension.objects.filter(assignment__course=course, user__in=users).values_list("assignment_id", "user_id")
        )
        seen = {assignment.pk: assignment.solution_seen_by(users) for assignment in assignments}
        rows = []
        for member in members:
            cells = []
            for assignment, scores in columns:
                mine = scores[member.user.pk]
                cells.append(
                    GradebookCell(
                        assignment=assignment,
                        earned=round(sum(score.earned for score in mine), 2),
                        late=any(score.credit is not None and score.credit.late for score in mine),
                        extended=(assignment.pk, member.user.pk) in extended,
                        overridden=any(score.override_reason for score in mine),
                        solution_seen=member.user.pk in seen[assignment.pk],
                    )
                )
            problems = next((scores[member.user.pk] for a, scores in columns if a == expanded), [])
            rows.append(GradebookRow(member, cells, problems))
        items = list(expanded.items.select_related("problem")) if expanded else []
        return cls(assignments, rows, expanded, items)

    def write_csv(self, out: SupportsWrite[str]) -> None:
        """One row per student: username, the course's record of them (student id, name,
        email, section: ``GradebookRow``), each assignment's points (with its late and
        extension marks in their own columns), the expanded assignment's points by problem
        (``ASSIGNMENT/PROBLEM``), and the total. Names, ids and sections are people's own text:
        no cell is one a spreadsheet would run."""
        columns = ["username", "student_id", "name", "email", "section"]
        for assignment in self.assignments:
            columns += [assignment.slug, f"{assignment.slug} late", f"{assignment.slug} extension"]
        if self.expanded is not None:
            columns += [f"{self.expanded.slug}/{item.problem.slug}" for item in self.items]
        write_gradebook(out, columns, ((self.csv_cells(row), row.total) for row in self.rows))

    @staticmethod
    def csv_cells(row: GradebookRow) -> list[float | str | None]:
        """A student's cells of the CSV, before their total."""
        member = row.member
        cells: list[float | str | None] = [member.user.username, member.student_id, row.name, row.email, member.section]
        for cell in row.cells:
            cells += [cell.earned, "late" if cell.late else "", "extension" if cell.extended else ""]
        cells += [score.earned for score in row.problems]
        return cells
