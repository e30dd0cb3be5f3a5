"""``Submission.report`` holds one shape, the grader's report with its schema: the reports the
site writes itself (a cancellation, a platform failure) too, and those written before, by a
migration."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from grader.report import REPORT_SCHEMA, Report
from grader.verdicts import Verdict
from webapp.catalog.models import Problem
from webapp.submissions.models import Submission

pytestmark = pytest.mark.django_db(transaction=True)

GRADER_KEYS = set(Report(problem="p", verdict=Verdict.ACCEPTED, score=1.0, max_score=1.0).to_dict())


def migrate(target: tuple[str, str]) -> Any:
    executor = MigrationExecutor(connection)
    executor.migrate([target])
    executor.loader.build_graph()
    return executor.loader.project_state([target]).apps


def test_a_cancellation_is_stored_in_the_graders_report_shape(catalog: None, student: User) -> None:
    submission = Submission.objects.create(
        user=student, problem=Problem.objects.get(slug="aot_compiled_sum"), kind="submit", code="x = 1\n"
    )
    assert submission.cancel()
    submission.refresh_from_db()
    report = submission.report
    assert isinstance(report, dict) and set(report) == GRADER_KEYS
    assert report["schema"] == REPORT_SCHEMA
    assert (report["verdict"], report["score"]) == ("", None)
    assert submission.to_json()["message"] == "Cancelled before it started."


def test_reports_written_in_the_old_hand_made_shape_take_the_graders_shape(catalog: None) -> None:
    old = migrate(("submissions", "0009_submission_handed_in_at"))
    try:
        problem = old.get_model("catalog", "Problem").objects.get(slug="aot_compiled_sum")
        user = old.get_model("auth", "User").objects.create(username="ada")
        submission_model = old.get_model("submissions", "Submission")
        ended = [{"name": "test_one", "outcome": "passed"}]
        cancelled = submission_model.objects.create(
            user=user,
            problem=problem,
            kind="submit",
            code="",
            status="cancelled",
            report={"message": "Cancelled: you stopped it after 1.0 s.", "tests": ended},
        )
        graded = {"schema": REPORT_SCHEMA, "problem": "aot_compiled_sum", "verdict": "accepted", "tests": []}
        kept = submission_model.objects.create(
            user=user, problem=problem, kind="submit", code="", status="graded", report=graded
        )
        new = migrate(("submissions", "0010_reports_in_one_shape"))
        reports = new.get_model("submissions", "Submission").objects
        converted = reports.get(pk=cancelled.pk).report
        assert set(converted) == GRADER_KEYS
        assert converted["message"] == "Cancelled: you stopped it after 1.0 s." and converted["tests"] == ended
        # The shape of that day (schema 2): a migration writes what it wrote then.
        assert (converted["schema"], converted["problem"], converted["verdict"]) == (2, "aot_compiled_sum", "")
        assert reports.get(pk=kept.pk).report == graded  # a grader's report is left as it is
    finally:
        MigrationExecutor(connection).migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())
