"""``/healthz``: whether this web process can serve (it reaches the database), and how many
grading workers are alive per queue, for load balancers, compose health checks and operators."""

from __future__ import annotations

from django.db import DatabaseError
from django.db.models import Count
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from webapp.submissions.models import Worker


@never_cache
@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    try:
        alive = Worker.alive().values("queue").annotate(count=Count("id"))
        workers = {row["queue"]: row["count"] for row in alive}
    except DatabaseError:
        return JsonResponse({"status": "unavailable", "database": "unreachable"}, status=503)
    # No worker is not this process's failure: the site serves, and gradings wait in the queue.
    return JsonResponse({"status": "ok", "database": "ok", "workers": workers})
