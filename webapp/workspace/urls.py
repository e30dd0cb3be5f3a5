"""The student's pages, under the names of what they show: a problem's pages are
``catalog:NAME`` and a submission's ``submissions:NAME`` (``webapp/urls.py`` includes each list
under its namespace), though both lists' views live here, above the apps."""

from django.urls import path

from webapp.workspace import views

problem_urls = [
    path("", views.problem_list, name="list"),
    path("problems/<slug:slug>/", views.problem_detail, name="detail"),
    path("problems/<slug:slug>/notebook.ipynb", views.problem_notebook, name="notebook"),
]
submission_urls = [
    path("problems/<slug:slug>/run/", views.run, name="run"),
    path("problems/<slug:slug>/submit/", views.submit, name="submit"),
    path("problems/<slug:slug>/draft/", views.save_draft, name="draft"),
    path("problems/<slug:slug>/solution/", views.solution, name="solution"),
    path("submissions/<int:pk>/", views.detail, name="detail"),
    path("submissions/<int:pk>/status/", views.status, name="status"),
    path("submissions/<int:pk>/cancel/", views.cancel, name="cancel"),
    path("progress/", views.progress, name="progress"),
]
