"""Static files: linked under names that carry their content's hash, sent compressed and kept by
browsers for a year; collected again when a source changes."""

from __future__ import annotations

import os
import re
import time

import pytest
from django.templatetags.static import static
from django.test import Client, override_settings

from webapp import static_files

pytestmark = pytest.mark.django_db

YEAR_S = 365 * 24 * 3600


def linked_static(page: str) -> list[str]:
    return re.findall(r'(?:href|src)="(/static/[^"]+)"', page)


def test_pages_link_hashed_names_sent_compressed_and_cached_for_a_year(client: Client, catalog: None) -> None:
    links = linked_static(client.get("/problems/aot_compiled_sum/").content.decode())
    assert any("site." in link and link.endswith(".css") for link in links), links
    for link in links:
        assert re.search(r"\.[0-9a-f]{12}\.(css|js)$", link), f"{link} is not a hashed name"
        response = client.get(link, headers={"accept-encoding": "gzip, br"})
        assert response.status_code == 200, link
        assert response["Content-Encoding"] == "br", link
        cache = response["Cache-Control"]
        max_age = re.search(r"max-age=(\d+)", cache)
        assert "immutable" in cache and max_age and int(max_age.group(1)) >= YEAR_S, cache
        gzip = client.get(link, headers={"accept-encoding": "gzip"})
        assert gzip["Content-Encoding"] == "gzip"
        assert int(gzip["Content-Length"]) > int(response["Content-Length"])


def test_pages_themselves_are_sent_compressed(client: Client, catalog: None) -> None:
    response = client.get("/", headers={"accept-encoding": "gzip"})
    assert response["Content-Encoding"] == "gzip"


def test_the_editor_never_collected_is_linked_by_its_plain_name_and_any_other_file_is_an_error() -> None:
    # The editor bundle before npm has built it: the page falls back to its textarea.
    assert static("editor/not-built-yet.js") == "/static/editor/not-built-yet.js"
    with pytest.raises(ValueError, match="manifest"):
        static("jaxjudge/no-such-file.css")  # a mistake in a template is not hidden


def test_a_changed_source_is_collected_again(tmp_path) -> None:
    source, root = tmp_path / "static", tmp_path / "collected"
    (source / "jaxjudge").mkdir(parents=True)
    style = source / "jaxjudge" / "site.css"
    style.write_text("body { color: black; }\n")
    # Only this folder (not the admin's files too), so that the test compresses one file.
    only_source = ["django.contrib.staticfiles.finders.FileSystemFinder"]
    with override_settings(STATICFILES_DIRS=[source], STATIC_ROOT=root, STATICFILES_FINDERS=only_source):
        assert not static_files.collected()
        static_files.collect_if_stale()
        assert static_files.collected()
        first = sorted(path.name for path in (root / "jaxjudge").glob("site.*.css"))
        # Collected a while ago; the source changed since.
        earlier = time.time() - 10
        os.utime(root / static_files.MANIFEST, (earlier, earlier))
        style.write_text("body { color: navy; }\n")
        assert not static_files.collected()
        static_files.collect_if_stale()
        assert static_files.collected()
        second = sorted(path.name for path in (root / "jaxjudge").glob("site.*.css"))
    assert first != second and len(second) == 1  # a new name for the new content, the old one gone
