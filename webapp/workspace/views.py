"""The student's pages: the problem list, a problem's page with its editor, Run and Submit, live
results, drafts, the solution gate and the progress page.

These pages join what the apps below them hold (problems, submissions, courses), so they sit
above every app (pyproject.toml's contract) and hold no rules of their own: each calls a model
method or an access check and renders. Every state change is a POST behind CSRF and sign-in;
a student only ever sees their own code and results (another student's submission is a 404, as
if it did not exist).

A problem's page and its solution page opened from an assignment (``?assignment=<course>/<slug>``,
``Assignment.reference``) show it: its due time, the student's standing and the assignment's
previous and next problems. An assignment the reader may not see, or that does not hold the
problem, is ignored: the page is the catalog's, and says nothing of it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_GET, require_POST

from webapp import grading
from webapp.accounts.requests import SignedInRequest
from webapp.catalog.markdown import highlighted_python
from webapp.catalog.models import COURSE, MORE, Problem
from webapp.courses import access
from webapp.courses.models import Assignment, Course, ProblemScore
from webapp.submissions.models import SOLVED, STATUSES, Draft, Progress, Refused, Submission
from webapp.submissions.models.limits import check_code_size

# The problem page's console, tab by tab: (id, label).
CONSOLE_TABS = (
    ("testcases", "Testcases"),
    ("result", "Result"),
    ("output", "Output"),
    ("insight", "JAX insight"),
    ("submissions", "Submissions"),
)


def problem_list(request: HttpRequest) -> HttpResponse:
    """The catalog as a course: sections in the pipeline's order, each with the student's
    progress; per problem its difficulty, tags, the student's status and how many solved it."""
    query = request.GET.get("q", "").strip()
    difficulty = request.GET.get("difficulty", "")
    problems = Problem.objects.matching(query, difficulty).with_solver_counts()
    everything = list(problems)
    tags = sorted({tag for problem in everything for tag in problem.tags})
    tag = request.GET.get("tag", "").strip()
    section = request.GET.get("section", "")
    status = request.GET.get("status", "")
    standing = Progress.by_problem(request.user)

    def status_of(problem: Problem) -> str:
        return Progress.status_of(standing.get(problem.pk))

    shown = [
        problem
        for problem in everything
        if (not tag or tag in problem.tags)
        and (not section or problem.section == section)
        and (status not in STATUSES or status_of(problem) == status)
    ]
    groups = []
    for name in [*(name for name, _ in COURSE), MORE]:
        members = [problem for problem in shown if problem.section == name]
        if not members:
            continue
        whole = [problem for problem in everything if problem.section == name]
        solved = sum(status_of(problem) == SOLVED for problem in whole)
        rows = [(problem, standing.get(problem.pk), status_of(problem)) for problem in members]
        groups.append({"name": name, "rows": rows, "solved": solved, "total": len(whole)})
    context = {
        "problems": shown,
        "groups": groups,
        "query": query,
        "difficulty": difficulty,
        "difficulties": grading.DIFFICULTIES,
        "tag": tag,
        "tags": tags,
        "section": section,
        "sections": [name for name, _ in COURSE],
        "status": status,
        "statuses": STATUSES,
    }
    return render(request, "catalog/problem_list.html", context)


def student_workspace(user: User, problem: Problem, *, history_length: int = 20) -> dict[str, Any]:
    """What the problem page shows a signed-in student: their draft, history and standing."""
    draft = Draft.objects.filter(user=user, problem=problem).first()
    progress = Progress.objects.filter(user=user, problem=problem).first()
    return {
        "code": draft.code if draft else problem.starter,
        "history": list(Submission.objects.filter(user=user, problem=problem)[:history_length]),
        "progress": progress,
    }


def opened_from(request: HttpRequest, problem: Problem) -> Assignment | None:
    """The assignment a problem's page was opened from (``?assignment=<course>/<slug>``), if the
    reader is a member of its course who may see it and it holds the problem; else None, whatever
    was wrong, so that the page tells nobody the assignment exists."""
    course_slug, _, assignment_slug = request.GET.get("assignment", "").partition("/")
    if not (course_slug and assignment_slug) or not isinstance(request.user, User):
        return None
    course = Course.objects.filter(slug=course_slug).first()
    if course is None or not access.may_read_course(request.user, course):
        return None
    visible = course.visible_assignments(request.user, timezone.now())
    return visible.filter(slug=assignment_slug, items__problem=problem).first()


@dataclass(frozen=True)
class InAssignment:
    """What a problem's page shows of the assignment it was opened from."""

    assignment: Assignment
    query: str  # what the page's own links carry to stay in the assignment
    due_at: datetime  # the reader's own (their extension's, if they have one)
    extended: bool
    score: ProblemScore | None  # the reader's standing on the problem, when they are a student
    previous: Problem | None
    next: Problem | None

    @classmethod
    def of(cls, assignment: Assignment, user: User, problem: Problem) -> InAssignment:
        due_at = assignment.due_for(user)
        previous, following = assignment.neighbours(problem)
        # The course's staff hand nothing in to it: their standing would be a row of zeros.
        student = not assignment.course.is_course_staff(user)
        return cls(
            assignment=assignment,
            query=f"?assignment={assignment.reference}",
            due_at=due_at,
            extended=due_at != assignment.due_at,
            score=assignment.score_of(user, problem) if student else None,
            previous=previous,
            next=following,
        )


