"""The site's instructors: staff accounts in one group, whose admin shows only their own courses.

An instructor creates courses and assignments in the admin (``/admin/``) and becomes the
instructor of each course they create; the admin (``webapp/courses/admin.py``) shows and
changes only the courses they teach. ``manage.py instructor USERNAME`` makes an account one.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import Group, Permission, User

GROUP_NAME = "Course instructors"

# What the group may do, as (app label, codename). Problems are only read (to pick them);
# overrides and regrades are a log: made, never changed or deleted.
PERMISSIONS = (
    *(("courses", f"{action}_course") for action in ("add", "change", "view")),
    *(("courses", f"{action}_assignment") for action in ("add", "change", "view", "delete")),
    *(("courses", f"{action}_assignmentproblem") for action in ("add", "change", "view", "delete")),
    *(("courses", f"{action}_membership") for action in ("change", "view")),
    *(("courses", f"{action}_extension") for action in ("add", "change", "view", "delete")),
    ("courses", "add_override"),
    ("courses", "view_override"),
    ("courses", "view_regrade"),
    ("catalog", "view_problem"),
)


def instructors_group() -> Group:
    """The group, with exactly its permissions (made or brought up to date)."""
    group, _ = Group.objects.get_or_create(name=GROUP_NAME)
    wanted = [
        Permission.objects.get(content_type__app_label=app_label, codename=codename)
        for app_label, codename in PERMISSIONS
    ]
    group.permissions.set(wanted)
    return group


def make_instructor(user: User) -> None:
    """Let ``user`` into the admin, for their own courses only."""
    user.is_staff = True
    user.save(update_fields=["is_staff"])
    user.groups.add(instructors_group())


def keep_the_group_up_to_date(sender: Any, **kwargs: Any) -> None:
    """After ``migrate`` (which makes the permissions): the group as ``PERMISSIONS`` says."""
    if Permission.objects.filter(content_type__app_label="courses").exists():
        instructors_group()
