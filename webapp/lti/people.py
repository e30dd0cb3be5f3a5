"""People from a platform: their accounts here, and their places in a linked course.

An account is keyed on the platform's issuer and the person's ``sub`` (django-lti's
``LtiUser``, one per registration, joined on the issuer), never on a name or an email the
platform sends. Its username is derived from the issuer and ``sub``, and never taken over from
an account someone else made (anyone can sign up under any free username).
"""

from __future__ import annotations

import hashlib
import logging
import secrets
from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from lti_tool.models import LtiContext, LtiRegistration, LtiUser

from webapp.courses.models import Course, Membership
from webapp.lti import tool
from webapp.lti.claims import LaunchRefused, PersonClaims
from webapp.lti.models import CourseLink

logger = logging.getLogger("webapp.lti")

MAX_ROSTER_MEMBERS = 20_000


def username_for(issuer: str, sub: str) -> str:
    digest = hashlib.sha256(f"{issuer}\n{sub}".encode()).hexdigest()[:20]
    return f"lti-{digest}"


@transaction.atomic
def account_for(registration: LtiRegistration, person: PersonClaims) -> tuple[LtiUser, User]:
    """The platform's record of ``person`` and their account here, made on first sight; names
    and email follow what the platform says now."""
    lti_user, _ = LtiUser.objects.select_for_update().get_or_create(registration=registration, sub=person.sub)
    account = lti_user.auth_user
    if account is None:
        # The same person through another registration of the same issuer is the same account.
        twin = (
            LtiUser.objects.filter(registration__issuer=registration.issuer, sub=person.sub, auth_user__isnull=False)
            .select_related("auth_user")
            .first()
        )
        account = twin.auth_user if twin is not None else new_account(registration.issuer, person.sub)
        lti_user.auth_user = account
    # What the platform leaves out (a privacy setting may hide names) is kept as it was.
    sent = {"first_name": person.first_name, "last_name": person.last_name, "email": person.email}
    changed = [name for name, value in sent.items() if value and getattr(account, name) != value]
    for name in changed:
        setattr(account, name, sent[name])
    if changed:
        account.save(update_fields=changed)
    lti_user.given_name, lti_user.family_name = account.first_name, account.last_name
    lti_user.email = account.email
    lti_user.save()
    return lti_user, account


def new_account(issuer: str, sub: str) -> User:
    username = username_for(issuer, sub)
    if User.objects.filter(username=username).exists():  # someone signed up under it: not theirs to get
        username = f"lti-{secrets.token_hex(10)}"
    account = User(username=username)
    account.set_unusable_password()  # signed in by launches only
    account.save()
    return account


def place_in_course(course: Course, account: User, role: Membership.Role) -> Membership:
    """``account`` in ``course`` with the role the platform gives now."""
    membership, made = Membership.objects.get_or_create(course=course, user=account, defaults={"role": role})
    if not made and membership.role != role:
        membership.role = role
        membership.save(update_fields=["role"])
    return membership


@dataclass
class RosterSync:
    """What a roster sync did, by username."""

    enrolled: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # no role here, inactive, or unreadable


def sync_roster(link: CourseLink) -> RosterSync:
    """Enrol every active member of the platform's course (its Names and Roles service) in
    the linked course with their role; update the roles of those already in it. Members who
    left are not removed: their work and grades stay (staff remove them here)."""
    context: LtiContext = link.context
    if not context.memberships_url:
        raise LaunchRefused("The platform has not offered its roster (Names and Roles service) for this course.")
    registration = context.deployment.registration
    members = tool.roster_members(registration, context.memberships_url)[:MAX_ROSTER_MEMBERS]
    result = RosterSync()
    for member in members:
        sync_member(link.course, registration, member, result)
    return result


def sync_member(course: Course, registration: LtiRegistration, member: dict[str, Any], result: RosterSync) -> None:
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
        _, account = account_for(registration, person)
        before = Membership.objects.filter(course=course, user=account).values_list("role", flat=True).first()
        place_in_course(course, account, role)
    if before is None:
        result.enrolled.append(account.username)
    elif before != role:
        result.updated.append(account.username)
