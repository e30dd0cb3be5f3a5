from django.urls import path

from webapp.lti import views

app_name = "lti"
urlpatterns = [
    path("login/", views.login, name="login"),
    path("login/<uuid:registration_uuid>/", views.login, name="login_for_registration"),
    path("launch/", views.launch, name="launch"),
    path("jwks/", views.jwks, name="jwks"),
    path("deep-link/", views.deep_link, name="deep_link"),
]
