"""The solution gate and progress: the solution hidden until revealed, an editorial once
solved, solving after looking marked as such, and the list marking what was attempted."""

from __future__ import annotations

import ast
import html
import re
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from grader.problem import load_problem
from tests.webapp.support.submitting import SLUG, SOME_CODE, make_submission, post
from webapp.catalog.models import Problem
from webapp.submissions.models import Progress, Submission

pytestmark = pytest.mark.django_db


REFERENCE_LINE = "compiled = jax.jit(jnp.sum).lower(x).compile()"


def test_the_solution_is_hidden_until_the_student_reveals_it(client, catalog, student):
    url = reverse("submissions:solution", args=[SLUG])
    anonymous = client.get(url)
    assert anonymous.status_code == 302 and anonymous.url.startswith(reverse("login"))

    client.force_login(student)
    before = page_text(client.get(url).content.decode())
    assert REFERENCE_LINE not in before
    assert "Reveal the solution" in before

    revealed = client.post(url)

    assert revealed.status_code == 302 and revealed.url == url
    assert Progress.objects.get(user=student, problem__slug=SLUG).solution_viewed_at is not None
    after = page_text(client.get(url).content.decode())
    assert REFERENCE_LINE in after  # highlighted: its words in spans of their own
    assert "Reveal the solution" not in after


def page_text(page: str) -> str:
    """What a page reads as, tags taken out."""
    return html.unescape(re.sub(r"<[^>]+>", "", page))


def test_after_solving_the_solution_is_an_editorial_with_the_students_code_and_the_next_problem(
    client, catalog, student
):
    insight = {"artifacts": {"cost": {"flops": 4.0}}, "reference": {"cost": {"flops": 3.0}}}
    accepted = make_submission(
        student,
        code="def aot_compiled_sum(x):\n    return my_own_way(x)\n",
        status=Submission.Status.GRADED,
        verdict="accepted",
        report={"insight": insight, "tests": []},
    )
    Progress.refresh(student.pk, accepted.problem_id)
    client.force_login(student)
    page = client.get(reverse("submissions:solution", args=[SLUG])).content.decode()
    text = page_text(page)
    assert REFERENCE_LINE in text and "return my_own_way(x)" in text
    assert 'class="highlight"' in page  # both highlighted
    # Why it works: the reference's docstring after its summary (tests/webapp/workspace/test_editorial.py).
    docstring = ast.get_docstring(ast.parse(load_problem(SLUG).reference_solution.read_text()))
    assert docstring is not None
    why = docstring.split("\n\n")[1]
    assert " ".join(why.split()[:12]) in " ".join(text.split())
    assert "What each compiled to" in text and "4 FLOPs" in " ".join(text.split())
    ordered = list(Problem.objects.all())
    following = ordered[[problem.slug for problem in ordered].index(SLUG) + 1]
    assert f'href="{reverse("catalog:detail", args=[following.slug])}"' in page
    assert f"Next in the course: {following.title}" in " ".join(text.split())


@pytest.mark.parametrize(
    ("viewed_minutes_after_submit", "state"),
    [(-5, "solved after viewing the solution"), (5, "solved")],
)
def test_solving_after_viewing_the_solution_is_marked_as_such(catalog, student, viewed_minutes_after_submit, state):
    start = timezone.now() - timedelta(hours=1)
    # An accepted Run before anything else does not count as solving the problem.
    early_run = make_submission(student, Submission.Kind.RUN, status=Submission.Status.GRADED, verdict="accepted")
    accepted = make_submission(student, status=Submission.Status.GRADED, verdict="accepted")
    Submission.objects.filter(pk=early_run.pk).update(created_at=start - timedelta(minutes=30))
    Submission.objects.filter(pk=accepted.pk).update(created_at=start)
    problem = Problem.objects.get(slug=SLUG)
    Progress.objects.create(
        user=student, problem=problem, solution_viewed_at=start + timedelta(minutes=viewed_minutes_after_submit)
    )

    Progress.refresh(student.pk, problem.pk)

    progress = Progress.objects.get(user=student, problem=problem)
    assert progress.solved_at == start
    assert progress.attempted_at == start - timedelta(minutes=30)
    assert progress.state == state


def test_the_problem_list_marks_the_problems_the_student_attempted(student_client):
    assert post(student_client, "run", SOME_CODE).status_code == 202

    page = student_client.get(reverse("catalog:list")).content.decode()

    assert f'<td class="mark" data-slug="{SLUG}" data-status="attempted">attempted</td>' in page
    assert '<td class="mark" data-slug="compile_for" data-status="not attempted">not attempted</td>' in page
