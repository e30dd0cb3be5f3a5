"""One clock: each account's time zone, taken from the browser at sign-up and changed on the
account page; every time typed into a form (the admin's included) or shown on a page is in the
reader's zone, and says which."""

from __future__ import annotations

import re
import zoneinfo
from datetime import UTC, datetime

import pytest
from django.contrib import admin
from django.contrib.auth.models import User
from django.urls import reverse
from django.utils import timezone

from tests.webapp.support.course_week import DUE, hand_in, week_one
from tests.webapp.support.people import PASSWORD, signed_in
from webapp.accounts.admin import ZonedTimes
from webapp.accounts.models import Profile
from webapp.courses.models import Assignment, Course, Extension

pytestmark = pytest.mark.django_db

NEW_ACCOUNT = {"username": "grace", "password1": "compile-ahead-1", "password2": "compile-ahead-1"}


@pytest.fixture
def assignment(course: Course, catalog: None) -> Assignment:
    return week_one(course)


def visible_text(page: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page))


def test_sign_up_keeps_the_zone_the_browser_gave(client):
    form = client.get(reverse("signup")).content.decode()
    assert re.search(r'<input type="hidden" name="time_zone"[^>]*data-browser-time-zone', form)
    assert "jaxjudge/browser_zone" in form  # the script that fills it in

    response = client.post(reverse("signup"), {**NEW_ACCOUNT, "time_zone": "Europe/Paris"})
    assert response.status_code == 302
    assert Profile.time_zone_of(User.objects.get(username="grace")) == "Europe/Paris"


def test_sign_up_without_scripts_reads_in_utc(client):
    assert client.post(reverse("signup"), {**NEW_ACCOUNT, "time_zone": ""}).status_code == 302
    assert Profile.objects.get(user__username="grace").time_zone == "UTC"


def test_a_zone_this_site_does_not_know_is_refused_with_a_list_to_choose_from(client):
    response = client.post(reverse("signup"), {**NEW_ACCOUNT, "time_zone": "Mars/Olympus_Mons"})
    page = response.content.decode()
    assert response.status_code == 200
    assert not User.objects.filter(username="grace").exists()
    assert "Your browser&#x27;s time zone &#x27;Mars/Olympus_Mons&#x27; is not a time zone this site knows" in page
    # The field is now a list of zones, not the hidden field the script fills again.
    assert re.search(r'<select name="time_zone"', page)
    assert '<option value="Europe/Paris">Paris</option>' in page


def test_the_account_page_changes_the_zone(client, django_user_model):
    ada = django_user_model.objects.create_user("ada", password=PASSWORD)
    signed_in(ada, client)
    page = client.get(reverse("account")).content.decode()
    # An account from before time zones: UTC, and the page says it was never chosen.
    assert "You have not chosen a time zone" in page
    assert '<option value="UTC" selected>UTC</option>' in page
    assert '<optgroup label="America">' in page

    response = client.post(reverse("account"), {"time_zone": "America/New_York"})
    assert response.status_code == 302
    assert Profile.time_zone_of(ada) == "America/New_York"
    page = client.get(reverse("account")).content.decode()
    assert "Times are now shown in America/New_York." in page
    assert '<option value="America/New_York" selected>New York</option>' in page

    refused = client.post(reverse("account"), {"time_zone": "Europe/Atlantis"})
    assert "The time zone &#x27;Europe/Atlantis&#x27; is not a time zone this site knows" in refused.content.decode()
    assert Profile.time_zone_of(ada) == "America/New_York"


def test_the_account_page_is_for_the_signed_in(client):
    assert reverse("login") in client.get(reverse("account"))["Location"]


def test_every_page_links_to_the_account_page(student_client):
    assert f'href="{reverse("account")}"' in student_client.get("/").content.decode()


