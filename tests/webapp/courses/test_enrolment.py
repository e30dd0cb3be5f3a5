"""Enrolment with consent: a roster invites, the person accepts.

A roster line never enrols an account by its username: someone may have signed up first under
the name (attack 7), and an instructor may list anyone's account to read their work (attack 1).
Each line's invitation goes to the roster's email; a free username's account is made without a
password and activated by its emailed link. Big rosters are invited by the courses' worker in
short batches, so that other people's requests never wait on a long write (attack 6). The
emails go through a real SMTP server on loopback in one test.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from django.contrib.auth.models import User
from django.core import mail
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.mail.backends.locmem import EmailBackend as MemoryBackend
from django.db import connection
from django.test import Client
from django.utils import timezone

from tests.webapp.support.course_tasks import run_courses_tasks
from tests.webapp.support.people import PASSWORD
from tests.webapp.support.running_site import free_port
from webapp.accounts.models import Profile
from webapp.catalog.models import Problem
from webapp.courses.models import Course, Invitation, Membership, RosterUpload
from webapp.courses.models.membership import JOINS_PER_HOUR
from webapp.courses.models.roster_upload import ROSTER_BATCH
from webapp.courses.roster import MAX_ROSTER_PROBLEMS
from webapp.submissions.models import Draft, Submission

pytestmark = pytest.mark.django_db

LINK = re.compile(r"https?://[^\s]+/courses/join/invited/[\w-]+/")


def upload(client: Client, text: str, slug: str = "jax-101") -> Any:
    return client.post(f"/courses/{slug}/roster/", {"roster": SimpleUploadedFile("roster.csv", text.encode())})


def invite(client: Client, owner: User, text: str) -> None:
    """The instructor uploads ``text``; the courses' worker sends the invitations."""
    client.force_login(owner)
    response = upload(client, text)
    assert response.status_code == 302, response.content.decode()[:2000]
    assert len(run_courses_tasks()) == 1
    client.logout()


def link_to(address: str, outbox: list[mail.EmailMessage]) -> str:
    """The path of the link in the last email to ``address``."""
    message = [m for m in outbox if m.to == [address]][-1]
    found = LINK.search(str(message.body))
    assert found, message.body
    return "/" + found.group().split("/", 3)[3]


def test_a_squatter_who_signed_up_first_is_not_enrolled_and_the_real_student_joins_by_the_link(
    client, course, owner, mailoutbox
):
    """Attack 7: the old roster enrolled the self-made "alice" (and set no email)."""
    squatter = User.objects.create_user("alice", email="squatter@elsewhere.example", password="squatters-password-1")
    invite(client, owner, "username,email,name,section\nalice,alice@school.example,Alice Liddell,A\n")
    assert course.membership_of(squatter) is None
    squatter.refresh_from_db()
    assert (squatter.email, squatter.first_name) == ("squatter@elsewhere.example", "")
    assert squatter.check_password("squatters-password-1")
    invitation = Invitation.objects.get(course=course)
    assert invitation.account is None and invitation.email == "alice@school.example"
    [message] = mailoutbox
    assert message.to == ["alice@school.example"] and "You are invited to JAX 101" in message.subject
    link = link_to("alice@school.example", mailoutbox)

    # The squatter has no link; a made-up or altered one is refused with a page, not a traceback.
    client.force_login(squatter)
    for guess in ("/courses/join/invited/alice/", link[:-3] + "xx/"):
        refused = client.post(guess)
        assert refused.status_code == 410 and "not one of ours" in refused.content.decode()
    assert course.membership_of(squatter) is None

    # The real Alice signs up under another name and joins with the link.
    real = Client()
    assert real.get(link).status_code == 200  # signed out: asked to sign in or up first
    assert "Sign in with your own account" in real.get(link).content.decode()
    real.post("/accounts/signup/", {"username": "aliddell", "password1": PASSWORD, "password2": PASSWORD})
    assert "Join as aliddell" in real.get(link).content.decode()
    joined = real.post(link)
    assert joined.status_code == 302 and joined["Location"] == "/courses/jax-101/"
    alice = User.objects.get(username="aliddell")
    assert course.membership_of(alice).section == "A"
    invitation.refresh_from_db()
    assert invitation.accepted_by == alice
    again = real.post(link)
    assert again.status_code == 410 and "used already" in again.content.decode()


