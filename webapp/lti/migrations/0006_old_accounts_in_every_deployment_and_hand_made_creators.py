"""What accounts from before issue 35's rules keep, now that an account may stand for several
deployments and records the platform courses it came through:

- each ``LtiUser`` with an account is that account's ``PlatformAccount`` in *every* deployment of
  its registration through which it is in a linked course (migration 0003 kept the first only,
  so a student of two deployments would have come back as a stranger in the second), with
  those linked courses as the platform courses it came through;
- an account counts as made staff by LTI only where it is staff through the instructors'
  group and nothing else (not a superuser): a later Learner launch takes back that alone;
- instructors made by hand (``manage.py instructor``, in the instructors' group and not from a
  platform) keep making courses: they join the creators' group, which now holds that right.
"""

from typing import Any

from django.db import migrations

TEACHING_GROUP = "Course instructors"
CREATORS_GROUP = "Course creators"


def forward(apps: Any, schema_editor: Any) -> None:
    LtiUser = apps.get_model("lti_tool", "LtiUser")
    CourseLink = apps.get_model("lti", "CourseLink")
    PlatformAccount = apps.get_model("lti", "PlatformAccount")
    Membership = apps.get_model("courses", "Membership")
    Group = apps.get_model("auth", "Group")
    User = apps.get_model("auth", "User")
    teaching = Group.objects.filter(name=TEACHING_GROUP).first()
    for lti_user in LtiUser.objects.exclude(auth_user=None).order_by("pk"):
        courses = Membership.objects.filter(user_id=lti_user.auth_user_id).values("course_id")
        links = CourseLink.objects.filter(
            course_id__in=courses, context__deployment__registration_id=lti_user.registration_id
        ).select_related("context")
        for link in links.order_by("pk"):
            deployment_id = link.context.deployment_id
            account = PlatformAccount.objects.filter(deployment_id=deployment_id, sub=lti_user.sub).first()
            if account is None:
                if PlatformAccount.objects.filter(deployment_id=deployment_id, user_id=lti_user.auth_user_id).exists():
                    continue  # the account has another sub in this deployment: that one stays
                account = PlatformAccount.objects.create(
                    deployment_id=deployment_id, sub=lti_user.sub, user_id=lti_user.auth_user_id
                )
            if account.user_id == lti_user.auth_user_id:
                account.contexts.add(link.context)
    for account in PlatformAccount.objects.select_related("user"):
        user = account.user
        in_teaching = teaching is not None and user.groups.filter(pk=teaching.pk).exists()
        account.gave_staff = bool(user.is_staff and not user.is_superuser and in_teaching)
        account.save(update_fields=["gave_staff"])
    if teaching is not None:
        creators, _ = Group.objects.get_or_create(name=CREATORS_GROUP)  # its rights are set after migrate
        from_platforms = PlatformAccount.objects.values("user_id")
        for user in User.objects.filter(groups=teaching).exclude(pk__in=from_platforms):
            user.groups.add(creators)


class Migration(migrations.Migration):
    dependencies = [
        ("lti", "0005_accounts_per_deployment_and_their_platform_courses"),
        ("courses", "0005_invitations"),
        ("auth", "0012_alter_user_first_name_max_length"),
    ]

    operations = [migrations.RunPython(forward, migrations.RunPython.noop)]
