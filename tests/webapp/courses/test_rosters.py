"""Rosters: read with their header in any order, refused line by line, and turned into
invitations that enrol nobody without consent; the course's own invite link."""

from __future__ import annotations

import io
import re

import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command

from tests.webapp.support.people import enrol
from webapp.courses.models import Invitation, Membership, RosterUpload
from webapp.courses.roster import RosterError, RosterRow, read_roster
from webapp.courses.tasks import enrol_roster

pytestmark = pytest.mark.django_db


ROSTER = "\ufeffUsername,Email,Name,Section\nada,ada@example.org,Ada Lovelace,A\n\nbob,bob@example.org,Bob,B\n"


def test_a_roster_is_read_with_its_header_in_any_order_and_case():
    rows = read_roster("section,EMAIL,USERNAME\nB,bob@example.org,bob\n")
    assert [(r.line, r.username, r.email, r.section) for r in rows] == [(2, "bob", "bob@example.org", "B")]
    assert [r.name for r in read_roster(ROSTER)] == ["Ada Lovelace", "Bob"]


def test_a_row_is_stored_with_its_student_id_and_a_row_stored_before_it_was_read_still_reads():
    [row] = read_roster("Student ID,username,email,name,section\nS-7,ada,ada@example.org,Ada Lovelace,A\n")
    assert RosterRow.from_stored(row.stored()) == row
    assert row.record() == {"name": "Ada Lovelace", "email": "ada@example.org", "student_id": "S-7", "section": "A"}
    # An upload kept before the student id was read (five fields a row) goes on after an upgrade.
    assert RosterRow.from_stored([2, "ada", "ada@example.org", "Ada", "A"]).student_id == ""


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("email,name\nx@example.org,X\n", "line 1: the header must name a username and an email column"),
        ("username,email,role\nada,a@example.org,ta\n", "line 1: unknown column 'role'"),
        ("username,email\nada,a@example.org\nbad name,b@example.org\n", "line 3: 'bad name' is not a username"),
        ("username,email\nada,not-an-address\n", "line 2: 'not-an-address' is not an email address"),
        ("username,email\nada,a@example.org\nada,b@example.org\n", "line 3: ada is listed twice (first on line 2)"),
        ("username,email\nada,a@example.org\nbob,A@example.org\n", "line 3: A@example.org is listed twice"),
        ("username,email\nada,\n", "line 2: ada has no email (the invitation to join is sent there)"),
        ("username,email,section\nada,a@example.org," + "x" * 51 + "\n", "line 2: a section may have 50 characters"),
        (
            "username,email,student_id,name\nada,a@example.org," + "7" * 51 + "," + "A" * 151 + "\n",
            "line 2: a name may have 150 characters; a student id may have 50 characters",
        ),
        (
            "username,email,student id\nada,a@example.org,s1\nbob,b@example.org,s1\n",
            "line 3: student id s1 is listed twice (first on line 2)",
        ),
    ],
)
def test_a_bad_roster_names_its_line_and_what_is_wrong(text, message):
    with pytest.raises(RosterError, match=re.escape(message)):
        read_roster(text)


def test_enrolling_invites_every_row_and_enrols_nobody_without_consent(course, mailoutbox):
    ta = enrol(course, "bob", Membership.Role.TA)
    existing = User.objects.create_user("ada", password="a-long-password-1")
    first = course.enrol(read_roster(ROSTER), site_url="http://testserver")
    assert (first.status, first.accounts_made, first.invited, first.listed_before) == ("done", 0, 2, 0)
    assert existing.check_password("a-long-password-1")  # an existing account is left as it was
    assert course.membership_of(existing) is None  # until its owner accepts
    moved = course.enrol(read_roster("username,email,section\nada,ada@example.org,C\ncyd,cyd@example.org,A\n"))
    assert (moved.accounts_made, moved.invited, moved.listed_before) == (1, 0, 1)
    cyd = User.objects.get(username="cyd")
    assert not cyd.has_usable_password() and cyd.email == "cyd@example.org"
    assert course.membership_of(cyd) is None  # until its activation link is opened
    assert course.membership_of(ta).role == Membership.Role.TA
    assert dict(course.invitations.values_list("username", "section")) == {"ada": "C", "bob": "B", "cyd": "A"}
    assert sorted(m.to[0] for m in mailoutbox) == ["ada@example.org", "bob@example.org", "cyd@example.org"]


