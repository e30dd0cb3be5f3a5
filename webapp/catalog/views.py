from typing import Any

from django.contrib.auth.decorators import login_required
from django.db.models import Count, Q
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render

from webapp import access, grading
from webapp.accounts.requests import SignedInRequest
from webapp.catalog.models import COURSE, MORE, PROBLEM_ORDER, Problem
from webapp.submissions.models import Draft, Progress, workspace
from webapp.submissions.views import live_state, status_url

STATUSES = ("solved", "attempted", "not attempted")
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
    # Django leaves a model's default ordering out of aggregating queries: asked for again.
    problems = Problem.objects.annotate(
        solvers=Count("progress", filter=Q(progress__solved_at__isnull=False), distinct=True)
    ).order_by(*PROBLEM_ORDER)
    query = request.GET.get("q", "").strip()
    if query:
        problems = problems.filter(Q(title__icontains=query) | Q(slug__icontains=query) | Q(category__icontains=query))
    difficulty = request.GET.get("difficulty", "")
    if difficulty in grading.DIFFICULTIES:
        problems = problems.filter(difficulty=difficulty)
    everything = list(problems)
    tags = sorted({tag for problem in everything for tag in problem.tags})
    tag = request.GET.get("tag", "").strip()
    section = request.GET.get("section", "")
    status = request.GET.get("status", "")
    standing = {}
    if request.user.is_authenticated:
        standing = {p.problem_id: p for p in Progress.objects.filter(user=request.user)}

    def status_of(problem: Problem) -> str:
        progress = standing.get(problem.pk)
        return progress.status if progress is not None else "not attempted"

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
        solved = sum(status_of(problem) == "solved" for problem in whole)
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


def problem_detail(request: HttpRequest, slug: str) -> HttpResponse:
    problem = get_object_or_404(Problem, slug=slug)
    context: dict[str, Any] = {"problem": problem, "console_tabs": CONSOLE_TABS}
    if request.user.is_authenticated:
        context.update(workspace(request.user, problem))
        # The latest result is in the console when the page opens; one still being graded is
        # followed from there, as if the student had just pressed the button.
        if context["history"]:
            latest = context["history"][0]
            state = live_state(latest, for_staff=access.may_read_hidden_output(request.user))
            context["latest"] = {**state, "status_url": status_url(latest)}
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
