"""The lanes of ``make test`` (``tests/lanes.py``) come out balanced from measured seconds, a new
file counts as the default, and the timings a run measured are kept for the next."""

from __future__ import annotations

import json
from pathlib import Path

from tests.lanes import balance, commands_of, expected_seconds, record


def test_the_longest_go_first_each_into_the_lighter_lane():
    seconds = {"a": 10.0, "b": 8.0, "c": 7.0, "d": 5.0, "e": 1.0}
    assert balance(seconds) == [["a", "d", "e"], ["b", "c"]]  # 16 and 15 seconds


def test_one_long_item_has_a_lane_to_itself():
    assert balance({"validate": 600.0, "x": 5.0, "y": 5.0, "z": 5.0}) == [["validate"], ["x", "y", "z"]]


def test_equal_times_are_shared_by_name_so_a_plan_never_changes_between_runs():
    assert balance({"b": 1.0, "a": 1.0, "d": 1.0, "c": 1.0}) == [["a", "c"], ["b", "d"]]


def test_a_file_not_measured_yet_counts_as_the_default():
    durations = {"default_s": 12.0, "steps": {"lint": 90.0}, "files": {"tests/test_a.py": 3.0}}
    expected = expected_seconds(durations, ["tests/test_a.py", "tests/test_new.py"])
    assert expected == {"lint": 90.0, "postgres": 12.0, "tests/test_a.py": 3.0, "tests/test_new.py": 12.0}


def test_a_lane_runs_lint_then_one_pytest_of_all_its_files_then_the_postgresql_pass():
    commands = commands_of(["postgres", "tests/test_b.py", "lint", "tests/test_a.py"])
    assert [command[-1] for command in commands] == ["lint", "tests/test_b.py", "tests.postgres"]
    assert commands[1][-2:] == ["tests/test_a.py", "tests/test_b.py"]
    assert commands_of(["tests/test_a.py"]) == [[*commands[1][:-2], "tests/test_a.py"]]


def test_measured_timings_replace_the_kept_ones_and_files_gone_are_dropped(tmp_path: Path):
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_kept.py").touch()
    kept = tmp_path / "tests" / "lane_durations.json"
    kept.write_text(json.dumps({"default_s": 7.0, "files": {"tests/test_kept.py": 1.0, "tests/test_gone.py": 4.0}}))
    durations = record([{"files": {"tests/test_kept.py": 2.04}, "steps": {"lint": 61.26}}], kept)
    assert durations == {"default_s": 7.0, "steps": {"lint": 61.3}, "files": {"tests/test_kept.py": 2.0}}
    assert json.loads(kept.read_text()) == durations
