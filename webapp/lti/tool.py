"""The one module that talks to pylti1p3 and, through it, to the platforms.

pylti1p3 keeps OIDC nonces and validated launches in a launch-data storage; here it is the
database (``LaunchValue``), which every web process shares, and a nonce is taken (deleted)
when a launch uses it, so that no id_token is accepted twice. Every request to a platform
goes through ``PlatformHttp``: a timeout, a cap on the bytes read back, no redirects followed,
and, for its services (rosters, scores), only the registration's own hosts (``service_hosts``):
a launch names the service URLs, and the tool calls them with the platform's bearer token.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterator
from datetime import timedelta
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import requests
from django.conf import settings
from django.http import HttpRequest
from django.utils import timezone
from lti_tool.models import Key, LtiRegistration
from lti_tool.utils import DjangoToolConfig
from pylti1p3.contrib.django import DjangoMessageLaunch, DjangoOIDCLogin
from pylti1p3.contrib.django.request import DjangoRequest
from pylti1p3.contrib.django.session import DjangoSessionService
from pylti1p3.deep_link_resource import DeepLinkResource
from pylti1p3.launch_data_storage.base import LaunchDataStorage
from pylti1p3.lineitem import LineItem
from pylti1p3.service_connector import ServiceConnector

from webapp.lti.claims import NRPS_SCOPE, SCORE_SCOPE, LaunchRefused, service_url
from webapp.lti.models import LaunchValue, PlatformPolicy, host_key

logger = logging.getLogger("webapp.lti")

MAX_ID_TOKEN_BYTES = 64 * 1024
MAX_RESPONSE_BYTES = 4 * 2**20  # a key set, a token, a page of a roster
MAX_ROSTER_PAGES = 200
NONCE_LIFETIME_S = 10 * 60  # from the OIDC login to the launch
LAUNCH_LIFETIME_S = 60 * 60  # a deep-linking launch waits this long for the instructor's pick


class PlatformHttp(requests.Session):
    """Requests to a platform: http(s) only, on ``hosts`` where given, a timeout, no redirects
    followed (a hop could lead anywhere), and at most MAX_RESPONSE_BYTES read."""

    def __init__(self, hosts: frozenset[str] | None = None) -> None:
        super().__init__()
        self.hosts = hosts

    def request(self, method: Any, url: Any, *args: Any, **kwargs: Any) -> requests.Response:
        if urlsplit(str(url)).scheme not in ("https", "http"):
            raise requests.exceptions.InvalidURL(f"not an http(s) URL: {str(url)[:100]!r}")
        if self.hosts is not None and host_key(str(url)) not in self.hosts:
            raise requests.exceptions.InvalidURL(
                f"not on the platform's own hosts (its registration's, or its policy's): {str(url)[:100]!r}"
            )
        kwargs.setdefault("timeout", settings.LTI_HTTP_TIMEOUT_S)
        kwargs["stream"] = True
        kwargs["allow_redirects"] = False
        response = super().request(method, url, *args, **kwargs)
        try:
            if response.is_redirect:
                raise requests.exceptions.InvalidURL(
                    f"the platform answered {str(url)[:100]!r} with a redirect, which the tool does not follow"
                )
            body = response.raw.read(MAX_RESPONSE_BYTES + 1, decode_content=True)
        finally:
            response.close()
        if len(body) > MAX_RESPONSE_BYTES:
            raise requests.exceptions.ContentDecodingError(
                f"the platform answered more than {MAX_RESPONSE_BYTES} bytes"
            )
        response._content = body
        return response


def platform_http(hosts: frozenset[str] | None = None) -> PlatformHttp:
    session = PlatformHttp(hosts)
    session.headers["User-Agent"] = "jaxjudge-lti"
    return session


def service_hosts(registration: LtiRegistration) -> frozenset[str]:
    """The hosts a registration's services may be on: those of its issuer, auth, token and key
    set URLs (which the site's administrator entered), and those its policy lists."""
    urls = (registration.issuer, registration.auth_url, registration.token_url, registration.keyset_url)
    hosts = {host_key(url) for url in urls} - {""}
    policy = PlatformPolicy.objects.filter(registration=registration).first()
    if policy is not None:
        hosts.update(policy.listed_hosts())
    return frozenset(hosts)


def registration_of(launch: DjangoMessageLaunch) -> LtiRegistration:
    """The registration a validated (or restored) launch came through: its issuer and client id
    (unique together), as pylti1p3 matched them."""
    registration = LtiRegistration.objects.filter(issuer=launch.get_iss(), client_id=launch.get_client_id()).first()
    if registration is None:
        raise LaunchRefused("This platform is no longer registered with jaxjudge.", 403)
    return registration


class DatabaseLaunchStorage(LaunchDataStorage[Any]):
    """pylti1p3's launch state in ``LaunchValue`` rows, each with its expiry."""

    def can_set_keys_expiration(self) -> bool:
        return True

    def get_session_cookie_name(self) -> str | None:
        # As pylti1p3's cache storage does: values are tied to a browser by a cookie only over
        # HTTPS, where the cookie can be SameSite=None (an embedded launch sends it back).
        if self._request is None or not self._request.is_secure():
            return None
        return super().get_session_cookie_name()

    def get_value(self, key: str) -> Any:
        row = LaunchValue.objects.filter(key=self._prepare_key(key), expires_at__gt=timezone.now()).first()
        return row.value if row is not None else None

    def set_value(self, key: str, value: Any, exp: int | None = None) -> None:
        now = timezone.now()
        expires_at = now + timedelta(seconds=exp or LAUNCH_LIFETIME_S)
        LaunchValue.objects.update_or_create(
            key=self._prepare_key(key), defaults={"value": value, "expires_at": expires_at}
        )

    def check_value(self, key: str) -> bool:
        return LaunchValue.objects.filter(key=self._prepare_key(key), expires_at__gt=timezone.now()).exists()

    def take_value(self, key: str) -> bool:
        """Delete the value if it is there and current; whether it was. Of two takers, one wins."""
        found = LaunchValue.objects.filter(key=self._prepare_key(key), expires_at__gt=timezone.now())
        deleted, _ = found.delete()
        return deleted == 1

    @staticmethod
    def forget_expired() -> None:
        LaunchValue.objects.filter(expires_at__lte=timezone.now()).delete()


class OneTimeNonces(DjangoSessionService):
    """pylti1p3 checks that a launch's nonce was issued; here it is also used up, and short-lived."""

    def save_nonce(self, nonce: str) -> None:
        self.data_storage.set_value(self._get_key("nonce", nonce), True, exp=NONCE_LIFETIME_S)

    def check_nonce(self, nonce: str) -> bool:
        storage = self.data_storage
        assert isinstance(storage, DatabaseLaunchStorage)
        return storage.take_value(self._get_key("nonce", nonce))


def ensure_tool_key() -> None:
    """The tool's signing key pair (django-lti's ``Key``): made on first use if none is active
    (``manage.py rotate_keys`` makes a new one and retires old ones)."""
    if not Key.objects.active().exists():
        Key.objects.generate()


def oidc_login_redirect(request: HttpRequest, launch_url: str, registration_uuid: Any = None) -> Any:
    """The redirect to the platform's authorisation endpoint that answers an OIDC login
    initiation (raises pylti1p3's OIDCException for an unknown issuer or client)."""
    ensure_tool_key()
    DatabaseLaunchStorage.forget_expired()
    storage = DatabaseLaunchStorage()
    login = DjangoOIDCLogin(
        request,
        DjangoToolConfig(registration_uuid),
        session_service=OneTimeNonces(DjangoRequest(request)),
        launch_data_storage=storage,
    )
    # The launch URL is always our own, whatever target_link_uri says; where the person goes
    # afterwards is decided from the validated launch.
    return login.redirect(launch_url)


def launch_data(launch: DjangoMessageLaunch) -> dict[str, Any]:
    return dict(launch.get_launch_data())


def validated_launch(request: HttpRequest) -> DjangoMessageLaunch:
    """The launch that ``request`` posts, validated: state, nonce (once), registration,
    signature (with ``exp`` and ``iat`` required), deployment and message. Raises
    ``LaunchRefused`` with the reason, in the person's words."""
    id_token = request.POST.get("id_token", "")
    if len(id_token.encode()) > MAX_ID_TOKEN_BYTES:
        raise LaunchRefused("The launch is too large to be an LTI launch.")
    ensure_tool_key()
    storage = DatabaseLaunchStorage()
    launch = DjangoMessageLaunch(
        request,
        DjangoToolConfig(),
        session_service=OneTimeNonces(DjangoRequest(request)),
        launch_data_storage=storage,
        requests_session=platform_http(),
    )
    # The audience is checked against the registration (LaunchClaims.read); PyJWT takes the
    # claims a token must have as a list, which pylti1p3's hints leave out.
    launch.set_jwt_verify_options({"verify_aud": False, "require": ["exp", "iat"]})  # type: ignore[dict-item]
    launch.set_launch_data_lifetime(LAUNCH_LIFETIME_S)
    try:
        launch.validate()
    except Exception as exc:  # the library raises LtiException, and more on malformed input
        logger.warning("LTI launch refused: %s: %s", type(exc).__name__, str(exc)[:500])
        raise refusal_for(exc) from None
    return launch


def refusal_for(exc: Exception) -> LaunchRefused:
    """Our own words for a failed validation (the library's may quote what the platform sent)."""
    reason = str(exc)
    if "Missing id_token" in reason:
        return LaunchRefused("This is not an LTI launch (it has no id_token).")
    if "state" in reason.lower():
        return LaunchRefused(
            "This launch did not start in this browser, or its sign-in expired: open the link on your "
            "course's page again."
        )
    if reason.startswith("Can't decode id_token") and "missing" in reason:
        return LaunchRefused("This is not a valid LTI launch: its id_token lacks a required claim (exp or iat).")
    if "Nonce" in reason or "nonce" in reason:
        return LaunchRefused("This launch was used already or has expired: open the link on your course's page again.")
    if "expired" in reason:
        return LaunchRefused("This launch has expired: open the link on your course's page again.")
    if "Registration not found" in reason or "Client id not registered" in reason or '"iss"' in reason:
        return LaunchRefused(
            "This platform is not registered with jaxjudge (its issuer and client id are unknown here).", 403
        )
    if "signature" in reason.lower() or "public key" in reason or "KID" in reason or "id_token" in reason:
        return LaunchRefused("This launch's signature could not be verified.", 403)
    return LaunchRefused("This is not a valid LTI launch.")


def restored_launch(request: HttpRequest, launch_id: str) -> DjangoMessageLaunch:
    """A launch validated earlier (kept LAUNCH_LIFETIME_S), for a deep-linking response."""
    storage = DatabaseLaunchStorage()
    try:
        restored = DjangoMessageLaunch.from_cache(
            launch_id,
            request,
            DjangoToolConfig(),
            session_service=OneTimeNonces(DjangoRequest(request)),
            launch_data_storage=storage,
            requests_session=platform_http(),
        )
        assert isinstance(restored, DjangoMessageLaunch)
        return restored
    except Exception as exc:
        logger.warning("LTI deep-linking launch not found: %s", str(exc)[:200])
        raise LaunchRefused("This deep-linking request has expired: start again from your course's page.") from None


def deep_link_response_jwt(
    launch: DjangoMessageLaunch, *, url: str, title: str, custom: dict[str, str], score_maximum: float, resource_id: str
) -> str:
    """The signed LtiDeepLinkingResponse that returns one resource link with a line item."""
    line_item = LineItem().set_score_maximum(score_maximum).set_label(title).set_resource_id(resource_id)
    resource = (
        DeepLinkResource()
        .set_url(url)
        .set_title(title)
        .set_custom_params(custom)
        .set_lineitem(line_item)
        .set_target("window")  # the site's pages refuse to be framed
    )
    return launch.get_deep_link().get_response_jwt([resource])


def service_connector(registration: LtiRegistration) -> ServiceConnector:
    ensure_tool_key()
    return ServiceConnector(registration.to_registration(), platform_http(service_hosts(registration)))


def roster_pages(registration: LtiRegistration, memberships_url: str) -> Iterator[list[dict[str, Any]]]:
    """The members of a platform's course, from its Names and Roles service, one page at a
    time (at most MAX_ROSTER_PAGES pages: a platform's next-page links could go on forever);
    the next page is asked for only when the caller is done with this one.

    The next page's URL is read from the Link header here: pylti1p3 lowercases it, which
    breaks case-sensitive paths such as Moodle's ``/CourseSection/``."""
    connector = service_connector(registration)
    hosts = service_hosts(registration)
    url = memberships_url
    for _ in range(MAX_ROSTER_PAGES):
        answer = connector.make_service_request(
            [NRPS_SCOPE],
            url,
            accept="application/vnd.ims.lti-nrps.v2.membershipcontainer+json",
            case_insensitive_headers=True,
        )
        body: Any = answer["body"]
        page = body.get("members") if isinstance(body, dict) else None
        if not isinstance(page, list):
            raise ValueError("the platform's roster is not a list of members")
        yield [member for member in page if isinstance(member, dict)]
        link_header = str(answer["headers"].get("Link", ""))
        url = next_page_url(link_header, hosts)
        if not url:
            if next_page_url(link_header, None):
                raise ValueError("the roster's next page is not on the platform's own hosts")
            return
    raise ValueError(f"the platform's roster has more than {MAX_ROSTER_PAGES} pages")


def next_page_url(link_header: str, hosts: frozenset[str] | None) -> str:
    """The ``rel="next"`` URL of an HTTP Link header, as it is written (http(s) only, on
    ``hosts`` unless None), or ""."""
    for part in link_header.split(","):
        found = re.fullmatch(r'\s*<([^>]*)>\s*;\s*rel="?next"?\s*', part, re.IGNORECASE)
        if found:
            url = found.group(1)
            return service_url(url, hosts if hosts is not None else frozenset({host_key(url)}))
    return ""


def scores_url(line_item_url: str) -> str:
    """A line item's scores endpoint: its path with /scores added, the query kept."""
    parts = urlsplit(line_item_url)
    return urlunsplit(parts._replace(path=parts.path.rstrip("/") + "/scores"))


def post_score(registration: LtiRegistration, line_item_url: str, score: dict[str, Any]) -> None:
    """Send one score to a line item (raises on a refusal or an unreachable platform)."""
    service_connector(registration).make_service_request(
        [SCORE_SCOPE],
        scores_url(line_item_url),
        is_post=True,
        data=json.dumps(score),
        content_type="application/vnd.ims.lis.v1.score+json",
    )
