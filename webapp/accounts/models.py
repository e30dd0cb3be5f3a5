"""What the site keeps of an account beyond Django's user: the reader's time zone.

Every time the site shows or reads from a form is in the reader's zone (``webapp.accounts.clock``).
An account without a profile reads in UTC until it chooses a zone.
"""

from __future__ import annotations

import zoneinfo
from functools import cache

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.core.exceptions import ValidationError
from django.db import models

DEFAULT_TIME_ZONE = "UTC"


@cache
def time_zone_names() -> frozenset[str]:
    """The IANA zones this machine knows ("Europe/Paris", "America/New_York", "UTC", ...)."""
    return frozenset(zoneinfo.available_timezones())


def validate_time_zone(name: str) -> None:
    if name not in time_zone_names():
        raise ValidationError(f"{name!r} is not a time zone; choose one such as Europe/Paris or America/New_York.")


class Profile(models.Model):
    """One account's settings: for now its time zone, taken from the browser at sign-up."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="profile")
    time_zone = models.CharField(
        max_length=64,
        default=DEFAULT_TIME_ZONE,
        validators=[validate_time_zone],
        help_text="Every time on the site is shown, and typed, in this zone.",
    )

    def __str__(self) -> str:
        return f"{self.user} ({self.time_zone})"

    @classmethod
    def time_zone_of(cls, user: AbstractBaseUser | AnonymousUser) -> str:
        """The zone ``user`` reads in: their profile's, or UTC (visitors, accounts without one)."""
        if not user.is_authenticated:
            return DEFAULT_TIME_ZONE
        name = cls.objects.filter(user_id=user.pk).values_list("time_zone", flat=True).first()
        return name if name in time_zone_names() else DEFAULT_TIME_ZONE

    @classmethod
    def set_time_zone(cls, user: AbstractBaseUser, name: str) -> None:
        validate_time_zone(name)
        cls.objects.update_or_create(user_id=user.pk, defaults={"time_zone": name})