def test_a_due_time_typed_in_the_admin_by_a_paris_reader_is_paris_time(client, course):
    paris = User.objects.create_superuser("root", password=PASSWORD)
    Profile.set_time_zone(paris, "Europe/Paris")
    signed_in(paris, client)
    form = client.get("/admin/courses/assignment/add/").content.decode()
    assert re.search(r"Due at \(Europe/Paris\):?</label>", form)
    assert re.search(r"Release at \(Europe/Paris\):?</label>", form)

    response = client.post(
        "/admin/courses/assignment/add/",
        {
            "course": course.pk,
            "slug": "week-1",
            "title": "Week 1",
            **{"release_at_0": "2026-11-20", "release_at_1": "09:00:00"},
            **{"due_at_0": "2026-11-28", "due_at_1": "23:59:00"},
            "late_policy": "none",
            "penalty_percent_per_day": 10,
            "grace_minutes": 5,
            **{"items-TOTAL_FORMS": 0, "items-INITIAL_FORMS": 0},
        },
    )
    assert response.status_code == 302, response.content.decode()[:3000]
    # 23:59 in Paris in November (CET, UTC+1) is 22:59 UTC.
    assert Assignment.objects.get().due_at == datetime(2026, 11, 28, 22, 59, tzinfo=UTC)
    listed = client.get("/admin/courses/assignment/").content.decode()
    assert re.search(
        r"<time datetime=\"2026-11-28T22:59:00\+00:00\" title=\"Europe/Paris\">2026-11-28 23:59:00 CET</time>", listed
    )


def test_the_admin_shows_a_record_s_times_read_only_in_the_reader_s_zone(client, assignment, course_student):
    reader = User.objects.create_superuser("root", password=PASSWORD)
    Profile.set_time_zone(reader, "Asia/Kolkata")
    extension = Extension.objects.create(assignment=assignment, user=course_student, due_at=DUE, reason="ill")
    page = signed_in(reader, client).get(f"/admin/courses/extension/{extension.pk}/change/").content.decode()
    granted = extension.granted_at.astimezone(UTC).isoformat()
    assert re.search(rf'<time datetime="{re.escape(granted)}" title="Asia/Kolkata">[-\d]+ [:\d]+ IST</time>', page)
    # The due time stays a field to change, named with the zone; the date and time in it are Kolkata's.
    assert re.search(r"Due at \(Asia/Kolkata\):?</label>", page)
    assert 'value="2026-09-09"' in page and 'value="05:29:00"' in page


def test_every_admin_page_of_the_site_says_the_zone():
    assert [
        model for model, model_admin in admin.site._registry.items() if not isinstance(model_admin, ZonedTimes)
    ] == []


def test_pages_show_times_in_the_reader_s_zone_and_say_which(client, assignment, course_student):
    Profile.set_time_zone(course_student, "America/New_York")
    signed_in(course_student, client)
    course_page = visible_text(client.get(f"/courses/{assignment.course.slug}/").content.decode())
    assert "2026-09-08 19:59 EDT" in course_page  # 23:59 UTC, New York in summer time

    handed_in = hand_in(course_student, "batched_dot", DUE, 100.0)
    page = client.get(f"/submissions/{handed_in.pk}/").content.decode()
    assert '<time datetime="2026-09-08T23:59:00+00:00" title="America/New_York">2026-09-08 19:59:00 EDT</time>' in page
    status = client.get(f"/submissions/{handed_in.pk}/status/", HTTP_ACCEPT="application/json").json()
    created = handed_in.created_at.astimezone(UTC)
    assert status["time_zone"] == "America/New_York"
    assert status["created_at_text"].endswith((" EDT", " EST")) and created.isoformat() == status["created_at"]


def test_an_extension_names_its_due_time_in_the_reader_s_zone(assignment, course_student):
    extension = Extension(assignment=assignment, user=course_student, due_at=DUE, reason="ill")
    assert "until 2026-09-08 23:59 UTC" in str(extension)
    with timezone.override(zoneinfo.ZoneInfo("Europe/Paris")):
        assert "until 2026-09-09 01:59 CEST" in str(extension)
