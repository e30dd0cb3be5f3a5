"""A course's own background work (Django Tasks API, the ``courses`` queue): a roster's
invitations, so that no web request holds the database while thousands of rows are written."""

from __future__ import annotations

from django_tasks import task

from webapp.courses.models import RosterUpload


@task(queue_name="courses")
def enrol_roster(upload_id: int) -> str:
    """Invite an uploaded roster's rows in batches (``RosterUpload.run``)."""
    upload = RosterUpload.objects.filter(pk=upload_id).first()
    if upload is None:
        return "gone"
    return upload.run()
