"""``/healthz`` and ``manage.py workerhealth``: what load balancers and container health checks see.

The database going away (503) is tried for real on PostgreSQL in test_scale.py.
"""

from __future__ import annotations

import socket
from datetime import timedelta

import pytest
from django.core.management import CommandError, call_command
from django.test import Client
from django.utils import timezone

from webapp.submissions.models import Worker

pytestmark = pytest.mark.django_db


def beat(name: str, queue: str = "default", seconds_ago: float = 0) -> None:
    Worker.objects.create(name=name, queue=queue, beat_at=timezone.now() - timedelta(seconds=seconds_ago))


def test_healthz_counts_the_workers_whose_heartbeat_is_fresh_per_queue(client: Client, settings) -> None:
    settings.STALLED_AFTER_S = 30
    beat("a:1")
    beat("b:1")
    beat("c:1", queue="gpu", seconds_ago=5)
    beat("dead:1", seconds_ago=31)

    response = client.get("/healthz")

    assert response.status_code == 200
    assert response.headers["Cache-Control"].startswith("max-age=0")
    assert response.json() == {"status": "ok", "database": "ok", "workers": {"default": 2, "gpu": 1}}


def test_healthz_is_ok_without_workers_and_refuses_post(client: Client) -> None:
    assert client.get("/healthz").json()["workers"] == {}
    assert client.post("/healthz").status_code == 405


def test_workerhealth_passes_only_while_a_worker_of_this_host_beats(settings, capsys) -> None:
    settings.STALLED_AFTER_S = 30
    host = socket.gethostname()
    beat("elsewhere:7")
    with pytest.raises(CommandError, match=f"no grading worker of {host}"):
        call_command("workerhealth")

    beat(f"{host}:42", seconds_ago=60)  # gone silent
    with pytest.raises(CommandError):
        call_command("workerhealth")

    Worker.beat(f"{host}:42", "default")  # beats again
    call_command("workerhealth")
    assert f"{host}:42 (default)" in capsys.readouterr().out


def test_a_worker_forgets_rows_of_workers_dead_for_a_day() -> None:
    beat("old:1", seconds_ago=2 * 86400)
    beat("recent:1", seconds_ago=3600)
    Worker.forget_dead()
    assert list(Worker.objects.values_list("name", flat=True)) == ["recent:1"]
