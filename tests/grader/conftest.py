"""The grader's tests keep the harness's answers on disk in a directory of their own.

Answers a test computes must not come back from an earlier session's disk (a test counting
how often a helper runs would see none), nor go into the checkout's own store.
"""

from collections.abc import Iterator

import pytest

from grader.reference import STORE_VARIABLE, forget_store


@pytest.fixture(autouse=True, scope="session")
def answers_on_disk_of_this_session(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(STORE_VARIABLE, str(tmp_path_factory.mktemp("reference-answers")))
        forget_store()
        yield
    forget_store()
