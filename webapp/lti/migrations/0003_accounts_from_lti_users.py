"""Accounts made before accounts were keyed on the deployment: each ``LtiUser`` with an account
becomes that account's ``PlatformAccount`` in every deployment of its registration through
which it is in a linked course, and each score record names it and keeps its texts."""

from typing import Any

from django.db import migrations


def forward(apps: Any, schema_editor: Any) -> None:
    LtiUser = apps.get_model("lti_tool", "LtiUser")
    CourseLink = apps.get_model("lti", "CourseLink")
    PlatformAccount = apps.get_model("lti", "PlatformAccount")
    ScorePublication = apps.get_model("lti", "ScorePublication")
    Membership = apps.get_model("courses", "Membership")
    for lti_user in LtiUser.objects.exclude(auth_user=None).order_by("pk"):
        courses = Membership.objects.filter(user_id=lti_user.auth_user_id).values("course_id")
        links = CourseLink.objects.filter(
            course_id__in=courses, context__deployment__registration_id=lti_user.registration_id
        ).select_related("context")
        for link in links.order_by("pk"):
            deployment_id = link.context.deployment_id
            taken = PlatformAccount.objects.filter(deployment_id=deployment_id, sub=lti_user.sub).exists()
            if taken or PlatformAccount.objects.filter(user_id=lti_user.auth_user_id).exists():
                continue  # one account per key, one key per account: the first one found keeps it
            PlatformAccount.objects.create(
                deployment_id=deployment_id,
                sub=lti_user.sub,
                user_id=lti_user.auth_user_id,
                # Made by LTI's old rule (staff for any Instructor launch): taken back by the new one.
                gave_staff=True,
            )
    for publication in ScorePublication.objects.select_related(
        "lti_user", "assignment_link__resource_link__context", "assignment_link__assignment"
    ):
        link = publication.assignment_link
        lti_user = publication.lti_user
        if link is None or lti_user is None:
            continue
        publication.platform_account = PlatformAccount.objects.filter(
            deployment_id=link.resource_link.context.deployment_id, user_id=lti_user.auth_user_id
        ).first()
        publication.line_item_url = link.line_item_url
        publication.assignment_title = link.assignment.title[:300]
        publication.platform_user = f"{lti_user.sub}"[:600]
        publication.save()


class Migration(migrations.Migration):
    dependencies = [("lti", "0002_platform_accounts_policy_and_lasting_score_records")]

    operations = [migrations.RunPython(forward, migrations.RunPython.noop)]
