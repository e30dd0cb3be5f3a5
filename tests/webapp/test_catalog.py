import pytest
from django.urls import reverse

from grader.problem import all_problems, load_problem
from webapp.catalog.markdown import render_markdown

pytestmark = pytest.mark.django_db


def test_the_list_shows_every_bundled_problem_with_difficulty_and_tags(client, catalog):
    page = client.get(reverse("catalog:list")).content.decode()
    for problem in all_problems():
        assert reverse("catalog:detail", args=[problem.slug]) in page
    assert 'class="hard"' in page and ">aot<" in page


def test_the_list_runs_from_easy_to_hard_then_by_title(client, catalog):
    problems = client.get(reverse("catalog:list")).context["problems"]
    rank = {"easy": 0, "medium": 1, "hard": 2}
    keys = [(rank[p.difficulty], p.title) for p in problems]
    assert keys == sorted(keys) and len(keys) == len(all_problems())


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
    assert "<details><summary>Hint 1</summary>" in page
    assert "Sign in</a> to attempt this problem and view the solution." in page
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
