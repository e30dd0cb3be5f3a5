"""``manage.py workerhealth``: exit 0 if a grading worker of this host is beating, 1 if not.

A container's health check: the worker's heartbeat (``Worker.beat``) stops when its process
hangs or dies, and the container is then reported unhealthy (and restarted where that is set).
"""

from __future__ import annotations

import socket
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from webapp.submissions.models import Worker


class Command(BaseCommand):
    help = "Exit 0 if a grading worker on this host has a fresh heartbeat."

    def handle(self, *args: Any, **options: Any) -> None:
        host = socket.gethostname()
        alive = Worker.alive().filter(name__startswith=f"{host}:")
        if not alive.exists():
            raise CommandError(f"no grading worker of {host} has beaten lately")
        self.stdout.write(", ".join(f"{worker.name} ({worker.queue})" for worker in alive))
