"""Settings read from the environment, tried in a fresh process (they are read once, at start)."""

import io
import json
import os
import subprocess
import sys

import pytest
from django.core.management import call_command

from grader.problem import REPO_ROOT

# Run in a fresh process: a migrated throwaway database, then requests through Django's
# whole middleware stack. Prints what the test checks, as JSON.
PROBE = """
import json, django
django.setup()
from django.core.management import call_command
from django.test import Client
call_command("migrate", verbosity=0)
# The proxy passes requests on to the web container under its own name.
client = Client(enforce_csrf_checks=True, HTTP_HOST="web:8000")
page = client.get("/accounts/login/", HTTP_X_FORWARDED_PROTO="https")
token = page.cookies["csrftoken"]
def post(origin):
    return client.post(
        "/accounts/login/", {"username": "nobody", "password": "wrong", "csrfmiddlewaretoken": token.value},
        HTTP_X_FORWARDED_PROTO="https", HTTP_ORIGIN=origin, HTTP_REFERER=origin + "/accounts/login/",
    ).status_code
print(json.dumps({
    "secure_request": page.wsgi_request.is_secure(),
    "csrf_cookie_secure": bool(token["secure"]),
    "public_origin": post("https://judge.example.edu"),
    "other_origin": post("https://elsewhere.example.com"),
}))
"""


def probe(tmp_path, **environment: str) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "webapp.settings",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
        "JAXJUDGE_ALLOWED_HOSTS": "web",
        **environment,
    }
    return subprocess.run(
        [sys.executable, "-c", PROBE], env=env, cwd=REPO_ROOT, capture_output=True, text=True, timeout=120
    )


@pytest.mark.slow
def test_behind_a_tls_proxy_requests_are_secure_cookies_https_only_and_the_origin_trusted(tmp_path):
    run = probe(
        tmp_path,
        JAXJUDGE_BEHIND_TLS_PROXY="1",
        JAXJUDGE_CSRF_TRUSTED_ORIGINS="https://judge.example.edu",
    )
    assert run.returncode == 0, run.stderr
    seen = json.loads(run.stdout)
    assert seen["secure_request"] and seen["csrf_cookie_secure"]
    assert seen["public_origin"] == 200  # the form came back with its error: CSRF passed
    assert seen["other_origin"] == 403


@pytest.mark.slow
def test_forms_posted_from_the_public_origin_need_it_trusted(tmp_path):
    run = probe(tmp_path, JAXJUDGE_BEHIND_TLS_PROXY="1")
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["public_origin"] == 403


@pytest.mark.slow
def test_without_the_proxy_setting_a_forwarded_https_header_is_not_believed(tmp_path):
    run = probe(tmp_path)
    assert run.returncode == 0, run.stderr
    seen = json.loads(run.stdout)
    assert not seen["secure_request"] and not seen["csrf_cookie_secure"]


def test_an_origin_without_its_scheme_is_refused_with_the_setting_named(tmp_path):
    run = probe(tmp_path, JAXJUDGE_CSRF_TRUSTED_ORIGINS="judge.example.edu")
    assert run.returncode != 0
    assert "JAXJUDGE_CSRF_TRUSTED_ORIGINS: 'judge.example.edu' must be an origin" in run.stderr


@pytest.mark.django_db
def test_the_models_and_their_migrations_agree():
    # A model changed without its migration would break the first deploy that migrates.
    out = io.StringIO()
    call_command("makemigrations", "--check", "--dry-run", stdout=out)
    assert "No changes detected" in out.getvalue()
