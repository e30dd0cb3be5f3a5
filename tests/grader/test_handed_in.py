"""A worker's warm-up (``grader.handed_in.warm_up``): which problems it warms, and when it stops.

That a warmed problem is really graded, its reference kept, is shown by the worker's own test
(tests/webapp/submissions/test_worker.py), with real sandboxes.
"""

from __future__ import annotations

from typing import Any

import pytest

from grader import handed_in


class ReadyPool:
    def wait_ready(self) -> None:
        return None


@pytest.fixture
def warming(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The problems warm_up tries, in order, without grading them; "broken" fails to warm."""
    tried: list[str] = []

    def warm(slug: str, device: str) -> None:
        tried.append(slug)
        if slug == "broken":
            raise RuntimeError("its reference was not accepted")
        handed_in._warmed.append(slug)

    monkeypatch.setattr(handed_in, "_warm_problem", warm)
    monkeypatch.setattr(handed_in, "sandbox_pool", lambda *args, **kwargs: ReadyPool())
    monkeypatch.setattr(handed_in, "_warmed", [])
    return tried


def test_warm_up_warms_every_problem_given_and_skips_one_that_fails(warming: list[str], caplog: Any) -> None:
    assert handed_in.warm_up("cpu", ["positive_sum", "broken", "compile_for"]) == ["positive_sum", "compile_for"]
    assert warming == ["positive_sum", "broken", "compile_for"]
    assert "could not warm broken" in caplog.text
    assert handed_in.warmed_problems() == ["positive_sum", "compile_for"]


def test_warm_up_stops_as_soon_as_a_submission_waits(warming: list[str]) -> None:
    asked = iter([False, False, True])
    warmed = handed_in.warm_up("cpu", ["positive_sum", "compile_for", "count_traces"], work_waiting=lambda: next(asked))
    assert warmed == warming == ["positive_sum", "compile_for"]


def test_warm_up_stops_when_its_time_is_spent(warming: list[str]) -> None:
    assert handed_in.warm_up("cpu", ["positive_sum", "compile_for"], budget_s=-1.0) == []
    assert warming == []
