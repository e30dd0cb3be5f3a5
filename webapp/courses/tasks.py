"""A course's own background work (Django Tasks API, the ``courses`` queue): a roster's
invitations, so that no web request holds the database while thousands of rows are written.

The models queue this task (``Course.upload_roster``, ``RosterUpload.resume``), so the task
reaches them through the app registry rather than importing them back.
"""

from __future__ import annotations

from django.apps import apps
from django_tasks import task


@task(queue_name="courses")
def enrol_roster(upload_id: int) -> str:
    """Invite an uploaded roster's rows in batches (``RosterUpload.run``)."""
    roster_upload_model = apps.get_model("courses", "RosterUpload")
    upload = roster_upload_model.objects.filter(pk=upload_id).first()
    if upload is None:
        return "gone"
    return upload.run()
