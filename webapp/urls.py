from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("accounts/", include("webapp.accounts.urls")),
    path("", include("webapp.submissions.urls")),
    path("", include("webapp.catalog.urls")),
]
