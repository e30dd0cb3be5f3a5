"""The editorial a student reads once a problem is solved: why the reference works in a few
sentences, the reference beside their own accepted code, and the mistake each of the problem's
known-wrong solutions makes with the verdict it gets (their code never shown)."""

from __future__ import annotations

import html
import re

import pytest
from django.urls import reverse

from grader.problem import load_problem
from grader.validate import sentences
from tests.webapp.support.submitting import make_submission
from webapp.submissions.models import Progress, Submission

pytestmark = pytest.mark.django_db

# Problems whose known-wrong solutions expect one verdict, several, or any rejection.
SLUGS = ["stable_softplus", "eval_output_shape", "jit_once"]


def solved(student, slug: str, code: str) -> None:
    accepted = make_submission(
        student, slug=slug, code=code, status=Submission.Status.GRADED, verdict="accepted", report={"tests": []}
    )
    Progress.refresh(student.pk, accepted.problem_id)


def words(fragment: str) -> str:
    """What an HTML fragment reads as: tags out, entities decoded, white space single."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", "", fragment)).split())


def section(page: str, testid: str) -> str:
    match = re.search(rf'<(section|div)[^>]*data-testid="{testid}".*?</\1>', page, re.DOTALL)
    assert match, f"no {testid} on the page"
    return match.group(0)


@pytest.mark.parametrize("slug", SLUGS)
def test_a_solved_problems_editorial_says_why_shows_both_codes_and_every_known_mistake(client, catalog, student, slug):
    problem = load_problem(slug)
    mine = f"# my own way\n{problem.reference_solution.read_text().split(chr(34) * 3 + chr(10), 1)[1]}"
    solved(student, slug, mine)
    client.force_login(student)
    page = client.get(reverse("submissions:solution", args=[slug])).content.decode()

    why = words(section(page, "why"))
    explanation = problem.explanation()
    assert sentences(" ".join(explanation.why)) >= 3
    for paragraph in explanation.why:
        assert paragraph in why
    assert why.startswith("Why it works In short: " + explanation.summary.removeprefix("Reference solution:").strip())

    # The reference (its code, without the docstring shown above it) beside the accepted code.
    reference = words(section(page, "solution"))
    yours = words(section(page, "accepted-code"))
    assert "# my own way" in yours and "# my own way" not in reference
    first_code_line = next(line for line in mine.splitlines()[1:] if line.startswith(("import", "from")))
    assert first_code_line in reference and first_code_line in yours
    assert explanation.why[0][:60] not in reference
    assert 'class="side-by-side two"' in page

    mistakes = section(page, "mistakes")
    listed = [words(item) for item in re.findall(r'<li data-testid="mistake">.*?</li>', mistakes, re.DOTALL)]
    known = problem.known_wrong()
    assert len(listed) == len(known) >= 3
    for item, wrong in zip(listed, known, strict=True):
        assert item == f"{wrong.verdict_label} {wrong.mistake}"
    assert words(mistakes).startswith("Mistakes this problem catches")


def test_the_verdicts_are_named_as_the_site_names_them_and_no_wrong_code_is_shown(client, catalog, student):
    slug = "eval_output_shape"
    solved(student, slug, "import jax\n\n\ndef eval_output_shape(f, *specs):\n    return jax.eval_shape(f, *specs)\n")
    client.force_login(student)
    page = client.get(reverse("submissions:solution", args=[slug])).content.decode()
    text = words(page)
    assert "Memory limit exceeded or Time limit exceeded Runs f on arrays of zeros" in text
    assert "Wrong answer Returns the jaxpr's abstract output, a ShapedArray" in text
    assert "wrong_answer" not in text  # the verdict's label, not the machine's value
    for wrong in load_problem(slug).solution_dir.glob("wrong_*.py"):
        body = wrong.read_text().split('"""', 2)[2]  # past the docstring: the code
        code_lines = [line.strip() for line in body.splitlines() if line.strip().startswith("return ")]
        assert code_lines and not any(line in text for line in code_lines), wrong.name


def test_a_known_wrong_solution_expecting_any_rejection_reads_as_rejected(client, catalog, student):
    solved(student, "jit_once", "def jit_once(f, calls):\n    return []\n")
    client.force_login(student)
    page = client.get(reverse("submissions:solution", args=["jit_once"])).content.decode()
    assert "Rejected Leaves out in_axes: jax.vmap then maps the weights" in words(section(page, "mistakes"))
    assert '<span class="verdict rejected">Rejected</span>' in page


def test_no_editorial_before_the_student_may_see_it(client, catalog, student):
    client.force_login(student)
    page = client.get(reverse("submissions:solution", args=["stable_softplus"])).content.decode()
    assert 'data-testid="mistakes"' not in page and 'data-testid="why"' not in page
    assert "Reveal the solution" in page
