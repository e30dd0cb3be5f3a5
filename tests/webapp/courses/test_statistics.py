"""Problem statistics for a course's staff: a small class of Week 1, graded through the worker's
own path, where most students' best hand-in fails one hidden property on an empty float32 array.

aot_compiled_sum, hand-checked (hours after the release; every student a member all along but gus):

- ana: practice Submit the day before the release, accepted (counts for nothing); Submits at 1 h
  (fails the empty sum on float32[0], 50) and 2 h (fails it and every shape, 25): best the first.
- ben: a Run at 1 h; Submits at 2 h and 3 h, both failing the empty sum on float32[0] (50): of
  equal scores, the latest is best.
- cai: a Submit at 1 h failing the empty sum on float32[3,0].
- dee: Submits at 1 h (fails the dtype on bfloat16[3,4]), 2 h accepted, 3 h failing the empty sum.
- ema: a Run at 1 h only.
- fay: a Run at 10 min, an accepted Submit at 40 min.
- gus: joined a day after the release; a Submit at 2 h before joining (fails, counts for nothing),
  a Run at 1 day 20 min and an accepted Submit at 1 day 1 h.
- hal: a Submit at 1 h failing the empty sum on float32[0] and every shape on float32[2,3].

Tried 8, submitted 7, solved 3 (dee, fay, gus); Submits to the first accept 2, 1, 1 (median 1);
Submits of those who did not solve it 2, 2, 1, 1 (median 1.5); time to the first accept 1 h,
30 min, 40 min (median 40 min). The empty sum fails under 4 of 7 best hand-ins (57%): float32[0]
three times, float32[3,0] once; every shape under 1 (hal's); the dtype under none.
"""

from __future__ import annotations

import csv
import io
from datetime import datetime, timedelta
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from grader.report import Report, TestResult
from grader.verdicts import Verdict
from tests.webapp.support.course_week import RELEASE
from tests.webapp.support.people import enrol, signed_in, submission_of
from webapp import grading
from webapp.accounts.clock import duration
from webapp.catalog.models import Problem
from webapp.courses.models import Assignment
from webapp.courses.statistics import AssignmentStatistics
from webapp.submissions.models import Submission

pytestmark = pytest.mark.django_db

SLUG = "aot_compiled_sum"
HIDDEN_CANARY = "HIDDEN-OUTPUT-CANARY"
EMPTY, EVERY_SHAPE, DTYPE = "test_sums_empty", "test_sums_every_shape", "test_keeps_dtype"
SENTENCES = {
    EMPTY: "Sums an empty array to zero.",
    EVERY_SHAPE: "Sums every shape.",
    DTYPE: "=Keeps the dtype.",  # text from a report a spreadsheet would run
}


def report(*failures: tuple[str, str]) -> dict[str, Any]:
    """A Submit's report of the current shape: one visible test (passed) and the three hidden
    ones, each failure told by its test and its input's type and shape."""
    failed = dict(failures)
    tests = [TestResult("test_sums_small", "passed", 25.0, 25.0, "", False, 0.1, tested_property="Sums.")]
    for name, sentence in SENTENCES.items():
        outcome = "failed" if name in failed else "passed"
        test = TestResult(name, outcome, 0.0 if name in failed else 25.0, 25.0, "", True, 0.1)
        test.tested_property = sentence
        if name in failed:
            test.verdict, test.message = Verdict.WRONG_ANSWER, "your result differs"
            test.failing_input = "aot_compiled_sum(x)\n  x: " + failed[name].removeprefix("x: ")
            test.failing_types = [failed[name]]
        tests.append(test)
    score = sum(test.points for test in tests)
    verdict = Verdict.WRONG_ANSWER if failures else Verdict.ACCEPTED
    graded = Report(problem=SLUG, verdict=verdict, score=score, max_score=100.0, tests=tests)
    graded.hidden_output = HIDDEN_CANARY
    return graded.to_dict()