def test_an_existing_account_named_in_a_roster_is_not_a_member_until_its_owner_accepts(
    client, course, owner, mailoutbox, catalog
):
    """Attack 1 (consent): the old roster enrolled ada outright, and her practice showed."""
    ada = User.objects.create_user("ada", email="ada@home.example", password=PASSWORD)
    Submission.objects.create(user=ada, problem=Problem.objects.get(slug="batched_dot"), kind="submit", code="x = 1\n")
    invite(client, owner, "username,email\nada,ada@school.example\n")
    assert course.membership_of(ada) is None
    assert not course.student_work().exists()
    client.force_login(owner)
    assert "ada@school.example" in client.get("/courses/jax-101/roster/").content.decode()  # pending
    client.force_login(ada)
    link = link_to("ada@school.example", mailoutbox)
    assert client.get("/courses/jax-101/").status_code == 404  # not a member before she accepts
    assert client.post(link).status_code == 302
    assert course.membership_of(ada).role == Membership.Role.STUDENT


def test_an_account_the_roster_made_sets_its_password_by_the_emailed_link_and_signs_in(
    client, course, owner, mailoutbox
):
    """The roster's accounts had no password and no way to get one."""
    invite(client, owner, "username,email,name\nnewbie,newbie@school.example,Nora Newbie\n")
    newbie = User.objects.get(username="newbie")
    assert not newbie.has_usable_password() and (newbie.email, newbie.get_full_name()) == (
        "newbie@school.example",
        "Nora Newbie",
    )
    assert course.membership_of(newbie) is None
    [message] = mailoutbox
    assert "Your jaxjudge account for JAX 101" in message.subject and "named newbie" in message.body
    link = link_to("newbie@school.example", mailoutbox)
    student = Client()
    assert "Choose its password" in student.get(link).content.decode()
    weak = student.post(link, {"new_password1": "123", "new_password2": "123"})
    assert weak.status_code == 400 and not User.objects.get(username="newbie").has_usable_password()
    chosen = "a-good-long-password-7"
    # The page's script sends the browser's zone, as sign-up does: the account reads in it.
    done = student.post(link, {"new_password1": chosen, "new_password2": chosen, "time_zone": "Asia/Kolkata"})
    assert done.status_code == 302 and done["Location"] == "/courses/jax-101/"
    assert student.get("/courses/jax-101/").status_code == 200  # signed in, and in the course
    assert Profile.time_zone_of(User.objects.get(username="newbie")) == "Asia/Kolkata"
    fresh = Client()
    signed_in = fresh.post("/accounts/login/", {"username": "newbie", "password": chosen})
    assert signed_in.status_code == 302
    assert fresh.get("/courses/jax-101/").status_code == 200
    used = Client().post(link, {"new_password1": "another-long-pass-9", "new_password2": "another-long-pass-9"})
    assert used.status_code == 410 and "used already" in used.content.decode()
    assert User.objects.get(username="newbie").check_password(chosen)


class Inbox:
    """Messages an SMTP server on loopback received (aiosmtpd's handler interface)."""

    def __init__(self) -> None:
        self.messages: list[tuple[list[str], str]] = []

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        self.messages.append((list(envelope.rcpt_tos), envelope.content.decode("utf-8", errors="replace")))
        return "250 Message accepted for delivery"


@pytest.fixture
def smtp_server(settings: Any) -> Iterator[Inbox]:
    inbox = Inbox()
    controller = Controller(inbox, hostname="127.0.0.1", port=free_port())  # loopback only
    controller.start()
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", controller.port
    settings.EMAIL_USE_TLS = settings.EMAIL_USE_SSL = False
    settings.EMAIL_HOST_USER = settings.EMAIL_HOST_PASSWORD = ""
    try:
        yield inbox
    finally:
        controller.stop()


