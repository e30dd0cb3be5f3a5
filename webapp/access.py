"""Who may read and change what on the site: the access table, written once, and the checks
that every view asks.

The table (``TABLE``) is the one the README shows (``markdown_table``; the test says so when
they differ) and ``tests/webapp/test_access.py`` walks over every view and admin page of the site: each URL the
site serves is listed in ``VIEWS`` with the object of the table it shows or changes, and a
view that is not listed fails that test. The checks below are the table's rules in code; the
views call them rather than deciding on their own.

The rules that matter most, and why:
- A student's practice is theirs alone. A course sees only work handed in to it, on its
  assignments' problems, from the assignment's release *and* from the day the student joined
  the course: the release is the staff's to set, the day they joined is not, so nothing a
  course's staff can edit widens what they read.
- Hidden-test output (what a submission printed while the hidden tests ran) shows the hidden
  inputs: it is the site's staff's alone, never a course's, whoever's work it is.
- A reference solution of a problem in an assignment that is still open for a student is
  hidden from them until their due time (unless they have solved it), or shown and marked in
  the gradebook, as the course chooses.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.contrib.auth.models import AnonymousUser, User
from django.db.models import Q

from webapp.catalog.models import Problem
from webapp.courses.models import Assignment, Course, Membership
from webapp.submissions.models import Progress, Submission

# The roles of the table, as the README's columns name them.
ANONYMOUS = "anonymous"
STUDENT = "student"
TA = "TA"
INSTRUCTOR = "instructor"
OTHER_INSTRUCTOR = "instructor of another course"
SITE_STAFF = "site staff"
PLATFORM = "LTI platform"
ROLES = (ANONYMOUS, STUDENT, TA, INSTRUCTOR, OTHER_INSTRUCTOR, SITE_STAFF, PLATFORM)

NO = "no"


@dataclass(frozen=True)
class Row:
    """One object of the table: what each role may do with it, and from when ("no" where nothing)."""

    name: str
    rights: dict[str, str]

    def allows(self, role: str) -> bool:
        return self.rights.get(role, NO) != NO


def row(name: str, **rights: str) -> Row:
    by_role = {
        "anonymous": ANONYMOUS,
        "student": STUDENT,
        "ta": TA,
        "instructor": INSTRUCTOR,
        "other_instructor": OTHER_INSTRUCTOR,
        "site_staff": SITE_STAFF,
        "platform": PLATFORM,
    }
    return Row(name, {by_role[key]: value for key, value in rights.items()})


# Roles are those of one course: "student", "TA" and "instructor" are the course's; "instructor
# of another course" teaches a course this object is not in. An instructor's rights in the
# admin are those of the course's pages (the admin shows only the courses they teach).
TABLE: tuple[Row, ...] = (
    row(
        "the problem catalog and statements",
        anonymous="reads",
        student="reads",
        ta="reads",
        instructor="reads",
        other_instructor="reads",
        site_staff="reads, changes (`addproblem`)",
    ),
    row(
        "practice submission (code, results, visible-test output)",
        student="reads and cancels their own",
        site_staff="reads, cancels",
    ),
    row(
        "assignment submission (a student's work on a course's problem)",
        student="reads and cancels their own",
        ta="reads, regrades: handed in from the release and from the day the student joined",
        instructor="reads, regrades: handed in from the release and from the day the student joined",
        site_staff="reads, cancels, regrades",
    ),
    row("hidden-test output", site_staff="reads"),
    row(
        "reference solution",
        student="after solving; or revealed, except in an assignment open for them (hidden until their due "
        "time, or shown and marked, by the course's choice)",
        ta="after solving, or revealed",
        instructor="after solving, or revealed",
        other_instructor="after solving, or revealed",
        site_staff="after solving, or revealed",
    ),
    row(
        "course and its released assignments",
        student="reads, from joining (with the owner's consent: invitation or activation link)",
        ta="reads, with unreleased assignments",
        instructor="reads, changes (pages and admin)",
        site_staff="reads, changes (admin)",
    ),
    row(
        "a student's standing in an assignment",
        student="reads their own",
        ta="reads",
        instructor="reads",
        site_staff="reads (admin)",
        platform="receives its students' totals, for the linked course only",
    ),
    row("gradebook", ta="reads", instructor="reads", site_staff="reads (admin)"),
    row(
        "roster and invitations",
        ta="reads the members",
        instructor="reads, invites (CSV, invite link); never renames or takes over an account",
        site_staff="reads, changes (admin)",
        platform="syncs its course's members into the linked course (Names and Roles)",
    ),
    row(
        "extension",
        student="reads their own due time",
        ta="reads",
        instructor="reads, changes (admin)",
        site_staff="reads, changes (admin)",
    ),
    row(
        "override (points by hand)",
        student="reads their own (the reason)",
        ta="reads",
        instructor="reads, adds (admin); never changed or deleted",
        site_staff="reads, adds (admin); never changed or deleted",
    ),
    row(
        "regrade",
        ta="reads, starts",
        instructor="reads, starts",
        site_staff="reads (admin); never changed or deleted",
    ),
    row(
        "score sent to a platform",
        site_staff="reads (admin); never deleted",
        platform="receives the scores of the linked course's students who came from it",
    ),
)
TABLE_BY_NAME = {entry.name: entry for entry in TABLE}

# Every URL name the site serves, with the object of the table it shows or changes; ``None``
# for pages that show no one's data (signing in, the tool's public keys, health). The access
# test fails for a URL name that is missing here.
VIEWS: dict[str, str | None] = {
    "healthz": None,
    "login": None,
    "logout": None,
    "signup": None,
    "catalog:list": "the problem catalog and statements",
    "catalog:detail": "the problem catalog and statements",
    "catalog:notebook": "the problem catalog and statements",
    "submissions:run": "practice submission (code, results, visible-test output)",
    "submissions:submit": "practice submission (code, results, visible-test output)",
    "submissions:detail": "practice submission (code, results, visible-test output)",
    "submissions:status": "practice submission (code, results, visible-test output)",
    "submissions:cancel": "practice submission (code, results, visible-test output)",
    "submissions:draft": "practice submission (code, results, visible-test output)",
    "submissions:progress": "practice submission (code, results, visible-test output)",
    "submissions:solution": "reference solution",
    "courses:list": "course and its released assignments",
    "courses:detail": "course and its released assignments",
    "courses:assignment": "a student's standing in an assignment",
    "courses:gradebook": "gradebook",
    "courses:roster": "roster and invitations",
    "courses:join": "roster and invitations",
    "courses:regrade": "regrade",
    "courses:regrade_progress": "regrade",
    "courses:submission": "assignment submission (a student's work on a course's problem)",
    "lti:login": None,
    "lti:login_for_registration": None,
    "lti:launch": "roster and invitations",
    "lti:jwks": None,
    "lti:deep_link": "course and its released assignments",
}


def markdown_table() -> str:
    """The table as the README shows it."""
    lines = ["| object | " + " | ".join(ROLES) + " |", "|---|" + "---|" * len(ROLES)]
    for entry in TABLE:
        lines.append(f"| {entry.name} | " + " | ".join(entry.rights.get(role, NO) for role in ROLES) + " |")
    return "\n".join(lines)


# -- the checks ---------------------------------------------------------------------------------


def is_site_staff(user: User | AnonymousUser) -> bool:
    """The site's staff: those with the permission to view every submission (superusers have it).
    A course's instructors are staff in the admin for their courses, but not the site's staff."""
    return bool(user.is_authenticated and user.has_perm("submissions.view_submission"))


def may_read_submission(user: User | AnonymousUser, submission: Submission) -> bool:
    """On the site's own submission pages: its owner and the site's staff (a course's staff
    read their students' work through the course, ``course_may_read``)."""
    return user.is_authenticated and (submission.user_id == user.pk or is_site_staff(user))


def may_read_hidden_output(user: User | AnonymousUser) -> bool:
    return is_site_staff(user)


def may_read_course(user: User | AnonymousUser, course: Course) -> bool:
    return isinstance(user, User) and course.membership_of(user) is not None


def is_course_staff(user: User | AnonymousUser, course: Course) -> bool:
    """The course's instructors and TAs: its gradebook, its students' work, regrades."""
    return isinstance(user, User) and course.is_staff(user)


def may_change_roster(user: User | AnonymousUser, course: Course) -> bool:
    return isinstance(user, User) and course.is_instructor(user)


def course_may_read(course: Course, submission_id: int) -> Submission | None:
    """The submission, if the course's staff may read it (``Course.student_work``), else None."""
    return course.student_work().select_related("problem", "user").filter(pk=submission_id).first()


def open_assignments_hiding_solution(user: User | AnonymousUser, problem: Problem, now: datetime) -> list[Assignment]:
    """The assignments with ``problem`` that are open for ``user`` as a student (released, and
    before their own due time), in courses that hide solutions until then."""
    if not isinstance(user, User):
        return []
    candidates = Assignment.objects.filter(
        problems=problem,
        release_at__lte=now,
        course__early_solutions=Course.EarlySolutions.HIDDEN,
        course__memberships__user=user,
        course__memberships__role=Membership.Role.STUDENT,
    ).filter(Q(due_at__gt=now) | Q(extensions__user=user, extensions__due_at__gt=now))
    return [assignment for assignment in candidates.distinct() if assignment.due_for(user) > now]


@dataclass(frozen=True)
class SolutionAccess:
    """Whether a student sees a problem's reference solution now, may reveal it, or why not."""

    shown: bool
    may_reveal: bool
    hidden_until: datetime | None = None  # the due time that hides it, when one does
    hidden_by: Assignment | None = None


def solution_access(user: User | AnonymousUser, problem: Problem, progress: Progress, now: datetime) -> SolutionAccess:
    """Solving a problem always shows its solution. Otherwise it may be revealed (and is then
    shown from that moment), except while an assignment with the problem is open for the
    student in a course that hides solutions until the due time."""
    if progress.solved_at is not None:
        return SolutionAccess(shown=True, may_reveal=True)
    hiding = open_assignments_hiding_solution(user, problem, now)
    if hiding:
        until = max(hiding, key=lambda assignment: assignment.due_for(user))  # type: ignore[arg-type]
        return SolutionAccess(shown=False, may_reveal=False, hidden_until=until.due_for(user), hidden_by=until)  # type: ignore[arg-type]
    return SolutionAccess(shown=progress.solution_viewed_at is not None, may_reveal=True)
