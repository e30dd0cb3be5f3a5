"""What a platform says in a launch (the id_token's claims), checked and capped.

Everything here came from outside: each claim is type-checked, every string capped, URLs
limited to http(s) on the platform's own hosts, and names and emails kept as data only (an
account is never looked up by them). A launch that cannot be read raises ``LaunchRefused``
with a message for the person.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from django.core.exceptions import ValidationError
from django.core.validators import validate_email

from webapp.courses.models import Membership
from webapp.lti.models import host_key

CLAIM = "https://purl.imsglobal.org/spec/lti/claim/"
MESSAGE_TYPE = CLAIM + "message_type"
DEPLOYMENT_ID = CLAIM + "deployment_id"
ROLES = CLAIM + "roles"
CONTEXT = CLAIM + "context"
RESOURCE_LINK = CLAIM + "resource_link"
CUSTOM = CLAIM + "custom"
NRPS = "https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice"
AGS = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"
DEEP_LINKING = "https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings"
LIS = CLAIM + "lis"  # the school's records: ``person_sourcedid`` is its id of the person

RESOURCE_LAUNCH = "LtiResourceLinkRequest"
DEEP_LINKING_LAUNCH = "LtiDeepLinkingRequest"

SCORE_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/score"
NRPS_SCOPE = "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly"

# The custom parameter a deep link sets on its resource link: the slug of the assignment it opens.
ASSIGNMENT_PARAMETER = "jaxjudge_assignment"

MEMBERSHIP = "http://purl.imsglobal.org/vocab/lis/v2/membership"
# A context role maps to a role here; a TA is usually sent as a sub-role of Instructor, and
# then only the TA role is given (the lesser one). Other roles (Mentor, ContentDeveloper,
# institution or system roles alone) give no access to a course.
TA_ROLES = frozenset(
    {f"{MEMBERSHIP}#TeachingAssistant", f"{MEMBERSHIP}/Instructor#TeachingAssistant", "TeachingAssistant"}
)
INSTRUCTOR_ROLES = frozenset({f"{MEMBERSHIP}#Instructor", "Instructor"})
LEARNER_ROLES = frozenset({f"{MEMBERSHIP}#Learner", "Learner"})

MAX_ID = 255  # subjects, context, resource link and deployment ids (the columns' width)
MAX_NAME = 150  # a first or last name (``User``'s columns)
MAX_TITLE = 200  # a course's title
MAX_STUDENT_ID = 50  # the school's id of a person (``Membership.student_id``)
MAX_URL = 1000
MAX_ROLES = 64
MAX_ROLE = 500


class LaunchRefused(Exception):
    """A launch that is not let in; ``message`` is shown to the person, ``status`` is the HTTP status."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


def role_of(roles: list[str]) -> Membership.Role | None:
    """The course role an LTI roles claim gives, or None when it gives none."""
    given = set(roles)
    if given & TA_ROLES:
        return Membership.Role.TA
    if given & INSTRUCTOR_ROLES:
        return Membership.Role.INSTRUCTOR
    if given & LEARNER_ROLES:
        return Membership.Role.STUDENT
    return None


def clean_text(value: object, limit: int) -> str:
    """A person's text as one plain line: control and format characters dropped, capped."""
    if not isinstance(value, str):
        return ""
    kept = "".join(ch for ch in value[: limit * 4] if unicodedata.category(ch)[0] != "C")
    return " ".join(kept.split())[:limit]


def clean_email(value: object) -> str:
    if not isinstance(value, str) or len(value) > 254:
        return ""
    try:
        validate_email(value)
    except ValidationError:
        return ""
    return value


def identifier(value: object, what: str, *, required: bool = True) -> str:
    """An id the platform chose: a non-empty string of at most MAX_ID characters, no control characters."""
    if value is None and not required:
        return ""
    if not isinstance(value, str | int) or isinstance(value, bool):
        raise LaunchRefused(f"The launch's {what} is missing or not a string.")
    text = str(value)
    if not text or len(text) > MAX_ID or any(unicodedata.category(ch)[0] == "C" for ch in text):
        raise LaunchRefused(f"The launch's {what} must have 1 to {MAX_ID} printable characters.")
    return text


def service_url(value: object, hosts: frozenset[str]) -> str:
    """A platform's service URL, or "" when it sends none, one that is not http(s), or one off
    ``hosts`` (the registration's own: ``tool.service_hosts``), which the tool never calls."""
    if not isinstance(value, str) or len(value) > MAX_URL:
        return ""
    parts = urlsplit(value)
    if parts.scheme not in ("https", "http") or not parts.netloc:
        return ""
    if host_key(value) not in hosts:
        return ""
    return value


