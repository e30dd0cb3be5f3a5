from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "webapp.accounts"
    label = "accounts"

    def ready(self) -> None:
        # Every admin page's times in the reader's zone, saying which: the admin has found every
        # app's model admins by now (``django.contrib.admin`` comes first in INSTALLED_APPS).
        from django.contrib import admin

        from webapp.accounts.admin import zone_every_admin

        zone_every_admin(admin.site)
