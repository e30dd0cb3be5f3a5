"""Background work with the platforms (Django Tasks API): sending scores and syncing rosters,
so that neither a web request nor a grading worker waits on a platform."""

from __future__ import annotations

import logging
from datetime import timedelta

from django.contrib.auth.models import User
from django.utils import timezone
from django_tasks import task

from webapp.courses.models import Assignment
from webapp.lti import people, tool
from webapp.lti.models import AssignmentLink, CourseLink, PlatformAccount, ScorePublication

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
    # Only where this student is a student of the assignment's course, from that link's
    # deployment: another course's gradebook never hears of them.
    links = (
        AssignmentLink.for_student(user.pk)
        .filter(
            assignment=assignment,
            can_publish_scores=True,
            resource_link__context__deployment__is_active=True,
            resource_link__context__deployment__registration__is_active=True,
        )
        .exclude(line_item_url="")
    )
    failed = sent = 0
    for link in links.select_related("resource_link__context__deployment__registration"):
        deployment = link.resource_link.context.deployment
        registration = deployment.registration
        account = PlatformAccount.objects.filter(deployment=deployment, user=user).first()
        if account is None:
            continue  # they never came from this deployment
        score = {
            "userId": account.sub,
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
            platform_account=account,
            defaults={
                "score_given": earned,
                "score_maximum": total,
                "status": status,
                "tries": tries,
                "error": error,
                # Kept when the link, the account or the assignment is gone.
                "line_item_url": link.line_item_url[:1000],
                "assignment_title": f"{assignment.title} ({assignment.course})"[:300],
                "platform_user": (
                    f"{account.sub} of {registration.issuer}, client {registration.client_id}, "
                    f"deployment {deployment.deployment_id}"
                )[:600],
            },
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
    try:
        result = people.sync_roster(link)
    finally:
        link.roster_sync_ended()  # the next launch may queue another, ROSTER_SYNC_EVERY from now
    return f"enrolled {len(result.enrolled)}, updated {len(result.updated)}, skipped {len(result.skipped)}"
