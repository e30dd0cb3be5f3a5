"""The platforms the LTI tests launch from (Canvas and Moodle, each a real HTTP server), and an
address inside the site's network that a hostile platform would have the tool call."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.webapp.support.loopback_http import InternalService
from tests.webapp.support.lti_platform import Platform


@pytest.fixture(params=["canvas", "moodle"])
def platform(request: pytest.FixtureRequest, live_server: Any) -> Iterator[Platform]:
    with Platform(request.param, live_server.url).serving() as platform:
        platform.register()
        yield platform


@pytest.fixture
def canvas(live_server: Any) -> Iterator[Platform]:
    with Platform("canvas", live_server.url).serving() as platform:
        platform.register()
        yield platform


@pytest.fixture
def internal() -> Iterator[InternalService]:
    with InternalService().serving() as service:
        yield service
