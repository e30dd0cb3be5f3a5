from django.contrib import admin
from django.urls import include, path

from webapp.courses.setup import SignIn
from webapp.health import healthz
from webapp.workspace.urls import problem_urls, submission_urls

urlpatterns = [
    path("healthz", healthz, name="healthz"),
    path("admin/", admin.site.urls),
    # Django's sign-in, but an instructor without a course lands where it creates its first.
    path("accounts/login/", SignIn.as_view(), name="login"),
    path("accounts/", include("webapp.accounts.urls")),
    path("courses/", include("webapp.courses.urls")),
    path("lti/", include("webapp.lti.urls")),
    path("", include((submission_urls, "submissions"))),
    path("", include((problem_urls, "catalog"))),
]
