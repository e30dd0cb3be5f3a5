"""The forms a course's instructors set it up with on the site: the course, an assignment and
its problems picked from the catalog, a student's extension and an override.

Each is a ModelForm: the model's own ``clean`` (a due time after the release, slugs that name a
page of the site, an override's reason and its ceiling) holds here as in the admin. Times are
typed in the reader's zone (``webapp.accounts.clock``'s middleware activates it for the
request), and each time field's label names that zone.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

from django import forms
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone
from django.utils.datastructures import MultiValueDict
from django.utils.text import slugify

from webapp.accounts.clock import active_zone_name
from webapp.catalog.models import COURSE, MORE, Problem
from webapp.courses.models import Assignment, AssignmentProblem, Course, Extension, Override


class LocalDateTimeInput(forms.DateTimeInput):
    """The browser's own date and time picker (``datetime-local``), to the minute; a time
    stored with seconds shows them (and lets them be typed), so saving the form again never
    moves it."""

    input_type = "datetime-local"

    def __init__(self, attrs: dict[str, Any] | None = None) -> None:
        super().__init__(attrs, format="%Y-%m-%dT%H:%M")

    def get_context(self, name: str, value: Any, attrs: dict[str, Any] | None) -> dict[str, Any]:
        context = super().get_context(name, value, attrs)
        if isinstance(value, datetime) and value.second:
            context["widget"]["attrs"]["step"] = "1"
            context["widget"]["value"] = value.strftime("%Y-%m-%dT%H:%M:%S")
        return context


def points_text(points: Decimal) -> str:
    """Points as people write them: 10, 5.5 (not 10.00, nor 1E+1)."""
    return f"{Decimal(points).normalize():f}"


def typed_in_reader_zone(field: forms.Field, label: str) -> None:
    """``field`` as a date and time picker whose label names the reader's zone."""
    field.widget = LocalDateTimeInput()
    field.label = f"{label} ({active_zone_name()})"


def slug_from_title(form: forms.ModelForm[Any], cleaned: dict[str, Any]) -> None:
    """An empty slug becomes the title's (the page's script suggests the same as one types)."""
    if not cleaned.get("slug") and cleaned.get("title"):
        cleaned["slug"] = slugify(cleaned["title"])[:50]
        if not cleaned["slug"]:
            form.add_error("slug", "The title has no letters or digits to make a slug of: type one.")


class CourseForm(forms.ModelForm[Course]):
    class Meta:
        model = Course
        fields = ("title", "slug", "description", "early_solutions")
        widgets = {  # noqa: RUF012 (Django reads it from the class)
            "early_solutions": forms.RadioSelect,
            "description": forms.Textarea(attrs={"rows": 3}),
        }
        help_texts = {  # noqa: RUF012
            "slug": "The course's address (a course jax-101 is at /courses/jax-101/): letters, digits and hyphens; "
            "left empty, made from the title.",
            "description": "Shown at the top of the course's page.",
        }
        error_messages = {"slug": {"unique": "Another course has this slug: choose another."}}  # noqa: RUF012

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["slug"].required = False
        self.fields["early_solutions"].label = "Reference solutions during an open assignment"

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        slug_from_title(self, cleaned)
        return cleaned


# -- an assignment and its problems ----------------------------------------------------------


@dataclass(frozen=True)
class PickerRow:
    """One problem of the catalog in the assignment's picker, as the form shows it."""

    problem: Problem
    picked: bool
    points: str
    position: str  # from 1, as people count; empty for a problem not picked


