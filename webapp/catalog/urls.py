from django.urls import path

from webapp.catalog import views

app_name = "catalog"
urlpatterns = [
    path("", views.problem_list, name="list"),
    path("problems/<slug:slug>/", views.problem_detail, name="detail"),
    path("problems/<slug:slug>/notebook.ipynb", views.problem_notebook, name="notebook"),
]
