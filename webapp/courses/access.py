"""Who may read and change what on the site: the access table, written once, and the checks
that every view asks.

The table (``TABLE``) is the one docs/courses.md shows (``markdown_table``; the test says so when
they differ) and ``tests/webapp/site/test_access.py`` walks over every view and admin page of the site: each URL the
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
from webapp.courses import instructors
from webapp.courses.models import Assignment, Course, Membership
from webapp.submissions.models import Progress, Submission

# The roles of the table, as the columns of docs/courses.md name them.
ANONYMOUS = "anonymous"
STUDENT = "student"
TA = "TA"
INSTRUCTOR = "instructor"
OTHER_INSTRUCTOR = "instructor of another course"
SITE_STAFF = "site staff"
PLATFORM = "LTI platform"
ROLES = (ANONYMOUS, STUDENT, TA, INSTRUCTOR, OTHER_INSTRUCTOR, SITE_STAFF, PLATFORM)

NO = "no"
# A right that ends so holds in the admin only (the admin shows an instructor the courses they
# teach, nothing else); one that names the admin otherwise holds on the pages and in the admin;
# any other, on the pages only.
ADMIN_ONLY = "(admin)"


@dataclass(frozen=True)
class Row:
    """One object of the table: what each role may do with it, and from when ("no" where nothing)."""

    name: str
    rights: dict[str, str]

    def right(self, role: str) -> str:
        return self.rights.get(role, NO)

    def on_pages(self, role: str) -> bool:
        return self.right(role) != NO and not self.right(role).endswith(ADMIN_ONLY)

    def in_admin(self, role: str) -> bool:
        return "admin" in self.right(role)


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


CATALOG = "the problem catalog and statements"
OWN_WORK = "one's own work: drafts, Runs, Submits, progress, a problem as a notebook"
STUDENT_WORK = "a student's work on a course's problem (code, results, visible-test output)"
HIDDEN_OUTPUT = "hidden-test output"
SOLUTION = "reference solution"
COURSE = "course and its assignments"
STANDING = "a student's standing in an assignment"
GRADEBOOK = "gradebook"
ROSTER = "roster and invitations"
EXTENSION = "extension"
OVERRIDE = "override (points by hand)"
REGRADE = "regrade"
SCORE = "score sent to a platform"
SITE = "accounts, platforms, workers and the task queue"

# The roles are those of one course: "student" is the student whose work or standing it is
# (another student has no rights to it at all), "TA" and "instructor" the course's, and
# "instructor of another course" teaches a course this object is not in (they make and run
# courses of their own, on the site's pages, and see nothing of this one).
TABLE: tuple[Row, ...] = (
    row(CATALOG, anonymous="reads", student="reads", ta="reads", instructor="reads, on its pages and in the admin",
        other_instructor="reads, on its pages and in the admin",
        site_staff="reads, on its pages and in the admin; adds with `manage.py addproblem`"),
    row(OWN_WORK, student="reads, changes their own", ta="reads, changes their own",
        instructor="reads, changes their own", other_instructor="reads, changes their own",
        site_staff="reads, cancels anyone's, on its pages and in the admin"),
    row(STUDENT_WORK, student="reads, cancels their own",
        ta="reads, regrades: handed in from the release and from the day the student joined",
        instructor="reads, regrades: handed in from the release and from the day the student joined",
        site_staff="reads, cancels, regrades, on its pages and in the admin"),
    row(HIDDEN_OUTPUT, site_staff="reads, on its pages and in the admin"),
    row(SOLUTION,
        student="after solving; or revealed, except in an assignment open for them (hidden until their due "
        "time, or shown and marked in the gradebook, by the course's choice)",
        ta="after solving, or revealed", instructor="after solving, or revealed",
        other_instructor="after solving, or revealed", site_staff="after solving, or revealed"),
    row(COURSE, student="reads, from joining with their consent (invitation, activation link, invite link, "
        "LTI launch); released assignments only",
        ta="reads", instructor="reads, changes, on its pages and in the admin; creates courses where the site lets "
        "them (then teaches them)", site_staff="reads, changes (admin)"),
    row(STANDING, student="reads their own", ta="reads", instructor="reads", site_staff="reads (admin)",
        platform="receives its students' totals, for the linked course only"),
    row(GRADEBOOK, ta="reads", instructor="reads", site_staff="reads (admin)"),
    row(ROSTER, student="accepts an invitation sent to them", ta="reads the students, in the gradebook",
        instructor="reads, invites (CSV, invite link), withdraws, makes a student a TA and back, on its pages and in "
        "the admin; never renames or takes over an account",
        site_staff="reads, withdraws invitations (admin)",
        platform="its members join the linked course (launch, Names and Roles); its roles count there only"),
    row(EXTENSION, student="reads their own due time", ta="reads",
        instructor="reads; grants and replaces, from the gradebook's row of the student and in the admin",
        site_staff="reads, changes (admin)"),
    row(OVERRIDE, student="reads their own", ta="reads",
        instructor="reads; adds, from the gradebook's row of the student and in the admin; never changed or deleted",
        site_staff="reads, adds; never changed or deleted (admin)"),
    row(REGRADE, ta="reads, starts", instructor="reads, starts; a log, never changed (pages and admin)",
        site_staff="reads; a log, never changed or deleted (admin)"),
    row(SCORE, site_staff="reads; never deleted (admin)",
        platform="receives the scores of the linked course's students who came from it"),
    row(SITE, site_staff="reads, changes (admin)"),
)  # fmt: skip
TABLE_BY_NAME = {entry.name: entry for entry in TABLE}

# Every URL name the site serves, with the object of the table it shows or changes; ``None``
# for pages that show no one's data (signing in and out, one's own password, the tool's public
# keys, health) and for the LTI endpoints, which a platform's signed launch reaches
# (``tests/webapp/lti/test_launches.py``). The access test fails for a URL name that is missing here.
VIEWS: dict[str, str | None] = {
    "healthz": None,
    "login": None,
    "logout": None,
    "signup": None,
    **dict.fromkeys(("password_change", "password_change_done", "password_reset", "password_reset_done"), None),
    **dict.fromkeys(("password_reset_confirm", "password_reset_complete"), None),
    "catalog:list": CATALOG,
    "catalog:detail": CATALOG,
    "catalog:notebook": OWN_WORK,
    "submissions:run": OWN_WORK,
    "submissions:submit": OWN_WORK,
    "submissions:draft": OWN_WORK,
    "submissions:progress": OWN_WORK,
    "account": OWN_WORK,  # one's own settings: the time zone one reads in
    "submissions:detail": STUDENT_WORK,
    "submissions:status": STUDENT_WORK,
    "submissions:cancel": STUDENT_WORK,
    "submissions:solution": SOLUTION,
    "courses:list": COURSE,
    "courses:detail": COURSE,
    "courses:create": COURSE,
    "courses:edit": COURSE,
    "courses:assignment_create": COURSE,
    "courses:assignment_edit": COURSE,
    "courses:extension": EXTENSION,
    "courses:override": OVERRIDE,
    "courses:regrade_confirm": REGRADE,
    "courses:assignment": STANDING,
    "courses:gradebook": GRADEBOOK,
    "courses:statistics": GRADEBOOK,  # problem statistics: the gradebook's students' work, summed up
    "courses:roster": ROSTER,
    "courses:roster_upload": ROSTER,
    "courses:roster_upload_resume": ROSTER,
    "courses:invitation": None,  # a capability link: whoever holds the emailed token (test_enrolment.py)
    "courses:invitation_resend": ROSTER,
    "courses:member_role": ROSTER,
    "courses:join": ROSTER,
    "courses:regrade": REGRADE,
    "courses:regrade_progress": REGRADE,
    "courses:submission": STUDENT_WORK,
    "lti:login": None,
    "lti:login_for_registration": None,
    "lti:launch": None,
    "lti:jwks": None,
    "lti:deep_link": None,
}

# Every model the admin shows, with the object of the table it is.
ADMIN_MODELS: dict[str, str] = {
    "catalog.Problem": CATALOG,
    "courses.Course": COURSE,
    "courses.Assignment": COURSE,
    "courses.Extension": EXTENSION,
    "courses.Override": OVERRIDE,
    "courses.Regrade": REGRADE,
    "courses.Invitation": ROSTER,
    "courses.RosterUpload": ROSTER,
    "submissions.Submission": STUDENT_WORK,
    "submissions.GradebookStudent": GRADEBOOK,
    "submissions.Progress": OWN_WORK,
    "submissions.Draft": OWN_WORK,
    "submissions.Worker": SITE,
    "lti.ScorePublication": SCORE,
    "lti.CourseLink": SITE,
    "lti.AssignmentLink": SITE,
    "lti.PlatformAccount": SITE,
    "lti.PlatformPolicy": SITE,
    "lti_tool.LtiRegistration": SITE,
    "auth.User": SITE,
    "auth.Group": SITE,
    "django_tasks_database.DBTaskResult": SITE,
}


def markdown_table() -> str:
    """The table as docs/courses.md shows it."""
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
    return isinstance(user, User) and course.is_course_staff(user)


def may_create_courses(user: User | AnonymousUser) -> bool:
    """Whoever the site lets create courses (``webapp.courses.instructors``); the course made is theirs to teach."""
    return isinstance(user, User) and instructors.may_create_courses(user)


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
    if hiding and isinstance(user, User):
        student = user
        last = max(hiding, key=lambda assignment: assignment.due_for(student))
        return SolutionAccess(shown=False, may_reveal=False, hidden_until=last.due_for(student), hidden_by=last)
    return SolutionAccess(shown=progress.solution_viewed_at is not None, may_reveal=True)
