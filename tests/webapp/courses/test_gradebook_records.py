"""The course's own record of each member: a roster line's name, email, student id and section,
kept on the membership when the person joins by its link, updated by a newer roster, and shown
by the gradebook (its page and CSV) and the roster page whatever the account calls itself; the
account's own name and email only where the course has no record. A learning platform's
launches and roster syncs give their record the same way."""

from __future__ import annotations

import csv
import io
import re

import pytest
from django.contrib.auth.models import User
from django.core import mail
from django.db import models
from django.test import Client

from tests.webapp.support.people import PASSWORD, signed_in
from webapp.courses.models import Course, Invitation, Membership
from webapp.courses.roster import MAX_NAME, MAX_SECTION, MAX_STUDENT_ID, read_roster
from webapp.lti.claims import LIS, ROLES, PersonClaims
from webapp.lti.people import place_in_course

pytestmark = pytest.mark.django_db

LINK = re.compile(r"https?://\S+?(/courses/join/invited/[\w-]+/)")
ROSTER = (
    "Student ID,username,email,name,section\n"
    "S-1815,ada,ada.lovelace@school.example,Ada Lovelace,A\n"
    "S-1900,bob,bob.kahn@school.example,Bob Kahn,B\n"
)
RECORD = ("name", "email", "student_id", "section")


def join_by_link(user: User, address: str, outbox: list[mail.EmailMessage]) -> None:
    """``user``, signed in, opens the link of the last email to ``address`` and joins."""
    message = [m for m in outbox if m.to == [address]][-1]
    found = LINK.search(str(message.body))
    assert found, message.body
    assert signed_in(user).post(found.group(1)).status_code == 302


def record_of(course: Course, user: User) -> tuple[str, ...]:
    return tuple(Membership.objects.filter(course=course, user=user).values_list(*RECORD).get())


def gradebook_csv(client: Client) -> dict[str, dict[str, str]]:
    """The course's gradebook CSV, its rows by username."""
    response = client.get("/courses/jax-101/gradebook/?format=csv")
    assert response.status_code == 200
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    return {row["username"]: row for row in rows}


@pytest.fixture
def ada(course: Course) -> User:
    """An account that calls itself something else than the registrar does."""
    return User.objects.create_user(
        "ada", email="ada@gamer.example", first_name="xX", last_name="Countess Xx", password=PASSWORD
    )


def test_an_existing_account_joins_with_the_roster_s_record_and_the_gradebook_shows_it(
    course, owner, ta, outsider, assignment, ada, mailoutbox
):
    bob = User.objects.create_user("bob", email="bob@home.example", password=PASSWORD)
    course.enrol(read_roster(ROSTER), site_url="http://testserver")
    join_by_link(ada, "ada.lovelace@school.example", mailoutbox)
    join_by_link(bob, "bob.kahn@school.example", mailoutbox)
    # Eve joins by the course's invite link: the course has no record of her.
    User.objects.filter(pk=outsider.pk).update(first_name="Eve", last_name="Outside", email="eve@home.example")
    assert signed_in(outsider).post(f"/courses/join/{course.invite_code}/").status_code == 302

    assert record_of(course, ada) == ("Ada Lovelace", "ada.lovelace@school.example", "S-1815", "A")
    ada.refresh_from_db()
    assert (ada.get_full_name(), ada.email) == ("xX Countess Xx", "ada@gamer.example")  # the account is its owner's

    staff = signed_in(ta)
    response = staff.get("/courses/jax-101/gradebook/?format=csv")
    header = response.content.decode().splitlines()[0]
    assert header == "username,student_id,name,email,section,week-1,week-1 late,week-1 extension,total"
    rows = gradebook_csv(staff)
    assert {name: rows["ada"][name] for name in ("student_id", "name", "email", "section")} == {
        "student_id": "S-1815",
        "name": "Ada Lovelace",
        "email": "ada.lovelace@school.example",
        "section": "A",
    }
    assert (rows["bob"]["name"], rows["bob"]["email"]) == ("Bob Kahn", "bob.kahn@school.example")
    eve = rows[outsider.username]
    assert (eve["student_id"], eve["name"], eve["email"]) == ("", "Eve Outside", "eve@home.example")

    page = staff.get("/courses/jax-101/gradebook/").content.decode()
    ada_row = page[page.index("<td>ada</td>") : page.index("</tr>", page.index("<td>ada</td>"))]
    assert '<td data-label="Name">Ada Lovelace</td><td data-label="Student id">S-1815</td>' in ada_row
    assert "Countess" not in page and "gamer.example" not in page

    roster_page = signed_in(owner).get("/courses/jax-101/roster/").content.decode()
    members = roster_page[roster_page.index('<h2 id="members">Members</h2>') :]
    ada_member = members[members.index("<td>ada</td>") : members.index("</tr>", members.index("<td>ada</td>"))]
    for shown in ("Ada Lovelace", "ada.lovelace@school.example", "S-1815", '<td data-label="Section">A</td>'):
        assert shown in ada_member
    eve_member = members[members.index(f"<td>{outsider.username}</td>") :]
    assert (
        '<span class="from-account" title="The account\'s own: the course has no record">Eve Outside'
        in (eve_member[: eve_member.index("</tr>")])
    )


