from django.apps import AppConfig


class CoursesConfig(AppConfig):
    name = "webapp.courses"
    label = "courses"
    verbose_name = "courses"