def test_manage_py_enrol_reads_a_file_and_says_what_it_did(course, tmp_path, mailoutbox):
    roster_file = tmp_path / "roster.csv"
    roster_file.write_text(ROSTER, encoding="utf-8")
    out = io.StringIO()
    call_command("enrol", "jax-101", str(roster_file), "--site-url", "https://judge.example.edu", stdout=out)
    assert out.getvalue().startswith("jax-101: 2 rows: 2 accounts made (each emailed a link to activate it), 0 invited")
    assert "https://judge.example.edu/courses/join/invited/" in mailoutbox[0].body
    roster_file.write_text("username,email\nbad name,x@example.org\n")
    with pytest.raises(CommandError, match="line 2: 'bad name' is not a username"):
        call_command("enrol", "jax-101", str(roster_file))
    with pytest.raises(CommandError, match="no course 'nope' \\(courses: jax-101\\)"):
        call_command("enrol", "nope", str(roster_file))


def test_the_instructor_uploads_a_roster_and_a_bad_one_invites_nobody(client, course, owner, ta, mailoutbox):
    client.force_login(ta)
    assert client.get("/courses/jax-101/roster/").status_code == 403
    client.force_login(owner)
    bad = client.post(
        "/courses/jax-101/roster/",
        {"roster": SimpleUploadedFile("r.csv", b"username,email\nada,a@x.org\nada,b@x.org\n")},
    )
    assert bad.status_code == 400 and "line 3: ada is listed twice" in bad.content.decode()
    assert "The roster was not uploaded: 1 line needs fixing" in bad.content.decode()
    assert not Invitation.objects.exists() and not RosterUpload.objects.exists()
    good = client.post("/courses/jax-101/roster/", {"roster": SimpleUploadedFile("r.csv", ROSTER.encode())})
    upload = RosterUpload.objects.get()
    assert good.status_code == 302 and good["Location"] == f"/courses/jax-101/roster/#upload-{upload.pk}"
    assert upload.status == "queued" and not Invitation.objects.exists()  # the courses' worker invites them
    enrol_roster.call(upload.pk)
    page = client.get("/courses/jax-101/roster/").content.decode()
    assert "done: 2 accounts made to be activated" in page and "ada@example.org" in page
    assert course.memberships.filter(role=Membership.Role.STUDENT).count() == 0  # until they accept
    assert len(mailoutbox) == 2


def test_the_invite_link_lets_a_signed_in_visitor_join_as_a_student(client, course, outsider):
    eve = outsider
    url = f"/courses/join/{course.invite_code}/"
    assert client.get(url).status_code == 302  # a sign-in first
    client.force_login(eve)
    assert "Join the course" in client.get(url).content.decode()
    assert client.get("/courses/join/not-the-code/").status_code == 404
    assert client.get("/courses/jax-101/").status_code == 404  # not yet a member
    response = client.post(url)
    assert response.status_code == 302 and response["Location"] == "/courses/jax-101/"
    assert course.membership_of(eve).role == Membership.Role.STUDENT
    assert client.get("/courses/jax-101/").status_code == 200


def test_an_instructor_makes_a_student_a_ta_and_back_on_the_roster_page_and_nothing_else(
    client, course, owner, ta, course_student
):
    client.force_login(owner)
    roster = "/courses/jax-101/roster/"
    page = client.get(roster).content.decode()
    # Each button's name starts with what it shows (as screen-reader users say it), then whom.
    assert f'aria-label="make TA: {course_student.username}">make TA</button>' in page
    assert f": {owner.username}" not in page  # no button for oneself, nor for an instructor
    made = client.post(f"{roster}members/{course_student.username}/role/", {"role": "ta"}, follow=True)
    assert f"{course_student.username} is now a TA of the course." in made.content.decode()
    assert course.membership_of(course_student).role == Membership.Role.TA
    client.post(f"{roster}members/{course_student.username}/role/", {"role": "student"})
    assert course.membership_of(course_student).role == Membership.Role.STUDENT
    # Refused, saying why, and nothing changes: an instructor's role, one's own, a role not offered.
    for username, role, why in (
        (owner.username, "ta", "You cannot change your own role."),
        (ta.username, "instructor", "A member can be made a student or a TA here."),
    ):
        refused = client.post(f"{roster}members/{username}/role/", {"role": role})
        assert refused.status_code == 400 and why in refused.content.decode()
    assert course.membership_of(owner).role == Membership.Role.INSTRUCTOR
    assert course.membership_of(ta).role == Membership.Role.TA
    assert client.post(f"{roster}members/nobody/role/", {"role": "ta"}).status_code == 404
    # A TA reads the students in the gradebook but changes no one's role.
    client.force_login(ta)
    assert client.post(f"{roster}members/{course_student.username}/role/", {"role": "ta"}).status_code == 403
    assert course.membership_of(course_student).role == Membership.Role.STUDENT
