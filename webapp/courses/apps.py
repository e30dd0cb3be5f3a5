from django.apps import AppConfig
from django.db.models.signals import post_migrate


class CoursesConfig(AppConfig):
    name = "webapp.courses"
    label = "courses"
    verbose_name = "courses"

    def ready(self) -> None:
        from webapp.courses.instructors import keep_the_group_up_to_date

        post_migrate.connect(keep_the_group_up_to_date, sender=self)
