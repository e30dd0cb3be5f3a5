"""The submissions app's models, one module an idea; every name is importable from here.

- ``submission``: a Run or Submit and its grading, attempt by attempt;
- ``limits``: what the site takes from a student (the size cap, the limits on gradings);
- ``standing``: a student's draft and standing on each problem;
- ``gradebook``: the site-wide gradebook (best score per student and problem);
- ``worker``: the grading workers' heartbeats.
"""

from webapp.submissions.models.gradebook import GradebookStudent, gradebook
from webapp.submissions.models.limits import Refused
from webapp.submissions.models.standing import SOLVED, STATUSES, Draft, Progress
from webapp.submissions.models.submission import Submission
from webapp.submissions.models.worker import Worker

__all__ = [
    "SOLVED",
    "STATUSES",
    "Draft",
    "GradebookStudent",
    "Progress",
    "Refused",
    "Submission",
    "Worker",
    "gradebook",
]
