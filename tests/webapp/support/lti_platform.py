"""A small LTI 1.3 platform for the tests: a real HTTP server on 127.0.0.1, in this process.

It signs id_tokens as Canvas or as Moodle sign them (their issuers, deployment ids, claim
shapes and service URLs), serves its key set, answers the tool's OIDC login redirect with the
auto-posting form a browser would get, runs an OAuth2 client-credentials token endpoint that
checks the tool's signed assertion against the tool's own key set (fetched over HTTP), serves
a Names and Roles roster (two members a page) and receives scores, checking each bearer
token's scope; it checks a deep-linking response's signature the same way. What it received
is kept for the tests' assertions.

A test drives it with a ``requests.Session`` as the browser: ``platform.launch(browser, person)``.

What a launch says is in ``lti_claims``; the server it runs on, in ``loopback_http``.
"""

from __future__ import annotations

import html
import json
import re
import secrets
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import jwt
import requests
from jwcrypto.jwk import JWK
from lti_tool.models import LtiDeployment, LtiRegistration

from tests.webapp.support.loopback_http import LoopbackServer, respond, served
from tests.webapp.support.lti_claims import (
    CLAIM,
    LINE_ITEM_SCOPE,
    NRPS_SCOPE,
    RESULT_SCOPE,
    SCORE_SCOPE,
    LaunchPlan,
    Person,
    launch_claims,
)


@dataclass
class Platform(LoopbackServer):
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
    # Another registration of the same issuer (Canvas Cloud: every school's developer key) has
    # its own client id; another deployment of one registration, its own deployment id.
    other_client_id: str = ""

    # Where the platform's pieces are, once it is serving.
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
        respond(request, status, headers, payload)

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
        claims = launch_claims(self, plan, nonce=param["nonce"])
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
