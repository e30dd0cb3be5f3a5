"""The site's instructors: accounts let into the admin (``User.is_staff``) that see only the courses they teach.

Two groups, so that teaching and creating courses are given apart:

- the teaching group (``GROUP_NAME``): into the admin, to change the courses one teaches (their
  assignments, extensions, overrides); the admin (``webapp/courses/admin.py``) shows and
  changes only those (``Course.instructed_by``). An LTI Instructor launch gives it, for the
  linked course only (``webapp/lti/launches.py``), and a later launch in another role takes it
  back.
- the course creators' group (``CREATORS_GROUP_NAME``): adds new courses, site-wide; whoever
  creates a course becomes its instructor. Given by hand (``manage.py instructor USERNAME``
  gives both), or to an LTI platform's instructors where the site's administrator allows it on
  the platform's registration.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import Group, Permission, User

GROUP_NAME = "Course instructors"
CREATORS_GROUP_NAME = "Course creators"

# What teaching a course allows, as (app label, codename). Problems are only read (to pick
# them); overrides and regrades are a log: made, never changed or deleted.
PERMISSIONS = (
    *(("courses", f"{action}_course") for action in ("change", "view")),
    *(("courses", f"{action}_assignment") for action in ("add", "change", "view", "delete")),
    *(("courses", f"{action}_assignmentproblem") for action in ("add", "change", "view", "delete")),
    *(("courses", f"{action}_membership") for action in ("change", "view")),
    *(("courses", f"{action}_extension") for action in ("add", "change", "view", "delete")),
    ("courses", "add_override"),
    ("courses", "view_override"),
    ("courses", "view_regrade"),
    ("courses", "view_invitation"),
    ("courses", "view_rosterupload"),
    ("catalog", "view_problem"),
)
# What creating courses adds (the new course is then taught, by the teaching group's permissions).
CREATOR_PERMISSIONS = (("courses", "add_course"), ("courses", "view_course"))


def group_with(name: str, permissions: tuple[tuple[str, str], ...]) -> Group:
    """The group ``name``, with exactly ``permissions`` (made or brought up to date)."""
    group, _ = Group.objects.get_or_create(name=name)
    wanted = [
        Permission.objects.get(content_type__app_label=app_label, codename=codename)
        for app_label, codename in permissions
    ]
    group.permissions.set(wanted)
    return group


def instructors_group() -> Group:
    return group_with(GROUP_NAME, PERMISSIONS)


def creators_group() -> Group:
    return group_with(CREATORS_GROUP_NAME, CREATOR_PERMISSIONS)


def make_instructor(user: User) -> None:
    """Let ``user`` into the admin to create courses and run those they teach (by hand:
    ``manage.py instructor``)."""
    let_teach(user)
    let_create_courses(user)


def let_teach(user: User) -> None:
    """Let ``user`` into the admin, for the courses they teach only."""
    if not user.is_staff:
        user.is_staff = True
        user.save(update_fields=["is_staff"])
    user.groups.add(instructors_group())


def let_create_courses(user: User) -> None:
    user.groups.add(creators_group())


def may_create_courses(user: User) -> bool:
    return user.groups.filter(name=CREATORS_GROUP_NAME).exists()


def keep_the_group_up_to_date(sender: Any, **kwargs: Any) -> None:
    """After ``migrate`` (which makes the permissions): the groups as their permissions say."""
    if Permission.objects.filter(content_type__app_label="courses").exists():
        instructors_group()
        creators_group()
