"""Static files as the site serves them: collected once under names that carry a hash of their
content, each compressed beside itself (gzip and brotli), so whitenoise can let browsers keep
them for a year (a new content is a new name) and send the smallest encoding a browser takes."""

from __future__ import annotations

import fcntl
from pathlib import Path

from django.conf import settings
from django.core.management import call_command
from whitenoise.storage import CompressedManifestStaticFilesStorage

MANIFEST = "staticfiles.json"


# Built by npm rather than kept in the repository: a page must render without them.
OPTIONAL = ("editor/",)


class StaticFiles(CompressedManifestStaticFilesStorage):
    """The manifest storage, except that an optional file it never collected is linked by its
    plain name: without the editor bundle the page still works (a plain textarea), so its link
    answers 404 rather than the page failing to render. Any other file missing from the
    manifest is an error, as with Django's own storage.
    """

    def stored_name(self, name: str) -> str:
        try:
            return super().stored_name(name)
        except ValueError:
            if name.startswith(OPTIONAL):
                return name
            raise


def sources() -> list[Path]:
    return [path for folder in settings.STATICFILES_DIRS for path in Path(folder).rglob("*") if path.is_file()]


def collected() -> bool:
    """Whether the collected files are there and newer than every file they were made from."""
    manifest = Path(settings.STATIC_ROOT) / MANIFEST
    if not manifest.exists():
        return False
    made = manifest.stat().st_mtime
    return all(path.stat().st_mtime <= made for path in sources())


def collect_if_stale() -> None:
    """Run collectstatic when the collected files are missing or older than their sources.

    ``make setup`` collects them before anything starts; this serves a site started some other
    way, and the tests. A lock keeps two processes starting at once (two test sites, say) from
    writing the same files together.
    """
    root = Path(settings.STATIC_ROOT)
    root.mkdir(parents=True, exist_ok=True)
    with open(root.parent / f".{root.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not collected():
            call_command("collectstatic", interactive=False, clear=True, verbosity=0)