def test_the_links_go_out_through_a_real_smtp_server_and_work(client, course, owner, smtp_server):
    invite(client, owner, "username,email\nnewbie,newbie@school.example\nada,ada@school.example\n")
    assert sorted(to for to, _ in smtp_server.messages) == [["ada@school.example"], ["newbie@school.example"]]
    text = next(body for to, body in smtp_server.messages if to == ["newbie@school.example"])
    assert "Subject: Your jaxjudge account for JAX 101" in text
    found = LINK.search(text.replace("=\n", ""))  # a long line may be soft-wrapped
    assert found, text
    link = "/" + found.group().split("/", 3)[3]
    student = Client()
    done = student.post(link, {"new_password1": "a-good-long-password-7", "new_password2": "a-good-long-password-7"})
    assert done.status_code == 302 and student.get("/courses/jax-101/").status_code == 200


def test_a_bad_roster_names_each_of_its_bad_lines_keeps_nothing_and_the_fixed_file_then_invites(
    client, course, owner, mailoutbox
):
    ada = User.objects.create_user("ada", email="ada@home.example", password=PASSWORD)
    users_before = User.objects.count()
    roster = (
        "username,email,name,student_id\n"
        "ada,ada@school.example,Ada Lovelace,S-1\n"
        "bob,bob@school,Bob Kahn,S-2\n"  # not an email address
        "cyd,cyd@school.example,Cyd Noor,S-3\n"
        "ada,ada2@school.example,Ada Again,S-4\n"  # ada is listed twice
        "dee,,Dee Dee,S-5\n"  # no email
    )
    client.force_login(owner)
    response = upload(client, roster)
    page = response.content.decode()
    assert response.status_code == 400
    errors = page[page.index('data-testid="roster-errors"') : page.index("</div>", page.index("roster-errors"))]
    assert "<h3>The roster was not uploaded: 3 lines need fixing</h3>" in errors
    assert re.findall(r"<li>(.*?)</li>", errors) == [
        "line 3: &#x27;bob@school&#x27; is not an email address",
        "line 5: ada is listed twice (first on line 2)",
        "line 6: dee has no email (the invitation to join is sent there)",
    ]
    assert '<input type="file" id="roster" name="roster"' in page  # the form, for the fixed file
    # Nothing of it is kept: no upload, no invitation, no account, no email, no member.
    assert not RosterUpload.objects.exists() and not Invitation.objects.exists()
    assert User.objects.count() == users_before and not mailoutbox
    assert course.memberships.filter(role=Membership.Role.STUDENT).count() == 0

    fixed = roster.replace("bob@school,", "bob@school.example,").replace("ada,ada2@", "eve,eve@")
    fixed = fixed.replace("dee,,", "dee,dee@school.example,")
    invite(client, owner, fixed)
    assert sorted(Invitation.objects.values_list("username", flat=True)) == ["ada", "bob", "cyd", "dee", "eve"]
    assert len(mailoutbox) == 5
    client.force_login(ada)
    assert client.post(link_to("ada@school.example", mailoutbox)).status_code == 302
    member = course.membership_of(ada)
    assert member is not None and (member.name, member.email, member.student_id) == (
        "Ada Lovelace",
        "ada@school.example",
        "S-1",
    )


def test_a_class_list_s_every_bad_line_is_named_and_the_count_beyond_the_named(client, course, owner):
    lines = [f"student{n},student{n}@school.example" for n in range(600)]
    for n in range(0, 520):
        lines[n] = f"student{n},"  # no email
    client.force_login(owner)
    response = upload(client, "username,email\n" + "\n".join(lines) + "\n")
    page = response.content.decode()
    assert response.status_code == 400 and 'class="form-errors roster-errors"' in page
    assert "The roster was not uploaded: 520 lines need fixing" in page
    assert "line 2: student0 has no email" in page and f"line {MAX_ROSTER_PROBLEMS + 1}: student" in page
    assert page.count("<li>line ") == MAX_ROSTER_PROBLEMS == 500 and "And 20 more bad lines." in page
    assert not RosterUpload.objects.exists() and not Invitation.objects.exists()
    assert not User.objects.filter(username__startswith="student").exists()


def test_expired_used_and_unknown_links_get_a_page_of_their_own(client, course, owner, mailoutbox):
    invite(client, owner, "username,email\nnewbie,newbie@school.example\n")
    link = link_to("newbie@school.example", mailoutbox)
    Invitation.objects.update(expires_at=timezone.now() - timedelta(seconds=1))
    expired = Client().get(link)
    assert expired.status_code == 410 and "has expired" in expired.content.decode()
    unknown = Client().get("/courses/join/invited/" + "x" * 500 + "/")
    assert unknown.status_code == 410 and "not one of ours" in unknown.content.decode()


