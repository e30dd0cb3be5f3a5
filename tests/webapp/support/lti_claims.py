"""What an LTI 1.3 launch says: the claim names and roles of the specification, a person on
the platform, and the id_token's claims as Canvas or Moodle shapes them for one launch."""

from __future__ import annotations

import re
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from jwcrypto.jwk import JWK

if TYPE_CHECKING:
    from tests.webapp.support.lti_platform import Platform

CLAIM = "https://purl.imsglobal.org/spec/lti/claim/"
MEMBERSHIP = "http://purl.imsglobal.org/vocab/lis/v2/membership"
INSTITUTION = "http://purl.imsglobal.org/vocab/lis/v2/institution/person"
SYSTEM = "http://purl.imsglobal.org/vocab/lis/v2/system/person"
SCORE_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/score"
LINE_ITEM_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem"
RESULT_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/result.readonly"
NRPS_SCOPE = "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly"

# The claims the tests read or forge by name.
CONTEXT = CLAIM + "context"
DEPLOYMENT_ID = CLAIM + "deployment_id"
AGS = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"
NRPS = "https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice"

LEARNER = [f"{MEMBERSHIP}#Learner"]
INSTRUCTOR = [f"{MEMBERSHIP}#Instructor"]
TEACHING_ASSISTANT = [f"{MEMBERSHIP}#Instructor", f"{MEMBERSHIP}/Instructor#TeachingAssistant"]
MENTOR = [f"{MEMBERSHIP}#Mentor"]


@dataclass
class Person:
    """Someone on the platform: their subject (``sub``), names, email and context roles."""

    sub: str
    given_name: str
    family_name: str
    email: str
    roles: list[str]


@dataclass
class LaunchPlan:
    """What the platform will sign when the tool's OIDC redirect for this login hint comes back."""

    person: Person
    message_type: str
    resource_link_id: str
    custom: dict[str, str]
    tamper: Callable[[dict[str, Any]], None] | None
    signing_key: JWK | None  # another key than the platform's, for a forged signature


def launch_claims(platform: Platform, plan: LaunchPlan, *, nonce: str) -> dict[str, Any]:
    """An id_token's claims for ``plan``, shaped as ``platform`` (Canvas or Moodle) shapes them."""
    person, now = plan.person, int(time.time())
    ags_scopes = [LINE_ITEM_SCOPE, RESULT_SCOPE, SCORE_SCOPE]
    claims: dict[str, Any] = {
        "iss": platform.issuer,
        "aud": platform.client_id,
        "sub": person.sub,
        "iat": now,
        "exp": now + 300,
        "nonce": nonce,
        "given_name": person.given_name,
        "family_name": person.family_name,
        "name": f"{person.given_name} {person.family_name}",
        "email": person.email,
        CLAIM + "message_type": plan.message_type,
        CLAIM + "version": "1.3.0",
        DEPLOYMENT_ID: platform.deployment_id,
        CLAIM + "target_link_uri": f"{platform.tool_url}/lti/launch/",
        CLAIM + "roles": person.roles,
        CLAIM + "custom": plan.custom,
        NRPS: {
            "context_memberships_url": platform.memberships_url,
            "service_versions": ["2.0"] if platform.flavour == "canvas" else ["1.0", "2.0"],
        },
    }
    ags: dict[str, Any] = {"scope": ags_scopes, "lineitems": platform.line_items_url}
    if plan.message_type == "LtiResourceLinkRequest":
        claims[CLAIM + "resource_link"] = {"id": plan.resource_link_id, "title": "Week 1", "description": ""}
        ags["lineitem"] = platform.line_item_url(int(re.sub(r"\D", "", plan.resource_link_id) or 1))
    else:
        claims["https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings"] = {
            "deep_link_return_url": f"{platform.base_url}/deep_link_return",
            "accept_types": ["ltiResourceLink"],
            "accept_presentation_document_targets": ["iframe", "window"],
            "accept_multiple": False,
            "auto_create": True,
            "data": "platform-opaque-data",
        }
    claims[AGS] = ags
    if platform.flavour == "canvas":
        errors: dict[str, Any] = {"errors": {}}
        claims.update(
            {
                "azp": platform.client_id,
                "locale": "en",
                "picture": "https://canvas.instructure.com/images/messages/avatar-50.png",
                "errors": errors,
                "https://www.instructure.com/placement": "link_selection",
                CONTEXT: {
                    "id": platform.context_id,
                    "label": "JAX101",
                    "title": "JAX from the ground up",
                    "type": ["http://purl.imsglobal.org/vocab/lis/v2/course#CourseOffering"],
                    "validation_context": None,
                    "errors": errors,
                },
                CLAIM + "tool_platform": {
                    "guid": "mS8MDPnpxvOfRP4ICmpxxYlVrmuBnpGzQ7kKkeTg:canvas-lms",
                    "name": "Example University",
                    "version": "cloud",
                    "product_family_code": "canvas",
                    "validation_context": None,
                    "errors": errors,
                },
                CLAIM + "launch_presentation": {
                    "document_target": "iframe",
                    "return_url": "https://example.instructure.com/courses/101/external_content/success/external_tool_redirect",
                    "locale": "en",
                },
                CLAIM + "lis": {"person_sourcedid": None, "course_offering_sourcedid": None},
                CLAIM + "lti11_legacy_user_id": secrets.token_hex(20),
                CLAIM + "lti1p1": {"user_id": secrets.token_hex(20), "validation_context": None, "errors": errors},
            }
        )
    else:
        claims.update(
            {
                CONTEXT: {
                    "id": platform.context_id,
                    "label": "JAX101",
                    "title": "JAX from the ground up",
                    "type": ["CourseSection"],
                },
                CLAIM + "tool_platform": {
                    "product_family_code": "moodle",
                    "version": "2024100700",
                    "guid": "moodle.example.edu",
                    "name": "Example University",
                    "description": "Example University's Moodle",
                },
                CLAIM + "launch_presentation": {
                    "locale": "en",
                    "document_target": "window",
                    "return_url": f"{platform.base_url}/mod/lti/return.php?course=17&launch_container=4&instanceid=8",
                },
                CLAIM + "lis": {"person_sourcedid": "", "course_section_sourcedid": ""},
                CLAIM + "ext": {"user_username": person.given_name.lower(), "lms": "moodle-2"},
            }
        )
    return claims
