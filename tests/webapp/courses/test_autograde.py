"""The site's gradebook: notebooks downloaded from a problem's page, graded by staff with
``manage.py autograde``, recorded as the students' Submits, exported with ``manage.py gradebook``
and shown in the admin. Grading here is real: bwrap sandboxes, each notebook run under nbclient."""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import nbformat
import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from django.test import Client
from django.urls import reverse

import grader.autograde
from grader.autograde import Graded, find_notebooks
from grader.problem import load_problem, solutions_dir
from grader.spreadsheet import FORMULA_LEADS
from tests.webapp.support.people import signed_in
from webapp import grading
from webapp.catalog.models import Problem
from webapp.courses.models import Assignment, AssignmentProblem, Course, Membership
from webapp.notebook_identity import notebook_identity_matches
from webapp.submissions.models import Draft, Progress, Submission

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

SLUG = "aot_compiled_sum"
REFERENCE = (solutions_dir() / SLUG / "reference.py").read_text()
# Wrong, and with a magic: graded as a plain .py file it would be a syntax error instead.
WRONG = "%time import jax\n" + (solutions_dir() / SLUG / "wrong_value.py").read_text()


def download(client: Client, slug: str = SLUG) -> str:
    response = client.get(reverse("catalog:notebook", args=[slug]))
    assert response.status_code == 200, response.status_code
    assert response["Content-Disposition"] == f'attachment; filename="{slug}.ipynb"'
    return response.content.decode()


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
    assert "not recorded (1):" in err.getvalue() and "  zed (" in err.getvalue()
    assert "download-2.ipynb): no account with that username" in err.getvalue()
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


# -- whose a notebook is: only what the site signed is believed ----------------------------------


@pytest.fixture(scope="module")
def claims(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Graded]:
    """Notebooks claiming to be someone's, graded once for the tests below (really: sandboxes,
    nbclient), by the file's name. Made as the download view makes them (``grading.
    student_notebook`` signs them), then edited as a student could edit them."""
    folder = tmp_path_factory.mktemp("claims")

    def notebook(student: str, code: str | None = None) -> nbformat.NotebookNode:
        return nbformat.reads(grading.student_notebook(SLUG, student=student, code=code), as_version=4)

    unsigned = notebook("alice")
    del unsigned.metadata["grader"]["signature"]
    copied = notebook("alice")  # alice's signature, bob's name
    copied.metadata["grader"]["student"] = "bob"
    made = {
        "admin": notebook("admin"),  # signed: staff can download a notebook too
        "alice-unsigned": unsigned,
        "bob-with-alices-signature": copied,
        "carol": notebook("carol", REFERENCE),
        "alice-1": notebook("alice"),
        "alice-2": notebook("alice", REFERENCE),
    }
    for name, content in made.items():
        nbformat.write(content, folder / f"{name}.ipynb")
    graded, finished = grader.autograde.autograde([str(folder)], problem=SLUG, jobs=2, student_from="metadata")
    assert finished and len(graded) == len(made)
    return {Path(item.path).stem: item for item in graded}


@pytest.fixture
def record(
    claims: dict[str, Graded], catalog: None, django_user_model: type[User], monkeypatch: pytest.MonkeyPatch
) -> Callable[..., tuple[str, str]]:
    """``manage.py autograde --student-from metadata`` on some of ``claims``' notebooks, with the
    accounts they name; the command's grading step gives back the module's real gradings."""
    for name in ("alice", "bob", "carol"):
        django_user_model.objects.create_user(name, f"{name}@example.org", "a-long-password-1")
    django_user_model.objects.create_user("admin", "admin@example.org", "a-long-password-1", is_staff=True)
    by_path = {Path(item.path): item for item in claims.values()}

    def graded_before(paths: list[str], **options: object) -> tuple[list[Graded], bool]:
        return [by_path[path] for path in find_notebooks(paths)], True

    monkeypatch.setattr(grader.autograde, "autograde", graded_before)

    def run(*names: str, trust: bool = False) -> tuple[str, str]:
        out, err = io.StringIO(), io.StringIO()
        files = [claims[name].path for name in names]
        options = {"trust_unsigned_metadata": True} if trust else {}
        call_command("autograde", *files, problem=SLUG, student_from="metadata", stdout=out, stderr=err, **options)
        return out.getvalue(), err.getvalue()

    return run


def submits_of(username: str) -> list[Submission]:
    return list(Submission.objects.filter(user__username=username))


def test_a_notebook_claiming_a_staff_account_is_recorded_to_nobody(record):
    for trust in (False, True):  # signed for admin or not, trusted or not
        out, err = record("admin", "carol", trust=trust)
        assert "recorded 1 submission(s)" in out
        assert "admin is a staff account: notebooks are never recorded to staff" in err
    assert submits_of("admin") == [] and len(submits_of("carol")) == 2


def test_an_unsigned_claim_is_refused_unless_staff_trust_unsigned_metadata(record):
    out, err = record("alice-unsigned")
    assert "recorded 0 submission(s)" in out
    assert "alice (" in err and "unsigned: not a notebook downloaded from this site" in err
    assert submits_of("alice") == []
    out, err = record("alice-unsigned", trust=True)
    assert "recorded 1 submission(s)" in out and err == ""
    assert [submit.origin for submit in submits_of("alice")] == ["autograde"]


def test_a_notebook_the_site_signed_is_recorded_to_its_student(record):
    out, err = record("carol")
    assert "recorded 1 submission(s)" in out and err == ""
    [carol] = submits_of("carol")
    assert (carol.kind, carol.verdict) == ("submit", "accepted")
    identity = json.loads(carol.notebook)["metadata"]["grader"]
    assert notebook_identity_matches(identity["signature"], problem=SLUG, student="carol")


