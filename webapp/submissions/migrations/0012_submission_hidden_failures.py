"""A graded submission keeps, beside its report, the hidden tests it failed and their inputs'
types and shapes (``Submission.hidden_failures``), for a course's problem statistics; filled
here for the submissions graded before.

The summary is made by the site's own reader of reports (``grading.hidden_failures``) rather
than a copy written out here: reports of schema 2 tell their failing inputs as code only, and
reading their types back takes the grader's parser of that text, not a second one.
"""

from django.db import migrations, models

from webapp import grading

BATCH = 500


def summarise_graded_reports(apps, schema_editor):
    submission_model = apps.get_model("submissions", "Submission")
    graded = submission_model.objects.filter(status="graded").exclude(report=None).only("id", "report")
    batch = []
    for submission in graded.iterator(chunk_size=BATCH):
        submission.hidden_failures = grading.hidden_failures(submission.report)
        if submission.hidden_failures is not None:
            batch.append(submission)
        if len(batch) >= BATCH:
            submission_model.objects.bulk_update(batch, ["hidden_failures"])
            batch = []
    submission_model.objects.bulk_update(batch, ["hidden_failures"])


class Migration(migrations.Migration):
    dependencies = [("submissions", "0011_ended_tests")]

    operations = [
        migrations.AddField(
            model_name="submission",
            name="hidden_failures",
            field=models.JSONField(blank=True, null=True),
        ),
        migrations.RunPython(summarise_graded_reports, migrations.RunPython.noop),
    ]
