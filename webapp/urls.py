from django.contrib import admin
from django.urls import include, path

from webapp.health import healthz
from webapp.workspace.urls import problem_urls, submission_urls

urlpatterns = [
    path("healthz", healthz, name="healthz"),
    path("admin/", admin.site.urls),
    path("accounts/", include("webapp.accounts.urls")),
    path("courses/", include("webapp.courses.urls")),
    path("lti/", include("webapp.lti.urls")),
    path("", include((submission_urls, "submissions"))),
    path("", include((problem_urls, "catalog"))),
]
