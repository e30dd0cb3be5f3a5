from __future__ import annotations

from typing import TYPE_CHECKING

from django.db import models

from webapp.catalog.markdown import highlighted_python, render_markdown
from webapp.grading import DEVICES, DIFFICULTIES, SECTIONS

if TYPE_CHECKING:
    from webapp.grading import Problem as NotebookProblem


# The catalog as a course: the grader's sections in teaching order, each gathering the notebook
# category it is named after. A category not among them goes to the last section.
COURSE: tuple[tuple[str, tuple[str, ...]], ...] = tuple((name, (category,)) for category, name in SECTIONS)
MORE = "More"


def section_of(category: str) -> str:
    return next((section for section, categories in COURSE if category in categories), MORE)


# Easy, then medium, then hard (not alphabetical), then by title.
PROBLEM_ORDER = (
    models.Case(
        *(models.When(difficulty=difficulty, then=rank) for rank, difficulty in enumerate(DIFFICULTIES)),
        output_field=models.IntegerField(),
    ),
    "title",
)


class ProblemQuerySet(models.QuerySet["Problem"]):
    def matching(self, query: str = "", difficulty: str = "") -> ProblemQuerySet:
        """The problems whose title, slug or category has ``query`` in it, of ``difficulty`` (a
        difficulty that is not one of the vocabulary's is no filter)."""
        found = self
        if query:
            found = found.filter(
                models.Q(title__icontains=query) | models.Q(slug__icontains=query) | models.Q(category__icontains=query)
            )
        return found.filter(difficulty=difficulty) if difficulty in DIFFICULTIES else found

    def with_solver_counts(self) -> ProblemQuerySet:
        """Each problem with ``solvers``: how many students solved it; in the catalog's order
        (Django leaves a model's default ordering out of aggregating queries)."""
        solved = models.Q(progress__solved_at__isnull=False)
        return self.annotate(solvers=models.Count("progress", filter=solved, distinct=True)).order_by(*PROBLEM_ORDER)


class Problem(models.Model):
    """A problem of the catalog, as installed from its notebook (the notebook stays the source)."""

    slug = models.SlugField(unique=True)
    title = models.CharField(max_length=200)
    # The vocabularies are the notebook format's, defined once by the grader.
    difficulty = models.CharField(max_length=10, choices=[(d, d) for d in DIFFICULTIES])
    category = models.CharField(max_length=100)
    tags = models.JSONField(default=list)
    statement_html = models.TextField()
    hints_html = models.JSONField(default=list)
    starter = models.TextField()
    visible_tests = models.TextField(blank=True)
    device = models.CharField(max_length=10, choices=[(d, d) for d in DEVICES], default="cpu")
    objective = models.TextField(blank=True)  # what the problem teaches, one sentence
    prerequisites = models.JSONField(default=list)  # slugs of the problems to do first
    minutes = models.PositiveIntegerField(default=0)  # the estimated time it takes
    time_limit_s = models.FloatField(default=60.0)  # a grading's sandbox stops after this (the page shows it)
    updated_at = models.DateTimeField(auto_now=True)

    objects = ProblemQuerySet.as_manager()

    class Meta:
        ordering = PROBLEM_ORDER

    def __str__(self) -> str:
        return self.slug

    def prerequisite_problems(self) -> list[Problem]:
        """The installed problems to do first, in the order the notebook names them."""
        found = {problem.slug: problem for problem in Problem.objects.filter(slug__in=self.prerequisites)}
        return [found[slug] for slug in self.prerequisites if slug in found]

    @property
    def visible_tests_html(self) -> str:
        """The visible tests, highlighted: what Run checks, shown in the console's Testcases tab."""
        return highlighted_python(self.visible_tests) if self.visible_tests else ""

    def next_in_catalog(self) -> Problem | None:
        """The problem after this one in the catalog's order (what a solution page leads to)."""
        ordered = list(Problem.objects.all())
        position = next((index for index, other in enumerate(ordered) if other.pk == self.pk), len(ordered))
        return ordered[position + 1] if position + 1 < len(ordered) else None

    @property
    def section(self) -> str:
        """The course section this problem belongs to (see ``COURSE``)."""
        return section_of(self.category)

    @classmethod
    def install(cls, source: NotebookProblem) -> Problem:
        """Create or update the catalog entry of a loaded notebook. No hidden test is stored."""
        problem, _ = cls.objects.update_or_create(
            slug=source.slug,
            defaults={
                "title": source.title,
                "difficulty": source.difficulty,
                "category": source.category,
                "tags": list(source.tags),
                "statement_html": render_markdown(source.statement),
                "hints_html": [render_markdown(hint) for hint in source.hints],
                "starter": source.starter,
                "visible_tests": source.visible_tests,
                "device": source.device,
                "objective": source.objective,
                "prerequisites": list(source.prerequisites),
                "minutes": source.minutes,
                "time_limit_s": source.time_limit_s,
            },
        )
        return problem
