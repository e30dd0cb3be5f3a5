"""People from a platform: their accounts here, their places in a linked course, and what of
the admin an LTI role gives them.

An account is keyed on the platform registration and deployment (issuer, client id,
deployment id) and the person's ``sub`` (``PlatformAccount``), never on a name or an email the
platform sends, and never shared with another registration or deployment of the same issuer
(Canvas Cloud signs every school's launches with one issuer). Its username is derived from that
key, and never taken over from an account someone else made (anyone can sign up under any free
username). A launch only ever updates the account it made for that key.

An LTI role counts in the linked course only: an Instructor launch lets the account teach that
course in the admin (and create courses only where the registration's policy says so); a later
launch or roster line in another role takes back what LTI gave.
"""

from __future__ import annotations

import hashlib
import logging
import secrets
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.db.models import F, Q
from django.utils import timezone
from lti_tool.models import LtiContext, LtiDeployment

from webapp.courses.instructors import (
    CREATORS_GROUP_NAME,
    GROUP_NAME,
    let_create_courses,
    let_teach,
    may_create_courses,
)
from webapp.courses.models import Course, Membership
from webapp.lti import tool
from webapp.lti.claims import LaunchRefused, PersonClaims
from webapp.lti.models import CourseLink, PlatformAccount, PlatformPolicy

logger = logging.getLogger("webapp.lti")

MAX_ROSTER_MEMBERS = 20_000
MAX_LAUNCHES_PER_MINUTE = 20  # per platform account: a page reload is one, a script is many


def username_for(deployment: LtiDeployment, sub: str) -> str:
    registration = deployment.registration
    key = "\n".join((registration.issuer, registration.client_id, deployment.deployment_id, sub))
    return f"lti-{hashlib.sha256(key.encode()).hexdigest()[:20]}"


@transaction.atomic
def account_for(deployment: LtiDeployment, person: PersonClaims) -> tuple[PlatformAccount, User]:
    """The account made for ``person`` of ``deployment``, made on first sight; its names and
    email follow what the platform says now (it is an account this key made, no one else's)."""
    mine = PlatformAccount.objects.select_for_update().select_related("user")
    platform_account = mine.filter(deployment=deployment, sub=person.sub).first()
    if platform_account is None:
        try:
            with transaction.atomic():  # two first launches at once: one makes it, the other reads it
                platform_account = PlatformAccount.objects.create(
                    deployment=deployment, sub=person.sub, user=new_account(deployment, person.sub)
                )
        except IntegrityError:
            platform_account = mine.get(deployment=deployment, sub=person.sub)
    account = platform_account.user
    # What the platform leaves out (a privacy setting may hide names) is kept as it was.
    sent = {"first_name": person.first_name, "last_name": person.last_name, "email": person.email}
    changed = [name for name, value in sent.items() if value and getattr(account, name) != value]
    for name in changed:
        setattr(account, name, sent[name])
    if changed:
        account.save(update_fields=changed)
    return platform_account, account


def new_account(deployment: LtiDeployment, sub: str) -> User:
    username = username_for(deployment, sub)
    if User.objects.filter(username=username).exists():  # someone signed up under it: not theirs to get
        username = f"lti-{secrets.token_hex(10)}"
    account = User(username=username)
    account.set_unusable_password()  # signed in by launches only
    account.save()
    return account


def count_launch(deployment: LtiDeployment, sub: str) -> None:
    """One more launch of this platform account this minute; ``LaunchRefused`` (429) past
    MAX_LAUNCHES_PER_MINUTE. Counted by conditional updates, so two launches at once never
    both take the last one. A first launch (no account yet) is counted by ``first_launch``."""
    now = timezone.now()
    window_start = now - timedelta(minutes=1)
    mine = PlatformAccount.objects.filter(deployment=deployment, sub=sub)
    in_window = mine.filter(launch_window_at__gt=window_start, launches_in_window__lt=MAX_LAUNCHES_PER_MINUTE)
    if in_window.update(launches_in_window=F("launches_in_window") + 1):
        return
    new_window = mine.filter(Q(launch_window_at__isnull=True) | Q(launch_window_at__lte=window_start))
    if new_window.update(launch_window_at=now, launches_in_window=1):
        return
    if not mine.exists():
        return  # a first launch: counted once its account is made
    raise LaunchRefused(
        f"Too many launches: at most {MAX_LAUNCHES_PER_MINUTE} a minute. Wait a minute, then open the link again.",
        429,
    )


def first_launch(platform_account: PlatformAccount) -> None:
    """Count the launch that made the account (``count_launch`` found none to count)."""
    PlatformAccount.objects.filter(pk=platform_account.pk, launch_window_at=None).update(
        launch_window_at=timezone.now(), launches_in_window=1
    )


