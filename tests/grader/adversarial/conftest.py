"""The suite's fixtures: the canary problem under its two time limits, and one pool of sandboxes."""

from __future__ import annotations

import pytest

from grader.problem import load_problem
from sandbox.host.backends import BwrapBackend
from sandbox.host.prestarted import SandboxPool
from tests.grader.adversarial.canary import CANARY_PROBLEM, SECRET, SHORT_TIME_LIMIT_S, WIDE_TIME_LIMIT_S


@pytest.fixture(scope="package")
def pool():
    """Sandboxes forked by fork servers, as workers grade: hostile submissions one after another."""
    with SandboxPool(BwrapBackend()) as pool:
        yield pool


@pytest.fixture
def canary(make_problem, monkeypatch):
    """The canary problem, under a time limit that no submission expected to finish comes near."""
    monkeypatch.setenv("JAXJUDGE_CANARY", SECRET)  # in the worker's own environment too
    make_problem("canary", **CANARY_PROBLEM, time_limit_s=WIDE_TIME_LIMIT_S)
    return load_problem("canary")


@pytest.fixture
def short_canary(canary, make_problem):
    """The same problem under a short time limit, for the submissions that must run out of it."""
    make_problem("short_canary", **CANARY_PROBLEM, time_limit_s=SHORT_TIME_LIMIT_S)
    return load_problem("short_canary")
