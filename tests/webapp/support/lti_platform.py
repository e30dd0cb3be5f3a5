"""A small LTI 1.3 platform for the tests: a real HTTP server on 127.0.0.1, in this process.

It signs id_tokens as Canvas or as Moodle sign them (their issuers, deployment ids, claim
shapes and service URLs), serves its key set, answers the tool's OIDC login redirect with the
auto-posting form a browser would get, runs an OAuth2 client-credentials token endpoint that
checks the tool's signed assertion against the tool's own key set (fetched over HTTP), serves
a Names and Roles roster (two members a page) and receives scores, checking each bearer
token's scope; it checks a deep-linking response's signature the same way. What it received
is kept for the tests' assertions.

A test drives it with a ``requests.Session`` as the browser: ``platform.launch(browser, person)``.

``InternalService`` stands for an address inside the site's network that a hostile platform
would have the tool call (SSRF): a second server, on another loopback address, that records
whoever reached it.
"""

from __future__ import annotations

import html
import json
import re
import secrets
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import jwt
import requests
from jwcrypto.jwk import JWK
from lti_tool.models import LtiDeployment, LtiRegistration

CLAIM = "https://purl.imsglobal.org/spec/lti/claim/"
MEMBERSHIP = "http://purl.imsglobal.org/vocab/lis/v2/membership"
INSTITUTION = "http://purl.imsglobal.org/vocab/lis/v2/institution/person"
SYSTEM = "http://purl.imsglobal.org/vocab/lis/v2/system/person"
SCORE_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/score"
LINE_ITEM_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem"
RESULT_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/result.readonly"
NRPS_SCOPE = "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly"

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


