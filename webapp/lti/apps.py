from django.apps import AppConfig


class LtiConfig(AppConfig):
    name = "webapp.lti"
    label = "lti"
    verbose_name = "LTI"

    def ready(self) -> None:
        # Scores reach the platforms when a Submit is graded or staff set points by hand.
        from webapp.lti import receivers

        receivers.connect()
