"""The clock in the admin: every time on its pages is in the reader's zone and says which.

The middleware (``webapp.accounts.clock``) already makes the admin's forms read and show times in
the reader's zone. ``ZonedTimes`` adds, for every datetime field of a model: its form field's label
names the zone ("Due at (Europe/Paris)"), and where it is shown read only or in a list it is
written by ``clock.moment``, with its zone, in a ``<time>`` element. ``zone_every_admin`` gives it
to every model admin the site registers (its own, Django's and its libraries'), once, when the
apps are ready: no admin class has to remember it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cache
from typing import TYPE_CHECKING, Any

from django.apps import apps
from django.contrib import admin
from django.contrib.admin.options import BaseModelAdmin, InlineModelAdmin
from django.db import models
from django.forms import Field as FormField
from django.http import HttpRequest
from django.utils.safestring import SafeString
from django.utils.text import capfirst

from webapp.accounts.clock import active_zone_name, moment, time_html

if TYPE_CHECKING:
    from django.contrib.admin.options import _FieldsetSpec

Shown = Callable[[models.Model], SafeString | str]


@cache
def zoned(field: models.DateTimeField[Any, Any]) -> Shown:
    """How the admin shows ``field`` of a record: to the second, with its zone. One function per
    field, so that the admin finds it again among the read-only fields."""

    @admin.display(description=capfirst(str(field.verbose_name)), ordering=field.name)
    def shown(record: models.Model) -> SafeString | str:
        when = getattr(record, field.name)
        return time_html(when, moment(when, seconds=True)) if when is not None else "-"

    shown.__name__ = field.name  # the admin's CSS class for the column and the row
    return shown


def datetime_fields(model: type[models.Model]) -> dict[str, models.DateTimeField[Any, Any]]:
    return {field.name: field for field in model._meta.fields if isinstance(field, models.DateTimeField)}


def with_times_zoned(names: Sequence[Any], fields: dict[str, models.DateTimeField[Any, Any]]) -> list[Any]:
    """``names`` (a fieldset's, perhaps with tuples of names on one line) with each of ``fields``
    shown zoned, each name once."""
    seen: set[Any] = set()
    shown: list[Any] = []
    for name in names:
        if isinstance(name, list | tuple):
            line = with_times_zoned(name, fields)
            shown.append(tuple(item for item in line if item not in seen))
            seen.update(line)
            continue
        item = zoned(fields[name]) if isinstance(name, str) and name in fields else name
        if item not in seen:
            seen.add(item)
            shown.append(item)
    return shown


class ZonedTimes(BaseModelAdmin[Any]):
    """A model admin (or inline) whose datetimes say the reader's zone."""

    def formfield_for_dbfield(self, db_field: models.Field[Any, Any], request: HttpRequest, **kwargs: Any) -> Any:
        field: FormField | None = super().formfield_for_dbfield(db_field, request, **kwargs)
        if field is not None and isinstance(db_field, models.DateTimeField):
            field.label = f"{field.label or capfirst(str(db_field.verbose_name))} ({active_zone_name()})"
        return field

    def shown_read_only(self, request: HttpRequest, obj: Any) -> dict[str, models.DateTimeField[Any, Any]]:
        """The datetime fields this request's page shows read only: all of them on a page the
        reader may only view (as Django's change view decides), else the read-only ones."""
        fields = datetime_fields(self.model)
        if obj is not None and not self.has_change_permission(request, obj):
            return fields
        read_only = set(super().get_readonly_fields(request, obj))
        return {name: field for name, field in fields.items() if name in read_only}

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[Any]:
        return with_times_zoned(super().get_readonly_fields(request, obj), self.shown_read_only(request, obj))

    def get_fieldsets(self, request: HttpRequest, obj: Any = None) -> _FieldsetSpec:
        fields = self.shown_read_only(request, obj)
        return [
            (name, {**options, "fields": with_times_zoned(options["fields"], fields)})
            for name, options in super().get_fieldsets(request, obj)
        ]


class ZonedAdmin(ZonedTimes, admin.ModelAdmin[Any]):
    """A model admin: its change list's datetime columns, and its inlines, say the reader's zone too."""

    def get_list_display(self, request: HttpRequest) -> list[Any]:
        return with_times_zoned(super().get_list_display(request), datetime_fields(self.model))

    def get_inlines(self, request: HttpRequest, obj: Any) -> list[type[InlineModelAdmin[Any, Any]]]:
        return [zoned_inline(inline) for inline in super().get_inlines(request, obj)]


class ZonedInline(ZonedTimes, InlineModelAdmin[Any, Any]):
    """An inline of a model admin, with the reader's zone on its times."""


# The classes made once for each admin class, so that each reads as its own (its name, its docs).


@cache
def zoned_admin(cls: type[admin.ModelAdmin[Any]]) -> type[admin.ModelAdmin[Any]]:
    if issubclass(cls, ZonedTimes):
        return cls
    return type(cls.__name__, (ZonedAdmin, cls), {"__module__": cls.__module__, "__doc__": cls.__doc__})


@cache
def zoned_inline(cls: type[InlineModelAdmin[Any, Any]]) -> type[InlineModelAdmin[Any, Any]]:
    if issubclass(cls, ZonedTimes):
        return cls
    return type(cls.__name__, (ZonedInline, cls), {"__module__": cls.__module__, "__doc__": cls.__doc__})


def zone_every_admin(site: admin.AdminSite) -> None:
    """Registers each of ``site``'s model admins again, with the reader's zone on its times."""
    for model in apps.get_models():
        if site.is_registered(model):
            model_admin = site.get_model_admin(model)
            if not isinstance(model_admin, ZonedTimes):
                site.unregister(model)
                site.register(model, zoned_admin(type(model_admin)))
