import pytest
from django.urls import reverse

from grader.problem import all_problems, load_problem
from webapp.catalog.markdown import render_markdown

pytestmark = pytest.mark.django_db


def test_the_list_shows_every_bundled_problem_with_difficulty_and_tags(client, catalog):
    page = client.get(reverse("catalog:list")).content.decode()
    for problem in all_problems():
        assert reverse("catalog:detail", args=[problem.slug]) in page
    assert 'class="medium"' in page and ">aot<" in page


def test_the_list_is_a_course_in_the_pipelines_order_each_section_from_easy_to_hard(client, catalog):
    groups = client.get(reverse("catalog:list")).context["groups"]
    names = [group["name"] for group in groups]
    assert names == [
        "Tracing",
        "Jaxprs",
        "Caching and recompilation",
        "Lowering and compiling",
        "Control flow",
        "Transformations",
        "Export",
        "Parallelism",
    ]
    rank = {"easy": 0, "medium": 1, "hard": 2}
    for group in groups:
        keys = [(rank[problem.difficulty], problem.title) for problem, _, _ in group["rows"]]
        assert keys == sorted(keys), group["name"]
    assert sum(len(group["rows"]) for group in groups) == len(all_problems())
    by_section = {group["name"]: {p.slug for p, _, _ in group["rows"]} for group in groups}
    assert {"aot_compiled_sum", "compile_for"} <= by_section["Lowering and compiling"]
    assert "static_power" in by_section["Caching and recompilation"]


def test_each_section_shows_the_students_progress_and_each_problem_its_solvers(client, catalog, student):
    from django.contrib.auth.models import User
    from django.utils import timezone

    from webapp.catalog.models import Problem
    from webapp.submissions.models import Progress

    other = User.objects.create_user("grace", password="a-long-password-2")
    now = timezone.now()
    for user in (student, other):
        Progress.objects.create(
            user=user, problem=Problem.objects.get(slug="static_power"), attempted_at=now, solved_at=now
        )
    Progress.objects.create(user=student, problem=Problem.objects.get(slug="jit_once"), attempted_at=now)
    client.force_login(student)

    response = client.get(reverse("catalog:list"))
    caching = next(group for group in response.context["groups"] if group["name"] == "Caching and recompilation")
    # count_traces, explain_cache_miss, jit_once, persistent_cache, predict_retraces, stale_global
    # and static_power
    assert (caching["solved"], caching["total"]) == (1, 7)
    states = {problem.slug: (state, problem.solvers) for problem, _, state in caching["rows"]}
    assert states["static_power"] == ("solved", 2)
    assert states["jit_once"] == ("attempted", 0)
    assert states["count_traces"] == ("not attempted", 0)
    assert 'aria-valuenow="1"' in response.content.decode()

    def slugs(**query):
        return {p.slug for p in client.get(reverse("catalog:list"), query).context["problems"]}

    assert slugs(status="solved") == {"static_power"}
    assert slugs(status="attempted") == {"jit_once"}
    assert slugs(section="Export") == {"export_constrained", "export_poly_sum", "export_roundtrip"}


def test_the_list_filters_by_search_difficulty_and_tag(client, catalog):
    def slugs(**query):
        return {p.slug for p in client.get(reverse("catalog:list"), query).context["problems"]}

    problems = all_problems()
    assert slugs(q="primitives of a jaxpr") == {"jaxpr_primitives"}  # a title
    assert slugs(q="compile_for") == {"compile_for"}  # a slug
    assert slugs(difficulty="medium") == {p.slug for p in problems if p.difficulty == "medium"}
    assert slugs(tag="aot") == {p.slug for p in problems if "aot" in p.tags} >= {"aot_compiled_sum", "compile_for"}


def test_anonymous_visitors_read_the_statement_and_are_asked_to_sign_in(client, catalog):
    page = client.get(reverse("catalog:detail", args=["aot_compiled_sum"])).content.decode()
    assert "Why this matters" in page and "Worked mini-example" in page and "Common pitfalls" in page
    assert '<details class="hint"><summary>Hint 1 of ' in page
    assert ">Sign up</a>" in page and "sign in</a> to attempt this problem and view the solution" in page
    assert "<textarea" not in page


def test_signed_in_students_get_the_starter_code_and_never_hidden_tests(client, catalog, student):
    client.force_login(student)
    page = client.get(reverse("catalog:detail", args=["aot_compiled_sum"])).content.decode()
    assert "def aot_compiled_sum(x):" in page
    assert "test_compiles_for_a_length_it_has_never_seen" not in page
    reference = load_problem("aot_compiled_sum").reference_solution.read_text()
    assert "compiled = jax.jit(jnp.sum).lower(x).compile()" in reference
    assert "compiled = jax.jit(jnp.sum).lower(x).compile()" not in page


def test_code_is_highlighted_and_markup_is_sanitised():
    html = render_markdown("```python\nx = 1\n```\n\n<script>alert(1)</script> <img src=x onerror=alert(1)>")
    assert 'class="highlight"' in html
    assert "<script" not in html and "onerror" not in html


def test_math_becomes_mathml_and_prices_stay_prose():
    html = render_markdown("The mean $\\frac{1}{n}\\sum_i x_i$ costs $5 or $6.\n\n$$x^2$$")
    assert '<math xmlns="http://www.w3.org/1998/Math/MathML" display="inline">' in html and "<mfrac>" in html
    assert 'display="block"' in html and "<msup>" in html
    assert "costs $5 or $6." in html


def test_broken_or_hostile_math_is_shown_as_text():
    assert "<code>\\frac{</code>" in render_markdown("bad $\\frac{$ end")
    html = render_markdown("$<img src=x onerror=alert(1)>$")
    assert "<img" not in html and "&lt;" in html  # the tag became the text of the formula


def test_an_unknown_problem_is_404(client):
    assert client.get(reverse("catalog:detail", args=["nope"])).status_code == 404


@pytest.mark.parametrize("problem", all_problems(), ids=lambda problem: problem.slug)
def test_each_statement_shows_its_contract_as_three_blocks(problem):
    # Separate lines of one paragraph would render as one run-on block: each part of the
    # contract must be an item of its own, in this order.
    html = render_markdown(problem.statement)
    items = [
        item
        for item in (item.removeprefix("\n<p>") for item in html.split("<li>")[1:])  # a loose list wraps items in <p>
        if item.startswith(("<strong>Input:</strong>", "<strong>Returns:</strong>", "<strong>Checked:</strong>"))
    ]
    assert [item.split("</strong>")[0] for item in items] == ["<strong>Input:", "<strong>Returns:", "<strong>Checked:"]


def test_a_problem_says_what_it_teaches_how_long_it_takes_and_what_comes_first(client, catalog):
    page = client.get(reverse("catalog:detail", args=["compile_for"])).content.decode()
    assert "about 10 minutes" in page
    assert "<strong>You will learn:</strong> Build an executable for one signature" in page
    assert "<strong>Before this one:</strong>" in page and reverse("catalog:detail", args=["aot_compiled_sum"]) in page
    listing = client.get(reverse("catalog:list")).content.decode()
    assert "Build an executable for one signature and see that it refuses every other" in listing
    assert "10 min" in listing