def test_a_resend_is_limited_and_replaces_the_link(client, course, owner, mailoutbox):
    invite(client, owner, "username,email\nnewbie,newbie@school.example\n")
    first = link_to("newbie@school.example", mailoutbox)
    invitation = Invitation.objects.get()
    client.force_login(owner)
    resend = f"/courses/jax-101/roster/invitations/{invitation.pk}/resend/"
    too_soon = client.post(resend)
    assert too_soon.status_code == 429 and "sent less than 10 minutes ago" in too_soon.content.decode()
    assert len(mailoutbox) == 1
    Invitation.objects.update(sent_at=timezone.now() - timedelta(minutes=11))
    assert client.post(resend).status_code == 302
    second = link_to("newbie@school.example", mailoutbox)
    assert len(mailoutbox) == 2 and second != first
    assert Client().get(first).status_code == 410  # the old link stops working
    assert Client().get(second).status_code == 200
    # One still waiting in a running roster's batch is not resent: that batch's email would
    # carry a link the resend had already replaced.
    upload_running = RosterUpload.objects.create(course=course, status=RosterUpload.Status.RUNNING)
    waiting = Invitation.objects.create(
        course=course, upload=upload_running, username="later", email="later@school.example",
        expires_at=timezone.now() + timedelta(days=14),
    )  # fmt: skip
    refused = client.post(f"/courses/jax-101/roster/invitations/{waiting.pk}/resend/")
    assert refused.status_code == 409 and "still being sent with its roster" in refused.content.decode()
    assert len(mailoutbox) == 2


def test_roster_uploads_are_limited_per_course_and_one_at_a_time(client, course, owner, mailoutbox):
    client.force_login(owner)
    assert upload(client, "username,email\na,a@school.example\n").status_code == 302
    busy = upload(client, "username,email\nb,b@school.example\n")
    assert busy.status_code == 429 and "Another roster of this course is being enrolled" in busy.content.decode()
    run_courses_tasks()
    for name in ("b", "c"):
        assert upload(client, f"username,email\n{name},{name}@school.example\n").status_code == 302
        run_courses_tasks()
    limited = upload(client, "username,email\nd,d@school.example\n")
    assert limited.status_code == 429 and "3 rosters uploaded in the last 10 minutes" in limited.content.decode()
    assert RosterUpload.objects.count() == 3 and len(mailoutbox) == 3
    RosterUpload.objects.update(created_at=timezone.now() - timedelta(minutes=11))
    assert upload(client, "username,email\nd,d@school.example\n").status_code == 302


def test_invite_link_joins_are_limited_per_person_and_hour(client, outsider):
    client.force_login(outsider)
    courses = [Course.objects.create(slug=f"c{n}", title=f"C{n}") for n in range(JOINS_PER_HOUR + 1)]
    for joined in courses[:-1]:
        assert client.post(f"/courses/join/{joined.invite_code}/").status_code == 302
    refused = client.post(f"/courses/join/{courses[-1].invite_code}/")
    assert (
        refused.status_code == 429
        and f"You joined {JOINS_PER_HOUR} courses in the last hour" in refused.content.decode()
    )
    assert courses[-1].membership_of(outsider) is None
    assert client.post(f"/courses/join/{courses[0].invite_code}/").status_code == 302  # a member already: no new join
    Membership.objects.update(joined_at=timezone.now() - timedelta(hours=2))
    assert client.post(f"/courses/join/{courses[-1].invite_code}/").status_code == 302


class FailingOnce(MemoryBackend):
    """The outbox in memory, but the first connection to send fails (an SMTP server down)."""

    failed = False

    def send_messages(self, messages: Any) -> int:
        if not FailingOnce.failed:
            FailingOnce.failed = True
            raise ConnectionRefusedError("the mail server is down")
        return super().send_messages(messages)