@contextmanager
def served(host: str, on_request: Callable[[BaseHTTPRequestHandler, str], None]) -> Iterator[ThreadingHTTPServer]:
    """An HTTP server on ``host`` (a loopback address) and a free port, in a thread of its own,
    that hands each GET and POST to ``on_request``; stopped when the block ends."""

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

        def do_GET(self) -> None:
            on_request(self, "GET")

        def do_POST(self) -> None:
            on_request(self, "POST")

    server = ThreadingHTTPServer((host, 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


@dataclass
class Platform:
    """One platform, as ``flavour`` ("canvas" or "moodle") shapes its launches."""

    flavour: str
    tool_url: str  # the tool's base URL (Django's live server)
    key: JWK = field(default_factory=lambda: JWK.generate(kty="RSA", size=2048, kid=secrets.token_hex(8)))
    scores: list[dict[str, Any]] = field(default_factory=list)  # {"line_item", "score", "scope"}
    deep_link_responses: list[dict[str, Any]] = field(default_factory=list)  # verified JWT bodies
    token_requests: list[dict[str, Any]] = field(default_factory=list)  # verified assertions
    roster: list[dict[str, Any]] = field(default_factory=list)
    refusals: list[str] = field(default_factory=list)  # what the platform's endpoints refused, and why
    plans: dict[str, LaunchPlan] = field(default_factory=dict)
    tokens: dict[str, set[str]] = field(default_factory=dict)  # bearer token -> scopes granted
    seen_assertions: set[str] = field(default_factory=set)
    server: ThreadingHTTPServer | None = None
    # Another registration of the same issuer (Canvas Cloud: every school's developer key) has
    # its own client id; another deployment of one registration, its own deployment id.
    other_client_id: str = ""

    # Where the platform's pieces are, once it is serving.
    @property
    def base_url(self) -> str:
        assert self.server is not None
        host, port = self.server.server_address[:2]
        return f"http://{host!s}:{port}"

    @property
    def issuer(self) -> str:
        # Canvas Cloud signs every instance's launches with one issuer; Moodle uses its own address.
        return "https://canvas.instructure.com" if self.flavour == "canvas" else self.base_url

    @property
    def client_id(self) -> str:
        if self.other_client_id:
            return self.other_client_id
        return "10000000000042" if self.flavour == "canvas" else "jY3kP9aQ2mW7zL1"

    @property
    def deployment_id(self) -> str:
        return "42:8865aa05b4b79b64a91a86042e43af5ea8ae79eb" if self.flavour == "canvas" else "3"

    @property
    def context_id(self) -> str:
        return "4dde05e8ca1973bcca9bffc13e1548820eee93a3" if self.flavour == "canvas" else "17"

    @property
    def memberships_url(self) -> str:
        if self.flavour == "canvas":
            return f"{self.base_url}/api/lti/courses/101/names_and_roles"
        return f"{self.base_url}/mod/lti/services.php/CourseSection/17/bindings/4/memberships"

    def line_item_url(self, number: int) -> str:
        if self.flavour == "canvas":
            return f"{self.base_url}/api/lti/courses/101/line_items/{number}"
        return f"{self.base_url}/mod/lti/services.php/17/lineitems/{number}/lineitem?type_id=4"

    @property
    def line_items_url(self) -> str:
        if self.flavour == "canvas":
            return f"{self.base_url}/api/lti/courses/101/line_items"
        return f"{self.base_url}/mod/lti/services.php/17/lineitems?type_id=4"

    # Serving

    @contextmanager
    def serving(self) -> Iterator[Platform]:
        with served("127.0.0.1", self.handle) as self.server:
            yield self

    def register(self, *, active: bool = True) -> LtiRegistration:
        """The platform as the site's administrator registers it in the admin."""
        registration = LtiRegistration.objects.create(
            name=f"{self.flavour.title()} (tests)",
            issuer=self.issuer,
            client_id=self.client_id,
            auth_url=f"{self.base_url}/auth",
            token_url=f"{self.base_url}/token",
            keyset_url=f"{self.base_url}/jwks",
        )
        LtiDeployment.objects.create(registration=registration, deployment_id=self.deployment_id, is_active=active)
        return registration

    def handle(self, request: BaseHTTPRequestHandler, method: str) -> None:
        parts = urlsplit(request.path)
        length = int(request.headers.get("Content-Length") or 0)
        body = request.rfile.read(length) if length else b""
        routes: dict[tuple[str, str], Callable[..., tuple[int, dict[str, str], bytes]]] = {
            ("GET", "/jwks"): self.serve_jwks,
            ("GET", "/auth"): self.serve_auth,
            ("POST", "/token"): self.serve_token,
            ("POST", "/deep_link_return"): self.serve_deep_link_return,
        }
        handler = routes.get((method, parts.path))
        if handler is None and method == "GET" and parts.path == urlsplit(self.memberships_url).path:
            handler = self.serve_roster
        if handler is None and method == "POST" and re.search(r"/line_?items/\d+(/lineitem)?/scores$", parts.path):
            handler = self.serve_score
        if handler is None:
            status, headers, payload = 404, {"Content-Type": "text/plain"}, b"not found"
        else:
            try:
                status, headers, payload = handler(request=request, query=parse_qs(parts.query), body=body)
            except Exception as exc:  # a failed check: the test sees it in ``refusals``
                self.refusals.append(f"{parts.path}: {exc}")
                status, headers, payload = 400, {"Content-Type": "text/plain"}, str(exc).encode()
        request.send_response(status)
        for name, value in headers.items():
            request.send_header(name, value)
        request.send_header("Content-Length", str(len(payload)))
        request.end_headers()
        request.wfile.write(payload)

    @staticmethod
    def json(data: Any, status: int = 200, **headers: str) -> tuple[int, dict[str, str], bytes]:
        return status, {"Content-Type": "application/json", **headers}, json.dumps(data).encode()

    def serve_jwks(self, **_: Any) -> tuple[int, dict[str, str], bytes]:
        public = json.loads(self.key.export_public())
        return self.json({"keys": [{**public, "alg": "RS256", "use": "sig"}]})

    # The OIDC login: the tool redirected the browser here; the answer is the form that posts
    # the id_token to the tool.

    def serve_auth(self, query: dict[str, list[str]], **_: Any) -> tuple[int, dict[str, str], bytes]:
        param = {name: values[0] for name, values in query.items()}
        expected = {"scope": "openid", "response_type": "id_token", "response_mode": "form_post", "prompt": "none"}
        for name, value in expected.items():
            if param.get(name) != value:
                raise ValueError(f"{name} must be {value!r}")
        if param.get("client_id") != self.client_id:
            raise ValueError("unknown client_id")
        if param.get("redirect_uri") != f"{self.tool_url}/lti/launch/":
            raise ValueError(f"redirect_uri {param.get('redirect_uri')!r} is not registered")
        plan = self.plans.pop(param.get("login_hint", ""), None)
        if plan is None:
            raise ValueError("unknown login_hint")
        if param.get("lti_message_hint") != f"message-{plan.resource_link_id}":
            raise ValueError("lti_message_hint not passed back")
        claims = self.claims(plan, nonce=param["nonce"])
        if plan.tamper is not None:
            plan.tamper(claims)
        id_token = self.sign(claims, plan.signing_key or self.key)
        form = (
            f'<form method="post" action="{html.escape(param["redirect_uri"])}">'
            f'<input type="hidden" name="id_token" value="{html.escape(id_token)}">'
            f'<input type="hidden" name="state" value="{html.escape(param["state"])}"></form>'
            # As platforms do: a browser posts it at once (a requests session reads the form).
            "<script>document.forms[0].submit()</script>"
        )
        return 200, {"Content-Type": "text/html"}, form.encode()

    @staticmethod
    def sign(claims: dict[str, Any], key: JWK) -> str:
        pem = key.export_to_pem(private_key=True, password=None)
        return jwt.encode(claims, pem, algorithm="RS256", headers={"kid": key["kid"]})

    def claims(self, plan: LaunchPlan, *, nonce: str) -> dict[str, Any]:
        """An id_token's claims, shaped as this platform shapes them."""
        person, now = plan.person, int(time.time())
        ags_scopes = [LINE_ITEM_SCOPE, RESULT_SCOPE, SCORE_SCOPE]
        claims: dict[str, Any] = {
            "iss": self.issuer,
            "aud": self.client_id,
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
            CLAIM + "deployment_id": self.deployment_id,
            CLAIM + "target_link_uri": f"{self.tool_url}/lti/launch/",
            CLAIM + "roles": person.roles,
            CLAIM + "custom": plan.custom,
            "https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice": {
                "context_memberships_url": self.memberships_url,
                "service_versions": ["2.0"] if self.flavour == "canvas" else ["1.0", "2.0"],
            },
        }
        ags: dict[str, Any] = {"scope": ags_scopes, "lineitems": self.line_items_url}
        if plan.message_type == "LtiResourceLinkRequest":
            claims[CLAIM + "resource_link"] = {"id": plan.resource_link_id, "title": "Week 1", "description": ""}
            ags["lineitem"] = self.line_item_url(int(re.sub(r"\D", "", plan.resource_link_id) or 1))
        else:
            claims["https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings"] = {
                "deep_link_return_url": f"{self.base_url}/deep_link_return",
                "accept_types": ["ltiResourceLink"],
                "accept_presentation_document_targets": ["iframe", "window"],
                "accept_multiple": False,
                "auto_create": True,
                "data": "platform-opaque-data",
            }
        claims["https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"] = ags
        if self.flavour == "canvas":
            errors: dict[str, Any] = {"errors": {}}
            claims.update(
                {
                    "azp": self.client_id,
                    "locale": "en",
                    "picture": "https://canvas.instructure.com/images/messages/avatar-50.png",
                    "errors": errors,
                    "https://www.instructure.com/placement": "link_selection",
                    CLAIM + "context": {
                        "id": self.context_id,
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
                    CLAIM + "context": {
                        "id": self.context_id,
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
                        "return_url": f"{self.base_url}/mod/lti/return.php?course=17&launch_container=4&instanceid=8",
                    },
                    CLAIM + "lis": {"person_sourcedid": "", "course_section_sourcedid": ""},
                    CLAIM + "ext": {"user_username": person.given_name.lower(), "lms": "moodle-2"},
                }
            )
        return claims

    # Launching, as a browser does: the login initiation (Canvas posts it, Moodle links it),
    # the redirect to the platform, and the form that posts the id_token back to the tool.

    def launch(
        self,
        browser: requests.Session,
        person: Person,
        *,
        form_tamper: Callable[[dict[str, str]], None] | None = None,
        **plan: Any,
    ) -> requests.Response:
        """The tool's answer to the launch's form post (redirects are not followed); ``plan``:
        what ``plan_launch`` takes (message type, resource link, custom, tamper, signing key)."""
        action, fields = self.launch_form(browser, person, **plan)
        if form_tamper is not None:
            form_tamper(fields)
        return browser.post(action, data=fields, allow_redirects=False)

    def plan_launch(
        self,
        person: Person,
        message_type: str = "LtiResourceLinkRequest",
        resource_link_id: str = "rl-1",
        custom: dict[str, str] | None = None,
        tamper: Callable[[dict[str, Any]], None] | None = None,
        signing_key: JWK | None = None,
    ) -> dict[str, str]:
        """The third-party-initiated login's parameters for one launch, planned for its login hint."""
        hint = secrets.token_hex(8)
        self.plans[hint] = LaunchPlan(person, message_type, resource_link_id, custom or {}, tamper, signing_key)
        return {
            "iss": self.issuer,
            "login_hint": hint,
            "target_link_uri": f"{self.tool_url}/lti/launch/",
            "lti_message_hint": f"message-{resource_link_id}",
            "client_id": self.client_id,
            "lti_deployment_id": self.deployment_id,
        }

    def login_url(self, person: Person, *, custom: dict[str, str] | None = None) -> str:
        """Where a real browser starts a launch (the link a platform's page opens), as Moodle
        starts it: a GET of the tool's login with the initiation's parameters."""
        return f"{self.tool_url}/lti/login/?{urlencode(self.plan_launch(person, custom=custom))}"

    def launch_form(self, browser: requests.Session, person: Person, **plan: Any) -> tuple[str, dict[str, str]]:
        """The id_token form the platform gives the browser, after the OIDC login round trip."""
        initiation = self.plan_launch(person, **plan)
        if self.flavour == "canvas":
            answer = browser.post(f"{self.tool_url}/lti/login/", data=initiation, allow_redirects=False)
        else:
            answer = browser.get(f"{self.tool_url}/lti/login/?{urlencode(initiation)}", allow_redirects=False)
        assert answer.status_code == 302, (answer.status_code, answer.text[:500])
        assert answer.headers["Location"].startswith(f"{self.base_url}/auth?")
        page = browser.get(answer.headers["Location"], allow_redirects=False)
        assert page.status_code == 200, (page.status_code, page.text, self.refusals)
        return form_of(page.text)

    # The services

    def tool_key(self, kid: str) -> Any:
        """The tool's public key with id ``kid``, from its key set (over HTTP, as a platform gets it)."""
        with urllib.request.urlopen(f"{self.tool_url}/lti/jwks/", timeout=10) as answer:
            keys = json.load(answer)["keys"]
        for key in keys:
            if key.get("kid") == kid:
                return jwt.PyJWK(key).key
        raise ValueError(f"the tool's key set has no key {kid!r}")

    def verify_from_tool(self, token: str, *, audience: str) -> dict[str, Any]:
        header = jwt.get_unverified_header(token)
        claims: dict[str, Any] = jwt.decode(
            token,
            self.tool_key(header.get("kid", "")),
            algorithms=["RS256"],
            audience=audience,
            issuer=self.client_id,
            options={"require": ["exp", "iat", "iss", "aud"]},
        )
        return claims

    def serve_token(self, body: bytes, **_: Any) -> tuple[int, dict[str, str], bytes]:
        form = {name: values[0] for name, values in parse_qs(body.decode()).items()}
        if form.get("grant_type") != "client_credentials":
            raise ValueError("grant_type must be client_credentials")
        if form.get("client_assertion_type") != "urn:ietf:params:oauth:client-assertion-type:jwt-bearer":
            raise ValueError("client_assertion_type must be jwt-bearer")
        assertion = self.verify_from_tool(form.get("client_assertion", ""), audience=f"{self.base_url}/token")
        if assertion.get("sub") != self.client_id or assertion.get("jti") in self.seen_assertions:
            raise ValueError("the assertion's subject is not the client, or it was used before")
        self.seen_assertions.add(assertion["jti"])
        self.token_requests.append(assertion)
        granted = set(form.get("scope", "").split()) & {SCORE_SCOPE, LINE_ITEM_SCOPE, RESULT_SCOPE, NRPS_SCOPE}
        token = secrets.token_urlsafe(24)
        self.tokens[token] = granted
        return self.json(
            {"access_token": token, "token_type": "Bearer", "expires_in": 3600, "scope": " ".join(granted)}
        )

    def check_bearer(self, request: BaseHTTPRequestHandler, scope: str) -> None:
        authorization = request.headers.get("Authorization", "")
        token = authorization.removeprefix("Bearer ")
        if not authorization.startswith("Bearer ") or scope not in self.tokens.get(token, set()):
            raise ValueError(f"no bearer token with the scope {scope}")

    def serve_roster(self, request: BaseHTTPRequestHandler, query: dict[str, list[str]], **_: Any) -> Any:
        self.check_bearer(request, NRPS_SCOPE)
        if "application/vnd.ims.lti-nrps.v2.membershipcontainer+json" not in request.headers.get("Accept", ""):
            raise ValueError("the roster is asked for as a membership container")
        page = int(query.get("page", ["0"])[0])
        members = self.roster[2 * page : 2 * page + 2]
        headers = {"Content-Type": "application/vnd.ims.lti-nrps.v2.membershipcontainer+json"}
        if 2 * page + 2 < len(self.roster):
            headers["Link"] = f'<{self.memberships_url}?page={page + 1}>; rel="next"'
        container = {
            "id": self.memberships_url,
            "context": {"id": self.context_id, "label": "JAX101", "title": "JAX from the ground up"},
            "members": members,
        }
        return 200, headers, json.dumps(container).encode()

    def serve_score(self, request: BaseHTTPRequestHandler, body: bytes, **_: Any) -> Any:
        self.check_bearer(request, SCORE_SCOPE)
        if request.headers.get("Content-Type") != "application/vnd.ims.lis.v1.score+json":
            raise ValueError("a score is sent as application/vnd.ims.lis.v1.score+json")
        score = json.loads(body)
        path = urlsplit(request.path).path
        self.scores.append({"line_item": path.removesuffix("/scores"), "score": score})
        return self.json({"resultUrl": f"{self.base_url}{path.removesuffix('/scores')}/results/{score['userId']}"})

    def serve_deep_link_return(self, body: bytes, **_: Any) -> Any:
        form = {name: values[0] for name, values in parse_qs(body.decode()).items()}
        claims = self.verify_from_tool(form.get("JWT", ""), audience=self.issuer)
        if claims.get(CLAIM + "message_type") != "LtiDeepLinkingResponse":
            raise ValueError("not a deep-linking response")
        if claims.get(CLAIM + "deployment_id") != self.deployment_id:
            raise ValueError("the response names another deployment")
        if claims.get("https://purl.imsglobal.org/spec/lti-dl/claim/data") != "platform-opaque-data":
            raise ValueError("the request's data was not passed back")
        self.deep_link_responses.append(claims)
        return 200, {"Content-Type": "text/html"}, b"<p>Linked.</p>"


def form_of(page: str, form_id: str = "") -> tuple[str, dict[str, str]]:
    """A page's form (the first, or the one with ``form_id``): its action and its hidden fields."""
    opening = f'<form[^>]*id="{re.escape(form_id)}"' if form_id else "<form"
    found = re.search(opening + r'[^>]*action="([^"]*)"[^>]*>(.*?)</form>', page, re.S)
    assert found is not None, page[:500]
    fields = dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', found.group(2)))
    return html.unescape(found.group(1)), {name: html.unescape(value) for name, value in fields.items()}


@dataclass
class InternalService:
    """An HTTP server on 127.0.0.2 (loopback, another host than the platform's 127.0.0.1) that
    answers every request with ``answer`` and records its method, path and Authorization header."""

    answer: tuple[int, dict[str, str], bytes] = (200, {"Content-Type": "application/json"}, b'{"members": []}')
    requests: list[dict[str, str]] = field(default_factory=list)
    server: ThreadingHTTPServer | None = None

    @property
    def base_url(self) -> str:
        assert self.server is not None
        host, port = self.server.server_address[:2]
        return f"http://{host!s}:{port}"

    @property
    def host(self) -> str:
        return self.base_url.removeprefix("http://")

    def record(self, request: BaseHTTPRequestHandler, method: str) -> None:
        self.requests.append(
            {"method": method, "path": request.path, "authorization": request.headers.get("Authorization", "")}
        )
        status, headers, payload = self.answer
        request.send_response(status)
        for name, value in headers.items():
            request.send_header(name, value)
        request.send_header("Content-Length", str(len(payload)))
        request.end_headers()
        request.wfile.write(payload)

    @contextmanager
    def serving(self) -> Iterator[InternalService]:
        with served("127.0.0.2", self.record) as self.server:
            yield self
