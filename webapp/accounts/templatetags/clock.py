"""``{% load clock %}``: times in a page, in the reader's zone and saying which (``webapp.accounts.clock``).

``{{ when|moment }}`` is to the minute; ``{{ when|moment:"seconds" }}`` to the second;
``{% moment_near when due_at %}`` to the second only when the two are within a minute of each
other (a hand-in near its due time). Each is a ``<time>`` element whose ``datetime`` is the
instant in UTC and whose title names the zone.
"""

from __future__ import annotations

from datetime import datetime

from django import template
from django.utils.safestring import SafeString

from webapp.accounts.clock import active_zone_name, time_html
from webapp.accounts.clock import moment as moment_text

register = template.Library()


@register.filter
def moment(when: datetime | None, precision: str = "") -> SafeString | str:
    if when is None:
        return ""
    return time_html(when, moment_text(when, seconds=precision == "seconds"))


@register.simple_tag
def moment_near(when: datetime | None, near: datetime | None) -> SafeString | str:
    if when is None:
        return ""
    return time_html(when, moment_text(when, near=near))


@register.simple_tag
def zone_name() -> str:
    """The reader's zone, for a form's label ("due time, Europe/Paris")."""
    return active_zone_name()
