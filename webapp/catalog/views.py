from django.contrib.auth.decorators import login_required
from django.db.models import Q
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render

from grader.problem import DIFFICULTIES
from webapp import grading
from webapp.accounts.requests import SignedInRequest
from webapp.catalog.models import Problem
from webapp.submissions.models import Draft, Progress, workspace


def problem_list(request: HttpRequest) -> HttpResponse:
    problems = Problem.objects.all()
    query = request.GET.get("q", "").strip()
    if query:
        problems = problems.filter(Q(title__icontains=query) | Q(slug__icontains=query) | Q(category__icontains=query))
    difficulty = request.GET.get("difficulty", "")
    if difficulty in DIFFICULTIES:
        problems = problems.filter(difficulty=difficulty)
    tag = request.GET.get("tag", "").strip()
    if tag:
        problems = [p for p in problems if tag in p.tags]  # type: ignore[assignment]
    standing = {}
    if request.user.is_authenticated:
        standing = {p.problem_id: p for p in Progress.objects.filter(user=request.user)}
    rows = [(problem, standing.get(problem.pk)) for problem in problems]
    context = {"problems": problems, "rows": rows, "query": query, "difficulty": difficulty, "tag": tag}
    return render(request, "catalog/problem_list.html", context)


def problem_detail(request: HttpRequest, slug: str) -> HttpResponse:
    problem = get_object_or_404(Problem, slug=slug)
    context = {"problem": problem}
    if request.user.is_authenticated:
        context.update(workspace(request.user, problem))
    return render(request, "catalog/problem_detail.html", context)


@login_required
def problem_notebook(request: SignedInRequest, slug: str) -> HttpResponse:
    """The problem as a Jupyter notebook, with the student's draft in place of the starter.

    It says whose it is and which problem it solves, so staff can grade a folder of them
    with ``grader autograde`` without naming either.
    """
    problem = get_object_or_404(Problem, slug=slug)
    draft = Draft.objects.filter(user=request.user, problem=problem).first()
    notebook = grading.student_notebook(slug, student=request.user.username, code=draft.code if draft else None)
    response = HttpResponse(notebook, content_type="application/x-ipynb+json")
    response["Content-Disposition"] = f'attachment; filename="{slug}.ipynb"'
    return response
