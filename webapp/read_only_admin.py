"""Admin pages for records nobody writes by hand: derived from other records (a student's
standing), or made by the site itself (the accounts LTI launches made). Staff read them; the
admin offers no add and no change. Deleting stays as each page allows."""

from __future__ import annotations

from typing import Any, Generic, TypeVar

from django.contrib import admin
from django.db.models import Model
from django.http import HttpRequest

M = TypeVar("M", bound=Model)


class ReadOnlyAdmin(admin.ModelAdmin[M], Generic[M]):
    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
