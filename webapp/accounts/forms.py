"""The accounts' forms: signing up (with the browser's time zone) and choosing one's time zone."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django import forms
from django.contrib.auth.forms import UserCreationForm
from django.contrib.auth.models import User

from webapp.accounts.models import DEFAULT_TIME_ZONE, Profile, time_zone_names

# The regions a person finds their zone under; other names (US/Eastern, Etc/GMT+5, EST5EDT) stay
# valid, and a profile holding one keeps it in its list, but they would only lengthen the list.
REGIONS = ("Africa", "America", "Antarctica", "Arctic", "Asia", "Atlantic", "Australia", "Europe", "Indian", "Pacific")


def time_zone_choices(current: str = "") -> list[tuple[str, Any]]:
    """The zones by region, each region's sorted, for a select: ``("Europe", [("Europe/Paris",
    "Paris"), ...])``, UTC first; ``current`` is among them whatever region it is in."""
    by_region: dict[str, list[tuple[str, str]]] = {}
    for name in sorted(time_zone_names()):
        region, _, place = name.partition("/")
        if region in REGIONS and place:
            by_region.setdefault(region, []).append((name, place.replace("_", " ")))
    choices: list[tuple[str, Any]] = [(DEFAULT_TIME_ZONE, DEFAULT_TIME_ZONE)]
    listed = {name for places in by_region.values() for name, _ in places}
    if current and current != DEFAULT_TIME_ZONE and current not in listed:
        choices.append((current, current))
    return choices + [(region, by_region[region]) for region in sorted(by_region)]


def checked_time_zone(name: str, *, said_by: str) -> str:
    """``name`` if it is a zone this site knows, else a ``ValidationError`` naming it."""
    if name not in time_zone_names():
        raise forms.ValidationError(
            f"{said_by} {name[:64]!r} is not a time zone this site knows; choose yours in the list "
            "(such as Europe/Paris or America/New_York).",
            code="unknown_time_zone",
        )
    return name


class SignUpForm(UserCreationForm[User]):
    """Django's sign-up, and the zone the browser is in (``Intl``'s, filled in by the page's
    script), kept on the account's profile: every time on the site is then in it. Without
    scripts the field is empty and the account reads in UTC until its owner chooses."""

    time_zone = forms.CharField(
        widget=forms.HiddenInput(attrs={"data-browser-time-zone": ""}), required=False, max_length=64
    )

    def clean_time_zone(self) -> str:
        name = (self.cleaned_data.get("time_zone") or "").strip() or DEFAULT_TIME_ZONE
        try:
            return checked_time_zone(name, said_by="Your browser's time zone")
        except forms.ValidationError:
            # Shown as a list to choose from, since the browser's own answer was refused (an
            # older zone database here than in the browser, or a page that was tampered with).
            self.fields["time_zone"].widget = forms.Select(choices=time_zone_choices())
            self.fields["time_zone"].label = "Time zone"
            raise

    def save(self, commit: bool = True) -> User:
        user = super().save(commit=commit)
        if commit:
            Profile.set_time_zone(user, self.cleaned_data["time_zone"])
        return user


class TimeZoneForm(forms.Form):
    """The account page's one setting: the zone every time on the site is shown and typed in."""

    # Any zone this site knows is taken (``clean_time_zone``), listed or not.
    time_zone = forms.CharField(
        label="Time zone",
        help_text="Every time on the site is shown, and typed in forms, in this zone.",
        max_length=64,
        widget=forms.Select,
    )

    def __init__(self, data: Mapping[str, Any] | None = None, *, current: str) -> None:
        super().__init__(data, initial={"time_zone": current})
        widget = self.fields["time_zone"].widget
        assert isinstance(widget, forms.Select)
        widget.choices = time_zone_choices(current)

    def clean_time_zone(self) -> str:
        return checked_time_zone(self.cleaned_data["time_zone"], said_by="The time zone")
