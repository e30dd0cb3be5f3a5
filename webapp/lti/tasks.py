"""Background work with the platforms (Django Tasks API): sending scores and syncing rosters,
so that neither a web request nor a grading worker waits on a platform."""

from __future__ import annotations

import logging
from datetime import timedelta

from django.contrib.auth.models import User
from django.utils import timezone
from django_tasks import task
from lti_tool.models import LtiUser

from webapp.courses.models import Assignment
from webapp.lti import people, tool
from webapp.lti.models import AssignmentLink, CourseLink, ScorePublication

logger = logging.getLogger("webapp.lti")

MAX_TRIES = 5


def retry_delay(tries: int) -> timedelta:
    return timedelta(seconds=30 * 4 ** (tries - 1))  # 30 s, 2 min, 8 min, 32 min


@task(queue_name="courses")
def send_scores(assignment_id: int, user_id: int, tries: int = 1) -> str:
    """Send one student's points on one assignment to every platform line item linked to it.

    The points are read when the task runs, not when it was queued: whichever send comes
    last carries the latest standing. A failed send is tried again later, MAX_TRIES in all.
    """
    assignment = Assignment.objects.filter(pk=assignment_id).first()
    user = User.objects.filter(pk=user_id).first()
    if assignment is None or user is None:
        return "gone"
    earned = round(sum(score.earned for score in assignment.problem_scores(user)), 2)
    total = assignment.total_points
    links = AssignmentLink.objects.filter(
        assignment=assignment,
        can_publish_scores=True,
        resource_link__context__deployment__is_active=True,
        resource_link__context__deployment__registration__is_active=True,
    ).exclude(line_item_url="")
    failed = sent = 0
    for link in links.select_related("resource_link__context__deployment__registration"):
        registration = link.resource_link.context.deployment.registration
        lti_user = LtiUser.objects.filter(registration=registration, auth_user=user).first()
        if lti_user is None:
            continue  # they never came from this platform
        score = {
            "userId": lti_user.sub,
            "scoreGiven": earned,
            "scoreMaximum": total,
            "activityProgress": "Submitted",
            "gradingProgress": "FullyGraded",
            "timestamp": timezone.now().isoformat(timespec="milliseconds"),
        }
        try:
            tool.post_score(registration, link.line_item_url, score)
        except Exception as exc:  # an unreachable or refusing platform: noted, tried again
            failed += 1
            error = f"{type(exc).__name__}: {exc}"[:500]
            logger.warning("LTI score for user %s to %s failed (try %s): %s", user_id, link.line_item_url, tries, error)
            status = ScorePublication.Status.RETRYING if tries < MAX_TRIES else ScorePublication.Status.FAILED
        else:
            sent += 1
            error, status = "", ScorePublication.Status.SENT
        ScorePublication.objects.update_or_create(
            assignment_link=link,
            lti_user=lti_user,
            defaults={"score_given": earned, "score_maximum": total, "status": status, "tries": tries, "error": error},
        )
    if failed and tries < MAX_TRIES:
        send_scores.using(run_after=timezone.now() + retry_delay(tries)).enqueue(assignment_id, user_id, tries + 1)
    return f"{earned}/{total}: sent {sent}, failed {failed}"


@task(queue_name="courses")
def sync_roster(course_link_id: int) -> str:
    """Enrol the platform course's members in the linked course (Names and Roles service)."""
    link = CourseLink.objects.filter(pk=course_link_id).select_related("course", "context__deployment").first()
    if link is None:
        return "gone"
    result = people.sync_roster(link)
    return f"enrolled {len(result.enrolled)}, updated {len(result.updated)}, skipped {len(result.skipped)}"
