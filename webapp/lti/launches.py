"""What a validated launch does here: the platform's course linked to a course (made on an
instructor's first launch), the person's account and role in it (and what of the admin that
role gives: ``people.settle_admin_access``), and the assignment the resource link opens."""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from django.contrib.auth.models import User
from django.db import transaction
from django.utils.text import slugify
from lti_tool.models import LtiContext, LtiDeployment, LtiResourceLink
from pylti1p3.contrib.django import DjangoMessageLaunch

from webapp.courses.models import Assignment, Course, Membership
from webapp.lti import tool
from webapp.lti.claims import SCORE_SCOPE, LaunchClaims, LaunchRefused
from webapp.lti.models import AssignmentLink, CourseLink
from webapp.lti.people import account_for, count_launch, first_launch, place_in_course, settle_admin_access


@dataclass(frozen=True)
class Arrival:
    """Who arrived by a launch, in which course and role, and where they are going."""

    account: User
    role: Membership.Role
    link: CourseLink
    assignment: Assignment | None
    deep_linking: bool


def arrive(launch: DjangoMessageLaunch) -> Arrival:
    """Record a validated launch and place its person in the linked course. Raises
    ``LaunchRefused`` before anything is written when the launch gives no way in."""
    config = launch.get_tool_conf()
    registration, deployment = config.registration, config.deployment
    claims = LaunchClaims.read(tool.launch_data(launch), registration.client_id, hosts=tool.service_hosts(registration))
    if not deployment.is_active:
        raise LaunchRefused(
            "jaxjudge is not activated for this deployment on your platform yet: the site's administrator "
            f"activates deployment {deployment.deployment_id!r} of {registration.name!r} in the admin.",
            403,
        )
    role = claims.person.role
    if role is None:
        raise LaunchRefused(
            "Your role in this course gives no access to jaxjudge: it lets in instructors, teaching "
            "assistants and learners.",
            403,
        )
    if claims.is_deep_linking and role != Membership.Role.INSTRUCTOR:
        raise LaunchRefused("Only an instructor adds jaxjudge assignments to a course.", 403)
    count_launch(deployment, claims.person.sub)
    with transaction.atomic():
        context = record_context(deployment, claims)
        link = CourseLink.objects.filter(context=context).select_related("course", "context").first()
        if link is None:
            if role != Membership.Role.INSTRUCTOR:
                raise LaunchRefused(
                    "This course is not set up on jaxjudge yet: it is, once your instructor has opened it from here.",
                    404,
                )
            link = CourseLink.objects.create(context=context, course=new_course(claims.context_title))
        platform_account, account = account_for(deployment, claims.person)
        platform_account.contexts.add(context)
        first_launch(platform_account)
        place_in_course(link.course, account, role, claims.person)
        # An instructor adds the course's assignments in the admin; another role takes that back.
        settle_admin_access(platform_account, instructor_launch=role == Membership.Role.INSTRUCTOR)
        assignment = record_resource_link(context, link.course, claims) if claims.resource_link_id else None
    return Arrival(account, role, link, assignment, claims.is_deep_linking)


def record_context(deployment: LtiDeployment, claims: LaunchClaims) -> LtiContext:
    context, _ = LtiContext.objects.select_for_update().get_or_create(
        deployment=deployment, id_on_platform=claims.context_id
    )
    context.title = claims.context_title
    # A launch without a service's claim leaves what an earlier launch said.
    if claims.memberships_url:
        context.memberships_url = claims.memberships_url
    if claims.line_items_url:
        context.lineitems_url = claims.line_items_url
        context.can_publish_scores = SCORE_SCOPE in claims.ags_scopes
    context.save()
    return context


def new_course(title: str) -> Course:
    title = title or "A course from an LTI platform"
    slug = slugify(title)[:40].strip("-") or "course"
    if Course.objects.filter(slug=slug).exists():
        slug = f"{slug[:40]}-{secrets.token_hex(3)}"
    return Course.objects.create(slug=slug, title=title)


def record_resource_link(context: LtiContext, course: Course, claims: LaunchClaims) -> Assignment | None:
    """The assignment a resource link opens: the one its custom parameter names (in the linked
    course only), or the one it was linked to before; its line item is kept for the scores."""
    resource_link, _ = LtiResourceLink.objects.update_or_create(
        context=context, id_on_platform=claims.resource_link_id, defaults={"title": claims.resource_link_title}
    )
    named = course.assignments.filter(slug=claims.assignment_slug).first() if claims.assignment_slug else None
    link = AssignmentLink.objects.filter(resource_link=resource_link).select_related("assignment").first()
    if named is None and (link is None or link.assignment.course_id != course.pk):
        return None
    assignment = named or link.assignment  # type: ignore[union-attr]
    fields: dict[str, object] = {"assignment": assignment}
    if claims.line_item_url:
        fields.update(line_item_url=claims.line_item_url, can_publish_scores=SCORE_SCOPE in claims.ags_scopes)
    AssignmentLink.objects.update_or_create(resource_link=resource_link, defaults=fields)
    return assignment
