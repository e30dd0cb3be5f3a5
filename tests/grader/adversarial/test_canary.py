"""The canary problem itself, and the size of the suite."""

from __future__ import annotations

import pytest

from grader.verdicts import Verdict
from tests.grader.adversarial import test_endings_and_forgeries, test_hidden_data, test_resource_exhaustion
from tests.grader.adversarial.canary import CORRECT, grade
from tests.grader.adversarial.test_forged_jax_paths import AOT_CASES

pytestmark = pytest.mark.slow


def test_the_suite_is_large_enough():
    canary_cases = (test_endings_and_forgeries.CASES, test_hidden_data.CASES, test_resource_exhaustion.CASES)
    assert sum(map(len, canary_cases)) + len(AOT_CASES) >= 30


def test_the_canary_problem_accepts_the_secret(canary):
    assert grade(canary, CORRECT).verdict == Verdict.ACCEPTED
