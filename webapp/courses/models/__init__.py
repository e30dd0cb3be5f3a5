"""The courses app's models, one idea to a module: a course and its members (``course``), its
assignments and what students earned in them (``assignment``), regrades (``regrade``), and
enrolment with consent (``invitation``, ``roster_upload``).

Every model is imported here, so that Django finds them all and ``from webapp.courses.models
import Course`` works. So are the exceptions the views catch and the score they show. The
roster's file format is in ``webapp/courses/roster.py``, the late policy in
``webapp/courses/late_policy.py``, the gradebook's layout in ``webapp/courses/gradebook.py``;
the few of their names still imported from here by older callers are re-exported below.
"""

from webapp.courses.models.assignment import Assignment, AssignmentProblem, Extension, Override, ProblemScore
from webapp.courses.models.course import JOINS_PER_HOUR, Course, Membership, RateLimited, new_invite_code
from webapp.courses.models.invitation import Invitation, InvitationUnusable, unguessable_digest
from webapp.courses.models.regrade import Regrade
from webapp.courses.models.roster_upload import ROSTER_BATCH, RosterUpload

# The roster's names where they lived before the split: the tests still import them from
# here. (``new_invite_code`` and ``unguessable_digest`` above are here for the migrations,
# which name those fields' defaults by this path, and are never edited.)
from webapp.courses.roster import MAX_ROSTER_PROBLEMS, RosterError, read_roster

__all__ = [
    "JOINS_PER_HOUR",
    "MAX_ROSTER_PROBLEMS",
    "ROSTER_BATCH",
    "Assignment",
    "AssignmentProblem",
    "Course",
    "Extension",
    "Invitation",
    "InvitationUnusable",
    "Membership",
    "Override",
    "ProblemScore",
    "RateLimited",
    "Regrade",
    "RosterError",
    "RosterUpload",
    "new_invite_code",
    "read_roster",
    "unguessable_digest",
]