def strings(value: object, limit: int, each: int) -> list[str]:
    if not isinstance(value, list):
        return []
    return [item for item in value[:limit] if isinstance(item, str) and len(item) <= each]


def mapping(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


@dataclass(frozen=True)
class PersonClaims:
    """Who the platform says someone is: their subject, and names, email and the school's id
    of them (``student_id``: the LIS person sourcedid) as plain data."""

    sub: str
    first_name: str
    last_name: str
    email: str
    roles: list[str]
    student_id: str = ""

    @property
    def role(self) -> Membership.Role | None:
        return role_of(self.roles)

    @classmethod
    def read(cls, data: dict[str, Any], *, sub_key: str = "sub", roles_key: str = ROLES) -> PersonClaims:
        """From a launch's claims, or (with ``user_id`` and ``roles``) from a roster's member
        (which names the school's id ``lis_person_sourcedid``, where a launch has it in its
        ``lis`` claim)."""
        first = clean_text(data.get("given_name"), MAX_NAME)
        last = clean_text(data.get("family_name"), MAX_NAME)
        if not (first or last):
            first, _, last = clean_text(data.get("name"), 2 * MAX_NAME).partition(" ")
        return cls(
            sub=identifier(data.get(sub_key), "user (sub)"),
            first_name=first[:MAX_NAME],
            last_name=last[:MAX_NAME],
            email=clean_email(data.get("email")),
            roles=strings(data.get(roles_key), MAX_ROLES, MAX_ROLE),
            student_id=clean_text(
                data.get("lis_person_sourcedid") or mapping(data.get(LIS)).get("person_sourcedid"), MAX_STUDENT_ID
            ),
        )


@dataclass(frozen=True)
class LaunchClaims:
    """The claims of a validated launch that the site uses."""

    issuer: str
    message_type: str
    person: PersonClaims
    context_id: str
    context_title: str
    resource_link_id: str
    resource_link_title: str
    assignment_slug: str
    memberships_url: str
    line_item_url: str
    line_items_url: str
    ags_scopes: list[str] = field(default_factory=list)
    deep_link_return_url: str = ""

    @classmethod
    def read(cls, data: dict[str, Any], client_id: str, *, hosts: frozenset[str]) -> LaunchClaims:
        """The claims of ``data``; its service URLs kept only where they are on ``hosts``."""
        message_type = data.get(MESSAGE_TYPE)
        if message_type not in (RESOURCE_LAUNCH, DEEP_LINKING_LAUNCH):
            raise LaunchRefused("jaxjudge opens resource links and deep-linking requests only.")
        # pylti1p3 matched the registration by the first audience; a token for several
        # audiences must name us as its authorised party.
        audience = data.get("aud")
        audiences = audience if isinstance(audience, list) else [audience]
        if client_id not in audiences or (len(audiences) > 1 and data.get("azp") != client_id):
            raise LaunchRefused("This launch was not meant for jaxjudge (its audience is another tool).", 403)
        context = mapping(data.get(CONTEXT))
        if not context:
            raise LaunchRefused("Open jaxjudge from inside a course: this launch names no course (context).")
        resource_link = mapping(data.get(RESOURCE_LINK))
        custom = mapping(data.get(CUSTOM))
        slug = custom.get(ASSIGNMENT_PARAMETER)
        ags = mapping(data.get(AGS))
        deep_linking = mapping(data.get(DEEP_LINKING))
        return cls(
            issuer=identifier(data.get("iss"), "issuer"),
            message_type=message_type,
            person=PersonClaims.read(data),
            context_id=identifier(context.get("id"), "context id"),
            context_title=clean_text(context.get("title") or context.get("label"), MAX_TITLE),
            resource_link_id=identifier(
                resource_link.get("id"), "resource link id", required=message_type == RESOURCE_LAUNCH
            ),
            resource_link_title=clean_text(resource_link.get("title"), MAX_TITLE),
            assignment_slug=slug if isinstance(slug, str) and re.fullmatch(r"[-a-zA-Z0-9_]{1,50}", slug) else "",
            memberships_url=service_url(mapping(data.get(NRPS)).get("context_memberships_url"), hosts),
            line_item_url=service_url(ags.get("lineitem"), hosts),
            line_items_url=service_url(ags.get("lineitems"), hosts),
            ags_scopes=strings(ags.get("scope"), 16, 200),
            deep_link_return_url=service_url(deep_linking.get("deep_link_return_url"), hosts),
        )

    @property
    def is_deep_linking(self) -> bool:
        return self.message_type == DEEP_LINKING_LAUNCH
