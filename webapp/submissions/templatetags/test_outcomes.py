"""A result's tests in the order a student reads them: what failed first, what passed after."""

from __future__ import annotations

from typing import Any

from django import template

register = template.Library()


def _is_passing(test: Any) -> bool:
    return isinstance(test, dict) and test.get("outcome") == "passed"


@register.filter
def failing(tests: Any) -> list[dict[str, Any]]:
    """The tests that failed or raised, in the order they ran (the first is the one to read)."""
    return [test for test in tests or [] if isinstance(test, dict) and not _is_passing(test)]


@register.filter
def passing(tests: Any) -> list[dict[str, Any]]:
    return [test for test in tests or [] if _is_passing(test)]
