from django.contrib import admin

from webapp.catalog.models import Problem


@admin.register(Problem)
class ProblemAdmin(admin.ModelAdmin):
    list_display = ("slug", "title", "difficulty", "category", "updated_at")
    list_filter = ("difficulty", "category")
    search_fields = ("slug", "title")