def problem_detail(request: HttpRequest, slug: str) -> HttpResponse:
    problem = get_object_or_404(Problem, slug=slug)
    context: dict[str, Any] = {"problem": problem, "console_tabs": CONSOLE_TABS}
    assignment = opened_from(request, problem)
    if assignment is not None and isinstance(request.user, User):
        context["in_assignment"] = InAssignment.of(assignment, request.user, problem)
    if request.user.is_authenticated:
        context.update(student_workspace(request.user, problem))
        # Where an accepted Submit's banner points: the assignment's next problem, else the catalog's.
        in_assignment = context.get("in_assignment")
        context["next_problem"] = in_assignment.next if in_assignment is not None else problem.next_in_catalog()
        # The latest result is in the console when the page opens; one still being graded is
        # followed from there, as if the student had just pressed the button.
        if context["history"]:
            latest = context["history"][0]
            state = live_state(latest, with_hidden_output=access.may_read_hidden_output(request.user))
            accepted_submit = latest.kind == Submission.Kind.SUBMIT and latest.accepted
            context["latest"] = {**state, "status_url": status_url(latest), "accepted_submit": accepted_submit}
    return render(request, "catalog/problem_detail.html", context)


@login_required
def problem_notebook(request: SignedInRequest, slug: str) -> HttpResponse:
    """The problem as a Jupyter notebook, with the student's draft in place of the starter.

    It says whose it is and which problem it solves, signed by the site (see
    ``webapp.notebook_identity``), so staff can grade a folder of them with ``manage.py
    autograde --student-from metadata`` without naming either, and without taking a student's
    word for a name.
    """
    problem = get_object_or_404(Problem, slug=slug)
    draft = Draft.objects.filter(user=request.user, problem=problem).first()
    notebook = grading.student_notebook(slug, student=request.user.username, code=draft.code if draft else None)
    response = HttpResponse(notebook, content_type="application/x-ipynb+json")
    response["Content-Disposition"] = f'attachment; filename="{slug}.ipynb"'
    return response


def wants_json(request: HttpRequest) -> bool:
    return "application/json" in request.headers.get("Accept", "")


def create(request: SignedInRequest, slug: str, kind: str) -> HttpResponse:
    problem = get_object_or_404(Problem, slug=slug)
    code = request.POST.get("code", "")
    try:
        with transaction.atomic():
            submission = Submission.accept(request.user, problem, kind, code)
    except Refused as refusal:
        if wants_json(request):
            return JsonResponse({"error": str(refusal)}, status=refusal.status)
        context = {"problem": problem, "message": refusal}
        return render(request, "submissions/refused.html", context, status=refusal.status)
    if wants_json(request):
        urls = {
            "status_url": status_url(submission),
            "page_url": submission_url(submission),
            "cancel_url": reverse("submissions:cancel", args=[submission.pk]),
        }
        return JsonResponse({**live_state(submission), **urls}, status=202)
    return redirect("submissions:detail", submission.pk)


@login_required
@require_POST
def run(request: SignedInRequest, slug: str) -> HttpResponse:
    return create(request, slug, Submission.Kind.RUN)


@login_required
@require_POST
def submit(request: SignedInRequest, slug: str) -> HttpResponse:
    return create(request, slug, Submission.Kind.SUBMIT)


def status_url(submission: Submission) -> str:
    return reverse("submissions:status", args=[submission.pk])


def submission_url(submission: Submission) -> str:
    return reverse("submissions:detail", args=[submission.pk])


def own_submission(request: SignedInRequest, pk: int) -> Submission:
    submission = get_object_or_404(Submission.objects.select_related("problem"), pk=pk)
    if not access.may_read_submission(request.user, submission):
        raise Http404("No such submission")
    return submission


@login_required
@require_GET
def status(request: SignedInRequest, pk: int) -> JsonResponse:
    """The submission's state for the page to poll. With ``?since=N`` (the page shows N ended
    tests) and while it is graded, only what changed; once finished, everything, rendered."""
    submission = own_submission(request, pk)
    since = request.GET.get("since", "")
    # A count of tests: a few ASCII digits (int() refuses strings of over 4300 digits).
    if since.isascii() and since.isdigit() and len(since) <= 9 and not submission.finished:
        return JsonResponse(submission.live_update(int(since)))
    return JsonResponse(live_state(submission, with_hidden_output=access.may_read_hidden_output(request.user)))


@login_required
@require_POST
def cancel(request: SignedInRequest, pk: int) -> HttpResponse:
    """The student's Cancel of a submission being graded (or still queued): its sandbox stops
    within ``CANCEL_POLL_S``; the page keeps polling and shows the cancellation. Staff may
    cancel anyone's, like they may read anyone's."""
    submission = own_submission(request, pk)
    stopping = submission.cancel()
    if wants_json(request):
        return JsonResponse({"cancelling": stopping}, status=202 if stopping else 409)
    return redirect("submissions:detail", submission.pk)


