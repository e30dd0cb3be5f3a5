from django.urls import path

from webapp.submissions import views

app_name = "submissions"
urlpatterns = [
    path("problems/<slug:slug>/run/", views.run, name="run"),
    path("problems/<slug:slug>/submit/", views.submit, name="submit"),
    path("problems/<slug:slug>/draft/", views.save_draft, name="draft"),
    path("problems/<slug:slug>/solution/", views.solution, name="solution"),
    path("submissions/<int:pk>/", views.detail, name="detail"),
    path("submissions/<int:pk>/status/", views.status, name="status"),
    path("submissions/<int:pk>/cancel/", views.cancel, name="cancel"),
    path("progress/", views.progress, name="progress"),
]
