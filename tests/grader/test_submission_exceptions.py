"""Exceptions from the sandbox rebuilt in the harness, even those a message alone cannot make."""

import pytest

from grader.submission_exceptions import RaisedBySubmission, submission_exception


@pytest.mark.parametrize(
    ("type_name", "catch"),
    [("UnicodeDecodeError", ValueError), ("ExceptionGroup", Exception), ("UnicodeEncodeError", UnicodeError)],
)
def test_exceptions_that_need_several_arguments_are_rebuilt(type_name, catch):
    error = submission_exception(type_name, type_name, "it went wrong", "")
    assert isinstance(error, RaisedBySubmission) and isinstance(error, catch)
    assert "it went wrong" in str(error)
