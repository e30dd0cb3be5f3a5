from django.urls import include, path

from webapp.accounts import views

urlpatterns = [
    path("signup/", views.signup, name="signup"),
    path("settings/", views.account, name="account"),
    path("", include("django.contrib.auth.urls")),
]
