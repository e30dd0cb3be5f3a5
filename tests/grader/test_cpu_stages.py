"""Stages of CPU time (``grader.cpu_stages``): each adds what it spent, an inner stage's seconds
are taken out of the outer one's, and another process's time is read from /proc."""

import os
import time

from grader import cpu_stages


def burn(seconds: float) -> None:
    """Spend about ``seconds`` of this thread's CPU time."""
    end = time.thread_time() + seconds
    while time.thread_time() < end:
        pass


def test_a_stage_adds_the_cpu_time_spent_inside_it() -> None:
    before = cpu_stages.spent()
    with cpu_stages.stage("test: outer"):
        burn(0.05)
    with cpu_stages.stage("test: outer"):
        burn(0.05)
    spent = cpu_stages.since(before)
    assert 0.09 <= spent["test: outer"] < 0.5


def test_an_inner_stage_is_taken_out_of_the_outer_one() -> None:
    before = cpu_stages.spent()
    with cpu_stages.stage("test: around"):
        burn(0.05)
        with cpu_stages.stage("test: inside", time.thread_time):
            burn(0.1)
    spent = cpu_stages.since(before)
    assert 0.09 <= spent["test: inside"] < 0.5
    assert 0.04 <= spent["test: around"] < 0.12  # its own 0.05 s, not the 0.15 s around both


def test_sleeping_is_no_cpu_time() -> None:
    before = cpu_stages.spent()
    with cpu_stages.stage("test: asleep"):
        time.sleep(0.2)
    assert cpu_stages.since(before).get("test: asleep", 0.0) < 0.05


def test_another_process_cpu_time_is_read_and_a_missing_one_is_none() -> None:
    burn(0.1)
    own = cpu_stages.process_cpu_seconds(os.getpid())
    assert own is not None and own >= 0.1
    assert cpu_stages.process_cpu_seconds(2**22 + 1) is None  # above any pid_max
