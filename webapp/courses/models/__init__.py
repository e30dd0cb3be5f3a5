"""The courses app's models, one idea to a module, each building only on those before it:

- ``membership``: who is in a course and in which role (course staff or student), and how
  fast one person may join courses;
- ``assignment``: a course's assignments, their problems and points, extensions and the
  points set by hand, and what each student earned (under ``webapp/courses/late_policy.py``);
- ``invitation``: a roster line's invitation, enrolment with the account owner's consent;
- ``roster_upload``: a roster invited in the background, batch by batch;
- ``course``: the course, which names all of the above;
- ``regrade``: a regrade the course's staff ask for.

Every model is imported here, so that Django finds them all and ``from webapp.courses.models
import Course`` works, and so are the exceptions the views catch and the score they show. The
roster's file format is in ``webapp/courses/roster.py``, the gradebook's layout in
``webapp/courses/gradebook.py``.
"""

from webapp.courses.models.assignment import Assignment, AssignmentProblem, Extension, Override, ProblemScore
from webapp.courses.models.course import Course, new_invite_code
from webapp.courses.models.invitation import Invitation, InvitationUnusable, unguessable_digest
from webapp.courses.models.membership import Membership, RateLimited
from webapp.courses.models.regrade import Regrade
from webapp.courses.models.roster_upload import RosterUpload

# ``new_invite_code`` and ``unguessable_digest`` are here for the migrations, which name those
# fields' defaults by this path and are never edited.

__all__ = [
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
    "RosterUpload",
    "new_invite_code",
    "unguessable_digest",
]
