"""Instructors in the admin: made with ``manage.py instructor``, they create courses and see
only the courses they teach, and only those courses' students."""

from __future__ import annotations

import io

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command

from tests.webapp.support.people import enrol, member
from webapp.courses.models import (
    Assignment,
    Course,
)

pytestmark = pytest.mark.django_db


def test_an_instructor_creates_a_course_in_the_admin_and_sees_only_the_courses_they_teach(
    client, assignment, other_course, outsider
):
    grace = User.objects.create_user("grace", password="a-long-password-1")
    call_command("instructor", "grace", stdout=io.StringIO())
    grace.refresh_from_db()
    assert grace.is_staff and not grace.is_superuser
    client.force_login(grace)
    made = client.post(
        "/admin/courses/course/add/", {"title": "JAX 301", "slug": "jax-301", "early_solutions": "hidden", **NO_MEMBERS}
    )
    assert made.status_code == 302, made.content.decode()[:3000]
    mine = Course.objects.get(slug="jax-301")
    assert mine.is_instructor(grace)
    listing = client.get("/admin/courses/course/").content.decode()
    assert "JAX 301" in listing and "JAX 101" not in listing and "JAX 201" not in listing
    theirs = assignment.course
    assert client.get(f"/admin/courses/course/{theirs.pk}/change/").status_code in (302, 404)
    assert client.get(f"/admin/courses/assignment/{assignment.pk}/change/").status_code in (302, 404)
    form = client.get("/admin/courses/assignment/add/").content.decode()
    course_choice = form[form.index('name="course"') : form.index("</select>", form.index('name="course"'))]
    assert f'<option value="{mine.pk}">' in course_choice and f'<option value="{theirs.pk}">' not in course_choice
    refused = client.post(
        "/admin/courses/assignment/add/",
        {
            "course": theirs.pk,
            "slug": "sneaky",
            "title": "Sneaky",
            "release_at_0": "2026-09-01",
            "release_at_1": "09:00:00",
            "due_at_0": "2026-09-08",
            "due_at_1": "09:00:00",
            "late_policy": "none",
            "penalty_percent_per_day": "10",
            **NO_PROBLEMS,
        },
    )
    assert refused.status_code == 200 and not Assignment.objects.filter(slug="sneaky").exists()
    # Extensions and overrides name students of their own courses only.
    ada = enrol(mine, "ada")
    member(theirs, outsider)
    extension_form = client.get("/admin/courses/extension/add/").content.decode()
    assert f'<option value="{ada.pk}">ada</option>' in extension_form and ">eve<" not in extension_form
    assert client.get("/admin/auth/user/").status_code == 403  # no browsing the site's accounts


def test_manage_py_instructor_names_an_unknown_account():
    with pytest.raises(CommandError, match="no account 'nobody'"):
        call_command("instructor", "nobody")


NO_MEMBERS = {
    "memberships-TOTAL_FORMS": "0",
    "memberships-INITIAL_FORMS": "0",
    "memberships-MIN_NUM_FORMS": "0",
    "memberships-MAX_NUM_FORMS": "1000",
}


NO_PROBLEMS = {
    "items-TOTAL_FORMS": "0",
    "items-INITIAL_FORMS": "0",
    "items-MIN_NUM_FORMS": "0",
    "items-MAX_NUM_FORMS": "1000",
}