def place_in_course(course: Course, account: User, role: Membership.Role, person: PersonClaims) -> Membership:
    """``account`` in ``course`` with the role the platform gives now, and the platform's
    record of the person (name, email, the school's id) as the course's record of them, which
    the gradebook shows. What the platform leaves out is kept as it was."""
    record = {
        "name": f"{person.first_name} {person.last_name}".strip(),
        "email": person.email,
        "student_id": person.student_id,
    }
    wanted = {"role": role, **{name: value for name, value in record.items() if value}}
    membership, _ = Membership.objects.get_or_create(course=course, user=account, defaults=wanted)
    changed = [name for name, value in wanted.items() if getattr(membership, name) != value]  # none if just made
    for name in changed:
        setattr(membership, name, wanted[name])
    if changed:
        membership.save(update_fields=changed)
    return membership


def creation_allowed(deployment: LtiDeployment) -> bool:
    """Whether the registration's policy lets its instructors create courses site-wide (off by default)."""
    return PlatformPolicy.objects.filter(
        registration_id=deployment.registration_id, instructors_may_create_courses=True
    ).exists()


def settle_admin_access(platform_account: PlatformAccount, *, instructor_launch: bool = False) -> None:
    """What of the admin the account has from LTI, after its roles changed: the teaching group
    while it teaches a course (an instructor membership), course creation after an Instructor
    launch where the policy allows it; when it teaches nothing any more, what LTI gave is
    taken back (not what was given by hand: staff it was already, or creation LTI did not give)."""
    user = platform_account.user
    before = (platform_account.gave_staff, platform_account.gave_creation)
    if Membership.objects.filter(user=user, role=Membership.Role.INSTRUCTOR).exists():
        if not user.is_staff:
            platform_account.gave_staff = True
        let_teach(user)
        if instructor_launch:
            allowed = creation_allowed(platform_account.deployment)
            if allowed and not may_create_courses(user):
                let_create_courses(user)
                platform_account.gave_creation = True
            elif not allowed and platform_account.gave_creation:
                user.groups.remove(*user.groups.filter(name=CREATORS_GROUP_NAME))
                platform_account.gave_creation = False
    else:
        if platform_account.gave_creation:
            user.groups.remove(*user.groups.filter(name=CREATORS_GROUP_NAME))
            platform_account.gave_creation = False
        by_hand = user.is_superuser or may_create_courses(user)
        if platform_account.gave_staff and not by_hand:
            user.groups.remove(*user.groups.filter(name=GROUP_NAME))
            user.is_staff = False
            user.save(update_fields=["is_staff"])
            platform_account.gave_staff = False
    if (platform_account.gave_staff, platform_account.gave_creation) != before:
        platform_account.save(update_fields=["gave_staff", "gave_creation"])


@dataclass
class RosterSync:
    """What a roster sync did, by username."""

    enrolled: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # no role here, inactive, or unreadable


def sync_roster(link: CourseLink) -> RosterSync:
    """Enrol every active member of the platform's course (its Names and Roles service) in
    the linked course with their role; update the roles of those already in it. Members who
    left are not removed: their work and grades stay (staff remove them here).

    The roster is read a page at a time, each page enrolled before the next is asked for, so a
    sync holds one page in memory (and what it did with the earlier ones stays done)."""
    context: LtiContext = link.context
    if not context.memberships_url:
        raise LaunchRefused("The platform has not offered its roster (Names and Roles service) for this course.")
    deployment = context.deployment
    result = RosterSync()
    seen = 0
    for page in tool.roster_pages(deployment.registration, context.memberships_url):
        for member in page[: MAX_ROSTER_MEMBERS - seen]:
            sync_member(link, member, result)
        seen += len(page)
        if seen >= MAX_ROSTER_MEMBERS:
            logger.warning("LTI roster of %s cut at %s members", context, MAX_ROSTER_MEMBERS)
            break
    return result


def sync_member(link: CourseLink, member: dict[str, Any], result: RosterSync) -> None:
    course, deployment = link.course, link.context.deployment
    try:
        person = PersonClaims.read(member, sub_key="user_id", roles_key="roles")
    except LaunchRefused:
        result.skipped.append("(a member with no valid user_id)")
        return
    role = person.role
    if role is None or member.get("status", "Active") != "Active":
        result.skipped.append(person.sub)
        return
    with transaction.atomic():
        platform_account, account = account_for(deployment, person)
        platform_account.contexts.add(link.context)
        before = Membership.objects.filter(course=course, user=account).values_list("role", flat=True).first()
        place_in_course(course, account, role, person)
        settle_admin_access(platform_account)
    if before is None:
        result.enrolled.append(account.username)
    elif before != role:
        result.updated.append(account.username)