def test_a_failed_run_says_so_and_resumes_without_inviting_or_emailing_twice(client, course, owner, settings):
    settings.EMAIL_BACKEND = "tests.webapp.courses.test_enrolment.FailingOnce"
    mail.outbox = []
    FailingOnce.failed = False
    rows = "".join(f"s{n},s{n}@school.example\n" for n in range(ROSTER_BATCH * 2 + 50))
    client.force_login(owner)
    assert upload(client, "username,email\n" + rows).status_code == 302
    run_courses_tasks()
    stopped = RosterUpload.objects.get()
    assert stopped.status == "failed" and "the mail server is down" in stopped.error
    assert stopped.done == ROSTER_BATCH  # the first batch was kept; its emails are still to send
    page = client.get("/courses/jax-101/roster/").content.decode()
    assert f"stopped after {ROSTER_BATCH} of {stopped.total} rows" in page and ">Resume</button>" in page
    assert client.post(f"/courses/jax-101/roster/uploads/{stopped.pk}/resume/").status_code == 302
    run_courses_tasks()
    done = RosterUpload.objects.get()
    assert (done.status, done.done, done.accounts_made) == ("done", done.total, done.total)
    assert Invitation.objects.count() == done.total and not Invitation.objects.filter(sent_at=None).exists()
    recipients = [m.to[0] for m in mail.outbox]
    assert len(recipients) == len(set(recipients)) == done.total
    assert client.post(f"/courses/jax-101/roster/uploads/{stopped.pk}/resume/").status_code == 409
    progress = client.get(f"/courses/jax-101/roster/uploads/{stopped.pk}/").json()
    assert (progress["status"], progress["done"], progress["total"]) == ("done", done.total, done.total)


# -- attack 6: a big roster while others work (on SQLite here, on PostgreSQL in tests/postgres.py)


# Enough batches to watch them commit one by one; the 10,000-row case is timed in
# ``bench.roster_enrolment``, not here.
BIG_ROSTER = 3_000


@pytest.mark.django_db(transaction=True)
def test_a_big_roster_is_invited_in_short_batches_while_another_student_saves_drafts(catalog, mailoutbox):
    """The old upload wrote a roster in one request's transaction (10,000 rows: 24 s on SQLite),
    and another student's draft save failed waiting for the lock. Now the request only keeps
    the file; the worker commits batch by batch, visible from another connection as it goes."""
    course = Course.objects.create(slug="big", title="Big course")
    grace = User.objects.create_user("grace", password=PASSWORD)
    Membership.objects.create(course=course, user=grace, role=Membership.Role.INSTRUCTOR)
    ada = User.objects.create_user("ada", password=PASSWORD)
    problem = Problem.objects.first()
    assert problem is not None
    text = "username,email\n" + "".join(f"student{n:05d},student{n:05d}@school.example\n" for n in range(BIG_ROSTER))
    teacher = Client()
    teacher.force_login(grace)
    response = upload(teacher, text, slug="big")
    assert response.status_code == 302
    assert not Invitation.objects.exists()  # the request returned before any invitation was made
    uploaded = RosterUpload.objects.get()

    finished = threading.Event()
    errors: list[BaseException] = []

    def worker() -> None:
        try:
            run_courses_tasks()
        except BaseException as exc:
            errors.append(exc)
        finally:
            connection.close()
            finished.set()

    saves: list[int] = []

    def drafts() -> None:
        student = Client()
        student.force_login(ada)
        try:
            while not finished.is_set():
                saves.append(
                    student.post(f"/problems/{problem.slug}/draft/", {"code": f"x = {len(saves)}\n"}).status_code
                )
                time.sleep(0.05)
        finally:
            connection.close()

    threads = [threading.Thread(target=worker), threading.Thread(target=drafts)]
    for thread in threads:
        thread.start()
    seen: set[int] = set()
    while not finished.is_set():  # from this test's own connection, while the worker runs
        seen.add(Invitation.objects.filter(course=course).count())
        time.sleep(0.02)
    for thread in threads:
        thread.join(timeout=600)
    assert not errors, errors
    done = RosterUpload.objects.get(pk=uploaded.pk)
    assert (done.status, done.done, done.accounts_made) == ("done", BIG_ROSTER, BIG_ROSTER), done.error
    assert any(0 < count < BIG_ROSTER for count in seen), sorted(seen)[:10]  # batches committed as they went
    assert len(saves) >= 3 and set(saves) == {204}, saves  # every draft save went through
    assert Draft.objects.get(user=ada, problem=problem).code.startswith("x = ")
    assert len(mailoutbox) == BIG_ROSTER and Membership.objects.filter(course=course).count() == 1