class AssignmentForm(forms.ModelForm[Assignment]):
    """An assignment of ``course``, with its problems: every problem of the catalog is a row
    (``problem`` checked to include it, ``points-<id>`` and ``position-<id>`` beside it); the
    picked ones are saved in the order of their positions (blanks after, in the catalog's
    order) as positions 0, 1, ..."""

    problems = forms.Field(required=False, label="Problems")  # read from the rows; errors shown here

    class Meta:
        model = Assignment
        fields = ("title", "slug", "release_at", "due_at", "late_policy", "penalty_percent_per_day", "grace_minutes")
        widgets = {"late_policy": forms.RadioSelect}  # noqa: RUF012
        labels = {  # noqa: RUF012
            "penalty_percent_per_day": "Penalty per day late (%)",
            "grace_minutes": "Grace period (minutes)",
        }
        help_texts = {  # noqa: RUF012
            "slug": "The assignment's address in the course: letters, digits and hyphens; left empty, made from the "
            "title.",
        }

    def __init__(self, *args: Any, course: Course, **kwargs: Any) -> None:
        kwargs.setdefault("instance", Assignment(course=course))
        super().__init__(*args, **kwargs)
        self.course = course
        self.fields["slug"].required = False
        typed_in_reader_zone(self.fields["release_at"], "Released")
        typed_in_reader_zone(self.fields["due_at"], "Due")
        self.fields["release_at"].help_text = "Students see the assignment from this time on."
        self.fields["due_at"].help_text = "Hand-ins after it (and after the grace period) are late."
        if self.instance.pk is None and not self.is_bound:
            # A week from now at 23:59, in the reader's zone: what most assignments are.
            now = timezone.localtime().replace(second=0, microsecond=0)
            self.initial.setdefault("release_at", now)
            self.initial.setdefault("due_at", (now + timedelta(days=7)).replace(hour=23, minute=59))
        self.catalog = list(Problem.objects.all())  # easy to hard, then by title
        self.chosen: list[tuple[Problem, Decimal]] = []

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        slug_from_title(self, cleaned)
        # The course is not a field of the form, so the model's check of (course, slug) is not run.
        if cleaned.get("slug") and self.course.assignments.filter(slug=cleaned["slug"]).exclude(pk=self.instance.pk):
            self.add_error("slug", "Another assignment of this course has this slug: choose another.")
        self.chosen = self.read_problems()
        if self.chosen:
            try:
                self.instance.check_problems(self.chosen)
            except ValidationError as refused:
                self.add_error("problems", refused)
        return cleaned

    def picked_ids(self) -> set[str]:
        return set(self.data.getlist("problem")) if isinstance(self.data, MultiValueDict) else set()

    def read_problems(self) -> list[tuple[Problem, Decimal]]:
        """The picked problems with their points, in their order; each bad value is an error
        naming its problem, and picking none is one too."""
        picked = self.picked_ids()
        position_field = forms.IntegerField(min_value=1, max_value=10_000, required=False)
        ordered = []
        for index, problem in enumerate(self.catalog):
            if str(problem.pk) not in picked:
                continue
            # The points as the model checks them (a number of at most 6 digits, not below 0).
            item = AssignmentProblem(problem=problem, points=self.data.get(f"points-{problem.pk}", "").strip())
            try:
                item.full_clean(exclude=["assignment"], validate_unique=False, validate_constraints=False)
                points = Decimal(item.points)
            except ValidationError as error:
                self.add_error("problems", f"{problem.slug}: points: {' '.join(error.messages)}")
                continue
            try:
                position = position_field.clean(self.data.get(f"position-{problem.pk}", ""))
            except ValidationError as error:
                self.add_error("problems", f"{problem.slug}: position: {' '.join(error.messages)}")
                continue
            ordered.append((position if position is not None else 10_001, index, problem, points))
        if not picked.intersection(str(problem.pk) for problem in self.catalog):
            self.add_error("problems", "Pick at least one problem.")
        return [(problem, points) for _, _, problem, points in sorted(ordered, key=lambda row: row[:2])]

    def picker(self) -> list[tuple[str, list[PickerRow]]]:
        """The catalog's problems by section, each as the form shows it: as typed when the
        form was sent, else as the assignment has them."""
        if self.is_bound:
            picked = self.picked_ids()
            rows = [
                PickerRow(
                    problem,
                    str(problem.pk) in picked,
                    self.data.get(f"points-{problem.pk}", ""),
                    self.data.get(f"position-{problem.pk}", ""),
                )
                for problem in self.catalog
            ]
        else:
            items = {item.problem_id: item for item in self.instance.items.all()} if self.instance.pk else {}
            default = str(AssignmentProblem._meta.get_field("points").get_default())
            rows = []
            for problem in self.catalog:
                item = items.get(problem.pk)
                points = points_text(item.points) if item is not None else default
                position = str(item.position + 1) if item is not None else ""
                rows.append(PickerRow(problem, item is not None, points, position))
        sections = [*(name for name, _ in COURSE), MORE]
        return [
            (name, members) for name in sections if (members := [row for row in rows if row.problem.section == name])
        ]

    def save_with_problems(self) -> Assignment:
        """Save the assignment and its problems together (``Assignment.set_problems``; an
        override made since the form was checked raises ``ValidationError``, and nothing is
        saved)."""
        new = self.instance.pk is None
        try:
            with transaction.atomic():
                assignment = self.save()
                assignment.set_problems(self.chosen)
        except ValidationError:
            if new:  # rolled back: the form shows a new assignment again
                self.instance.pk = None
                self.instance._state.adding = True
            raise
        return assignment