def live_state(submission: Submission, *, with_hidden_output: bool = False) -> dict[str, Any]:
    """The status as data, and as the same HTML the submission page shows, in the three parts the
    problem page's console shows in tabs of their own (the page script swaps them in)."""
    state = submission.to_json(with_hidden_output=with_hidden_output)
    return {**state, **rendered_parts(state)}


def rendered_parts(state: dict[str, Any]) -> dict[str, str]:
    """A submission's result, JAX insight and output as HTML (escaped by the templates)."""
    context = {"result": state}
    insight = render_to_string("submissions/_insight.html", context) if state["insight"].get("schema") else ""
    return {
        "html": render_to_string("submissions/_result.html", context),
        "insight_html": insight,
        "output_html": render_to_string("submissions/_output.html", context),
    }


@login_required
@require_GET
def detail(request: SignedInRequest, pk: int) -> HttpResponse:
    submission = own_submission(request, pk)
    result = submission.to_json(with_hidden_output=access.may_read_hidden_output(request.user))
    return render(request, "submissions/detail.html", {"submission": submission, "result": result})


@login_required
@require_POST
def save_draft(request: SignedInRequest, slug: str) -> HttpResponse:
    problem = get_object_or_404(Problem, slug=slug)
    code = request.POST.get("code", "")
    try:
        check_code_size(code)
    except Refused as refusal:
        return JsonResponse({"error": str(refusal)}, status=refusal.status)
    Draft.objects.update_or_create(user=request.user, problem=problem, defaults={"code": code})
    return HttpResponse(status=204)


@login_required
def solution(request: SignedInRequest, slug: str) -> HttpResponse:
    """The reference solution: shown after an accepted submission, or once the student reveals
    it, except while an assignment with the problem is open for them (``access.solution_access``)."""
    problem = get_object_or_404(Problem, slug=slug)
    progress = Progress.objects.filter(user=request.user, problem=problem).first() or Progress()
    gate = access.solution_access(request.user, problem, progress, timezone.now())
    # Opened from an assignment's problem page, the page stays in it: its links carry it, and
    # the editorial's next problem is the assignment's.
    assignment = opened_from(request, problem)
    query = f"?assignment={assignment.reference}" if assignment is not None else ""
    context: dict[str, Any] = {
        "problem": problem,
        "progress": progress,
        "gate": gate,
        "assignment": assignment,
        "query": query,
    }
    if request.method == "POST":
        if not gate.may_reveal:
            return render(request, "submissions/solution.html", context, status=403)
        progress, _ = Progress.objects.get_or_create(user=request.user, problem=problem)
        if progress.solution_viewed_at is None:
            progress.solution_viewed_at = timezone.now()
            progress.save(update_fields=["solution_viewed_at"])
        return redirect(reverse("submissions:solution", args=[slug]) + query)
    if gate.shown:
        context.update(editorial(request.user, problem, grading.reference_solution_text(slug), assignment))
    return render(request, "submissions/solution.html", context)


def editorial(user: Any, problem: Problem, reference: str, assignment: Assignment | None = None) -> dict[str, Any]:
    """The solution page after an attempt: why the reference works (its docstring: a summary, then
    a few sentences), the reference highlighted without that docstring, the student's accepted code
    beside it with what each compiled to, the mistakes the problem's known-wrong solutions show with
    the verdict each gets (never their code), and the problem after this one: in the assignment the
    page was opened from, else in the catalog."""
    explanation, known_wrong = grading.written_editorial(problem.slug)
    mistakes = [
        {
            "mistake": wrong.mistake,
            "label": wrong.verdict_label,
            # The colour of the verdict it gets; any of several is a rejection all the same.
            "verdict": min(wrong.verdicts).value if wrong.verdicts else "rejected",
        }
        for wrong in known_wrong
    ]
    accepted = Submission.latest_accepted(user, problem)
    insight = ((accepted.report or {}).get("insight") or {}) if accepted else {}
    return {
        "solution": reference,
        "solution_html": highlighted_python(grading.reference_code(reference)),
        "summary": explanation.summary.removeprefix("Reference solution:").strip(),
        "why": explanation.why,
        "mistakes": mistakes,
        "accepted": accepted,
        "accepted_html": highlighted_python(accepted.code) if accepted else "",
        "yours": insight.get("artifacts"),
        "theirs": insight.get("reference"),
        "next_problem": assignment.neighbours(problem)[1] if assignment is not None else problem.next_in_catalog(),
    }


@login_required
@require_GET
def progress(request: SignedInRequest) -> HttpResponse:
    standing = Progress.by_problem(request.user)
    rows = [(problem, standing.get(problem.pk)) for problem in Problem.objects.all()]
    solved = sum(1 for _, p in rows if p is not None and p.solved_at is not None)
    return render(request, "submissions/progress.html", {"rows": rows, "solved": solved, "total": len(rows)})