def test_a_signature_copied_into_another_name_is_refused(record):
    for trust in (False, True):  # not unsigned: forged, whatever the staff trust
        out, err = record("bob-with-alices-signature", trust=trust)
        assert "recorded 0 submission(s)" in out
        assert "bob (" in err and f"its signature is not this site's for bob and {SLUG}" in err
    assert submits_of("bob") == [] and submits_of("alice") == []


def test_two_notebooks_for_one_student_are_a_conflict_not_a_merge(record):
    out, err = record("alice-1", "alice-2", "carol")
    assert "recorded 1 submission(s)" in out and len(submits_of("carol")) == 1
    assert submits_of("alice") == []
    conflicts = [line for line in err.splitlines() if "conflict: 2 notebooks of this batch are alice's" in line]
    assert len(conflicts) == 2
    assert all("alice-1.ipynb" in line and "alice-2.ipynb" in line for line in conflicts)


def test_the_downloaded_notebook_is_signed_for_its_student_and_problem(accounts):
    identity = nbformat.reads(download(signed_in(accounts["ada"])), as_version=4).metadata["grader"]
    assert identity["student"] == "ada"
    assert notebook_identity_matches(identity["signature"], problem=SLUG, student="ada")
    assert not notebook_identity_matches(identity["signature"], problem=SLUG, student="ben")
    assert not notebook_identity_matches(identity["signature"], problem="compile_for", student="ada")
    for forged in (None, 7, "", "ada", identity["signature"] + "x", ["ada"]):
        assert not notebook_identity_matches(forged, problem=SLUG, student="ada")


def test_no_gradebook_cell_begins_like_a_formula(catalog, django_user_model, tmp_path):
    django_user_model.objects.create_user('=HYPERLINK("x")', "+x@example.org", "a-long-password-1")
    django_user_model.objects.create_superuser("staff", "staff@example.org", "a-long-password-1")
    path = tmp_path / "gradebook.csv"
    call_command("gradebook", "--csv", str(path), stdout=io.StringIO())
    staff = signed_in(User.objects.get(username="staff"))
    downloaded = staff.get(reverse("admin:submissions_gradebookstudent_changelist") + "?format=csv")
    for text in (path.read_text(), downloaded.content.decode()):
        rows = list(csv.reader(io.StringIO(text)))
        assert rows[1][:2] == ['\'=HYPERLINK("x")', "'+x@example.org"]
        assert not any(cell.startswith(FORMULA_LEADS) for row in rows for cell in row)


def test_autograde_into_an_assignment_records_its_students_at_their_hand_in_times(
    accounts, handed_in, tmp_path, sandboxes
):
    course = Course.objects.create(slug="jax-101", title="JAX 101")
    assignment = Assignment.objects.create(
        course=course,
        slug="week-1",
        title="Week 1",
        release_at=datetime(2026, 9, 1, tzinfo=UTC),
        due_at=datetime(2026, 9, 8, 22, 0, tzinfo=UTC),
        late_policy="penalty_per_day",
    )
    AssignmentProblem.objects.create(assignment=assignment, problem=Problem.objects.get(slug=SLUG), points=10)
    Membership.objects.create(course=course, user=accounts["ada"])  # ben is not in the course
    times = tmp_path / "times.csv"
    times.write_text("username,handed_in_at\nada,2026-09-09T08:00+02:00\nben,2026-09-08T12:00Z\n")
    out, err = io.StringIO(), io.StringIO()
    call_command(
        "autograde", str(handed_in), problem=SLUG, jobs=2, student_from="metadata", assignment="jax-101/week-1",
        hand_in_times=times, stdout=out, stderr=err,
    )  # fmt: skip
    assert "  ada: handed in 8 h after the due time, 1 day late: 10% off" in out.getvalue()
    assert "recorded 1 submission(s) of aot_compiled_sum for jax-101/week-1" in out.getvalue()
    assert "download-1.ipynb): not a student of jax-101" in err.getvalue()
    ada = Submission.objects.get(user=accounts["ada"])
    assert ada.handed_in_at == datetime(2026, 9, 9, 6, 0, tzinfo=UTC)  # stored in UTC
    assert [score.earned for score in assignment.problem_scores(accounts["ada"])] == [9.0]
    # In the student's history it is a notebook graded by staff, at its hand-in time.
    page = signed_in(accounts["ada"]).get(reverse("catalog:detail", args=[SLUG])).content.decode()
    row = page[page.index('<table id="history"') :]
    assert "notebook, graded by staff</td>" in row and "2026-09-09 06:00:00" in row
    assert not Submission.objects.filter(user=accounts["ben"]).exists()


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"assignment": "jax-101/nope"}, "no assignment 'jax-101/nope' (give it as COURSE/ASSIGNMENT"),
        ({"hand_in_times": "HEADERLESS"}, "line 1: the header must name the columns username and handed_in_at"),
        ({"hand_in_times": "NAIVE"}, "line 2: '2026-09-08T12:00' has no time zone"),
    ],
)
def test_autograde_refuses_an_unknown_assignment_and_unreadable_hand_in_times(accounts, tmp_path, options, message):
    (tmp_path / "HEADERLESS").write_text("ada,2026-09-08T12:00Z\n")
    (tmp_path / "NAIVE").write_text("username,handed_in_at\nada,2026-09-08T12:00\n")
    if "hand_in_times" in options:
        options = {"hand_in_times": tmp_path / options["hand_in_times"]}
    with pytest.raises(CommandError, match=re.escape(message)):
        call_command("autograde", str(tmp_path), problem=SLUG, **options)
