"""``manage.py addproblem`` validates for real (in the sandbox) before it installs anything."""

import pytest
from django.core.management import CommandError, call_command

from tests.conftest import write_problem
from webapp.catalog.models import Problem

pytestmark = pytest.mark.django_db

HIDDEN = "def test_answer(submission, reference):\n    assert submission.answer() == reference.answer()\n"


@pytest.fixture
def authoring(tmp_path):
    """A problem written by an instructor outside the installed folders."""
    write_problem(tmp_path / "draft", "forty_two", hidden_tests=HIDDEN, reference="def answer():\n    return 42\n")
    (tmp_path / "wrong.py").write_text("def answer():\n    return 41\n")
    return tmp_path


@pytest.mark.slow
def test_a_valid_problem_is_installed(problem_root, authoring):
    draft = authoring / "draft"
    call_command(
        "addproblem",
        str(draft / "problems" / "forty_two.ipynb"),
        "--solution", str(draft / "solutions" / "forty_two" / "reference.py"),
        "--wrong", str(authoring / "wrong.py"),
    )  # fmt: skip
    assert (problem_root / "problems" / "forty_two.ipynb").is_file()
    assert (problem_root / "solutions" / "forty_two" / "reference.py").read_text().strip().endswith("return 42")
    assert [p.name for p in (problem_root / "solutions" / "forty_two").glob("wrong_*")] == ["wrong_0_wrong.py"]
    assert Problem.objects.get(slug="forty_two").title == "Test problem forty_two"


@pytest.mark.slow
def test_a_reference_that_fails_is_refused_and_nothing_is_installed(problem_root, authoring):
    draft = authoring / "draft"
    with pytest.raises(CommandError, match="forty_two did not validate"):
        call_command(
            "addproblem", str(draft / "problems" / "forty_two.ipynb"), "--solution", str(authoring / "wrong.py")
        )
    assert not (problem_root / "problems" / "forty_two.ipynb").exists()
    assert not Problem.objects.filter(slug="forty_two").exists()


@pytest.mark.slow
def test_reinstalling_needs_update(problem_root, authoring):
    notebook = authoring / "draft" / "problems" / "forty_two.ipynb"
    reference = authoring / "draft" / "solutions" / "forty_two" / "reference.py"
    call_command("addproblem", str(notebook), "--solution", str(reference), "--wrong", str(authoring / "wrong.py"))
    with pytest.raises(CommandError, match="already installed; use --update"):
        call_command("addproblem", str(notebook), "--solution", str(reference))
    call_command("addproblem", str(notebook), "--update")  # the installed reference and wrong solutions are kept


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["missing.ipynb"], "missing.ipynb: no such file"),
        (["{draft}/problems/forty_two.ipynb"], "a reference solution is needed"),
    ],
)
def test_bad_arguments_are_refused_clearly(problem_root, authoring, arguments, message):
    with pytest.raises(CommandError, match=message):
        call_command("addproblem", *[a.format(draft=authoring / "draft") for a in arguments])