# -- a student's extension and override ----------------------------------------------------


class ExtensionForm(forms.ModelForm[Extension]):
    """A later due time for one student of one of the course's assignments, with a reason; it
    replaces the student's extension of that assignment, if they had one."""

    class Meta:
        model = Extension
        fields = ("assignment", "due_at", "reason")
        widgets = {"reason": forms.TextInput(attrs={"size": 60})}  # noqa: RUF012
        help_texts = {"reason": "Kept with the extension, with who granted it."}  # noqa: RUF012

    def __init__(self, *args: Any, course: Course, student: User, by: User, **kwargs: Any) -> None:
        kwargs.setdefault("instance", Extension(user=student, granted_by=by))
        super().__init__(*args, **kwargs)
        self.fields["assignment"].queryset = course.assignments.all()  # type: ignore[attr-defined]
        self.fields["assignment"].empty_label = None  # type: ignore[attr-defined]
        typed_in_reader_zone(self.fields["due_at"], "New due time")

    def save(self, commit: bool = True) -> Extension:
        extension, _ = Extension.objects.update_or_create(
            assignment=self.instance.assignment,
            user=self.instance.user,
            defaults={
                "due_at": self.instance.due_at,
                "reason": self.instance.reason,
                "granted_by": self.instance.granted_by,
            },
        )
        self.instance = extension
        return extension


class ProblemOfCourseField(forms.ModelChoiceField[AssignmentProblem]):
    def label_from_instance(self, obj: AssignmentProblem) -> str:
        problem, points = obj.problem, points_text(obj.points)
        return f"{obj.assignment.title}: {obj.position + 1}. {problem.title} ({problem.slug}, {points} points)"


class OverrideForm(forms.ModelForm[Override]):
    """Points for one student on one problem of one of the course's assignments, with a reason:
    a new override each time (the latest counts; none is ever changed)."""

    class Meta:
        model = Override
        fields = ("item", "points", "reason")
        field_classes = {"item": ProblemOfCourseField}  # noqa: RUF012
        labels = {"item": "Problem"}  # noqa: RUF012
        widgets = {"reason": forms.TextInput(attrs={"size": 60})}  # noqa: RUF012
        help_texts = {  # noqa: RUF012
            "points": "They replace what the student's hand-ins earned, late penalty included.",
            "reason": "The student reads it on the assignment's page.",
        }

    def __init__(self, *args: Any, course: Course, student: User, by: User, **kwargs: Any) -> None:
        kwargs.setdefault("instance", Override(user=student, created_by=by))
        super().__init__(*args, **kwargs)
        self.fields["item"].queryset = problems_of(course)  # type: ignore[attr-defined]
        self.fields["item"].empty_label = None  # type: ignore[attr-defined]


def problems_of(course: Course) -> QuerySet[AssignmentProblem]:
    """The problems of the course's assignments, assignment by assignment, in their order."""
    return (
        AssignmentProblem.objects.filter(assignment__course=course)
        .select_related("assignment", "problem")
        .order_by("assignment__due_at", "assignment__slug", "position", "id")
    )
