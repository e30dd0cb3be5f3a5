"""One clock: every time the site shows, and every time typed into one of its forms, is in the
reader's own zone (their ``Profile.time_zone``), and says which.

The middleware activates the reader's zone for the request, so Django's forms (the admin's
included) read and show times in it; ``moment`` writes a time for people, with its zone, and
the ``clock`` template library (``{% load clock %}``, ``{{ when|moment }}``) puts it in a page.
"""

from __future__ import annotations

import zoneinfo
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from django.http import HttpRequest, HttpResponse
from django.utils import timezone
from django.utils.html import format_html
from django.utils.safestring import SafeString

from webapp.accounts.models import Profile

# Times this close to one they are compared with (a hand-in and its due time) show their seconds.
SECONDS_SHOWN_WITHIN = timedelta(minutes=1)


class ReaderTimeZoneMiddleware:
    """Activates the signed-in reader's time zone for the request (UTC for visitors)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        user = getattr(request, "user", None)
        name = Profile.time_zone_of(user) if user is not None else "UTC"
        with timezone.override(zoneinfo.ZoneInfo(name)):
            return self.get_response(request)


def zone_label(when: datetime) -> str:
    """The zone a local time is in, as people write it: its abbreviation ("CET", "EST"), or its
    offset where the zone has none ("+0530")."""
    label = when.tzname() or ""
    if not label or label[0] in "+-":
        label = f"UTC{when.strftime('%z')[:3]}:{when.strftime('%z')[3:]}" if when.utcoffset() else "UTC"
    return label


def moment(when: datetime, *, seconds: bool = False, near: datetime | None = None) -> str:
    """``when`` in the active zone, to the minute (or the second, when asked or when it is within
    a minute of ``near``), with its zone: "2026-11-28 23:59 CET"."""
    local = timezone.localtime(when)
    if near is not None and abs(when - near) < SECONDS_SHOWN_WITHIN:
        seconds = True
    return local.strftime("%Y-%m-%d %H:%M:%S" if seconds else "%Y-%m-%d %H:%M") + " " + zone_label(local)


def active_zone_name() -> str:
    """The key of the active zone ("Europe/Paris"): what a form's help text names."""
    return str(timezone.get_current_timezone())


def time_html(when: datetime, text: str) -> SafeString:
    """``text`` (``moment``'s) as a page shows it: a ``<time>`` element whose ``datetime`` is the
    instant in UTC and whose title names the reader's zone."""
    instant = when.astimezone(UTC).isoformat()
    return format_html('<time datetime="{}" title="{}">{}</time>', instant, active_zone_name(), text)


def duration(span: timedelta) -> str:
    """A span as a student reads it, in its largest unit and the next (left out when zero), cut
    short, not rounded: "10 s", "3 min", "5 min 1 s", "2 h 5 min", "1 day 2 h"."""
    seconds = int(span.total_seconds())
    if seconds < 1:
        return "less than 1 s"
    days = seconds // 86400
    units = [(f"{days} day{'s' * (days != 1)}", days), (f"{seconds // 3600 % 24} h", seconds // 3600 % 24)]
    units += [(f"{seconds // 60 % 60} min", seconds // 60 % 60), (f"{seconds % 60} s", seconds % 60)]
    largest = next(index for index, (_, amount) in enumerate(units) if amount)
    return " ".join(text for text, amount in units[largest : largest + 2] if amount)
