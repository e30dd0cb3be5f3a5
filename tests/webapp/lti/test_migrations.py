"""The LTI data migrations on accounts made under the old rules (one account per issuer and
``sub``, staff for any Instructor launch, one instructors' group that also made courses)."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

pytestmark = pytest.mark.django_db(transaction=True)


def migrate(targets: list[tuple[str, str]]) -> Any:
    executor = MigrationExecutor(connection)
    executor.migrate(targets)
    executor.loader.build_graph()
    return executor.loader.project_state(targets).apps


def test_old_accounts_keep_every_deployment_and_only_what_lti_gave_is_taken_back():
    leaves = MigrationExecutor(connection).loader.graph.leaf_nodes()
    # Every other app as it is now, and LTI as it was before these rules.
    old = migrate([node for node in leaves if node[0] != "lti"] + [("lti", "0001_initial")])
    try:
        User, Group = old.get_model("auth", "User"), old.get_model("auth", "Group")
        Course, Membership = old.get_model("courses", "Course"), old.get_model("courses", "Membership")
        Registration = old.get_model("lti_tool", "LtiRegistration")
        Deployment, Context = old.get_model("lti_tool", "LtiDeployment"), old.get_model("lti_tool", "LtiContext")
        LtiUser, CourseLink = old.get_model("lti_tool", "LtiUser"), old.get_model("lti", "CourseLink")
        teaching, _ = Group.objects.get_or_create(name="Course instructors")
        canvas = Registration.objects.create(
            name="Canvas",
            issuer="https://canvas.example",
            client_id="10000",
            auth_url="https://canvas.example/auth",
            token_url="https://canvas.example/token",
            keyset_url="https://canvas.example/jwks",
        )
        links = []
        for number in (1, 2):
            deployment = Deployment.objects.create(registration=canvas, deployment_id=f"d{number}", is_active=True)
            context = Context.objects.create(deployment=deployment, id_on_platform=f"course-{number}")
            course = Course.objects.create(slug=f"c{number}", title=f"C{number}")
            links.append(CourseLink.objects.create(context=context, course=course))
        # A student of both deployments' courses, and an instructor made staff by an old launch.
        student = User.objects.create(username="lti-student")
        LtiUser.objects.create(registration=canvas, sub="s-1", auth_user=student)
        teacher = User.objects.create(username="lti-teacher", is_staff=True)
        teacher.groups.add(teaching)
        LtiUser.objects.create(registration=canvas, sub="t-1", auth_user=teacher)
        for link in links:
            Membership.objects.create(course=link.course, user=student, role="student")
        Membership.objects.create(course=links[0].course, user=teacher, role="instructor")
        # An instructor made by hand, and a superuser who came by LTI too.
        by_hand = User.objects.create(username="grace", is_staff=True)
        by_hand.groups.add(teaching)
        root = User.objects.create(username="root", is_staff=True, is_superuser=True)
        root.groups.add(teaching)
        LtiUser.objects.create(registration=canvas, sub="r-1", auth_user=root)
        Membership.objects.create(course=links[1].course, user=root, role="instructor")

        new = migrate(leaves)
        PlatformAccount = new.get_model("lti", "PlatformAccount")
        NewGroup = new.get_model("auth", "Group")
        mine = PlatformAccount.objects.filter(user_id=student.pk).order_by("deployment__deployment_id")
        assert [(a.deployment.deployment_id, a.sub) for a in mine] == [("d1", "s-1"), ("d2", "s-1")]
        for account, link in zip(mine, links, strict=True):
            assert list(account.contexts.values_list("pk", flat=True)) == [link.context_id]
        assert PlatformAccount.objects.get(user_id=teacher.pk).gave_staff
        assert not PlatformAccount.objects.get(user_id=root.pk).gave_staff  # a superuser is staff by hand
        creators = NewGroup.objects.get(name="Course creators")
        assert list(creators.user_set.values_list("username", flat=True)) == ["grace"]
    finally:
        migrate(leaves)
