"""Every time on every page is in the reader's zone and says which.

Each page the site serves (the access test's cases, ``tests/webapp/site/test_access.py``, and a
few more with times on them) is read as each role, each reading in a zone of their own, over a
course with hand-ins, an assignment past its due time (one hand-in within its grace), a regrade,
a roster upload, an extension, an override, an invitation and LTI links; so are the admin's
change lists, change forms and add forms of every model. A page fails where its visible text has
a time of day that does not say the reader's zone:

- a ``<time>`` element (``{{ when|moment }}``) must end with the reader's zone label and be
  titled with the zone's name;
- elsewhere a time is let through only as ``clock.moment`` writes it, followed by the label (a
  page's title, a record's name in the admin's breadcrumbs, a list's option: no element fits
  there);
- code (``pre``, ``code``, ``textarea``) and scripts are not prose: ``x[1:10]`` is no time.

Every date-time field of a form (the admin's split date and time, a ``datetime-local`` input)
names the zone in its label or its help.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import timedelta
from html.parser import HTMLParser
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from django.contrib import admin
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from lti_tool.models import LtiContext, LtiDeployment, LtiRegistration, LtiResourceLink

from tests.webapp.site.test_access import CASES
from tests.webapp.support.access_world import SLUG, World, accepted_work, person
from tests.webapp.support.people import signed_in, submission_of
from webapp.accounts.clock import zone_label
from webapp.accounts.models import Profile
from webapp.catalog.models import Problem
from webapp.courses.access import INSTRUCTOR, OTHER_INSTRUCTOR, SITE_STAFF, STUDENT, TA
from webapp.courses.models import (
    Assignment,
    AssignmentProblem,
    Extension,
    Invitation,
    Override,
    RosterUpload,
)
from webapp.lti.models import AssignmentLink, CourseLink, PlatformAccount, PlatformPolicy, ScorePublication
from webapp.submissions.models import Draft, Progress, Submission, Worker

pytestmark = pytest.mark.django_db

# Each role reads in a zone of its own: with an abbreviation and summer time (Paris, New York,
# Sydney), with an abbreviation and no summer time (Kolkata: "IST"), without an abbreviation
# (São Paulo: "UTC-03:00"); the visitor and an account from before time zones (no profile), UTC.
ZONES = {
    INSTRUCTOR: "Europe/Paris",
    TA: "America/Sao_Paulo",
    STUDENT: "America/New_York",
    SITE_STAFF: "Asia/Kolkata",
    OTHER_INSTRUCTOR: "Australia/Sydney",
}

TIME_OF_DAY = re.compile(r"(?<![\d:])\d{1,2}:\d{2}(?::\d{2})?(?![\d:])")
NOT_PROSE = frozenset({"script", "style", "pre", "code", "textarea", "template"})
VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"})


def labels_of(zone: str) -> set[str]:
    """The labels ``clock.zone_label`` gives times in ``zone`` over a year: summer's and winter's."""
    now = timezone.now()
    return {zone_label((now + timedelta(days=day)).astimezone(ZoneInfo(zone))) for day in range(0, 366, 15)}


@dataclass
class Element:
    tag: str
    id: str
    label_for: str  # a <label>'s ``for``
    text: list[str] = field(default_factory=list)
    labels: list[str] = field(default_factory=list)  # the text of each <label> ended inside it


@dataclass
class DateField:
    """A date-time input, and what names it: its label (by ``for``, or the nearest before it in
    the same container: the admin's split date and time), or, in a table's cell (the admin's
    tabular inline), its table's heads; and its help, by ``aria-describedby``."""

    name: str
    label: str
    described_by: list[str]


class Reading(HTMLParser):
    """A page's visible text (outside code and scripts), its ``<time>`` elements apart, and its
    date-time inputs with what names them."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.open: list[Element] = []
        self.prose: list[str] = []
        self.times: list[tuple[dict[str, str | None], list[str]]] = []  # each <time>'s attributes and text
        self.text_of: dict[str, str] = {}  # an element's text, by its id
        self.label_for: dict[str, str] = {}  # a <label for=...>'s text, by the id it names
        self.inputs: list[tuple[dict[str, str | None], str]] = []  # a date-time input and the label found

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        if tag == "input" and (
            attributes.get("type") == "datetime-local" or "vDateField" in (attributes.get("class") or "")
        ):
            self.inputs.append((attributes, self.label_before()))
        if tag in VOID:
            return
        if tag == "time":
            self.times.append((attributes, []))
        self.open.append(Element(tag, attributes.get("id") or "", attributes.get("for") or ""))

    def label_before(self) -> str:
        for element in reversed(self.open):
            if element.tag == "td":
                table = next(outer for outer in reversed(self.open) if outer.tag == "table")
                return words(table.text)
            if element.labels:
                return element.labels[-1]
        return ""

    def handle_endtag(self, tag: str) -> None:
        for index in range(len(self.open) - 1, -1, -1):
            if self.open[index].tag == tag:
                for element in self.open[index:]:
                    self.text_of[element.id] = words(element.text)
                ended = self.open[index]
                del self.open[index:]
                if tag == "label":
                    if ended.label_for:
                        self.label_for[ended.label_for] = words(ended.text)
                    for element in self.open:
                        element.labels.append(words(ended.text))
                return

    def handle_data(self, data: str) -> None:
        for element in self.open:
            element.text.append(data)
        tags = {element.tag for element in self.open}
        if tags & NOT_PROSE:
            return
        if "time" in tags:
            self.times[-1][1].append(data)
        else:
            self.prose.append(data)

    def date_fields(self) -> list[DateField]:
        return [
            DateField(
                attributes.get("name") or "",
                self.label_for.get(attributes.get("id") or "", "") or before,
                [self.text_of.get(name, "") for name in (attributes.get("aria-describedby") or "").split()],
            )
            for attributes, before in self.inputs
        ]


def words(parts: list[str]) -> str:
    return " ".join(" ".join(parts).split())


def unlabelled(page: str, zone: str) -> list[str]:
    """What ``page``, read in ``zone``, shows of a time without saying the zone (empty: nothing)."""
    reading = Reading()
    reading.feed(page)
    reading.close()
    labels = labels_of(zone)
    label = "|".join(re.escape(name) for name in sorted(labels))
    said = re.compile(rf"\d{{1,2}}:\d{{2}}(?::\d{{2}})? (?:{label})(?![\w+:-])")
    faults = []
    for attributes, parts in reading.times:
        text = words(parts)
        if not re.search(rf" (?:{label})$", text) or attributes.get("title") != zone:
            faults.append(f"<time title={attributes.get('title')!r}>{text}</time>")
    prose = said.sub("·", words(reading.prose))
    faults += [f"…{prose[max(0, m.start() - 60) : m.end() + 20]}…" for m in TIME_OF_DAY.finditer(prose)]
    for date_field in reading.date_fields():
        if not any(zone in text for text in (date_field.label, *date_field.described_by)):
            faults.append(f"the date-time field {date_field.name!r} labelled {date_field.label!r} does not name {zone}")
    return faults


def test_the_check_finds_an_unlabelled_time_and_lets_a_labelled_one_through():
    zone = "Europe/Paris"
    assert unlabelled('<p>Due <time datetime="x" title="Europe/Paris">2026-11-28 23:59 CET</time>.</p>', zone) == []
    assert unlabelled("<title>Ada until 2026-11-28 23:59 CET</title><pre>x[1:10]</pre>", zone) == []
    assert unlabelled("<p>Due 2026-11-28 23:59.</p>", zone) != []
    assert unlabelled("<p>Due 2026-11-28 23:59 UTC.</p>", zone) != []  # a label, but not the reader's zone
    assert unlabelled('<time title="Europe/Paris">2026-11-28 23:59</time>', zone) != []
    assert unlabelled('<time title="UTC">2026-11-28 23:59 CET</time>', zone) != []
    assert unlabelled('<label for="d_0">Due</label><input class="vDateField" id="d_0">', zone) != []
    assert unlabelled('<label for="d_0">Due (Europe/Paris)</label><input class="vDateField" id="d_0">', zone) == []
    admin_row = '<div><label>Due at{}:</label><p>Date: <input class="vDateField" name="due_at_0"></p></div>'
    assert unlabelled(admin_row.format(" (Europe/Paris)"), zone) == []
    assert unlabelled("<label>Title (Europe/Paris)</label>" + admin_row.format(""), zone) != []
    inline = '<table><tr><th>Created{}</th></tr><tr><td><input class="vDateField" name="x-0-c_0"></td></tr></table>'
    assert unlabelled(inline.format(" (Europe/Paris)"), zone) == []
    assert unlabelled(inline.format(""), zone) != []
    helped = '<label for="d">Due</label><input type="datetime-local" id="d" aria-describedby="h"><p id="h">{}</p>'
    assert unlabelled(helped.format("In Europe/Paris."), zone) == []
    assert unlabelled(helped.format("In your zone."), zone) != []


def times_on_pages(world: World) -> dict[str, Any]:
    """Records with times around JAX 101 for the pages to show: an assignment past its due time
    with a hand-in within its grace and one after it, an extension, an override, a roster upload,
    an invitation, a revealed solution, a draft, a worker, a queued regrade and LTI links."""
    now, ada, grace = world.now, person(world, STUDENT), person(world, INSTRUCTOR)
    past = Assignment.objects.create(
        course=world.course,
        slug="week-0",
        title="Week 0",
        release_at=now - timedelta(days=14),
        due_at=now - timedelta(days=2),
        late_policy=Assignment.LatePolicy.PENALTY_PER_DAY,
        grace_minutes=5,
    )
    AssignmentProblem.objects.create(assignment=past, problem=Problem.objects.get(slug=SLUG), points=10)
    item = AssignmentProblem.objects.create(assignment=past, problem=Problem.objects.get(slug="batched_dot"), points=10)
    within_grace = accepted_work(ada, past.due_at + timedelta(seconds=10), "# ten seconds late\n")
    late = submission_of(
        ada, "batched_dot", verdict="accepted", score=1.0, max_score=1.0, handed_in_at=past.due_at + timedelta(hours=2)
    )
    Extension.objects.create(
        assignment=world.week, user=ada, due_at=world.week.due_at + timedelta(days=2), reason="ill", granted_by=grace
    )
    Override.objects.create(item=item, user=ada, points=8, reason="by hand", created_by=grace)
    RosterUpload.objects.create(course=world.course, uploaded_by=grace, status=RosterUpload.Status.DONE, total=1)
    Invitation.objects.create(
        course=world.course, username="invited", email="invited@school.example", expires_at=now + timedelta(days=7)
    )
    Progress.objects.update_or_create(
        user=ada, problem=Problem.objects.get(slug=SLUG), defaults={"solution_viewed_at": now - timedelta(hours=3)}
    )
    Draft.objects.create(user=ada, problem=Problem.objects.get(slug=SLUG), code="x = 1\n", updated_at=now)
    Worker.objects.create(name="worker-1", queue="default", started_at=now, beat_at=now)
    Submission.regrade(Submission.objects.filter(pk=submission_of(ada, SLUG, verdict="accepted").pk))  # a task row
    registration = LtiRegistration.objects.create(
        name="Canvas",
        issuer="https://canvas.example",
        client_id="jaxjudge",
        auth_url="https://canvas.example/auth",
        token_url="https://canvas.example/token",
        keyset_url="https://canvas.example/keys",
    )
    PlatformPolicy.objects.create(registration=registration)
    deployment = LtiDeployment.objects.create(registration=registration, deployment_id="1")
    context = LtiContext.objects.create(deployment=deployment, id_on_platform="course-1", title="JAX 101")
    CourseLink.objects.create(context=context, course=world.course, roster_synced_at=now)
    link = AssignmentLink.objects.create(
        resource_link=LtiResourceLink.objects.create(context=context, id_on_platform="link-1"), assignment=past
    )
    account = PlatformAccount.objects.create(deployment=deployment, sub="sub-1", user=ada, launch_window_at=now)
    ScorePublication.objects.create(
        assignment_link=link, platform_account=account, score_given=8, score_maximum=20, status="sent"
    )
    return {"past": past, "within_grace": within_grace, "late": late}


def pages(world: World, extra: dict[str, Any]) -> list[str]:
    """Every page a GET reaches (the access test's, whatever each role gets) and those that show
    the past assignment, its hand-ins and its problems."""
    paths = [case.path(world) for cases in CASES.values() for case in cases if case.method == "get"]
    past, within_grace, late = extra["past"], extra["within_grace"], extra["late"]
    return [
        *paths,
        reverse("account"),
        f"/courses/jax-101/{past.slug}/",
        f"/courses/jax-101/{past.slug}/?student=ada",
        f"/courses/jax-101/gradebook/?assignment={past.slug}",
        f"/courses/jax-101/submissions/{within_grace.pk}/",
        f"/submissions/{within_grace.pk}/",
        f"/submissions/{late.pk}/",
        f"/problems/{SLUG}/?assignment={past.reference}",
        f"/problems/batched_dot/?assignment={past.reference}",
        f"/problems/{SLUG}/solution/?assignment={past.reference}",
    ]


def admin_pages() -> list[str]:
    """Each admin model's change list, add form, and change form of each of its records."""
    found = []
    for model in admin.site._registry:
        info = (model._meta.app_label, model._meta.model_name)
        found += [reverse("admin:{}_{}_changelist".format(*info)), reverse("admin:{}_{}_add".format(*info))]
        found += [
            reverse("admin:{}_{}_change".format(*info), args=[pk])
            for pk in model._default_manager.values_list("pk", flat=True)[:3]
        ]
    return found


def read(client: Client, path: str) -> str | None:
    response = client.get(path)
    if response.status_code != 200 or not response["Content-Type"].startswith("text/html"):
        return None
    return response.content.decode()


def test_every_time_on_every_page_says_the_reader_s_zone(world: World):
    extra = times_on_pages(world)
    for role, zone in ZONES.items():
        Profile.set_time_zone(person(world, role), zone)
    read_pages = 0
    faults: dict[tuple[str, str], list[str]] = {}
    for role, user in world.people.items():
        zone = ZONES.get(role, "UTC")
        client = signed_in(user)
        for path in [*pages(world, extra), *(admin_pages() if role in (SITE_STAFF, INSTRUCTOR) else [])]:
            page = read(client, path)
            if page is None:
                continue
            read_pages += 1
            if found := unlabelled(page, zone):
                faults[role, path] = found
    assert faults == {}, "\n".join(f"{role} {path}: {found}" for (role, path), found in faults.items())
    assert read_pages > 150  # the walk reached the pages, not only refusals


def test_an_account_without_a_profile_reads_utc_labelled(world: World):
    times_on_pages(world)
    ada = person(world, STUDENT)
    assert not Profile.objects.filter(user=ada).exists()
    for path in (f"/submissions/{world.work.pk}/", "/courses/jax-101/", "/courses/jax-101/week-0/"):
        page = read(signed_in(ada), path)
        assert page is not None and "UTC</time>" in page and unlabelled(page, "UTC") == [], path


def test_a_hand_in_within_the_grace_shows_its_seconds_and_its_note(world: World):
    extra = times_on_pages(world)
    ada = person(world, STUDENT)
    Profile.set_time_zone(ada, "America/New_York")
    page = read(signed_in(ada), "/courses/jax-101/week-0/")
    assert page is not None
    handed_in = timezone.localtime(extra["within_grace"].handed_in, ZoneInfo("America/New_York"))
    assert handed_in.strftime("%Y-%m-%d %H:%M:%S ") + zone_label(handed_in) in page
    assert "anded in 10 s after the due time, within the 5-minute grace: full credit" in page
