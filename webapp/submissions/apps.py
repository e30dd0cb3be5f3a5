from django.apps import AppConfig


class SubmissionsConfig(AppConfig):
    name = "webapp.submissions"
    label = "submissions"
