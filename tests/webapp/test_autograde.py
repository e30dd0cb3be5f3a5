"""The site's gradebook: notebooks downloaded from a problem's page, graded by staff with
``manage.py autograde``, recorded as the students' Submits, exported with ``manage.py gradebook``
and shown in the admin. Grading here is real: bwrap sandboxes, each notebook run under nbclient."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import nbformat
import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from django.test import Client
from django.urls import reverse

from grader.problem import load_problem, solutions_dir
from webapp.catalog.models import Problem
from webapp.submissions.models import Draft, Progress, Submission

pytestmark = pytest.mark.django_db(transaction=True)

SLUG = "aot_compiled_sum"
REFERENCE = (solutions_dir() / SLUG / "reference.py").read_text()
# Wrong, and with a magic: graded as a plain .py file it would be a syntax error instead.
WRONG = "%time import jax\n" + (solutions_dir() / SLUG / "wrong_value.py").read_text()


def download(client: Client, slug: str = SLUG) -> str:
    response = client.get(reverse("catalog:notebook", args=[slug]))
    assert response.status_code == 200, response.status_code
    assert response["Content-Disposition"] == f'attachment; filename="{slug}.ipynb"'
    return response.content.decode()


def signed_in(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def accounts(catalog: None, django_user_model: type[User]) -> dict[str, User]:
    names = ("ada", "ben", "cy")  # cy never hands anything in
    users = {
        name: django_user_model.objects.create_user(name, f"{name}@example.org", "a-long-password-1") for name in names
    }
    django_user_model.objects.create_superuser("staff", "staff@example.org", "a-long-password-1")
    return users


@pytest.fixture
def handed_in(accounts: dict[str, User], tmp_path: Path) -> Path:
    """What the students downloaded from the site and worked on, in one folder, under names
    that say nothing of whose it is (as a learning platform's export names them)."""
    problem = Problem.objects.get(slug=SLUG)
    folder = tmp_path / "submissions"
    folder.mkdir()
    for number, (name, code) in enumerate((("ada", REFERENCE), ("ben", WRONG))):
        Draft.objects.create(user=accounts[name], problem=problem, code=code)
        (folder / f"download-{number}.ipynb").write_text(download(signed_in(accounts[name])))
    # A notebook of someone with no account here.
    stranger = nbformat.reads(download(signed_in(accounts["ada"])), as_version=4)
    stranger.metadata["grader"]["student"] = "zed"
    nbformat.write(stranger, folder / "download-2.ipynb")
    return folder


def test_the_downloaded_notebook_is_the_student_view_with_the_draft_and_whose_it_is(accounts):
    problem = load_problem(SLUG)
    ada = accounts["ada"]
    Draft.objects.create(user=ada, problem=Problem.objects.get(slug=SLUG), code="# ada's draft\n")
    notebook = nbformat.reads(download(signed_in(ada)), as_version=4)
    nbformat.validate(notebook)
    assert notebook.metadata["grader"]["student"] == "ada"
    assert notebook.metadata["grader"]["slug"] == SLUG
    starters = [cell for cell in notebook.cells if "starter" in cell.metadata.get("tags", [])]
    assert [cell.source for cell in starters] == ["# ada's draft\n"]
    text = nbformat.writes(notebook)
    assert "hidden-tests" not in text
    hidden_lines = [line for line in problem.hidden_tests.splitlines() if line.strip().startswith("def test_")]
    assert hidden_lines and not any(line.strip() in text for line in hidden_lines)
    # Without a draft the starter is there, and another student's notebook says their name.
    ben_view = nbformat.reads(download(signed_in(accounts["ben"])), as_version=4)
    assert ben_view.metadata["grader"]["student"] == "ben"
    assert [c.source for c in ben_view.cells if "starter" in c.metadata.get("tags", [])] == [problem.starter]


def test_downloading_needs_a_sign_in_and_a_real_problem(accounts):
    anonymous = Client().get(reverse("catalog:notebook", args=[SLUG]))
    assert anonymous.status_code == 302 and reverse("login") in anonymous["Location"]
    assert signed_in(accounts["ada"]).get(reverse("catalog:notebook", args=["no_such_problem"])).status_code == 404
    page = signed_in(accounts["ada"]).get(reverse("catalog:detail", args=[SLUG])).content.decode()
    assert reverse("catalog:notebook", args=[SLUG]) in page


def test_autograde_records_each_named_student_and_lists_the_unknown(accounts, handed_in, tmp_path, sandboxes):
    out, err = io.StringIO(), io.StringIO()
    call_command(
        "autograde", str(handed_in), problem=SLUG, jobs=2, student_from="metadata", out=tmp_path / "out",
        stdout=out, stderr=err,
    )  # fmt: skip
    assert "recorded 2 submission(s) of aot_compiled_sum" in out.getvalue()
    assert "no account with that username (1): zed" in err.getvalue()
    assert not User.objects.filter(username="zed").exists()

    ada = Submission.objects.get(user=accounts["ada"])
    assert (ada.kind, ada.origin, ada.status, ada.verdict) == ("submit", "autograde", "graded", "accepted")
    assert ada.score == ada.max_score == load_problem(SLUG).points
    assert json.loads(ada.notebook)["metadata"]["grader"]["student"] == "ada"
    assert Progress.objects.get(user=accounts["ada"]).state == "solved"

    ben = Submission.objects.get(user=accounts["ben"])
    assert (ben.origin, ben.verdict) == ("autograde", "wrong_answer")
    assert ben.score is not None and ben.max_score is not None and ben.score < ben.max_score
    assert Progress.objects.get(user=accounts["ben"]).state == "attempted"
    assert (tmp_path / "out" / "junit.xml").is_file()  # --out writes what `grader autograde` writes

    # Regraded, a notebook is run as a notebook again (as a .py file its magic would not parse).
    ben.enqueue()
    ben.refresh_from_db()
    assert Submission.grade_attempt(ben.pk, ben.attempt) == "wrong_answer"
    ben.refresh_from_db()

    # The gradebook: every student, the best Submit score per problem, empty where none.
    path = tmp_path / "gradebook.csv"
    call_command("gradebook", "--csv", str(path), stdout=io.StringIO())
    with path.open(newline="") as handle:
        rows = {row["student"]: row for row in csv.DictReader(handle)}
    assert set(rows) == {"ada", "ben", "cy"}  # staff are not students
    assert float(rows["ada"][SLUG]) == ada.max_score and float(rows["ada"]["total"]) == ada.max_score
    assert float(rows["ben"][SLUG]) == ben.score
    assert rows["cy"][SLUG] == "" and rows["cy"]["total"] == "0"
    assert rows["ada"]["email"] == "ada@example.org"

    # Staff see the same table in the admin, and can download it there.
    staff = signed_in(User.objects.get(username="staff"))
    page = staff.get(reverse("admin:submissions_gradebookstudent_changelist"))
    assert page.status_code == 200
    html = page.content.decode()
    assert 'id="gradebook"' in html and ">ada<" in html and SLUG in html
    download_csv = staff.get(reverse("admin:submissions_gradebookstudent_changelist") + "?format=csv")
    assert download_csv["Content-Type"].startswith("text/csv")
    downloaded = {row["student"]: row for row in csv.DictReader(io.StringIO(download_csv.content.decode()))}
    assert downloaded == rows


def test_a_student_cannot_see_the_admin_gradebook(accounts):
    response = signed_in(accounts["ada"]).get(reverse("admin:submissions_gradebookstudent_changelist"))
    assert response.status_code == 302 and "/admin/login/" in response["Location"]


def test_autograde_and_gradebook_refuse_what_they_cannot_do(catalog, tmp_path):
    with pytest.raises(CommandError, match="no problem 'nope' in the catalog"):
        call_command("autograde", str(tmp_path), problem="nope")
    with pytest.raises(CommandError, match="no notebooks found"):
        call_command("autograde", str(tmp_path), problem=SLUG)
    with pytest.raises(CommandError, match="no problem 'nope' in the catalog"):
        call_command("gradebook", "--csv", "-", "--problem", "nope")
    with pytest.raises(CommandError, match="no such folder"):
        call_command("gradebook", "--csv", str(tmp_path / "missing" / "gradebook.csv"))
    out = io.StringIO()
    call_command("gradebook", "--csv", "-", "--problem", SLUG, stdout=out)
    assert out.getvalue().splitlines()[0] == f"student,email,{SLUG},total"
