"""Run, Submit, live results, drafts, the solution gate and the progress page.

Every state change is a POST behind CSRF and sign-in; a student only ever sees their own
code and results (another student's submission is a 404, as if it did not exist).
"""

from __future__ import annotations

import ast
from typing import Any

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_GET, require_POST

from webapp import access, grading
from webapp.accounts.requests import SignedInRequest
from webapp.catalog.markdown import highlighted_python
from webapp.catalog.models import Problem
from webapp.submissions.models import Draft, Progress, Refused, Submission


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
        return JsonResponse(submission.live_progress(int(since)))
    return JsonResponse(live_state(submission, for_staff=access.may_read_hidden_output(request.user)))


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


def live_state(submission: Submission, *, for_staff: bool = False) -> dict[str, Any]:
    """The status as data, and as the same HTML the submission page shows, in the three parts the
    problem page's console shows in tabs of their own (the page script swaps them in)."""
    state = submission.to_json(for_staff=for_staff)
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
    result = submission.to_json(for_staff=access.may_read_hidden_output(request.user))
    return render(request, "submissions/detail.html", {"submission": submission, "result": result})


@login_required
@require_POST
def save_draft(request: SignedInRequest, slug: str) -> HttpResponse:
    problem = get_object_or_404(Problem, slug=slug)
    code = request.POST.get("code", "")
    if len(code.encode("utf-8", errors="replace")) > settings.MAX_CODE_BYTES:
        return JsonResponse({"error": f"Drafts are limited to {settings.MAX_CODE_BYTES} bytes."}, status=413)
    Draft.objects.update_or_create(user=request.user, problem=problem, defaults={"code": code})
    return HttpResponse(status=204)


@login_required
def solution(request: SignedInRequest, slug: str) -> HttpResponse:
    """The reference solution: shown after an accepted submission, or once the student reveals
    it, except while an assignment with the problem is open for them (``access.solution_access``)."""
    problem = get_object_or_404(Problem, slug=slug)
    progress = Progress.objects.filter(user=request.user, problem=problem).first() or Progress()
    gate = access.solution_access(request.user, problem, progress, timezone.now())
    context: dict[str, Any] = {"problem": problem, "progress": progress, "gate": gate}
    if request.method == "POST":
        if not gate.may_reveal:
            return render(request, "submissions/solution.html", context, status=403)
        progress, _ = Progress.objects.get_or_create(user=request.user, problem=problem)
        if progress.solution_viewed_at is None:
            progress.solution_viewed_at = timezone.now()
            progress.save(update_fields=["solution_viewed_at"])
        return redirect("submissions:solution", slug)
    if gate.shown:
        context.update(editorial(request.user, problem, grading.reference_solution_text(slug)))
    return render(request, "submissions/solution.html", context)


def editorial(user: Any, problem: Problem, reference: str) -> dict[str, Any]:
    """The solution page after an attempt: the reference highlighted, why it works (its
    docstring), the student's accepted code beside it with what each compiled to, and the
    problem after this one in the course."""
    try:
        why = ast.get_docstring(ast.parse(reference)) or ""
    except SyntaxError:
        why = ""
    accepted = (
        Submission.objects.filter(
            user=user, problem=problem, kind=Submission.Kind.SUBMIT, status=Submission.Status.GRADED, verdict="accepted"
        )
        .order_by("-created_at")
        .first()
    )
    insight = ((accepted.report or {}).get("insight") or {}) if accepted else {}
    ordered = list(Problem.objects.all())
    position = next((index for index, other in enumerate(ordered) if other.pk == problem.pk), len(ordered))
    return {
        "solution": reference,
        "solution_html": highlighted_python(reference),
        "why": why,
        "accepted": accepted,
        "accepted_html": highlighted_python(accepted.code) if accepted else "",
        "yours": insight.get("artifacts"),
        "theirs": insight.get("reference"),
        "next_problem": ordered[position + 1] if position + 1 < len(ordered) else None,
    }


@login_required
@require_GET
def progress(request: SignedInRequest) -> HttpResponse:
    standing = {p.problem_id: p for p in Progress.objects.filter(user=request.user)}
    rows = [(problem, standing.get(problem.pk)) for problem in Problem.objects.all()]
    solved = sum(1 for _, p in rows if p is not None and p.solved_at is not None)
    return render(request, "submissions/progress.html", {"rows": rows, "solved": solved, "total": len(rows)})
