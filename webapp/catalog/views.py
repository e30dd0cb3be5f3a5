from django.db.models import Q
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render

from webapp.catalog.models import Problem


def problem_list(request: HttpRequest) -> HttpResponse:
    problems = Problem.objects.all()
    query = request.GET.get("q", "").strip()
    if query:
        problems = problems.filter(Q(title__icontains=query) | Q(slug__icontains=query) | Q(category__icontains=query))
    difficulty = request.GET.get("difficulty", "")
    if difficulty in Problem.Difficulty.values:
        problems = problems.filter(difficulty=difficulty)
    tag = request.GET.get("tag", "").strip()
    if tag:
        problems = [p for p in problems if tag in p.tags]  # type: ignore[assignment]
    context = {"problems": problems, "query": query, "difficulty": difficulty, "tag": tag}
    return render(request, "catalog/problem_list.html", context)


def problem_detail(request: HttpRequest, slug: str) -> HttpResponse:
    problem = get_object_or_404(Problem, slug=slug)
    return render(request, "catalog/problem_detail.html", {"problem": problem})