def test_an_account_the_roster_made_joins_with_its_record(client, course, mailoutbox):
    roster = "username,email,name,student_id\nnewbie,newbie@school.example,Nora Newbie,S-7\n"
    course.enrol(read_roster(roster), site_url="http://testserver")
    message = mailoutbox[-1]
    found = LINK.search(str(message.body))
    assert found
    done = client.post(found.group(1), {"new_password1": PASSWORD + "x", "new_password2": PASSWORD + "x"})
    assert done.status_code == 302
    newbie = User.objects.get(username="newbie")
    assert record_of(course, newbie) == ("Nora Newbie", "newbie@school.example", "S-7", "")


def test_a_newer_roster_updates_the_record_of_those_it_invited_before(course, owner, ta, assignment, ada, mailoutbox):
    course.enrol(read_roster(ROSTER), site_url="http://testserver")
    join_by_link(ada, "ada.lovelace@school.example", mailoutbox)  # bob has not answered yet

    newer = course.enrol(
        read_roster(
            "username,email,name,student_id,section\n"
            "ada,ada.king@school.example,Ada King,S-1815-K,C\n"
            "bob,robert.kahn@school.example,Robert Kahn,S-1900,B\n"
        )
    )
    assert (newer.listed_before, newer.accounts_made, newer.invited) == (2, 0, 0)
    assert record_of(course, ada) == ("Ada King", "ada.king@school.example", "S-1815-K", "C")
    bob_invitation = Invitation.objects.get(course=course, username="bob")
    # Bob's pending invitation follows too: "Send again" goes to the newer address, and his
    # membership will start from the newer record.
    assert (bob_invitation.name, bob_invitation.email) == ("Robert Kahn", "robert.kahn@school.example")
    rows = gradebook_csv(signed_in(ta))
    assert (rows["ada"]["name"], rows["ada"]["email"], rows["ada"]["student_id"]) == (
        "Ada King",
        "ada.king@school.example",
        "S-1815-K",
    )

    # A roster without a student id or name column leaves what the course knew of them.
    course.enrol(read_roster("username,email\nada,ada.king@school.example\n"))
    assert record_of(course, ada) == ("Ada King", "ada.king@school.example", "S-1815-K", "C")

    # Someone who is a course staff member keeps their own record whatever a roster says.
    Membership.objects.filter(course=course, user=ada).update(role=Membership.Role.TA)
    course.enrol(read_roster("username,email,name\nada,ada.king@school.example,Someone Else\n"))
    assert record_of(course, ada)[0] == "Ada King"


def test_an_accepted_invitation_for_a_member_already_in_the_course_updates_their_record(
    course, ada, outsider, mailoutbox
):
    """Ada joined by the invite link first, then accepts her roster line's invitation."""
    assert signed_in(ada).post(f"/courses/join/{course.invite_code}/").status_code == 302
    assert record_of(course, ada) == ("", "", "", "")
    course.enrol(read_roster(ROSTER), site_url="http://testserver")
    join_by_link(ada, "ada.lovelace@school.example", mailoutbox)
    assert record_of(course, ada) == ("Ada Lovelace", "ada.lovelace@school.example", "S-1815", "A")


def test_no_cell_of_the_record_is_a_formula_in_the_gradebook_csv(course, ta, assignment, ada, mailoutbox):
    course.enrol(
        read_roster(
            'username,email,name,student_id,section\nada,ada@school.example,"=HYPERLINK(""http://x.example"")",+1-2,@A\n'
        ),
        site_url="http://testserver",
    )
    join_by_link(ada, "ada@school.example", mailoutbox)
    text = signed_in(ta).get("/courses/jax-101/gradebook/?format=csv").content.decode()
    ada_line = next(line for line in text.splitlines() if line.startswith("ada,"))
    assert ada_line.startswith('ada,\'+1-2,"\'=HYPERLINK(""http://x.example"")",ada@school.example,\'@A,')


def test_a_learning_platform_s_launch_and_roster_give_the_record(course, ta, assignment, ada):
    launch = {
        "sub": "ada-on-canvas",
        "given_name": "Ada",
        "family_name": "Lovelace",
        "email": "ada@school.example",
        ROLES: ["http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"],
        LIS: {"person_sourcedid": "S-1815"},
    }
    person = PersonClaims.read(launch)
    place_in_course(course, ada, person.role, person)  # type: ignore[arg-type]
    assert record_of(course, ada) == ("Ada Lovelace", "ada@school.example", "S-1815", "")
    # A roster sync's member names the id otherwise; what the platform leaves out (a privacy
    # setting may hide the email) is kept as it was.
    member = {"user_id": "ada-on-canvas", "name": "Ada King", "lis_person_sourcedid": "S-1815-K", "roles": ["Learner"]}
    place_in_course(
        course, ada, Membership.Role.STUDENT, PersonClaims.read(member, sub_key="user_id", roles_key="roles")
    )
    assert record_of(course, ada) == ("Ada King", "ada@school.example", "S-1815-K", "")
    assert gradebook_csv(signed_in(ta))["ada"]["student_id"] == "S-1815-K"


def test_a_roster_accepts_no_longer_record_than_a_membership_and_an_invitation_keep():
    limits = {"name": MAX_NAME, "student_id": MAX_STUDENT_ID, "section": MAX_SECTION}
    for model in (Membership, Invitation):
        for name, limit in limits.items():
            field = model._meta.get_field(name)
            assert isinstance(field, models.CharField) and field.max_length == limit, (model, name)