def submit(user: User, at: datetime, graded: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> Submission:
    """A Submit handed in at ``at`` and graded through the worker's own path, to ``graded``."""
    submission = submission_of(user, SLUG, status=Submission.Status.QUEUED, handed_in_at=at)
    submission.enqueue()
    monkeypatch.setattr(grading, "grade_code", lambda *args, **kwargs: graded)
    assert Submission.grade_attempt(submission.pk, submission.attempt) == graded["verdict"]
    submission.refresh_from_db()
    return submission


def run(user: User, at: datetime) -> Submission:
    return submission_of(user, SLUG, kind=Submission.Kind.RUN, verdict="accepted", handed_in_at=at)


HOUR = timedelta(hours=1)


@pytest.fixture
def week(assignment: Assignment, monkeypatch: pytest.MonkeyPatch) -> dict[str, Submission]:
    """The class of the module's docstring; returns the hand-ins the tests name."""
    course = assignment.course
    ana, ben, cai, dee, ema, fay, hal = (
        enrol(course, name) for name in ("ana", "ben", "cai", "dee", "ema", "fay", "hal")
    )
    gus = enrol(course, "gus", joined=RELEASE + timedelta(days=1))
    empty, empty_3_0 = (EMPTY, "x: float32[0]"), (EMPTY, "x: float32[3,0]")
    named = {"practice": submit(ana, RELEASE - timedelta(days=1), report(), monkeypatch)}
    named["ana"] = submit(ana, RELEASE + HOUR, report(empty), monkeypatch)
    submit(ana, RELEASE + 2 * HOUR, report(empty, (EVERY_SHAPE, "x: float32[2,3]")), monkeypatch)
    run(ben, RELEASE + HOUR)
    named["ben_first"] = submit(ben, RELEASE + 2 * HOUR, report(empty), monkeypatch)
    named["ben"] = submit(ben, RELEASE + 3 * HOUR, report(empty), monkeypatch)
    named["cai"] = submit(cai, RELEASE + HOUR, report(empty_3_0), monkeypatch)
    submit(dee, RELEASE + HOUR, report((DTYPE, "x: bfloat16[3,4]")), monkeypatch)
    submit(dee, RELEASE + 2 * HOUR, report(), monkeypatch)
    submit(dee, RELEASE + 3 * HOUR, report(empty), monkeypatch)
    run(ema, RELEASE + HOUR)
    run(fay, RELEASE + timedelta(minutes=10))
    submit(fay, RELEASE + timedelta(minutes=40), report(), monkeypatch)
    named["before_joining"] = submit(gus, RELEASE + 2 * HOUR, report(empty), monkeypatch)
    run(gus, RELEASE + timedelta(days=1, minutes=20))
    submit(gus, RELEASE + timedelta(days=1, hours=1), report(), monkeypatch)
    named["hal"] = submit(hal, RELEASE + HOUR, report(empty, (EVERY_SHAPE, "x: float32[2,3]")), monkeypatch)
    return named


def test_the_figures_are_those_worked_out_by_hand(assignment, week):
    stats = AssignmentStatistics.of(assignment)
    assert (stats.students, stats.tried, stats.solved_all) == (8, 8, 0)  # nobody tried batched_dot
    aot, dot = stats.problems
    assert (aot.tried, aot.submitted, aot.solved) == (8, 7, 3)
    assert (aot.median_submits_to_accept, aot.median_submits_unsolved) == (1.0, 1.5)
    assert aot.median_time_to_accept == timedelta(minutes=40) and aot.median_time_text == "40 min"
    assert [(p.name, p.failed) for p in aot.properties] == [(EMPTY, 4), (EVERY_SHAPE, 1), (DTYPE, 0)]
    empty = aot.properties[0]
    assert empty.sentence == "Sums an empty array to zero." and empty.percent == "57%"
    assert empty.inputs == [("x: float32[0]", 3), ("x: float32[3,0]", 1)]
    # The best hand-ins that failed it: ana's first, ben's latest (of two equal), cai's.
    assert empty.examples == [week["ana"].pk, week["ben"].pk, week["cai"].pk]
    assert week["ben_first"].pk not in empty.examples and week["before_joining"].pk not in empty.examples
    assert aot.properties[1].examples == [week["hal"].pk]
    assert (dot.tried, dot.submitted, dot.solved, dot.properties, dot.median_submits_to_accept) == (0, 0, 0, [], None)


def test_practice_before_the_release_or_before_joining_does_not_count(assignment, week):
    # ana's accepted practice the day before the release would make her a solver; gus's failed
    # Submit before he joined would be his first (and count as a Submit before his accept).
    aot = AssignmentStatistics.of(assignment).problems[0]
    assert aot.solved == 3 and aot.median_submits_to_accept == 1.0
    week["practice"].handed_in_at = RELEASE + HOUR
    week["practice"].save()
    assert AssignmentStatistics.of(assignment).problems[0].solved == 4  # the same Submit, after the release


def test_the_page_names_the_property_most_of_the_class_failed_first(client, assignment, week, ta):
    page = signed_in(ta, client).get("/courses/jax-101/gradebook/statistics/").content.decode()
    most_failed = page.split('data-testid="most-failed"')[1].split("</p>")[0]
    assert "Sums an empty array to zero." in most_failed and "57% of those who submitted" in most_failed
    assert "<code>x: float32[0]</code>" in most_failed
    rows = page.split('data-testid="property"')[1:]
    assert [row.split('data-name="')[1].split('"')[0] for row in rows] == [EMPTY, EVERY_SHAPE, DTYPE]
    assert "57% (4 of 7)" in rows[0] and "<code>x: float32[0]</code> × 3" in rows[0]
    assert f'href="/courses/jax-101/submissions/{week["ana"].pk}/"' in rows[0]
    assert 'data-testid="median-time">40 min<' in page and 'data-testid="solved">3<' in page
    assert "from the release (<time" in page  # the release in the reader's zone (``moment``)
    assert HIDDEN_CANARY not in page and "your result differs" not in page
    # The course's page and the gradebook lead here.
    for path in ("/courses/jax-101/", "/courses/jax-101/gradebook/"):
        assert 'href="/courses/jax-101/gradebook/statistics/"' in client.get(path).content.decode()


def test_the_page_gives_the_rubric_s_level_beside_the_label(client, assignment, week, ta):
    page = signed_in(ta, client).get("/courses/jax-101/gradebook/statistics/").content.decode()
    level = page.split('data-testid="level">')[1].split("</p>")[0]
    # Eight students tried it: too few for their solve rate to move the level.
    assert level.startswith("Labelled easy; by the rubric and this class: easy: answer of 2 new lines (0)")
    assert level.endswith("solve rate not yet known.")


def test_a_class_s_solve_rate_moves_the_level_once_enough_students_tried():
    assert grading.level_for_staff(SLUG, attempts=30, solved=6).startswith("medium: answer of 2 new lines")
    assert grading.level_for_staff(SLUG, attempts=30, solved=6).endswith("solved by 20% of 30")
    assert grading.level_for_staff(SLUG, attempts=30, solved=29).startswith("easy:")  # never below easy
    assert grading.level_for_staff("no_such_problem", attempts=30, solved=6) == ""


def test_the_csv_has_the_same_numbers_and_runs_no_formula(client, assignment, week, owner):
    response = signed_in(owner, client).get("/courses/jax-101/gradebook/statistics/?assignment=week-1&format=csv")
    assert response["Content-Type"].startswith("text/csv")
    text = response.content.decode()
    rows = list(csv.DictReader(io.StringIO(text)))
    assert [(row["problem"], row["property"]) for row in rows] == [
        (SLUG, EMPTY),
        (SLUG, EVERY_SHAPE),
        (SLUG, DTYPE),
        ("batched_dot", ""),
    ]
    empty = rows[0]
    assert (empty["tried"], empty["submitted"], empty["solved"], empty["failed"], empty["share failed"]) == (
        "8",
        "7",
        "3",
        "4",
        "0.571",
    )
    assert empty["median submits to first accept"] == "1" and empty["median minutes to first accept"] == "40"
    assert empty["inputs failed on"] == "x: float32[0] x 3; x: float32[3,0] x 1"
    assert f"/courses/jax-101/submissions/{week['ana'].pk}/" in empty["examples"]
    assert rows[2]["property sentence"] == "'=Keeps the dtype."
    assert HIDDEN_CANARY not in text


def test_only_the_course_staff_read_it(client, assignment, course_student, outsider, peer):
    assert signed_in(course_student, client).get("/courses/jax-101/gradebook/statistics/").status_code == 403
    for person in (outsider, peer):
        assert signed_in(person).get("/courses/jax-101/gradebook/statistics/").status_code == 404
    anonymous = client.__class__().get("/courses/jax-101/gradebook/statistics/")
    assert anonymous.status_code == 302 and "login" in anonymous["Location"]


def test_an_unknown_assignment_is_a_404_and_a_course_without_one_says_so(client, ta, course, owner, catalog):
    staff = signed_in(owner, client)
    assert staff.get("/courses/jax-101/gradebook/statistics/?assignment=nope").status_code == 404
    assert "This course has no assignment yet." in staff.get("/courses/jax-101/gradebook/statistics/").content.decode()


def test_a_span_reads_in_its_largest_units():
    spans = (40, 45 * 60, 3600, 3 * 3600 + 20 * 60, 2 * 86400 + 4 * 3600)
    assert [duration(timedelta(seconds=s)) for s in spans] == ["40 s", "45 min", "1 h", "3 h 20 min", "2 days 4 h"]


def test_a_graded_notebook_keeps_its_hidden_failures_too(catalog, student):
    graded = report((EMPTY, "x: float32[0]"))
    recorded = Submission.record_graded(student, Problem.objects.get(slug=SLUG), graded, code="x = 1\n")
    assert Submission.objects.get(pk=recorded.pk).hidden_failures == [[EMPTY, "x: float32[0]"]]


@pytest.mark.django_db(transaction=True)
def test_submissions_graded_before_get_their_hidden_failures_from_their_reports(catalog: None) -> None:
    executor = MigrationExecutor(connection)
    executor.migrate([("submissions", "0011_ended_tests")])
    executor.loader.build_graph()
    old = executor.loader.project_state([("submissions", "0011_ended_tests")]).apps
    try:
        problem = old.get_model("catalog", "Problem").objects.get(slug=SLUG)
        user = old.get_model("auth", "User").objects.create(username="ada")
        submissions = old.get_model("submissions", "Submission").objects
        # A report of schema 2: its failing input told as code only.
        schema_2 = {
            "schema": 2,
            "tests": [
                {"name": EMPTY, "outcome": "failed", "hidden": True, "property": "P.", "failing_input": "f(x)\n"
                 "  x = jnp.zeros((0,), dtype=jnp.float32)"},
                {"name": EVERY_SHAPE, "outcome": "passed", "hidden": True, "property": "Q.", "failing_input": ""},
            ],
        }  # fmt: skip
        fields = {"user": user, "problem": problem, "code": "", "status": "graded"}
        graded = submissions.create(kind="submit", report=schema_2, **fields)
        a_run = submissions.create(kind="run", report={"schema": 2, "tests": []}, **fields)
        MigrationExecutor(connection).migrate([("submissions", "0012_submission_hidden_failures")])
        assert Submission.objects.get(pk=graded.pk).hidden_failures == [[EMPTY, "x: float32[0]"]]
        assert Submission.objects.get(pk=a_run.pk).hidden_failures is None
    finally:
        executor = MigrationExecutor(connection)
        executor.migrate(executor.loader.graph.leaf_nodes())
